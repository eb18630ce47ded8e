"""How to start an MCP tool server: its command line, folder and environment.

``script:`` entries pick a runtime from the file type: ``.py`` runs on this Python, ``.ts`` on
bun when it is on PATH, else on node through tsx (from ``node_modules/.bin`` above the script, or
PATH); ``.js`` / ``.mjs`` on bun, else node, also inside an installed npm package (dependencies
are looked up as Node does, up the folders). ``command:`` entries run as written. Relative paths
resolve against the folder of the file that declares the server.

A ``script:`` that leaves the target's workspace root (``workspace.servers``) is refused here too,
before anything starts: the loader reports it at its line, but ``trailblaze check`` goes on to
list the other targets' tools, and must not start this one on the way.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..core.errors import ConfigurationError
from ..core.system.node_cache import compile_cache_env
from ..core.system.pycall import CodeRoots
from ..workspace.schema import McpServerSpec
from ..workspace.servers import outside_script

#: Our ``@trailblaze/scripting``, resolvable for TypeScript servers with no node_modules of their own.
SCRIPTING = Path(__file__).resolve().parent.parent / "typescript" / "assets"
NO_TS_RUNTIME = "No compatible TypeScript runtime found on PATH. Install bun or Node with tsx."
SCRIPT_SUFFIXES = (".py", ".ts", ".mts", ".js", ".mjs", ".cjs")


@dataclass(frozen=True)
class LaunchSpec:
    """A resolved server: what to run, where, with which extra environment."""

    name: str
    argv: tuple[str, ...]
    cwd: Path
    toolset_file: Path
    extra_env: Mapping[str, str] = field(default_factory=dict)

    @property
    def shown(self) -> str:
        """How messages name the server: its name and command line."""
        return f"{self.name} ({' '.join(self.argv)})"

    def environment(self, device_env: Mapping[str, str]) -> dict[str, str]:
        """The full parent environment, Node's compile cache (``core/system/node_cache.py``), the
        server's own ``env:``, then the TRAILBLAZE_* contract."""
        return {
            **os.environ,
            **compile_cache_env(),
            **self.extra_env,
            **device_env,
            "TRAILBLAZE_TOOLSET_FILE": str(self.toolset_file),
        }


def resolve_server(spec: McpServerSpec, declared_in: Path, roots: CodeRoots | None = None) -> LaunchSpec:
    """A ``LaunchSpec`` for a server entry, or a ``ConfigurationError`` saying what to fix.

    ``roots``: where a ``script:`` may lie (a loaded workspace's target has them; None: anywhere).
    """
    base = declared_in.parent
    if spec.script is not None:
        script = _absolute(base / spec.script)
        outside = outside_script(spec.script, script, roots) if roots is not None else None
        if outside is not None:
            what, why, fix = outside
            raise ConfigurationError(f"{declared_in}: {what}\n  why: {why}\n  fix: {fix}")
        if not script.is_file():
            raise ConfigurationError(
                f"{declared_in}: MCP server script {spec.script} not found (looked for {script})\n"
                f"  fix: fix the path; relative paths start at {base}"
            )
        cwd = _absolute(base / spec.cwd) if spec.cwd else script.parent
        name = spec.name or script.stem
        argv = script_argv(script)
        return LaunchSpec(name, argv, cwd, script, scripting_env(argv, script))
    command = spec.command or ""
    executable = _executable(command, base)
    cwd = _absolute(base / spec.cwd) if spec.cwd else base
    args = tuple(_arg_path(arg, base) for arg in spec.args)
    name = spec.name or Path(command).stem
    return LaunchSpec(name, (executable, *args), cwd, declared_in, dict(spec.env))


def _executable(command: str, base: Path) -> str:
    """A command as given: a relative path (``./bin/server``) against the declaring folder, else PATH."""
    if "/" in command:
        path = _absolute(base / command)
        if not path.exists():
            raise ConfigurationError(f"MCP server command {command} not found (looked for {path})")
        return str(path)
    found = shutil.which(command)
    if found is None:
        raise ConfigurationError(
            f"MCP server command '{command}' is not on PATH\n  fix: install it or give its path"
        )
    return found


