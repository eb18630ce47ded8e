"""Which files of ``trailmaps/<id>/tools/`` are tools, as upstream decides it.

Every ``.ts`` exporting ``trailblaze.tool(...)`` is a tool named by its export. Helper modules
(no tool export), ``*.test.ts``, ``*.d.ts`` and the ``mcp/`` folder (an MCP server's code) are not.
A legacy ``<name>.yaml`` descriptor makes a tool of a plain exported function of a ``.ts`` / ``.js``
file, and pins fields of a typed one. Descriptions come from the descriptor, else ``spec.description``,
else the TSDoc above the export; the input schema from the descriptor, else ``spec.inputSchema``,
else the ``<I>`` type. Syntax and type errors in tool files are problems at their ``file:line:col``.

Tool files run when a trail calls them, so they are held to the workspace root like Python code:
a ``.ts`` (or the whole ``tools/`` folder) that is a link leading outside it is a problem at the
file, and not a tool, unless outside code is allowed. Like every workspace file, a tool file above
the size limit is refused unread (a 2 GB sparse ``.ts`` would cost gigabytes of memory).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from yaml.nodes import MappingNode

from ..core.errors import Problem, SourceSpan
from ..core.jsondata import JsonObject
from ..core.system.files import DEFAULT_MAX_BYTES, FileRefused, read_source, refusal, walk
from ..core.system.pycall import ALLOW_OUTSIDE_OPTION, CodeRoots
from ..core.trail.yamlsource import Source
from .analysis import Analysis, TypedExport, analyze
from .runtime import NO_TYPESCRIPT, find_node, find_typescript
from .sidecars import MissingScript, SidecarTool, is_sidecar, read_sidecar

SDK = "@trailblaze/scripting"
CODE_SUFFIXES = (".ts", ".mts", ".js", ".mjs")
SKIPPED_FOLDERS = {"mcp", "node_modules", "dist"}
_TYPED_EXPORT = re.compile(
    r"^export\s+const\s+([A-Za-z_$][\w$]*)\s*=\s*(?:[\w$]+\.)*tool\s*[<(]", re.MULTILINE
)


@dataclass
class TsToolDef:
    """A TypeScript tool of a trailmap: where its code is and what the registry needs to know."""

    name: str
    trailmap: str
    tools_dir: Path
    file: Path
    export: str
    span: SourceSpan
    description: str = ""
    schema: JsonObject = field(default_factory=lambda: {"type": "object"})
    result_schema: JsonObject | None = None
    spec: JsonObject = field(default_factory=dict)
    typed: bool = True


@dataclass(frozen=True)
class ToolMap:
    """The tools ``ctx.tools`` may call, for type checks: a cheap key, and the typings on demand."""

    key: str
    build: Callable[[], tuple[str, str]]


def shown(path: Path) -> str:
    """``path`` relative to the current folder where it lies below it; a link is named, not followed."""
    try:
        return str((path.parent.resolve() / path.name).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def code_files(
    tools_dir: Path,
    code: CodeRoots | None = None,
    refused: list[Problem] | None = None,
    limit: int = DEFAULT_MAX_BYTES,
) -> Iterator[Path]:
    """Candidate code files under ``tools/``: no tests, no declarations, no ``mcp/`` or hidden folders.

    A file whose real path leaves ``code``'s roots, or that is larger than ``limit``, is not a
    candidate: why goes to ``refused`` (when given), for the caller to report."""
    for path in tool_tree(tools_dir):
        if not path.is_file():
            continue
        name = path.name
        if name.endswith(CODE_SUFFIXES) and not re.search(r"\.(test|spec)\.[mc]?[jt]s$|\.d\.[mc]?ts$", name):
            problem = unusable(path, code, limit)
            if problem is None:
                yield path
            elif refused is not None:
                refused.append(problem)


def tool_tree(tools_dir: Path) -> list[Path]:
    """Everything under ``tools/``, sorted, but what is in hidden, ``mcp/``, ``node_modules/`` or
    ``dist/`` folders; links to folders are not followed, so a link cannot widen the walk."""
    found = []
    for path in walk(tools_dir, lambda _: True):
        parts = path.relative_to(tools_dir).parts
        if not any(p.startswith(".") or p in SKIPPED_FOLDERS for p in parts[:-1]):
            found.append(path)
    return sorted(found)


def tools_folder(trailmap_dir: Path, code: CodeRoots | None) -> tuple[Path | None, Problem | None]:
    """The trailmap's ``tools/`` folder, or None when it has none; with the problem of a
    ``tools/`` that is a link leading outside the workspace root (then neither read nor walked)."""
    tools_dir = trailmap_dir / "tools"
    if not tools_dir.is_dir():
        return None, None
    if code is not None and not held(tools_dir, code):
        return None, outside_problem(tools_dir, code)
    return tools_dir, None


def unusable(path: Path, code: CodeRoots | None, limit: int) -> Problem | None:
    """Why the code file ``path`` is neither read nor run (a link out, too big), or None."""
    if code is not None and not held(path, code):
        return outside_problem(path, code)
    too_big = refusal(path, limit=limit)
    return too_big.problem(shown(path)) if too_big is not None else None


def held(path: Path, code: CodeRoots | None) -> bool:
    """Whether code at ``path`` (links followed) may run: inside ``code``'s roots, or allowed anyway."""
    return code is None or code.allow_outside or code.holds(path.resolve())


