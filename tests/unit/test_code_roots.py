"""Python files named by trails and tool files stay inside the workspace root (docs/guides/security.md, Code).

``locate`` finds code without running it; ``CodeRoots`` refuses a file outside its roots unless
allowed. Each Python file here writes a marker when imported, so "nothing ran" is checked on disk.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.core.system.pycall import (
    CodeRoots,
    ImportFailure,
    OutsideRoot,
    locate,
    resolve_callable,
)
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.tools.script import script as script_tool
from pytest_trailblaze.workspace import WorkspaceLoader, code_roots, workspace_root

MARKING = (
    "from pathlib import Path\n"
    "Path(__file__).with_name('IMPORTED').write_text('x')\n"
    "def fn(*a): return 'ran'\n"
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``root/`` (the workspace root) holding ``inside.py``, and ``outside/evil.py`` next to it."""
    root = tmp_path / "root"
    (root / "trails").mkdir(parents=True)
    (root / "inside.py").write_text(MARKING)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "evil.py").write_text(MARKING)
    return root


def test_files_inside_the_root_are_located_without_running(tree: Path) -> None:
    roots = CodeRoots((tree,))
    assert locate("inside.py:fn", tree, roots) == (tree / "inside.py").resolve()
    assert locate("../inside.py:fn", tree / "trails", roots) == (tree / "inside.py").resolve()
    assert locate("textwrap:dedent", tree, CodeRoots((tree,), allow_outside=True)) is None  # from sys.path
    assert not (tree / "IMPORTED").exists()


@pytest.mark.parametrize("spec", ["textwrap:dedent", "json.decoder:JSONDecoder", "sys:exit", "pytest:fail"])
def test_installed_and_built_in_modules_are_outside_the_root(tree: Path, spec: str) -> None:
    with pytest.raises(OutsideRoot) as info:
        locate(spec, tree, CodeRoots((tree,)))
    module = spec.split(":")[0].split(".")[0]
    assert info.value.module == module
    assert f"module {module}, installed at " in info.value.why
    assert "an installed package or the standard library included" in info.value.why


@pytest.mark.parametrize(
    "spec",
    ["../outside/evil.py:fn", "{outside}/evil.py:fn", "inside/../../outside/evil.py:fn", "link.py:fn"],
)
def test_files_outside_the_root_are_refused(tree: Path, spec: str) -> None:
    (tree / "link.py").symlink_to(tree.parent / "outside" / "evil.py")
    spec = spec.format(outside=tree.parent / "outside")
    with pytest.raises(OutsideRoot) as info:
        locate(spec, tree, CodeRoots((tree,)))
    assert info.value.path == (tree.parent / "outside" / "evil.py").resolve()
    assert str(tree) in info.value.why
    with pytest.raises(OutsideRoot):
        resolve_callable(spec, tree, CodeRoots((tree,)))
    assert not (tree.parent / "outside" / "IMPORTED").exists()


def test_allow_outside_lifts_the_limit(tree: Path) -> None:
    assert resolve_callable("../outside/evil.py:fn", tree, CodeRoots((tree,), allow_outside=True))() == "ran"


def test_module_names_cannot_climb_out(tree: Path) -> None:
    with pytest.raises(ImportFailure, match="is not a module name"):
        locate("..outside.evil:fn", tree, CodeRoots((tree,)))


def test_a_module_beside_the_base_folder_is_contained_too(tree: Path) -> None:
    (tree / "trails" / "helper_xyz_contained.py").write_text(MARKING)
    roots = CodeRoots((tree / "trails",))
    assert locate("helper_xyz_contained:fn", tree / "trails", roots) == (
        tree / "trails" / "helper_xyz_contained.py"
    )
    with pytest.raises(OutsideRoot):
        locate("inside:fn", tree, CodeRoots((tree / "trails",)))


