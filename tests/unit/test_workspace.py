"""Loading workspaces (docs/guides/tools.md): ``trails/config`` with trailblaze.yaml, trailmaps,
targets, toolsets, tools.

Each workspace is written into ``tmp_path``; every problem is checked for its ``file:line:col``,
its wording and that it says how to fix it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import Problem, UnsupportedToolError
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.tooling.tooldef import PythonTool, Tool, ToolDescriptor, ToolResult
from pytest_trailblaze.session.workspaces import typescript_tools
from pytest_trailblaze.workspace import (
    Target,
    Workspace,
    WorkspaceLoader,
    enabled_toolsets,
    find_config_dir,
    load_file,
    toolbox,
)
from pytest_trailblaze.workspace.file_tools import CompositeTool, ScriptTool, UnavailableTool
from pytest_trailblaze.workspace.framework import FRAMEWORK_DEFAULTS, FRAMEWORK_TOOLSETS
from pytest_trailblaze.workspace.schema import PlatformConfig, ToolsetConfig

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "trails" / "config"
BUILTINS = ("web_click", "web_navigate", "tap_builtin", "script")


def write(config: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = config / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return config


def workspace(tmp_path: Path, files: dict[str, str], **loader: Any) -> Workspace:
    """Load ``files`` (paths relative to ``trails/config``); a bare trailblaze.yaml unless given."""
    config = tmp_path / "trails" / "config"
    write(config, {"trailblaze.yaml": "targets: []\n", **files})
    return WorkspaceLoader(builtin_names=BUILTINS, scripted_tools=typescript_tools, **loader).load(config)


def at(tmp_path: Path, rel: str, line: int, col: int) -> str:
    return f"{(tmp_path / 'trails' / 'config' / rel).resolve()}:{line}:{col}"


def only(problems: list[Problem], severity: str = "error") -> Problem:
    assert len(problems) == 1, "\n".join(p.format() for p in problems)
    assert problems[0].severity == severity, problems[0].format()
    assert problems[0].fix, f"every problem says how to fix it: {problems[0].format()}"
    return problems[0]


def shop_tool(name: str, body: str = "tools: []", extra: str = "") -> str:
    return f"id: {name}\ndescription: A tool.\nparameters: []\n{extra}{body}\n"


# -- find_config_dir ---------------------------------------------------------------------------------


@pytest.fixture
def no_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRAILBLAZE_CONFIG_DIR", raising=False)


def test_find_config_dir_walks_up_from_a_trail_file(tmp_path: Path, no_env: None) -> None:
    config = write(tmp_path / "repo" / "trails" / "config", {"trailblaze.yaml": "targets: []\n"})
    trail = tmp_path / "repo" / "trails" / "web" / "checkout" / "cart.trail.yaml"
    trail.parent.mkdir(parents=True)
    trail.write_text("- prompts: []\n")
    assert find_config_dir(trail) == config
    assert find_config_dir(trail.parent) == config
    assert find_config_dir(tmp_path / "repo") == config


def test_find_config_dir_needs_a_trailblaze_yaml(tmp_path: Path, no_env: None) -> None:
    (tmp_path / "inner" / "trails" / "config").mkdir(parents=True)  # no trailblaze.yaml: skipped
    outer = write(tmp_path / "trails" / "config", {"trailblaze.yaml": "targets: []\n"})
    assert find_config_dir(tmp_path / "inner" / "trails" / "x.trail.yaml") == outer


def test_find_config_dir_without_a_workspace(tmp_path: Path, no_env: None) -> None:
    assert find_config_dir(tmp_path / "a.trail.yaml") is None


def test_find_config_dir_override_and_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_env: None
) -> None:
    walked = write(tmp_path / "trails" / "config", {"trailblaze.yaml": "targets: []\n"})
    other = tmp_path / "elsewhere"
    other.mkdir()
    from_env = tmp_path / "env-config"
    trail = tmp_path / "trails" / "a.trail.yaml"
    assert find_config_dir(trail) == walked
    assert find_config_dir(trail, other) == other.resolve()
    monkeypatch.setenv("TRAILBLAZE_CONFIG_DIR", str(from_env))
    assert find_config_dir(trail) == from_env.resolve()
    assert find_config_dir(trail, str(other)) == other.resolve(), "the option wins over the environment"
    monkeypatch.chdir(tmp_path)
    assert find_config_dir(trail, "elsewhere") == other.resolve()


def test_a_config_dir_without_trailblaze_yaml_is_a_problem(tmp_path: Path) -> None:
    ws = WorkspaceLoader().load(tmp_path)
    problem = only(ws.problems)
    assert str(problem.span) == f"{tmp_path.resolve()}:1:1"
    assert problem.what == f"no trailblaze.yaml in {tmp_path.resolve()}"
    assert problem.fix == "point --trailblaze-config-dir at a folder holding trailblaze.yaml"


# -- trailblaze.yaml ---------------------------------------------------------------------------------

THREE_TRAILMAPS = {
    "trailmaps/shop/trailmap.yaml": """
        id: shop
        dependencies: [trailblaze, common]
        target:
          display_name: Shop
        """,
    "trailmaps/common/trailmap.yaml": "id: common\ndependencies: [base]\n",
    "trailmaps/base/trailmap.yaml": "id: base\n",
    "trailmaps/bank/trailmap.yaml": "id: bank\ntarget:\n  display_name: Bank\n",
    "trailmaps/shop/tools/shop_a.tool.yaml": shop_tool("shop_a"),
    "trailmaps/base/tools/base_b.tool.yaml": shop_tool("base_b"),
    "trailmaps/bank/tools/bank_c.tool.yaml": shop_tool("bank_c"),
}


def test_targets_select_trailmaps_and_their_dependencies(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {**THREE_TRAILMAPS, "trailblaze.yaml": "targets: [shop]\n"})
    assert ws.problems == []
    assert list(ws.trailmaps) == ["shop", "common", "base"]
    assert list(ws.targets) == ["shop"]
    assert sorted(ws.tool_defs) == ["base_b", "shop_a"]


@pytest.mark.parametrize("text", ["targets: []\n", "defaults:\n  target: bank\n", "targets:\n"])
def test_no_targets_loads_every_trailmap(tmp_path: Path, text: str) -> None:
    ws = workspace(tmp_path, {**THREE_TRAILMAPS, "trailblaze.yaml": text})
    assert [p for p in ws.problems if "targets" not in p.what] == []
    assert sorted(ws.trailmaps) == ["bank", "base", "common", "shop"]
    assert sorted(ws.targets) == ["bank", "shop"]
    assert sorted(ws.tool_defs) == ["bank_c", "base_b", "shop_a"]


def test_a_listed_but_missing_trailmap_is_an_error_at_its_entry(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {**THREE_TRAILMAPS, "trailblaze.yaml": "targets:\n  - bank\n  - shpo\n"})
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, "trailblaze.yaml", 3, 5)
    assert problem.what == "trailmap 'shpo' is listed but trailmaps/shpo/trailmap.yaml does not exist"
    assert problem.fix == "did you mean 'shop'?"
    assert list(ws.trailmaps) == ["bank"]


def test_a_missing_trailmap_without_a_close_name(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailblaze.yaml": "targets: [zzz]\n"})
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, "trailblaze.yaml", 1, 11)
    assert problem.fix == "create trailmaps/zzz/trailmap.yaml, or remove 'zzz'"


def test_a_missing_dependency_is_reported(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\ndependencies: [nothere]\n"})
    assert only(ws.problems).what == (
        "trailmap 'nothere' is listed but trailmaps/nothere/trailmap.yaml does not exist"
    )


def test_a_listed_trailmap_with_errors_is_reported_once_not_as_missing(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailblaze.yaml": "targets: [shop]\n",
            "trailmaps/shop/trailmap.yaml": "id: shop\ntarget:\n  platforms: {}\n",
        },
    )
    problem = only(ws.problems)
    assert problem.what == "missing `display_name:` in trailmap.yaml.target"
    assert ws.trailmaps == {}


def test_targets_name_trailmap_ids_not_folders(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailblaze.yaml": "targets: [shop]\n",
            "trailmaps/shop-app/trailmap.yaml": "id: shop\ntarget:\n  display_name: Shop\n",
        },
    )
    assert ws.problems == []
    assert ws.trailmaps == {"shop": (tmp_path / "trails/config/trailmaps/shop-app/trailmap.yaml").resolve()}
    assert list(ws.targets) == ["shop"]


def test_two_trailmaps_with_one_id(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {"trailmaps/a/trailmap.yaml": "id: shop\n", "trailmaps/b/trailmap.yaml": "# copy\nid: shop\n"},
    )
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, "trailmaps/b/trailmap.yaml", 2, 5)
    assert problem.what == "trailmap id 'shop' is declared twice"
    assert (
        problem.why == f"also declared by {(tmp_path / 'trails/config/trailmaps/a/trailmap.yaml').resolve()}"
    )
    assert list(ws.trailmaps) == ["shop"]


def test_framework_trailmaps_may_be_listed_without_a_folder(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailblaze.yaml": "targets: [trailblaze, web]\n"})
    assert ws.problems == []


def test_an_all_comments_trailblaze_yaml_is_a_warning(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {**THREE_TRAILMAPS, "trailblaze.yaml": "# nothing yet\n# targets: [shop]\n"})
    problem = only(ws.problems, "warning")
    assert str(problem.span) == at(tmp_path, "trailblaze.yaml", 1, 1)
    assert problem.what == "trailblaze.yaml is empty or only comments; it is ignored"
    assert problem.fix == "list your targets: `targets: [myApp]`"
    assert sorted(ws.trailmaps) == ["bank", "base", "common", "shop"]


def test_unknown_and_removed_keys_of_trailblaze_yaml(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailblaze.yaml": "targets: []\ndefaults:\n  traget: shop\ntrailmaps: [a]\n"})
    first, second = sorted(ws.problems, key=Problem.sort_key)
    assert str(first.span) == at(tmp_path, "trailblaze.yaml", 3, 3)
    assert first.what == "unknown key 'traget' in trailblaze.yaml.defaults"
    assert first.fix == "did you mean 'target'?"
    assert str(second.span) == at(tmp_path, "trailblaze.yaml", 4, 1)
    assert second.what == "unknown key 'trailmaps' in trailblaze.yaml"
    assert second.why == "trailblaze.yaml allows: targets, defaults, toolsets, tools, providers, llm"


def test_malformed_yaml_is_a_problem_with_its_position(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\ntarget: [\n"})
    problem = only(ws.problems)
    assert str(problem.span).startswith(at(tmp_path, "trailmaps/shop/trailmap.yaml", 3, 1).rsplit(":", 2)[0])
    assert "malformed YAML" in problem.what


# -- targets --------------------------------------------------------------------------------------

SHOP_TARGET = """
id: shop
dependencies: [trailblaze]
target:
  display_name: Shop app
  tools: [shop_login, shop_web_open]
  platforms:
    android:
      app_ids: [com.shop.android, com.shop.debug]
      tool_sets: [core_interaction, memory]
      excluded_tools: [swipe]
    ios:
      app_ids: [com.shop.ios]
    web: {}
    desktop:
      base_url: http://localhost
  mcp_servers:
    - script: tools/server.ts
    - command: python3
      args: [-m, shop_tools]
      env: { SHOP_ENV: test }
