"""The package's layout holds: imports point down the layers, no package imports itself in a loop,
module names do not collide, modules stay small, ``plugin`` stays thin and ``core`` stays pure.

Read from the source with ``ast`` (nothing is imported), so a broken rule names the module and line.
An import under ``if TYPE_CHECKING:`` runs never and is left out; an import inside a function runs
when the function does and counts like one at the top of the module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import pytest_trailblaze

PACKAGE = Path(pytest_trailblaze.__file__).parent
MAX_LINES = 400
#: The pytest adapters together: what is not about pytest belongs to the session package below.
MAX_PLUGIN_LINES = 2500

#: The layers, top down: a module may import its own package and any package of a lower layer.
#: The root package (``pytest_trailblaze/__init__.py``) is the public API of the lowest rooms (the
#: MCP server reads its version there).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("plugin", "check", "cli"),
    ("schemas",),
    ("session",),
    ("agent", "tools", "drivers", "mcp", "workspace", "typescript", "evidence"),
    ("compat",),  # every private API the adapters and drivers touch; never core's
    ("<root>",),
    ("core",),
)

#: Imports between packages of one layer, each a room using a service of a peer below it in this
#: order (so that no two peers import each other).
PEER_EDGES = frozenset(
    {
        ("tools", "drivers"),  # tools act through the drivers
        ("typescript", "tools"),  # the TypeScript client's types list the built-in tools
        ("typescript", "mcp"),  # TypeScript tools are served over MCP
        ("typescript", "workspace"),  # TypeScript tools are a workspace's trailmaps' tools
        ("mcp", "workspace"),  # MCP servers are declared by targets of a workspace
        ("cli", "check"),  # `trailblaze check` is one of the command's subcommands
    }
)


#: Module names two packages share on purpose: the same idea at two layers (each docstring says so).
SHARED_NAMES = {
    "model.py": ("core/trail/model.py", "workspace/model.py"),
}

#: What ``core`` must never import: it runs under any test runner and any driver.
CORE_FORBIDDEN = ("pytest", "_pytest", "playwright", "appium", "mcp", "xdist", "execnet", "pluggy")


@dataclass(frozen=True)
class Import:
    source: str
    target: str
    line: int
    in_function: bool


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _room(module: str) -> str:
    """The top-level package (or root module) a module belongs to; ``<root>`` for the package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "<root>"


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The modules of this package an import statement loads (a package, or a module in it)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:
        base = module.split(".")
        if MODULES[module].name != "__init__.py":
            base = base[:-1]
        base = base[: len(base) - node.level + 1]
        stem = ".".join([*base, *([node.module] if node.module else [])])
    else:
        stem = node.module or ""
    for alias in node.names:
        full = f"{stem}.{alias.name}"
        yield full if full in MODULES else stem


def _imports(module: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement of the module that runs, and whether it sits inside a function."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                yield from walk(ast.Module(body=child.orelse, type_ignores=[]), in_function)
                continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, in_function
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(child, inner)

    yield from walk(ast.parse(MODULES[module].read_text(encoding="utf-8")), False)


def _edges() -> list[Import]:
    found = []
    for module in MODULES:
        for node, in_function in _imports(module):
            for target in _targets(module, node):
                if target.startswith("pytest_trailblaze") and target in MODULES and target != module:
                    found.append(Import(module, target, node.lineno, in_function))
    return found


EDGES = _edges()


def _layer(room: str) -> int:
    return next(i for i, rooms in enumerate(LAYERS) if room in rooms)


def test_every_package_has_a_layer() -> None:
    rooms = {_room(m) for m in MODULES}
    placed = {room for layer in LAYERS for room in layer}
    assert rooms <= placed, f"packages without a layer in LAYERS: {sorted(rooms - placed)}"


def test_no_import_goes_up_the_layers() -> None:
    upward = []
    for edge in EDGES:
        source, target = _room(edge.source), _room(edge.target)
        if source == target:
            continue
        lower = _layer(target) > _layer(source)
        if not lower and (source, target) not in PEER_EDGES:
            where = "inside a function" if edge.in_function else "at module level"
            upward.append(f"{edge.source}:{edge.line} imports {edge.target} ({where})")
    assert upward == [], "imports against the layers:\n" + "\n".join(upward)


def _loops(edges: list[Import]) -> list[frozenset[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for edge in edges:
        graph[edge.source].add(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.add(top)
                if top == node:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return groups


def test_no_package_imports_itself_in_a_loop() -> None:
    """A loop inside a package, held open by an import inside a function or not, is a cut in the
    wrong place: one of its modules belongs elsewhere."""
    inside = [e for e in EDGES if _room(e.source) == _room(e.target)]
    loops = [sorted(group) for group in _loops(inside)]
    assert loops == []


def test_no_two_modules_share_a_name_unless_they_say_why() -> None:
    by_name: dict[str, list[str]] = {}
    for path in MODULES.values():
        if path.name != "__init__.py":
            by_name.setdefault(path.name, []).append(path.relative_to(PACKAGE).as_posix())
    shared = {name: tuple(sorted(paths)) for name, paths in by_name.items() if len(paths) > 1}
    assert shared == SHARED_NAMES


@pytest.mark.parametrize("name", sorted(SHARED_NAMES))
def test_a_shared_name_is_the_same_idea_at_two_layers(name: str) -> None:
    """Each module of a shared name says, in its docstring, which other module it mirrors."""
    paths = SHARED_NAMES[name]
    for path in paths:
        doc = ast.get_docstring(ast.parse((PACKAGE / path).read_text(encoding="utf-8"))) or ""
        others = [other for other in paths if other != path]
        assert all(other.removesuffix(".py").replace("/", ".") in doc for other in others), (path, doc)


def test_no_module_is_over_the_line_limit() -> None:
    long = {
        path.relative_to(PACKAGE).as_posix(): count
        for path in MODULES.values()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_pytest_adapters_stay_thin() -> None:
    modules = (PACKAGE / "plugin").glob("*.py")
    assert sum(len(path.read_text(encoding="utf-8").splitlines()) for path in modules) < MAX_PLUGIN_LINES


def test_core_imports_no_runner_no_driver_no_protocol_library() -> None:
    found = []
    for module, path in MODULES.items():
        if _room(module) != "core":
            continue
        for node, _ in _imports(module):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level:
                continue
            found += [f"{path.relative_to(PACKAGE)}:{node.lineno} imports {n}" for n in names
                      if n.split(".")[0] in CORE_FORBIDDEN]  # fmt: skip
    assert found == []


def test_the_rules_see_the_imports_they_judge() -> None:
    """The reader itself: a known import at module level, one inside a function, and none from
    under ``TYPE_CHECKING``."""
    edges = {(e.source, e.target): e for e in EDGES}
    session = edges[("pytest_trailblaze.plugin.fixtures", "pytest_trailblaze.session.trailrun")]
    assert not session.in_function
    lazy = ("pytest_trailblaze.session.workspaces", "pytest_trailblaze.typescript.workspace_tools")
    assert edges[lazy].in_function
    hookspecs = [e for e in EDGES if e.source == "pytest_trailblaze.plugin.hookspecs"]
    assert all(_room(e.target) != "core" for e in hookspecs)  # its core imports are for typing only
