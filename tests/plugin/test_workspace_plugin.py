"""Workspaces seen through the plugin: ``trails/config`` folders with trailmaps, targets and tool files.

Every test builds a small workspace in pytester's folder: a ``shop`` trailmap whose target
lists its tools, a YAML composition, Python tools named by ``class:`` (a ``@tool`` in a file next
to the tool file, and a plain function of a module on ``sys.path``), and trails that call them.
The sample app is opened from disk (``{{app}}``, see conftest.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

# -- the workspace ------------------------------------------------------------------------------
CONFIG = """
targets: [shop]
"""

TRAILMAP = """
id: shop
target:
  display_name: Shop
  tools:
    - shop_rememberGreeting
    - shop_setGreeting
    - shop_web_readTitle
  platforms:
    web:
      app_ids: [com.example.shop]
"""

#: A YAML composition calling a Python tool of the same workspace.
REMEMBER_GREETING = """
id: shop_rememberGreeting
description: Remember a greeting for someone.
parameters:
  - name: who
    type: string
    description: Who to greet.
tools:
  - shop_setGreeting: { who: "{{params.who}}" }
"""

#: ``class:`` naming a ``@tool`` in ``shop_tools.py`` beside the tool file (not on sys.path).
SET_GREETING = """
id: shop_setGreeting
class: shop_tools:set_greeting
"""

SHOP_TOOLS = """
from pytest_trailblaze import tool


@tool("shop_setGreeting")
def set_greeting(ctx, who: str) -> str:
    \"\"\"Store 'hello <who>' under the memory key greeting.\"\"\"
    ctx.memory.set("greeting", f"hello {who}")
    return "greeting set"
"""

#: ``class:`` naming a plain function of a module on sys.path; it reads the live page.
READ_TITLE = """
id: shop_web_readTitle
class: shoplib:read_title
platforms: [web]
"""

SHOPLIB = """
def read_title(ctx, variable: str = "title") -> str:
    \"\"\"Remember the page title.\"\"\"
    title = ctx.driver.page.title()
    ctx.memory.set(variable, title)
    return title
"""

#: A tool hidden from agents (it must never show up in a toolbox).
HIDDEN = """
id: shop_resetEverything
description: Reset everything behind the agent's back.
parameters: []
surface_to_llm: false
tools:
  - dumpMemory: {}
"""

GREET_TRAIL = """
config:
  id: shop/greet
  target: shop
trail:
  - step: Greet Ada through the workspace's YAML tool
    recording:
      web:
        - shop_rememberGreeting: { who: Ada }
        - assertEquals: { actual: "{{greeting}}", expected: hello Ada }
"""

TITLE_TRAIL = """
config:
  id: shop/title
  target: shop
trail:
  - step: Open the app
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html" }
  - verify: A class tool reads the title from the page
    recording:
      web:
        - shop_web_readTitle: { variable: pageTitle }
        - assertEquals: { actual: "{{pageTitle}}", expected: Trailblaze Test Fixture }
"""

UNSCOPED_TRAILMAP = TRAILMAP.replace(
    "    - shop_web_readTitle\n", "    - shop_web_readTitle\n    - greetAll\n"
)


#: The unscoped name UNSCOPED_TRAILMAP lists needs a file: a listed tool no file provides is an error.
GREET_ALL = "id: greetAll\ndescription: Greet everyone.\nparameters: []\ntools: []\n"


def workspace(base: Path, tb, *, trailmap: str = TRAILMAP, config: str = CONFIG) -> Path:
    """The ``shop`` workspace under ``base/trails/config``; returns the config folder."""
    root = base / "trails" / "config"
    tools = "trailmaps/shop/tools"
    tb.write(root, "trailblaze.yaml", config)
    tb.write(root, "trailmaps/shop/trailmap.yaml", trailmap)
    if "greetAll" in trailmap:
        tb.write(root, f"{tools}/greetAll.tool.yaml", GREET_ALL)
    tb.write(root, f"{tools}/shop_rememberGreeting.tool.yaml", REMEMBER_GREETING)
    tb.write(root, f"{tools}/shop_setGreeting.tool.yaml", SET_GREETING)
    tb.write(root, f"{tools}/shop_tools.py", SHOP_TOOLS)
    tb.write(root, f"{tools}/shop_web_readTitle.tool.yaml", READ_TITLE)
    tb.write(root, f"{tools}/shop_resetEverything.tool.yaml", HIDDEN)
    tb.write(base, "shoplib.py", SHOPLIB)
    return root


@pytest.fixture
def shop(pytester: pytest.Pytester, tb) -> pytest.Pytester:
    """pytester's folder with the ``shop`` workspace, ``shoplib`` importable."""
    workspace(pytester.path, tb)
    pytester.syspathinsert()
    return pytester


