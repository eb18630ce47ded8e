"""Where the ``script:`` of a target's MCP server may lie, judged without running it
(docs/guides/security.md, Code).

Workspaces may come from strangers (a pull request, a shared repository), and a ``script:`` runs
as soon as a session, ``trailblaze check`` or ``trailblaze toolbox`` starts the target's servers.
So a script must lie inside the workspace root, or inside an installed npm package, unless the
user allows code outside it. The loader reports a script that leaves the root at its line, and
``mcp.launch`` refuses to start one all the same, whoever built the target.

``command:`` servers are not contained: a program named there (``npx``, ``uvx``, a path) is the
workspace author's explicit choice, run as written, like a command in a Makefile.
"""

from __future__ import annotations

from pathlib import Path

from ..core.system.pycall import ALLOW_OUTSIDE_OPTION, CodeRoots, OutsideRoot


def mcp_script_roots(root: Path, allow_outside: bool = False) -> CodeRoots:
    """The workspace root, and the ``node_modules`` folders at or above it: Node finds installed
    packages there, so a project's hoisted ``node_modules`` counts too."""
    root = root.resolve()
    modules = [f / "node_modules" for f in (root, *root.parents) if (f / "node_modules").is_dir()]
    return CodeRoots((root, *modules), allow_outside)


def outside_script(spec: str, path: Path, roots: CodeRoots) -> tuple[str, str, str] | None:
    """Why an MCP server ``script:`` may not run, as (what, why, fix), or None when it may."""
    try:
        roots.check(spec, path)
    except OutsideRoot as exc:
        root, *modules = roots.roots
        packages = f" or an npm package installed in {', '.join(map(str, modules))}" if modules else ""
        return (
            f"MCP server `script: {spec}` is outside the workspace root",
            f"it resolves to {exc.path}; MCP server scripts run only from inside {root}{packages}",
            f"move the server inside the workspace root (or install it as an npm package); if you "
            f"trust it, pass {ALLOW_OUTSIDE_OPTION} (pytest) or --allow-outside-code "
            f"(trailblaze check / toolbox)",
        )
    return None