"""


#: The MCP server script SHOP_TARGET declares; a missing script is a load problem of its own.
SERVER_TS = "// an MCP server\n"


def test_a_trailmap_target(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path, {"trailmaps/shop/trailmap.yaml": SHOP_TARGET, "trailmaps/shop/tools/server.ts": SERVER_TS}
    )
    assert ws.problems == []
    target = ws.targets["shop"]
    assert isinstance(target, Target)
    assert (target.id, target.display_name) == ("shop", "Shop app")
    assert target.source == (tmp_path / "trails/config/trailmaps/shop/trailmap.yaml").resolve()
    assert str(target.span) == at(tmp_path, "trailmaps/shop/trailmap.yaml", 4, 3)
    assert target.tools == ["shop_login", "shop_web_open"]
    assert target.dependencies == ["trailblaze"]
    assert sorted(target.platforms) == ["android", "desktop", "ios", "web"]
    assert target.app_ids() == {"com.shop.android", "com.shop.debug", "com.shop.ios"}
    android = target.platform("android")
    assert android is not None
    assert android.tool_sets == ["core_interaction", "memory"]
    assert android.excluded_tools == ["swipe"]
    assert target.platform("web") == PlatformConfig(), "`{}` inherits everything"
    assert target.platform("compose") is None
    [script, command] = target.mcp_servers
    assert (script.script, script.command) == ("tools/server.ts", None)
    assert (command.command, command.args, command.env) == (
        "python3",
        ["-m", "shop_tools"],
        {"SHOP_ENV": "test"},
    )


def test_desktop_reads_the_compose_platform(tmp_path: Path) -> None:
    text = "id: shop\ntarget:\n  display_name: S\n  platforms:\n    compose:\n      base_url: x\n"
    target = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": text}).targets["shop"]
    desktop = target.platform("desktop")
    assert desktop is not None
    assert desktop.base_url == "x"


def test_a_target_id_may_differ_from_the_trailmap_id(tmp_path: Path) -> None:
    text = "id: shop\ntarget:\n  id: shopApp\n  display_name: S\n"
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": text})
    assert list(ws.targets) == ["shopApp"]


def test_a_library_trailmap_has_no_target(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailmaps/common/trailmap.yaml": "id: common\nexports: [common_a]\n"})
    assert ws.problems == []
    assert ws.targets == {}
    assert list(ws.trailmaps) == ["common"]


def test_a_legacy_target_file(tmp_path: Path) -> None:
    text = """
    id: legacy
    platforms:
      ios:
        app_ids: [com.legacy]
    tools:
      - legacy_tool
      - script: tools/x.ts
        name: legacy_scripted
    mcp_servers:
      - command: node
        args: [server.js]
    """
    ws = workspace(tmp_path, {"targets/legacy.yaml": text})
    assert ws.problems == []
    target = ws.targets["legacy"]
    assert target.display_name == "legacy"
    assert target.source == (tmp_path / "trails/config/targets/legacy.yaml").resolve()
    assert target.app_ids() == {"com.legacy"}
    assert target.tools == ["legacy_tool"]
    assert [s.command for s in target.mcp_servers] == ["node"]


def test_duplicate_target_ids(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailmaps/shop/trailmap.yaml": SHOP_TARGET,
            "trailmaps/shop/tools/server.ts": SERVER_TS,
            "targets/shop.yaml": "id: shop\ndisplay_name: Old\n",
        },
    )
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, "targets/shop.yaml", 1, 1)
    assert problem.what == "target 'shop' is declared twice"
    assert problem.why == f"also declared at {at(tmp_path, 'trailmaps/shop/trailmap.yaml', 4, 3)}"
    assert problem.fix == "rename or remove one of them"
    assert ws.targets["shop"].display_name == "Shop app"


# -- toolsets -------------------------------------------------------------------------------------


def test_toolsets_from_every_place(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailblaze.yaml": """
                targets: [shop]
                toolsets:
                  - id: inlineSet
                    description: Inline.
                    tools: [a]
                  - ref: shared/refSet.yaml
                """,
            "shared/refSet.yaml": "id: refSet\nplatforms: [web]\ntools: [b]\n",
            "trailmaps/shop/trailmap.yaml": "id: shop\ntoolsets: [extra/*.yaml]\n",
            "trailmaps/shop/toolsets/shopSet.yaml": "id: shopSet\ndrivers: [playwright-native]\ntools: [c]\n",
            "trailmaps/shop/extra/listed.yaml": "id: listedSet\nalways_enabled: true\ntools: [d]\n",
        },
    )
    assert ws.problems == []
    assert set(FRAMEWORK_TOOLSETS) <= set(ws.toolsets)
    assert ws.toolsets["inlineSet"].tools == ["a"]
    assert ws.toolsets["inlineSet"].description == "Inline."
    assert ws.toolsets["refSet"].platforms == ["web"]
    assert ws.toolsets["shopSet"].drivers == ["playwright-native"]
    assert ws.toolsets["listedSet"].always_enabled is True


def test_a_missing_ref_is_an_error_at_the_entry(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path, {"trailblaze.yaml": "toolsets:\n  - ref: nope.yaml\ntools:\n  - ref: t.tool.yaml\n"}
    )
    first, second = sorted(ws.problems, key=Problem.sort_key)
    assert str(first.span) == at(tmp_path, "trailblaze.yaml", 2, 5)
    assert first.what == "`ref: nope.yaml` does not exist"
    assert first.fix == "fix the path"
    assert str(second.span) == at(tmp_path, "trailblaze.yaml", 4, 5)
    assert second.what == "`ref: t.tool.yaml` does not exist"


def test_a_bad_inline_toolset_points_into_trailblaze_yaml(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailblaze.yaml": "toolsets:\n  - id: s\n    tols: [a]\n"})
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, "trailblaze.yaml", 3, 5)
    assert problem.what == "unknown key 'tols' in toolset"
    assert problem.fix == "did you mean 'tools'?"


@pytest.mark.parametrize(
    ("text", "key", "col"), [("toolsets: {a: b}\n", "toolsets", 11), ("tools: {x: y}\n", "tools", 8)]
)
def test_toolsets_or_tools_that_are_not_a_list_are_one_problem(
    tmp_path: Path, text: str, key: str, col: int
) -> None:
    ws = workspace(tmp_path, {"trailblaze.yaml": text})
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, "trailblaze.yaml", 1, col)
    assert problem.what == f"trailblaze.yaml: `{key}`: Input should be a valid list"
    assert not ws.tool_defs, "nothing is read from a malformed list"


# -- tool files ---------------------------------------------------------------------------------------


def test_tool_files_are_found_in_tools_trailheads_and_shortcuts(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailmaps/shop/trailmap.yaml": "id: shop\n",
            "trailmaps/shop/tools/shop_a.tool.yaml": shop_tool("shop_a"),
            "trailmaps/shop/tools/web/deep/shop_web_b.tool.yaml": shop_tool("shop_web_b"),
            "trailmaps/shop/trailheads/web/shop_home.trailhead.yaml": shop_tool(
                "shop_home", extra="trailhead:\n  to: shop/home\n"
            ),
            "trailmaps/shop/shortcuts/shop_toCart.shortcut.yaml": (
                "id: shop_toCart\nshortcut: {from: a, to: b}\n"
            ),
            "trailmaps/shop/tools/notes.yaml": "not: a tool file\n",
        },
    )
    assert ws.problems == []
    assert sorted(ws.tool_defs) == ["shop_a", "shop_home", "shop_toCart", "shop_web_b"]
    assert {d.trailmap for d in ws.tool_defs.values()} == {"shop"}
    modes = {name: d.mode for name, d in ws.tool_defs.items()}
    assert modes == {
        "shop_a": "tools",
        "shop_web_b": "tools",
        "shop_home": "tools",
        "shop_toCart": "metadata",
    }
    assert sorted(t.name for t in ws.tools) == ["shop_a", "shop_home", "shop_web_b"]


def test_tools_listed_in_trailblaze_yaml(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailblaze.yaml": """
                tools:
                  - id: ws_inline
                    description: Inline.
                    parameters: []
                    tools: []
                  - ref: shared/ws_ref.tool.yaml
                """,
            "shared/ws_ref.tool.yaml": "id: ws_ref\nclass: helpers:ws_ref\n",
            "shared/helpers.py": "def ws_ref(ctx, n: int = 1):\n    return n\n",
        },
    )
    assert ws.problems == []
    assert {d.name: d.trailmap for d in ws.tool_defs.values()} == {"ws_inline": None, "ws_ref": None}
    assert str(ws.tool_defs["ws_inline"].span) == at(tmp_path, "trailblaze.yaml", 2, 9)
    kinds = {t.name: type(t) for t in ws.tools}
    assert kinds == {"ws_inline": CompositeTool, "ws_ref": PythonTool}


@pytest.mark.parametrize(
    ("text", "where", "what", "fix"),
    [
        (
            "id: shop_x\ndescription: d\nparameters: []\ntools: []\nscript: s.py:f\n",
            (1, 1),
            "tool 'shop_x' has tools and script; a tool has exactly one of class / tools / script",
            "keep one body and move the rest into another tool",
        ),
        (
            "id: shop_x\nclass: m:f\ntools: []\n",
            (1, 1),
            "tool 'shop_x' has class and tools; a tool has exactly one of class / tools / script",
            "keep one body and move the rest into another tool",
        ),
        (
            "id: shop_x\nclass: m:f\ndescription: d\n",
            (3, 1),
            "`description:` is not allowed with `class:`",
            "remove `description:` (put it in the function's docstring / signature)",
        ),
        (
            "id: shop_x\nclass: m:f\nparameters: []\n",
            (3, 1),
            "`parameters:` is not allowed with `class:`",
            "remove `parameters:` (put it in the function's docstring / signature)",
        ),
        (
            "id: shop_x\nparameters: []\ntools: []\n",
            (1, 1),
            "tool 'shop_x' needs `description:` with `tools:`",
            "describe what the tool does in one or two sentences",
        ),
        (
            "id: shop_x\ndescription: d\ntools: []\n",
            (1, 1),
            "tool 'shop_x' needs `parameters:` with `tools:`",
            "use `parameters: []` for a tool without parameters",
        ),
        (
            "id: shop_x\nparameters: []\nscript: s.py:f\n",
            (1, 1),
            "tool 'shop_x' needs `description:` with `script:`",
            "describe what the tool does in one or two sentences",
        ),
        (
            "id: shop_x\ndescription: d\nscript: s.py:f\n",
            (1, 1),
            "tool 'shop_x' needs `parameters:` with `script:`",
            "use `parameters: []` for a tool without parameters",
        ),
        (
            "id: shop_x\ndescripton: d\nparameters: []\ntools: []\n",
            (2, 1),
            "unknown key 'descripton' in shop_x.tool.yaml",
            "did you mean 'description'?",
        ),
        (
            "id: shop_x\ndescription: d\nparameters:\n  - name: a\n    typ: string\ntools: []\n",
            (5, 5),
            "unknown key 'typ' in shop_x.tool.yaml.parameters[0]",
            "did you mean 'type'?",
        ),
        (
            "id: shop_x\ndescription: d\nparameters:\n  - name: a\n    type: text\ntools: []\n",
            (5, 11),
            "shop_x.tool.yaml: `parameters.0.type`: Input should be 'string', 'integer', 'boolean', "
            "'number', 'array' or 'object'",
            "use one of the listed values",
        ),
        (
            "description: d\nparameters: []\ntools: []\n",
            (1, 1),
            "missing `id:` in shop_x.tool.yaml",
            "add `id: ...`",
        ),
        (
            "id: shop_x\ndescription: d\nparameters: []\ntools:\n  - tapOn\n",
            (5, 5),
            None,
            None,
        ),
    ],
    ids=[
        "tools+script",
        "class+tools",
        "class+description",
        "class+parameters",
        "tools-without-description",
        "tools-without-parameters",
        "script-without-description",
        "script-without-parameters",
        "unknown-key",
        "unknown-parameter-key",
        "bad-parameter-type",
        "missing-id",
        "bare-tool-name",
    ],
)
def test_tool_file_problems(
    tmp_path: Path, text: str, where: tuple[int, int], what: str | None, fix: str | None
) -> None:
    rel = "trailmaps/shop/tools/shop_x.tool.yaml"
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\n", rel: text})
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, rel, *where)
    if what is not None:
        assert problem.what == what
        assert problem.fix == fix
        assert ws.tools == []


def test_a_tool_file_without_a_body_is_a_warning_and_an_unavailable_tool(tmp_path: Path) -> None:
    rel = "trailmaps/shop/tools/shop_later.tool.yaml"
    ws = workspace(
        tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\n", rel: "id: shop_later\ndescription: d\n"}
    )
    problem = only(ws.problems, "warning")
    assert str(problem.span) == at(tmp_path, rel, 1, 5)
    assert problem.what == "tool 'shop_later' declares no implementation; calls to it will fail"
    assert problem.fix == "add `tools:` with the calls it makes, or `class: module:function`"
    [built] = ws.tools
    assert isinstance(built, UnavailableTool)
    assert built.unavailable == (
        f"tool 'shop_later' (declared at {at(tmp_path, rel, 1, 5)}) is unavailable: "
        "its file declares no implementation (no class, tools or script)"
    )


@pytest.mark.parametrize(
    "text",
    [
        "id: shop_toCart\nshortcut:\n  from: shop/home\n  to: shop/cart\n",
        "id: shop_home\ntrailhead:\n  to: shop/home\n",
        "id: shop_any\ntrailhead:\n  dynamic: true\n",
    ],
)
def test_metadata_only_files_are_fine_and_build_no_tool(tmp_path: Path, text: str) -> None:
    rel = "trailmaps/shop/tools/meta.tool.yaml"
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\n", rel: text})
    assert ws.problems == []
    [definition] = ws.tool_defs.values()
    assert definition.mode == "metadata"
    assert ws.tools == []


def test_load_file_reads_one_tool_file(tmp_path: Path) -> None:
    path = tmp_path / "shop_a.tool.yaml"
    path.write_text("id: shop_a\ndescription: d\nparameters: []\ntools:\n  - tap: {}\n")
    definition, problems = load_file(path, "tool")
    assert problems == []
    assert definition is not None
    assert (definition.name, definition.mode, definition.trailmap) == ("shop_a", "tools", None)
    assert [c.name for c in definition.expansion] == ["tap"]


def test_load_file_of_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("# only a comment\n")
    value, problems = load_file(path, "toolset")
    assert value is None
    assert [(str(p.span), p.what, p.fix) for p in problems] == [
        (f"{path}:1:1", "empty.yaml is empty", "add the file's keys")
    ]


# -- trailmap schema errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where", "what", "fix"),
    [
        (
            "id: shop\nroutes: []\n",
            (2, 1),
            "`routes:` is not supported",
            "`routes:` was removed upstream; describe navigation with trailheads and tools",
        ),
        (
            "id: shop\nuse: [base]\n",
            (2, 1),
            "`use:` is not supported",
            "`use:` was removed upstream; list the trailmap under `dependencies:`",
        ),
        (
            "id: shop\nextend: base\n",
            (2, 1),
            "`extend:` is not supported",
            "`extend:` was removed upstream; list the trailmap under `dependencies:`",
        ),
        (
            "id: shop\nreplace: base\n",
            (2, 1),
            "`replace:` is not supported",
            "`replace:` was removed upstream; declare a trailmap with the same id to shadow it",
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  system_prompt: Be nice.\n",
            (4, 3),
            "`system_prompt:` is not supported",
            "inline `system_prompt:` was removed upstream; use `system_prompt_file:`",
        ),
        (
            "id: shop\nmcp_servers:\n  - script: s.ts\n",
            (2, 1),
            "`mcp_servers:` belongs under `target:`",
            "indent it into the trailmap's `target:` block",
        ),
        (
            "id: shop\ndependancies: [trailblaze]\n",
            (2, 1),
            "unknown key 'dependancies' in trailmap.yaml",
            "did you mean 'dependencies'?",
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  platforms:\n    web:\n      tool_set: [memory]\n",
            (6, 7),
            "unknown key 'tool_set' in trailmap.yaml.target.platforms.web",
            "did you mean 'tool_sets'?",
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  mcp_servers:\n    - script: s.ts\n      comand: x\n",
            (6, 7),
            "unknown key 'comand' in trailmap.yaml.target.mcp_servers[0]",
            "did you mean 'command'?",
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  mcp_servers:\n    - script: s.ts\n      command: node\n",
            (5, 7),
            "trailmap.yaml: `target.mcp_servers.0`: an MCP server needs exactly one of "
            "`script:` or `command:`",
            None,
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  mcp_servers:\n    - env: {A: b}\n",
            (5, 7),
            "trailmap.yaml: `target.mcp_servers.0`: an MCP server needs exactly one of "
            "`script:` or `command:`",
            None,
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  mcp_servers:\n    - script: s.py\n      args: [x]\n",
            (5, 7),
            "trailmap.yaml: `target.mcp_servers.0`: `args:` and `env:` go with `command:`; "
            "a `script:` server takes neither",
            None,
        ),
        (
            "id: shop\ntarget:\n  platforms: {}\n",
            (3, 3),
            "missing `display_name:` in trailmap.yaml.target",
            "add `display_name: ...`",
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  platforms:\n    windows: {}\n",
            (5, 5),
            "trailmap.yaml: `target.platforms.windows`: Input should be 'android', 'ios', 'web', 'compose' "
            "or 'desktop'",
            "use one of the listed values",
        ),
        (
            "id: shop\ntarget:\n  display_name: S\n  has_custom_ios_driver: sometimes\n",
            (4, 26),
            "trailmap.yaml: `target.has_custom_ios_driver`: Input should be a valid boolean, "
            "unable to interpret input",
            "give it a value of the expected type",
        ),
    ],
    ids=[
        "routes",
        "use",
        "extend",
        "replace",
        "system_prompt",
        "root-mcp_servers",
        "unknown-root-key",
        "unknown-platform-key",
        "unknown-mcp-key",
        "mcp-script-and-command",
        "mcp-neither",
        "mcp-script-with-args",
        "missing-display-name",
        "unknown-platform",
        "wrong-type",
    ],
)
def test_trailmap_problems(
    tmp_path: Path, text: str, where: tuple[int, int], what: str | None, fix: str | None
) -> None:
    rel = "trailmaps/shop/trailmap.yaml"
    ws = workspace(tmp_path, {rel: text})
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, rel, *where)
    if what is not None:
        assert problem.what == what
    if fix is not None:
        assert problem.fix == fix
    assert ws.targets == {}
    # the same file on its own gives the same finding
    _, alone = load_file(tmp_path / "trails/config" / rel, "trailmap")
    assert [(p.span.line, p.span.col, p.what) for p in alone] == [(*where, problem.what)]


def test_every_problem_of_a_file_at_once(tmp_path: Path) -> None:
    text = "id: shop\nroutes: []\ntarget:\n  display_nme: S\n  system_prompt: x\n"
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": text})
    found = sorted((p.span.line, p.span.col, p.what) for p in ws.problems)
    assert found == [
        (2, 1, "`routes:` is not supported"),
        (4, 3, "missing `display_name:` in trailmap.yaml.target"),
        (4, 3, "unknown key 'display_nme' in trailmap.yaml.target"),
        (5, 3, "`system_prompt:` is not supported"),
    ]


def test_toolset_and_legacy_target_problems(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailmaps/shop/trailmap.yaml": "id: shop\n",
            "trailmaps/shop/toolsets/bad.yaml": "id: bad\nalways_enabled: maybe\n",
            "targets/old.yaml": "id: old\nsystem_prompt: Legacy targets keep it.\nroute: []\n",
        },
    )
    found = sorted((str(p.span), p.what) for p in ws.problems)
    assert found == [
        (at(tmp_path, "targets/old.yaml", 3, 1), "unknown key 'route' in old.yaml"),
        (
            at(tmp_path, "trailmaps/shop/toolsets/bad.yaml", 2, 17),
            "toolset: `always_enabled`: Input should be a valid boolean, unable to interpret input",
        ),
    ]
    assert "bad" not in ws.toolsets
    assert "old" not in ws.targets


# -- duplicates and collisions --------------------------------------------------------------------------


def test_duplicate_tool_ids_across_files(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailmaps/shop/trailmap.yaml": "id: shop\n",
            "trailmaps/shop/tools/a.tool.yaml": shop_tool("shop_a"),
            "trailmaps/shop/tools/b.tool.yaml": "# the same name again\n" + shop_tool("shop_a"),
        },
    )
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, "trailmaps/shop/tools/b.tool.yaml", 2, 5)
    assert problem.what == "tool 'shop_a' is defined twice"
    assert problem.why == f"also defined at {at(tmp_path, 'trailmaps/shop/tools/a.tool.yaml', 1, 5)}"
    assert problem.fix == "tool names are global: rename one"
    assert [t.name for t in ws.tools] == ["shop_a"]


@pytest.mark.parametrize(
    "text",
    [
        shop_tool("web_click"),
        "id: web_click\ndescription: d\nparameters: []\nscript: s.py:f\n",
        "id: web_click\nclass: s.py:f\n",
        "id: web_click\ndescription: Declared only.\n",
    ],
    ids=["tools", "script", "python-class", "declared"],
)
def test_a_workspace_tool_named_like_a_built_in_is_an_error(tmp_path: Path, text: str) -> None:
    rel = "trailmaps/shop/tools/web_click.tool.yaml"
    ws = workspace(
        tmp_path,
        {
            "trailmaps/shop/trailmap.yaml": "id: shop\n",
            rel: text,
            "trailmaps/shop/tools/s.py": "def f(*a): pass\n",
        },
    )
    problem = only(ws.errors)
    assert str(problem.span) == at(tmp_path, rel, 1, 5)
    assert problem.what == "tool 'web_click' collides with the built-in tool of that name"
    assert problem.why == "tool names are global within a session"
    assert problem.fix == "rename it, e.g. '<trailmapId>_web_click'"
    assert ws.tools == [], "a colliding tool would break the session's registry"


# -- class: ---------------------------------------------------------------------------------------------

HELPERS = '''
from pytest_trailblaze.core.tooling.tooldef import tool


@tool("shop_typed", platforms=["web"], is_recordable=False)
def typed(ctx, count: int = 1) -> str:
    """A typed tool."""
    return f"count={count}"


@tool("shop_elsewhere")
def misnamed(ctx) -> None:
    """Named differently from its file."""


def plain(ctx, text: str, times: int = 1) -> str:
    """Repeat text."""
    return text * times


NOT_CALLABLE = 3
'''


def class_workspace(tmp_path: Path, name: str, spec: str) -> tuple[Workspace, str]:
    rel = f"trailmaps/shop/tools/{name}.tool.yaml"
    files = {
        "trailmaps/shop/trailmap.yaml": "id: shop\n",
        "trailmaps/shop/tools/shop_helpers.py": HELPERS,
        rel: f"# a Python tool\nid: {name}\nclass: {spec}\nsurface_to_llm: false\nplatforms: [android]\n",
    }
    return workspace(tmp_path, files), rel


def test_class_loads_a_python_tool(tmp_path: Path) -> None:
    ws, _ = class_workspace(tmp_path, "shop_typed", "shop_helpers.py:typed")
    assert ws.problems == []
    [built] = ws.tools
    assert isinstance(built, PythonTool)
    assert built.descriptor.platforms == frozenset({"web"}), "a @tool keeps its own flags"
    assert built.descriptor.is_recordable is False


def test_class_in_module_form(tmp_path: Path) -> None:
    ws, _ = class_workspace(tmp_path, "shop_typed", "shop_helpers:typed")
    assert ws.problems == []
    assert [t.name for t in ws.tools] == ["shop_typed"]


def test_class_wraps_a_plain_function_with_the_yaml_flags(tmp_path: Path) -> None:
    ws, _ = class_workspace(tmp_path, "shop_repeat", "shop_helpers.py:plain")
    assert ws.problems == []
    [built] = ws.tools
    assert isinstance(built, PythonTool)
    d = built.descriptor
    assert (d.name, d.description, d.surface_to_llm, d.platforms) == (
        "shop_repeat",
        "Repeat text.",
        False,
        frozenset({"android"}),
    )
    assert d.source.startswith("python:trailblaze_tools.shop_helpers")
    assert d.parameters["required"] == ["text"]
    registry = ToolRegistry(platform="android")
    registry.register(built)
    ctx = ToolContext(registry, Memory(), DeviceInfo("android", "", 1080, 2400))
    assert registry.execute("shop_repeat", {"text": "ab", "times": 2}, ctx).message == "abab"


@pytest.mark.parametrize(
    ("name", "spec", "reason"),
    [
        (
            "shop_mismatch",
            "shop_helpers.py:misnamed",
            "it provides tool 'shop_elsewhere', but this file's id is 'shop_mismatch'",
        ),
        ("shop_missing", "shop_helpers.py:nope", "shop_helpers.py has no attribute 'nope'"),
        (
            "shop_value",
            "shop_helpers.py:NOT_CALLABLE",
            "shop_helpers.py:NOT_CALLABLE is not a function or a @tool",
        ),
        (
            "shop_nomod",
            "no_such_module_xyz:f",
            "no module no_such_module_xyz on sys.path and no file {dir}/no_such_module_xyz.py",
        ),
        ("shop_nofile", "missing.py:f", "no module missing.py on sys.path and no file {dir}/missing.py"),
    ],
)
def test_class_that_cannot_load(tmp_path: Path, name: str, spec: str, reason: str) -> None:
    ws, rel = class_workspace(tmp_path, name, spec)
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, rel, 2, 5)
    tools_dir = (tmp_path / "trails/config/trailmaps/shop/tools").resolve()
    assert problem.what == f"tool '{name}': cannot load `class:`: {reason.format(dir=tools_dir)}"
    assert problem.fix == "check the module path (module:attribute or path/to/file.py:attribute)"
    assert ws.tools == []


def test_class_of_a_broken_module(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailmaps/shop/trailmap.yaml": "id: shop\n",
            "trailmaps/shop/tools/broken.py": "raise RuntimeError('no config')\n",
            "trailmaps/shop/tools/shop_b.tool.yaml": "id: shop_b\nclass: broken.py:f\n",
        },
    )
    assert only(ws.problems).what == (
        "tool 'shop_b': cannot load `class:`: importing broken.py failed: RuntimeError: no config"
    )


def test_an_upstream_class_of_a_built_in_tool_is_served_by_the_built_in(tmp_path: Path) -> None:
    text = "id: web_click\nclass: xyz.block.trailblaze.playwright.tools.PlaywrightNativeClickTool\n"
    ws = workspace(
        tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\n", "trailmaps/shop/tools/c.tool.yaml": text}
    )
    assert ws.problems == []
    assert ws.tool_defs["web_click"].mode == "class"
    assert ws.tools == []


def test_an_upstream_class_the_plugin_lacks_is_an_unavailable_tool(tmp_path: Path) -> None:
    rel = "trailmaps/shop/tools/tap.tool.yaml"
    text = "id: tap\nclass: xyz.block.trailblaze.toolcalls.commands.TapTrailblazeTool\n"
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\n", rel: text})
    assert ws.problems == [], "upstream's own names are not checked against the convention"
    [built] = ws.tools
    assert isinstance(built, UnavailableTool)
    registry = ToolRegistry(platform="android")
    registry.register(built)
    ctx = ToolContext(registry, Memory(), DeviceInfo("android", "", 1080, 2400))
    with pytest.raises(UnsupportedToolError) as info:
        registry.execute("tap", {"x": 1}, ctx)
    assert str(info.value) == (
        f"tool 'tap' (declared at {at(tmp_path, rel, 1, 5)}) is unavailable: its class "
        "xyz.block.trailblaze.toolcalls.commands.TapTrailblazeTool is an upstream Kotlin class "
        "pytest-trailblaze does not have"
    )
    assert registry.unsupported_reason(built) == built.unavailable


# -- naming findings ------------------------------------------------------------------------------------


def test_naming_errors_of_workspace_tools_point_at_the_id(tmp_path: Path) -> None:
    rel = "trailmaps/shop/tools/bad.tool.yaml"
    ws = workspace(
        tmp_path,
        {"trailmaps/shop/trailmap.yaml": "id: shop\n", rel: "# a bad name\n" + shop_tool("Shop_iphoneTap")},
    )
    assert [(str(p.span), p.severity, p.what, p.fix) for p in ws.problems] == [
        (
            at(tmp_path, rel, 2, 5),
            "error",
            "tool name 'Shop_iphoneTap' does not follow the naming convention",
            "rename it, e.g. 'shop_iphoneTap'",
        ),
        (
            at(tmp_path, rel, 2, 5),
            "error",
            "tool name 'Shop_iphoneTap' names a device type ('iphone')",
            "drop 'iphone' from the name and branch on ctx.device inside the tool",
        ),
    ]


def test_a_long_workspace_tool_name_is_a_warning_at_the_id(tmp_path: Path) -> None:
    name = "shop_web_" + "x" * 52
    rel = "trailmaps/shop/tools/long.tool.yaml"
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": "id: shop\n", rel: shop_tool(name)})
    problem = only(ws.problems, "warning")
    assert str(problem.span) == at(tmp_path, rel, 1, 5)
    assert problem.what == f"tool name '{name}' is 61 characters long"
    assert problem.fix == f"rename the local half '{'x' * 52}' to something shorter"
    assert [t.name for t in ws.tools] == [name], "a warning does not stop the tool"


def test_a_reserved_tool_name_in_a_python_class_file(tmp_path: Path) -> None:
    ws, rel = class_workspace(tmp_path, "tools", "shop_helpers.py:plain")
    problem = only(ws.problems)
    assert str(problem.span) == at(tmp_path, rel, 2, 5)
    assert problem.what == "'tools' is a reserved word, not a tool name"


# -- [TrailmapScopingCheck] -----------------------------------------------------------------------------

UNSCOPED = {
    "trailblaze.yaml": "targets: []\n",
    "trailmaps/shop/trailmap.yaml": """
        id: shop
        target:
          display_name: Shop
          tools:
            - shop_login
            - login
            - checkout
        """,
}


def scoping(ws: Workspace) -> list[Problem]:
    return [p for p in ws.problems if p.what.startswith("[TrailmapScopingCheck]")]


def unexported(ws: Workspace) -> list[str]:
    """The listed tool names no file provides (the scoping fixtures list names without files)."""
    return [p.what.split("'")[1] for listed in ws.unlisted.values() for _, p in listed]


def test_unscoped_target_tools_are_one_warning(tmp_path: Path) -> None:
    ws = workspace(tmp_path, UNSCOPED)
    assert unexported(ws) == ["shop_login", "login", "checkout"]
    problem = only(scoping(ws), "warning")
    assert str(problem.span) == at(tmp_path, "trailmaps/shop/trailmap.yaml", 5, 5)
    assert (
        problem.what
        == "[TrailmapScopingCheck] trailmap 'shop': target.tools login, checkout lack the 'shop_' prefix"
    )
    assert problem.why == "tools owned by trailmap X are named X_<localName> so recordings stay unambiguous"
    assert problem.fix == "rename them to 'shop_<name>'"
    assert "shop" in ws.targets, "no behavior change"


def test_a_bad_trailmap_id_is_one_warning_with_every_reason(tmp_path: Path) -> None:
    text = "id: my_app\ntarget:\n  display_name: X\n  tools: [other]\n"
    ws = workspace(tmp_path, {"trailmaps/my_app/trailmap.yaml": text})
    assert unexported(ws) == ["other"]
    problem = only(scoping(ws), "warning")
    assert str(problem.span) == at(tmp_path, "trailmaps/my_app/trailmap.yaml", 1, 5)
    assert problem.what == (
        "[TrailmapScopingCheck] trailmap 'my_app': trailmap id 'my_app' must be one lowerCamelCase word "
        "(^[a-z][a-zA-Z0-9]*$); target.tools other lack the 'my_app_' prefix"
    )
    assert problem.fix == "rename them to 'my_app_<name>'"


def test_a_bad_trailmap_id_alone(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailmaps/Clock/trailmap.yaml": "id: Clock\n"})
    problem = only(ws.problems, "warning")
    assert problem.what == (
        "[TrailmapScopingCheck] trailmap 'Clock': trailmap id 'Clock' must be one lowerCamelCase word "
        "(^[a-z][a-zA-Z0-9]*$)"
    )
    assert problem.fix == "rename the trailmap id"


def test_scoping_warns_once_per_trailmap_and_file_per_loader(tmp_path: Path) -> None:
    config = write(tmp_path / "trails" / "config", UNSCOPED)
    loader = WorkspaceLoader()
    first = loader.load(config)
    again = loader.load(config)
    via_other_spelling = loader.load(config / ".." / "config")
    assert len(scoping(first)) == 1
    assert again is first and via_other_spelling is first
    assert len(scoping(again)) == 1
    assert loader.warned == {f"shop@{(config / 'trailmaps/shop/trailmap.yaml').resolve()}"}
    other = WorkspaceLoader()
    assert len(scoping(other.load(config))) == 1, "a second loader warns once for itself"
    assert len(scoping(other.load(config))) == 1


def test_the_framework_trailmap_is_exempt(tmp_path: Path) -> None:
    text = "id: trailblaze\ntarget:\n  display_name: Framework\n  tools: [tap, inputText]\n"
    ws = workspace(tmp_path, {"trailmaps/trailblaze/trailmap.yaml": text})
    assert scoping(ws) == []


def test_scoping_is_an_error_when_strict(tmp_path: Path) -> None:
    config = write(tmp_path / "trails" / "config", UNSCOPED)
    ws = WorkspaceLoader(strict=True).load(config)
    problem = only(scoping(ws), "error")
    assert problem.what.startswith("[TrailmapScopingCheck] trailmap 'shop': ")


# -- target resolution ----------------------------------------------------------------------------------


def targets_workspace(tmp_path: Path, config: str = "targets: []\n") -> Workspace:
    return workspace(
        tmp_path,
        {
            "trailblaze.yaml": config,
            "trailmaps/shop/trailmap.yaml": SHOP_TARGET,
            "trailmaps/shop/tools/server.ts": SERVER_TS,
            "trailmaps/bank/trailmap.yaml": (
                "id: bank\ntarget:\n  display_name: Bank\n  platforms:\n"
                "    android:\n      app_ids: [com.bank, com.shared]\n"
            ),
            "targets/legacy.yaml": "id: legacy\nplatforms:\n  ios:\n    app_ids: [com.shared]\n",
        },
    )


def test_resolve_target_by_id_and_by_app_id(tmp_path: Path) -> None:
    ws = targets_workspace(tmp_path)
    assert ws.problems == []
    assert ws.resolve_target("shop") is ws.targets["shop"]
    assert ws.resolve_target("legacy") is ws.targets["legacy"]
    assert ws.resolve_target("com.shop.ios") is ws.targets["shop"]
    assert ws.resolve_target("com.bank") is ws.targets["bank"]
    assert ws.resolve_target("com.shared") is None, "an app id two targets declare is ambiguous"
    assert ws.resolve_target("nothing") is None
    assert ws.resolve_target(None) is None


def test_resolve_target_falls_back_to_the_workspace_default(tmp_path: Path) -> None:
    ws = targets_workspace(tmp_path, "defaults:\n  target: bank\n")
    assert ws.problems == []
    assert ws.resolve_target(None) is ws.targets["bank"]
    assert ws.resolve_target("") is ws.targets["bank"]
    assert ws.resolve_target("shop") is ws.targets["shop"]


# -- the toolbox ------------------------------------------------------------------------------------------


class Fake(Tool):
    def __init__(self, name: str, *, source: str = "builtin", hidden: bool = False, **flags: Any) -> None:
        self.descriptor = ToolDescriptor(name, f"{name}.", source, surface_to_llm=not hidden, **flags)

    def invoke(self, ctx: Any, validated: Any) -> ToolResult:
        return ToolResult()


def registry_of(platform: str, driver: str, names: list[str], *extra: Tool) -> ToolRegistry:
    registry = ToolRegistry(platform=platform, driver_key=driver)
    registry.register_all([Fake(n) for n in names])
    registry.register_all(extra)
    return registry


WEB_NAMES = [
    "web_click",
    "web_type",
    "web_verifyValue",
    "web_evaluate",
    "rememberText",
    "tap",
    "objectiveStatus",
]
MOBILE_NAMES = [
    "tap",
    "inputText",
    "swipe",
    "pressBack",
    "takeSnapshot",
    "assertVisible",
    "rememberText",
    "web_click",
]


def offered(ws: Workspace, target: Target | None, registry: ToolRegistry, **kw: Any) -> list[str]:
    return [d.name for d in toolbox(ws, target, registry, **kw)]


def test_framework_defaults_without_a_target(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {})
    assert enabled_toolsets(ws, None, "web", "playwright-native") == [
        "meta",
        "web_framework",
        "web_core",
        "web_verification",
        "memory",
    ]
    assert enabled_toolsets(ws, None, "android", "android-ondevice-instrumentation") == [
        "core_interaction",
        "meta",
        "mobile_primitives",
        "navigation",
        "observation",
        "verification",
        "memory",
    ]
    registry = registry_of("web", "playwright-native", WEB_NAMES)
    assert offered(ws, None, registry) == [
        "objectiveStatus",
        "rememberText",
        "web_click",
        "web_evaluate",
        "web_type",
        "web_verifyValue",
    ]


def test_toolsets_filter_by_driver_and_platform(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path,
        {
            "trailblaze.yaml": "toolsets:\n  - id: iosOnly\n    platforms: [ios]\n    always_enabled: true\n",
        },
    )
    assert enabled_toolsets(ws, None, "web", "some-other-driver") == ["meta", "memory"]
    # without a driver key only the platform filters apply
    assert enabled_toolsets(ws, None, "web", "") == [
        "core_interaction",
        "meta",
        "mobile_primitives",
        "web_framework",
        "web_core",
        "web_verification",
        "memory",
    ]
    assert "iosOnly" in enabled_toolsets(ws, None, "ios", "ios-host")
    assert "iosOnly" not in enabled_toolsets(ws, None, "android", "android-ondevice-instrumentation")


def test_a_target_platform_names_its_toolsets_and_tools(tmp_path: Path) -> None:
    ws = workspace(
        tmp_path, {"trailmaps/shop/trailmap.yaml": SHOP_TARGET, "trailmaps/shop/tools/server.ts": SERVER_TS}
    )
    shop = ws.targets["shop"]
    driver = "android-ondevice-instrumentation"
    assert enabled_toolsets(ws, shop, "android", driver) == [
        "core_interaction",
        "meta",
        "mobile_primitives",
        "memory",
    ]
    # ios is declared without tool_sets: the framework defaults apply
    assert "navigation" in enabled_toolsets(ws, shop, "ios", "ios-host")
    registry = registry_of("android", driver, [*MOBILE_NAMES, "shop_login", "shop_web_open", "shop_other"])
    names = offered(ws, shop, registry)
    assert "swipe" not in names, "excluded_tools are removed"
    assert "tap" in names and "inputText" in names, "always-enabled core_interaction"
    assert "pressBack" not in names, "navigation is not among the target's tool_sets"
    assert "rememberText" in names
    assert {"shop_login", "shop_web_open"} <= set(names), "target tools are added"
    assert "shop_other" not in names
    assert "web_click" not in names


def test_platform_tools_are_added_and_only_those_the_session_can_run(tmp_path: Path) -> None:
    text = """
    id: shop
    target:
      display_name: Shop
      platforms:
        web:
          tools: [shop_web_extra, web_only_android]
    """
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": text})
    registry = registry_of(
        "web",
        "playwright-native",
        WEB_NAMES,
        Fake("shop_web_extra"),
        Fake("web_only_android", platforms=frozenset({"android"})),
    )
    names = offered(ws, ws.targets["shop"], registry)
    assert "shop_web_extra" in names
    assert "web_only_android" not in names, "a tool the session cannot run is not offered"


def test_hidden_tools_are_offered_only_with_show_hidden(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {})
    registry = registry_of("web", "playwright-native", ["web_click"], Fake("web_evaluate", hidden=True))
    assert offered(ws, None, registry) == ["web_click"]
    assert offered(ws, None, registry, show_hidden=True) == ["web_click", "web_evaluate"]


def test_tools_that_join_a_toolset_follow_it(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {})
    registry = registry_of(
        "web",
        "playwright-native",
        ["web_click"],
        Fake("mcp_memoryThing", source="mcp:srv", toolset="memory"),
        Fake("mcp_mobileThing", source="mcp:srv", toolset="navigation"),
    )
    names = offered(ws, None, registry)
    assert "mcp_memoryThing" in names
    assert "mcp_mobileThing" not in names


def test_a_workspace_trailblaze_trailmap_shadows_the_framework_defaults(tmp_path: Path) -> None:
    text = """
    id: trailblaze
    defaults:
      web:
        tool_sets: [web_core]
      android:
        tool_sets: [navigation]
    """
    ws = workspace(tmp_path, {"trailmaps/trailblaze/trailmap.yaml": text})
    assert ws.problems == []
    assert sorted(ws.defaults) == ["android", "web"]
    assert enabled_toolsets(ws, None, "web", "playwright-native") == ["meta", "web_framework", "web_core"]
    assert enabled_toolsets(ws, None, "android", "ios-host") == [
        "core_interaction",
        "meta",
        "mobile_primitives",
        "navigation",
    ]
    assert enabled_toolsets(ws, None, "ios", "ios-host") == ["core_interaction", "meta", "mobile_primitives"]


# -- the example workspace --------------------------------------------------------------------------------


def test_the_example_workspace_loads(tmp_path: Path) -> None:
    ws = WorkspaceLoader(builtin_names=BUILTINS).load(EXAMPLES)
    assert ws.problems == []
    assert list(ws.targets) == ["sampleApp"]
    assert ws.resolve_target(None) is ws.targets["sampleApp"]
    kinds = {t.name: type(t) for t in ws.tools}
    assert kinds.items() >= {
        ("sampleApp_web_incrementCounterTo", ScriptTool),
        ("sampleApp_web_openSection", CompositeTool),
        ("sampleApp_web_rememberCounter", PythonTool),
    }
    web = ws.targets["sampleApp"].platform("web")
    assert web is not None
    assert web.tool_sets is not None
    assert {"web_core", "web_verification", "memory"} <= set(web.tool_sets)


def test_a_missing_mcp_server_script_is_a_problem_at_its_line(tmp_path: Path) -> None:
    ws = workspace(tmp_path, {"trailmaps/shop/trailmap.yaml": SHOP_TARGET})
    [problem] = ws.errors
    assert str(problem.span) == at(tmp_path, "trailmaps/shop/trailmap.yaml", 17, 15)
    assert problem.what == "MCP server script tools/server.ts does not exist"
    assert "relative paths start at the declaring file's folder" in problem.fix


def test_tools_a_dependency_exports_are_offered_to_its_dependents(tmp_path: Path) -> None:
    from pytest_trailblaze.core.tooling.registry import ToolRegistry
    from pytest_trailblaze.tools import builtin_tools
    from pytest_trailblaze.workspace import toolbox

    login = (
        "id: shopLib_web_login\ndescription: Sign in.\nparameters: []\n"
        "tools:\n  - web_navigate: { url: https://shop.test/login }\n"
    )
    ws = workspace(
        tmp_path,
        {
            "trailblaze.yaml": "targets: [shop, bank]\n",
            "trailmaps/shopLib/trailmap.yaml": "id: shopLib\nexports: [shopLib_web_login]\n",
            "trailmaps/shopLib/tools/shopLib_web_login.tool.yaml": login,
            "trailmaps/shop/trailmap.yaml": (
                "id: shop\ndependencies: [shopLib]\ntarget:\n  display_name: Shop\n"
            ),
            "trailmaps/bank/trailmap.yaml": "id: bank\ntarget:\n  display_name: Bank\n",
        },
    )
    assert ws.errors == []
    registry = ToolRegistry(platform="web", driver_key="playwright-native")
    registry.register_all([*builtin_tools(), *ws.tools])
    offered = {d.name for d in toolbox(ws, ws.targets["shop"], registry)}
    assert "shopLib_web_login" in offered
    assert "shopLib_web_login" not in {d.name for d in toolbox(ws, ws.targets["bank"], registry)}


def test_the_framework_defaults_are_what_validation_would_make() -> None:
    """They are built without validation at import: each must equal its validated self."""
    for toolset in FRAMEWORK_TOOLSETS.values():
        given = toolset.model_dump(exclude_unset=True)
        assert ToolsetConfig.model_validate(given) == toolset
        assert toolset.model_fields_set == set(given)
    for platform in FRAMEWORK_DEFAULTS.values():
        given = platform.model_dump(exclude_unset=True)
        assert PlatformConfig.model_validate(given) == platform
        assert platform.model_fields_set == set(given)