#: In-process runs re-enter a plugin the outer pytest already imported; its rewrite notice is noise.
QUIET = "-W ignore::pytest.PytestAssertRewriteWarning"


def passed(result: pytest.RunResult) -> set[str]:
    """Node ids reported PASSED (with ``-rA``)."""
    return {line.split(" ", 1)[1] for line in result.stdout.lines if line.startswith("PASSED ")}


def no_traceback(result: pytest.RunResult) -> None:
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text
    assert "INTERNALERROR" not in text
    assert "pytest_trailblaze/workspace" not in text


def section(result: pytest.RunResult, title: str) -> str:
    """The body of the report section whose header line contains ``title``."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if title in line and line.startswith("_"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(("_", "="))), len(lines))
    return "\n".join(lines[start + 1 : end])


# -- collection and runs ------------------------------------------------------------------------
def test_trails_of_a_workspace_collect_and_run_with_its_tools(shop: pytest.Pytester, tb) -> None:
    tb.write(shop.path, "trails/greet.trail.yaml", GREET_TRAIL)
    tb.write(shop.path, "trails/title.trail.yaml", TITLE_TRAIL)

    listing = shop.runpytest("--collect-only", "-q")
    result = shop.runpytest(tb.APP_MEMORY, QUIET, "-rA", "--trailblaze-screenshots=off")

    listing.assert_outcomes()
    listing.stdout.fnmatch_lines(
        ["trails/greet.trail.yaml::shop/greet[[]web[]]", "trails/title.trail.yaml::shop/title[[]web[]]"]
    )
    assert "trailblaze.yaml" not in listing.stdout.str()  # the workspace config is never a trail
    # No warnings either: the workspace follows every naming and scoping convention.
    result.assert_outcomes(passed=2, warnings=0)
    assert passed(result) == {
        "trails/greet.trail.yaml::shop/greet[web]",
        "trails/title.trail.yaml::shop/title[web]",
    }


def test_an_unknown_target_is_one_collection_error_with_a_hint(shop: pytest.Pytester, tb) -> None:
    tb.write(shop.path, "trails/greet.trail.yaml", GREET_TRAIL)
    tb.write(shop.path, "trails/typo.trail.yaml", GREET_TRAIL.replace("target: shop", "target: shpo"))

    result = shop.runpytest("--collect-only", "-q")

    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert out.count("unknown target") == 1
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/typo.trail.yaml*",
            "trails/typo.trail.yaml:3:11: unknown target 'shpo' in config.target",
            "*did you mean 'shop'?*",
        ]
    )
    assert "trails/greet.trail.yaml::shop/greet[web]" in out  # the other trail still collects
    no_traceback(result)


BAD_TOOL_FILES = {
    "shop_twoBodies.tool.yaml": """
        # two bodies
        id: shop_twoBodies
        description: Does two things.
        parameters: []
        tools:
          - dumpMemory: {}
        script: shop_tools:set_greeting
    """,
    "shop_missing.tool.yaml": """
        id: shop_missing
        class: no_such_module:thing
    """,
    "assertEquals.tool.yaml": """
        id: assertEquals
        description: Shadows the built-in.
        parameters: []
        tools:
          - dumpMemory: {}
    """,
    "shop_undescribed.tool.yaml": """
        id: shop_undescribed
        parameters: []
        tools:
          - dumpMemory: {}
    """,
}


def test_a_broken_tool_file_is_a_collection_error_listing_the_workspace_problems(
    shop: pytest.Pytester, tb
) -> None:
    for name, text in BAD_TOOL_FILES.items():
        tb.write(shop.path, f"trails/config/trailmaps/shop/tools/{name}", text)
    tb.write(shop.path, "trails/greet.trail.yaml", GREET_TRAIL)

    result = shop.runpytest("--collect-only")

    result.assert_outcomes(errors=1)
    tools = "trails/config/trailmaps/shop/tools"
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/greet.trail.yaml*",
            "4 problems found:",
            f"{tools}/assertEquals.tool.yaml:1:5: tool 'assertEquals' collides with the built-in tool*",
            f"{tools}/shop_missing.tool.yaml:1:5: tool 'shop_missing': cannot load `class:`*no_such_module*",
            f"{tools}/shop_twoBodies.tool.yaml:2:1: tool 'shop_twoBodies' has tools and script;*",
            f"{tools}/shop_undescribed.tool.yaml:1:1: tool 'shop_undescribed' needs `description:`*",
        ]
    )
    no_traceback(result)


# -- naming and scoping -------------------------------------------------------------------------
#: A conforming name of 61 characters: past 60 is a naming warning (the wire limit is 64).
LONG_NAME = "shop_web_rememberTheGreetingForSomeoneVeryPoliteIndeedPleaseX"
LONG = f"""
id: {LONG_NAME}
description: A tool with a long name.
parameters: []
tools:
  - dumpMemory: {{}}