def outside_problem(path: Path, code: CodeRoots) -> Problem:
    """A tool file, test or ``tools/`` folder that is a link leading outside the workspace root,
    at the link."""
    root = " or ".join(str(r) for r in code.roots)
    what = "folder" if path.is_dir() else "file"
    return Problem(
        SourceSpan(shown(path), 1, 1),
        f"{path.name} is a link that leads outside the workspace root",
        why=f"it points to {path.resolve()}; TypeScript tools and their tests run only from inside "
        f"{root}, so a link in tools/ cannot bring in code from elsewhere on this machine",
        fix=f"copy the {what} into the trailmap instead of linking to it; if you trust it, pass "
        f"{ALLOW_OUTSIDE_OPTION} (pytest) or --allow-outside-code (trailblaze check / toolbox)",
    )


@dataclass
class Discovered:
    """A trailmap's TypeScript tools, the problems of its files, and the problems that only mean
    some declared tool is missing (a descriptor's script is not there)."""

    tools: list[TsToolDef] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    missing: list[Problem] = field(default_factory=list)


def discover(
    trailmap: str,
    trailmap_dir: Path,
    tool_map: ToolMap,
    code: CodeRoots | None = None,
    limit: int = DEFAULT_MAX_BYTES,
) -> Discovered:
    """The TypeScript tools of one trailmap and the problems found reading them; with ``code``,
    only files inside its roots (the workspace's) are read and become tools; files above
    ``limit`` bytes are refused unread."""
    tools_dir, linked_out = tools_folder(trailmap_dir, code)
    if tools_dir is None:
        return Discovered(problems=[linked_out] if linked_out is not None else [])
    problems: list[Problem] = []
    missing: list[Problem] = []
    files = list(code_files(tools_dir, code, problems, limit))
    described = _sidecars(tools_dir, problems, missing, code)
    sidecars = [s for s in described if unusable(s.script, code, limit) is None]
    typed_files = [f for f in files if f.suffix in (".ts", ".mts") and _mentions_sdk(f)]
    analysis = _analysis(trailmap_dir, tools_dir, typed_files, files, tool_map, problems)
    defs: dict[str, TsToolDef] = {}
    for name, exports in analysis.typed.items():
        first = exports[0]
        for other in exports[1:]:
            problems.append(_duplicate(name, other.file, other.line, other.col, first.file))
        defs[name] = _typed_def(trailmap, tools_dir, first, problems)
    for sidecar in sidecars:
        _merge_sidecar(trailmap, tools_dir, sidecar, defs, analysis, problems)
    problems += [_diagnostic(d.file, d.line, d.col, d.code, d.message) for d in analysis.diagnostics]
    return Discovered(list(defs.values()), problems, missing)


def _mentions_sdk(path: Path) -> bool:
    try:
        return SDK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _sidecars(
    tools_dir: Path, problems: list[Problem], missing: list[Problem], code: CodeRoots | None
) -> list[SidecarTool]:
    """The descriptors of ``tools/``: ``<name>.yaml`` files with a ``script:`` (others are not ours).

    A descriptor is read like any workspace file (a regular file, inside the roots); the caller
    drops those whose script is refused (the script itself is reported as a tool file)."""
    found: list[SidecarTool] = []
    roots = None if code is None or code.allow_outside else code.roots
    for path in sorted(tools_dir.glob("*.y*ml")):
        if not is_sidecar(path):
            continue
        src = Source(shown(path))
        try:
            node = src.compose(read_source(path, root=roots))
        except FileRefused as refused:
            if roots is not None and not held(path, code):
                problems.append(refused.problem(shown(path)))
            continue
        if isinstance(node, MappingNode) and any(str(k.value) == "script" for k, _ in node.value):
            try:
                found += read_sidecar(src, node, path, tools_dir)
            except MissingScript as gone:
                missing.append(gone.problem)
            problems += src.problems
    return found