def _arg_path(arg: str, base: Path) -> str:
    """Arguments that name an existing file next to the declaring file become absolute paths."""
    if arg.startswith(("./", "../")) and (base / arg).exists():
        return str(_absolute(base / arg))
    return arg


def _absolute(path: Path) -> Path:
    """An absolute, normalised path that keeps symlinks: a virtualenv's ``python`` must stay itself."""
    return Path(os.path.normpath(path.absolute()))


def script_argv(script: Path) -> tuple[str, ...]:
    """The command line for a script; a link without a suffix (``node_modules/.bin/mcp-server-x``)
    runs as the file it points to."""
    real = Path(os.path.realpath(script))
    suffix = script.suffix or real.suffix
    if suffix == ".py":
        return (sys.executable, str(script))
    if suffix not in SCRIPT_SUFFIXES:
        raise ConfigurationError(
            f"MCP server script {script.name}: unknown script type '{suffix}'\n"
            f"  fix: use a .py, .ts, .js or .mjs script, or `command:` with `args:`"
        )
    _require_dependencies(real)
    bun = find_bun()
    if bun:
        return (bun, "run", "--preload", str(SCRIPTING / "bun-preload.mjs"), str(script))
    node = shutil.which("node")
    if suffix in (".js", ".mjs", ".cjs") and node:
        return (node, str(script))
    tsx = find_tsx(real.parent)
    if tsx is None or node is None:
        raise ConfigurationError(NO_TS_RUNTIME)
    return (tsx, str(script))


def scripting_env(argv: tuple[str, ...], script: Path) -> dict[str, str]:
    """Under tsx, ``@trailblaze/scripting`` resolves through our tsconfig's ``paths``, unless the
    server has a tsconfig of its own (then its package must provide the module)."""
    if Path(argv[0]).name != "tsx":
        return {}
    for folder in (script.parent, *script.parent.parents):
        if (folder / "tsconfig.json").is_file():
            return {}
        if (folder / "package.json").is_file():
            break
    return {"TSX_TSCONFIG_PATH": str(SCRIPTING / "tsx-tsconfig.json")}


@functools.cache
def find_bun() -> str | None:
    return shutil.which("bun")


@functools.cache
def find_tsx(start: Path) -> str | None:
    """tsx from the nearest ``node_modules/.bin`` above ``start``, else from PATH."""
    for folder in (start, *start.parents):
        candidate = folder / "node_modules" / ".bin" / "tsx"
        if candidate.exists():
            return str(candidate)
    return shutil.which("tsx")


def _require_dependencies(script: Path) -> None:
    """The dependencies of the package a script belongs to must be installed, found as Node finds
    them: in ``node_modules`` of the package's folder or of any folder above it. So a script of an
    npm-installed package (``node_modules/@scope/server/dist/index.js``, its dependencies hoisted
    to the ``node_modules`` it sits in) runs, and a project nobody ran ``npm ci`` in says so."""
    package = next(
        (f for f in (script.parent, *script.parent.parents) if (f / "package.json").is_file()), None
    )
    if package is None:
        return
    manifest = package / "package.json"
    try:
        declared = json.loads(manifest.read_text(encoding="utf-8")).get("dependencies") or {}
    except (ValueError, OSError, AttributeError) as exc:
        raise ConfigurationError(
            f"MCP server script {script}: {manifest} cannot be read: {exc}\n  fix: make it valid JSON"
        ) from None
    missing = [name for name in declared if not _node_resolves(package, name)]
    if missing:
        raise ConfigurationError(
            f"MCP server script {script}: {manifest} needs {', '.join(sorted(missing))}, "
            f"installed in no node_modules folder at or above {package}\n"
            f"  fix: run `npm ci` (or `npm install`) in {package}"
        )


def _node_resolves(start: Path, package: str) -> bool:
    """True when Node would find ``package`` from ``start``: ``node_modules/<package>`` there or above."""
    return any((folder / "node_modules" / package).is_dir() for folder in (start, *start.parents))