"""


def test_scoping_and_naming_warnings_are_shown_once_as_trailblaze_warnings(
    pytester: pytest.Pytester, tb
) -> None:
    workspace(pytester.path, tb, trailmap=UNSCOPED_TRAILMAP)
    tb.write(pytester.path, f"trails/config/trailmaps/shop/tools/{LONG_NAME}.tool.yaml", LONG)
    pytester.syspathinsert()
    for index in range(3):
        trail = GREET_TRAIL.replace("shop/greet", f"t/{index}")
        tb.write(pytester.path, f"trails/t{index}.trail.yaml", trail)

    result = pytester.runpytest(QUIET, "--trailblaze-screenshots=off")

    result.assert_outcomes(passed=3, warnings=2)
    out = result.stdout.str()
    assert out.count("[TrailmapScopingCheck]") == 1, out
    assert out.count(f"tool name '{LONG_NAME}' is 61 characters long") == 1, out
    assert out.count("TrailblazeWarning:") == 2, out
    result.stdout.fnmatch_lines(
        [
            "*= warnings summary =*",
            "*TrailblazeWarning: trails/config/trailmaps/shop/trailmap.yaml:*"
            "[[]TrailmapScopingCheck[]] trailmap 'shop': target.tools greetAll lack the 'shop_' prefix",
        ]
    )


@pytest.mark.parametrize("how", ["option", "ini"])
def test_strict_turns_the_scoping_warning_into_a_collection_error(
    pytester: pytest.Pytester, tb, how: str
) -> None:
    workspace(pytester.path, tb, trailmap=UNSCOPED_TRAILMAP)
    pytester.syspathinsert()
    tb.write(pytester.path, "trails/greet.trail.yaml", GREET_TRAIL)
    if how == "ini":
        pytester.makeini("[pytest]\ntrailblaze_strict = true\n")

    result = pytester.runpytest("--collect-only", *(["--trailblaze-strict"] if how == "option" else []))

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/greet.trail.yaml*",
            "trails/config/trailmaps/shop/trailmap.yaml:*: "
            "[[]TrailmapScopingCheck[]] trailmap 'shop':*greetAll*",
        ]
    )
    assert "TrailblazeWarning" not in result.stdout.str()
    no_traceback(result)


def test_strict_turns_a_naming_warning_into_a_collection_error(shop: pytest.Pytester, tb) -> None:
    tb.write(shop.path, f"trails/config/trailmaps/shop/tools/{LONG_NAME}.tool.yaml", LONG)
    tb.write(shop.path, "trails/greet.trail.yaml", GREET_TRAIL)

    relaxed = shop.runpytest(QUIET, "--collect-only")
    strict = shop.runpytest(QUIET, "--collect-only", "--trailblaze-strict")

    assert "TrailblazeWarning" in relaxed.stdout.str() and LONG_NAME in relaxed.stdout.str()
    strict.assert_outcomes(errors=1)
    strict.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/greet.trail.yaml*",
            f"trails/config/trailmaps/shop/tools/{LONG_NAME}.tool.yaml:1:5: tool name*61 characters long",
        ]
    )
    assert "TrailblazeWarning" not in strict.stdout.str()


# -- where the workspace is ---------------------------------------------------------------------
ELSEWHERE_TRAIL = """
config:
  id: suite/greet
  target: shop