def _analysis(
    trailmap_dir: Path,
    tools_dir: Path,
    files: list[Path],
    every_file: list[Path],
    tool_map: ToolMap,
    problems: list[Problem],
) -> Analysis:
    """The compiler's reading of ``files``; without a compiler, exports found by their shape."""
    if not files:
        return Analysis()
    starts = (tools_dir.resolve(),)
    typescript = find_typescript(starts)
    node = find_node(starts)
    if typescript is None or node is None:
        problems.append(Problem(SourceSpan(shown(trailmap_dir / "trailmap.yaml"), 1, 1), *_no_compiler()))
        return _by_shape(files)
    analysis = analyze(
        tools_dir,
        files,
        typescript=typescript,
        node=node,
        tool_map=tool_map.build,
        map_key=tool_map.key,
        depends_on=every_file,
    )
    if analysis.failure is not None:
        problems.append(Problem(SourceSpan(shown(tools_dir), 1, 1), analysis.failure))
    return analysis


def _no_compiler() -> tuple[str, str, str, str]:
    what, fix = NO_TYPESCRIPT.split("\n  fix: ")
    return what, "", fix, "warning"


def _by_shape(files: list[Path]) -> Analysis:
    """Typed tools found by their shape (``export const x = trailblaze.tool(``): no schema, no TSDoc."""
    analysis = Analysis()
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _TYPED_EXPORT.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            col = match.start(1) - (text.rfind("\n", 0, match.start()) + 1) + 1
            export = TypedExport(match.group(1), path, line, col, {}, (), "", {"type": "object"}, None)
            analysis.typed.setdefault(export.name, []).append(export)
    return analysis


def _typed_def(trailmap: str, tools_dir: Path, export: TypedExport, problems: list[Problem]) -> TsToolDef:
    spec = dict(export.spec)
    for line, col, message in export.spec_problems:
        problems.append(
            Problem(
                SourceSpan(shown(export.file), line, col),
                f"tool '{export.name}': {message}",
                fix="write the value itself in the spec (a string, number, boolean, list or object)",
            )
        )
    described = spec.get("description")
    description = described if isinstance(described, str) else export.description
    declared = spec.get("inputSchema")
    schema = declared if isinstance(declared, dict) else dict(export.input_schema)
    return TsToolDef(
        name=export.name,
        trailmap=trailmap,
        tools_dir=tools_dir,
        file=export.file,
        export=export.name,
        span=SourceSpan(shown(export.file), export.line, export.col),
        description=" ".join((description or "").split()),
        schema=schema,
        result_schema=dict(export.result_schema) if export.result_schema else None,
        spec=spec,
    )


def _merge_sidecar(
    trailmap: str,
    tools_dir: Path,
    sidecar: SidecarTool,
    defs: dict[str, TsToolDef],
    analysis: Analysis,
    problems: list[Problem],
) -> None:
    """A descriptor's tool: its fields over a typed export of that name, or a plain function."""
    typed = defs.get(sidecar.name)
    if typed is not None and typed.file.resolve() != sidecar.script:
        problems.append(
            _duplicate(sidecar.name, Path(sidecar.span.path), sidecar.span.line, sidecar.span.col, typed.file)
        )
        return
    if typed is None:
        if not _exports_function(sidecar.script, sidecar.name, analysis):
            problems.append(
                Problem(
                    sidecar.span,
                    f"scripted tool '{sidecar.name}': {sidecar.script.name} does not export "
                    "a function with that name",
                    fix=f"export it (`export async function {sidecar.name}(args, ctx, client)`) "
                    "or fix `name:`",
                )
            )
            return
        typed = TsToolDef(
            sidecar.name, trailmap, tools_dir, sidecar.script, sidecar.name, sidecar.span, typed=False
        )
        defs[sidecar.name] = typed
    if sidecar.description is not None:
        typed.description = " ".join(sidecar.description.split())
    if sidecar.schema is not None:
        typed.schema = sidecar.schema
    typed.spec = {**typed.spec, **sidecar.spec}


def _exports_function(script: Path, name: str, analysis: Analysis) -> bool:
    if any(f.resolve() == script for f in analysis.functions.get(name, ())):
        return True
    text = script.read_text(encoding="utf-8", errors="replace")
    word = re.escape(name)
    pattern = rf"^export\s+(?:async\s+)?(?:function\s*\*?\s*{word}\b|(?:const|let|var)\s+{word}\b)"
    return re.search(pattern, text, re.MULTILINE) is not None


def _duplicate(name: str, file: Path, line: int, col: int, first: Path) -> Problem:
    return Problem(
        SourceSpan(shown(file), line, col),
        f"tool '{name}' is exported twice",
        why=f"also exported by {shown(first)}; tool names are global",
        fix="rename one of the exports",
    )


def _diagnostic(file: Path, line: int, col: int, code: int, message: str) -> Problem:
    lines = message.splitlines() or [""]
    return Problem(
        SourceSpan(shown(file), line, col),
        f"TypeScript error TS{code}: {lines[0]}",
        why="\n       ".join(lines[1:]),
        fix="fix the code; the tool cannot run until it compiles",
    )