def test_roots_of_a_workspace(tmp_path: Path) -> None:
    config = tmp_path / "proj" / "trails" / "config"
    assert workspace_root(config) == (tmp_path / "proj").resolve()
    assert workspace_root(tmp_path / "elsewhere") == (tmp_path / "elsewhere").resolve()
    roots = code_roots(tmp_path / "rootdir", config, allow_outside=True)
    assert roots == CodeRoots(((tmp_path / "rootdir").resolve(), (tmp_path / "proj").resolve()), True)


# -- the framework `script` tool at run time ------------------------------------------------------
def run_script_tool(tree: Path, function: str, code: CodeRoots | None) -> str:
    registry = ToolRegistry(platform="web")
    registry.register(script_tool)
    ctx = ToolContext(
        registry, Memory(), DeviceInfo("web", "", 1, 1), trail_path=str(tree / "trails" / "t.trail.yaml")
    )
    ctx.code = code
    memory_fn = "{{fn}}"
    ctx.memory.set("fn", function)  # a value known only at run time (e.g. remembered from a page)
    return registry.execute("script", {"function": memory_fn}, ctx).message


def test_the_script_tool_refuses_a_file_outside_the_root_at_run_time(tree: Path) -> None:
    with pytest.raises(ToolFailure) as info:
        run_script_tool(tree, "../../outside/evil.py:fn", CodeRoots((tree,)))
    assert "is outside the workspace root" in str(info.value)
    assert not (tree.parent / "outside" / "IMPORTED").exists()
    assert run_script_tool(tree, "../inside.py:fn", CodeRoots((tree,))) == "ran"


# -- tool files -----------------------------------------------------------------------------------
def workspace(tmp_path: Path, tool_text: str) -> Path:
    config = tmp_path / "ws" / "trails" / "config"
    tools = config / "trailmaps" / "shop" / "tools"
    tools.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [shop]\n")
    (config / "trailmaps" / "shop" / "trailmap.yaml").write_text("id: shop\n")
    (tools / "shop_x.tool.yaml").write_text(textwrap.dedent(tool_text).lstrip())
    (tools / "local.py").write_text(MARKING)
    (tmp_path / "outside").mkdir(exist_ok=True)
    (tmp_path / "outside" / "evil.py").write_text(MARKING)
    return config


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("script: ../../../../../../outside/evil.py:fn", "4:9"),
        ("class: {outside}/evil.py:fn", "4:8"),
    ],
)
def test_a_tool_file_naming_code_outside_the_root_is_a_problem_at_its_line(
    tmp_path: Path, body: str, where: str
) -> None:
    params = "description: d\nparameters: []\n" if body.startswith("script") else "\n\n"
    text = f"id: shop_x\n{params}{body.format(outside=tmp_path / 'outside')}\n"
    config = workspace(tmp_path, text)
    ws = WorkspaceLoader().load(config)
    [problem] = ws.errors
    assert str(problem.span) == f"{config / 'trailmaps/shop/tools/shop_x.tool.yaml'}:{where}"
    assert problem.what.endswith("is outside the workspace root")
    assert "--trailblaze-allow-outside-code" in problem.fix
    assert ws.tools == []
    assert not (tmp_path / "outside" / "IMPORTED").exists()
    allowed = WorkspaceLoader(allow_outside_code=True).load(config)
    assert allowed.errors == [] and [t.name for t in allowed.tools] == ["shop_x"]


def test_a_script_tool_is_imported_at_its_first_call_only(tmp_path: Path) -> None:
    config = workspace(tmp_path, "id: shop_x\ndescription: d\nparameters: []\nscript: local.py:fn\n")
    ws = WorkspaceLoader().load(config)
    assert ws.problems == []
    local = config / "trailmaps" / "shop" / "tools"
    assert not (local / "IMPORTED").exists()
    registry = ToolRegistry(platform="web")
    registry.register_all(ws.tools)
    ctx = ToolContext(registry, Memory(), DeviceInfo("web", "", 1, 1))
    assert registry.execute("shop_x", {}, ctx).message == "ran"
    assert (local / "IMPORTED").exists()
    sys.modules.pop("trailblaze_tools.local", None)