trail:
  - step: Greet through a tool of a workspace kept elsewhere
    recording:
      web:
        - shop_rememberGreeting: { who: Grace }
        - assertEquals: { actual: "{{greeting}}", expected: hello Grace }
"""


def test_config_dir_option_and_env_point_at_a_workspace_elsewhere(
    pytester: pytest.Pytester, tb, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace(pytester.path / "shared", tb)  # shared/trails/config: not above the suite
    pytester.syspathinsert(pytester.path / "shared")
    tb.write(pytester.path, "suite/greet.trail.yaml", ELSEWHERE_TRAIL)
    config_dir = "shared/trails/config"
    monkeypatch.delenv("TRAILBLAZE_CONFIG_DIR", raising=False)

    without = pytester.runpytest("suite", "--trailblaze-screenshots=off")
    by_option = pytester.runpytest("suite", f"--trailblaze-config-dir={config_dir}")
    monkeypatch.setenv("TRAILBLAZE_CONFIG_DIR", str(pytester.path / config_dir))
    by_env = pytester.runpytest("suite")

    without.assert_outcomes(failed=1)
    assert "unknown tool 'shop_rememberGreeting'" in without.stdout.str()
    by_option.assert_outcomes(passed=1)
    by_env.assert_outcomes(passed=1)


@pytest.mark.parametrize("folder", ["empty", "no/such/folder"])
def test_a_config_dir_without_trailblaze_yaml_is_a_usage_error(
    pytester: pytest.Pytester, tb, folder: str
) -> None:
    tb.write(pytester.path, "trails/greet.trail.yaml", GREET_TRAIL)
    (pytester.path / "empty").mkdir()

    result = pytester.runpytest("--collect-only", f"--trailblaze-config-dir={folder}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--trailblaze-config-dir {folder}: no trailblaze.yaml in *{folder}*"])
    no_traceback(result)


# -- markers ------------------------------------------------------------------------------------
MARKER_PROBE = """
import json, pathlib

def pytest_collection_modifyitems(config, items):
    found = {item.nodeid: item.get_closest_marker("trailblaze").kwargs["target"] for item in items}
    pathlib.Path(str(config.rootpath), "markers.json").write_text(json.dumps(found))
"""


def test_the_trailblaze_marker_carries_the_resolved_target(pytester: pytest.Pytester, tb) -> None:
    workspace(pytester.path, tb, config="targets: [shop]\ndefaults:\n  target: shop\n")
    pytester.syspathinsert()
    pytester.makeconftest(MARKER_PROBE)
    tb.write(pytester.path, "trails/by-id.trail.yaml", GREET_TRAIL.replace("shop/greet", "m/by-id"))
    by_app = GREET_TRAIL.replace("shop/greet", "m/by-app").replace("target: shop", "target: com.example.shop")
    tb.write(pytester.path, "trails/by-app.trail.yaml", by_app)
    default = GREET_TRAIL.replace("shop/greet", "m/default").replace("  target: shop\n", "")
    tb.write(pytester.path, "trails/default.trail.yaml", default)

    result = pytester.runpytest("--collect-only", "-q")

    result.assert_outcomes()
    found = json.loads((pytester.path / "markers.json").read_text())
    assert found == {
        "trails/by-app.trail.yaml::m/by-app[web]": "shop",
        "trails/by-id.trail.yaml::m/by-id[web]": "shop",
        "trails/default.trail.yaml::m/default[web]": "shop",
    }


# -- Python tools from hooks --------------------------------------------------------------------
ROOT_TOOLS = """
from pytest_trailblaze import tool


@tool("conf_remember")
def conf_remember(ctx, key: str, value: str) -> str:
    \"\"\"Remember a value.\"\"\"
    ctx.memory.set(key, value)
    return f"{key} set"


def pytest_trailblaze_register_tools(registry, config):
    registry.register(conf_remember)
"""

SUB_TOOLS = """
from pytest_trailblaze import tool


@tool("sub_web_rememberHeading")
def remember_heading(ctx, variable: str) -> str:
    \"\"\"Remember the first heading of the page.\"\"\"
    text = ctx.driver.page.locator("h1").first.inner_text()
    ctx.memory.set(variable, text)
    return text


def pytest_trailblaze_register_tools(registry, config):
    registry.register(remember_heading)
"""

CONFTEST_TOOL_TRAIL = """
config:
  id: hooks/root
  target: shop
trail:
  - step: Remember through a conftest tool, then through a workspace class tool
    recording:
      web:
        - conf_remember: { key: colour, value: teal }
        - assertEquals: { actual: "{{colour}}", expected: teal }
        - shop_setGreeting: { who: "{{colour}}" }
        - assertEquals: { actual: "{{greeting}}", expected: hello teal }
"""

SUB_TOOL_TRAIL = """
config:
  id: hooks/sub
trail:
  - step: Open the app
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html" }
  - verify: A tool of a conftest in a subfolder reads the page
    recording:
      web:
        - sub_web_rememberHeading: { variable: heading }
        - assertEquals: { actual: "{{heading}}", expected: Trailblaze Test Fixture }
        - conf_remember: { key: k, value: v }
        - assertEquals: { actual: "{{k}}", expected: v }
"""


def test_tools_registered_by_conftest_hooks_run_from_trails(shop: pytest.Pytester, tb) -> None:
    shop.makeconftest(ROOT_TOOLS)
    tb.write(shop.path, "trails/root.trail.yaml", CONFTEST_TOOL_TRAIL)
    tb.write(shop.path, "trails/deeper/conftest.py", SUB_TOOLS)
    tb.write(shop.path, "trails/deeper/sub.trail.yaml", SUB_TOOL_TRAIL)

    result = shop.runpytest(tb.APP_MEMORY, "-rA", "--trailblaze-screenshots=off")

    result.assert_outcomes(passed=2)
    assert passed(result) == {
        "trails/root.trail.yaml::hooks/root[web]",
        "trails/deeper/sub.trail.yaml::hooks/sub[web]",
    }


COLLIDING = """
from pytest_trailblaze import tool


@tool("shop_setGreeting")
def impostor(ctx, who: str) -> str:
    \"\"\"Same name as the workspace's tool.\"\"\"
    return "impostor"


def pytest_trailblaze_register_tools(registry, config):
    registry.register(impostor)
"""


def test_a_conftest_tool_colliding_with_a_workspace_tool_errors_naming_both(
    shop: pytest.Pytester, tb
) -> None:
    """Both catalogs are known at collection: the collision is found before anything starts."""
    shop.makeconftest(COLLIDING)
    tb.write(shop.path, "trails/greet.trail.yaml", GREET_TRAIL)

    result = shop.runpytest("--trailblaze-screenshots=off")

    result.assert_outcomes(errors=1)
    body = section(result, "ERROR collecting trails/greet.trail.yaml")
    assert "tool name collision: 'shop_setGreeting'" in body
    assert "python:conftest" in body  # the hook's tool ...
    assert "shop_tools" in body  # ... and the workspace's
    no_traceback(result)


# -- the workspace and the toolbox in hooks ---------------------------------------------------
OBSERVER = """
import json, pathlib

OUT = pathlib.Path(__file__).parent


def pytest_trailblaze_make_driver(platform, request):
    ws = request.getfixturevalue("trailblaze_workspace")
    seen = None
    if ws is not None:
        seen = {"config_dir": str(ws.config_dir), "targets": sorted(ws.targets)}
        seen["tools"] = sorted(ws.tool_defs)
    name = request.node.name.split("[")[0].replace("/", "-")
    (OUT / f"workspace-{name}.json").write_text(json.dumps(seen))
    return None  # the built-in driver


def pytest_trailblaze_agent_step(step, context, item):
    offered = sorted(d.name for d in context.toolbox)
    (OUT / "toolbox.json").write_text(json.dumps(offered))
    context.run("shop_setGreeting", {"who": "agent"})
    return True
"""

AGENT_TRAIL = """
config:
  id: agent/toolbox
  target: shop
trail:
  - step: Greet whoever is there
  - verify: The agent used a workspace tool
    recording:
      web:
        - assertEquals: { actual: "{{greeting}}", expected: hello agent }
"""

LONE_TRAIL = """
config:
  id: lone
trail:
  - step: Nothing
    recording:
      web: []
"""


def test_hooks_see_the_workspace_and_the_target_toolbox(pytester: pytest.Pytester, tb) -> None:
    config_dir = workspace(pytester.path / "app", tb)
    pytester.syspathinsert(pytester.path / "app")
    pytester.makeconftest(OBSERVER)
    tb.write(pytester.path, "app/trails/agent.trail.yaml", AGENT_TRAIL)
    tb.write(pytester.path, "lone.trail.yaml", LONE_TRAIL)  # outside any workspace

    result = pytester.runpytest("--trailblaze-screenshots=off", "-rA")

    result.assert_outcomes(passed=2)
    seen = json.loads((pytester.path / "workspace-agent-toolbox.json").read_text())
    assert seen == {
        "config_dir": str(config_dir.resolve()),
        "targets": ["shop"],
        "tools": [
            "shop_rememberGreeting",
            "shop_resetEverything",
            "shop_setGreeting",
            "shop_web_readTitle",
        ],
    }
    assert json.loads((pytester.path / "workspace-lone.json").read_text()) is None

    offered = json.loads((pytester.path / "toolbox.json").read_text())
    for name in (
        "shop_rememberGreeting",
        "shop_setGreeting",
        "shop_web_readTitle",
        "web_click",
        "web_navigate",
        "web_verifyTextVisible",
        "assertEquals",
    ):
        assert name in offered, offered
    hidden = {"shop_resetEverything", "web_evaluate", "script"}
    assert hidden.isdisjoint(offered), offered
    assert not [name for name in offered if name.startswith(("android_", "ios_", "mobile_"))], offered


def test_an_agent_outside_any_workspace_is_offered_the_framework_toolbox(
    pytester: pytest.Pytester, tb
) -> None:
    pytester.makeconftest(OBSERVER.replace('context.run("shop_setGreeting", {"who": "agent"})', ""))
    tb.write(pytester.path, "lone.trail.yaml", "trail:\n  - step: Look around\n")

    result = pytester.runpytest("--trailblaze-screenshots=off")

    result.assert_outcomes(passed=1)
    offered = json.loads((pytester.path / "toolbox.json").read_text())
    # What `trailblaze toolbox --platform web` lists outside a workspace: the web defaults.
    for name in ("web_click", "web_navigate", "web_verifyTextVisible", "assertEquals"):
        assert name in offered, offered
    assert "web_evaluate" not in offered
