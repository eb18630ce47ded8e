"""The ``trailblaze`` console command: ``check`` (exit 0 clean, 1 findings, 2 usage) and ``toolbox``.

Most cases call ``pytest_trailblaze.cli.main`` in-process (fast); the headline commands also run
the installed console script, as a pre-commit hook or CI job would.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from pytest_trailblaze.cli import main

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
CONSOLE = Path(sys.executable).parent / "trailblaze"


def write_tree(base: Path, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        path = base / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def console(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The installed ``trailblaze`` script, as a user runs it."""
    return subprocess.run(
        [str(CONSOLE), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):
    """``cli(*args)`` -> (exit code, stdout, stderr) of ``main`` run in ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRAILBLAZE_CONFIG_DIR", raising=False)

    def run(*args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run


# -- a workspace with a scoping warning, trails with every kind of mistake -----------------------
SHOP = {
    "trails/config/trailblaze.yaml": "targets: [shop]\n",
    "trails/config/trailmaps/shop/trailmap.yaml": """
        id: shop
        target:
          display_name: Shop
          tools:
            - shop_web_greet
            - greetAll
          platforms:
            web: {}
    """,
    # listed, unscoped: a scoping warning (a listed tool needs a file providing it)
    "trails/config/trailmaps/shop/tools/greetAll.tool.yaml": """
        id: greetAll
        description: Greet everyone.
        parameters: []
        tools: []
    """,
    "trails/config/trailmaps/shop/tools/shop_web_greet.tool.yaml": """
        id: shop_web_greet
        description: Greet someone.
        parameters:
          - name: who
            type: string
          - name: times
            type: integer
            default: 1
        tools:
          - assertEquals: { actual: "{{params.who}}", expected: "{{params.who}}" }
    """,
}

BROKEN_TRAILS = {
    "trails/malformed.trail.yaml": """
        config:
          id: broken/malformed
        trail:
          - step: Click
            recording:
              web: [ { web_click:
    """,
    "trails/calls.trail.yaml": """
        config:
          id: broken/calls
          target: shop
          args:
            delay: { type: integer, default: 1 }
        trail:
          - step: Unknown tool
            recording:
              web:
                - web_clik: { ref: "css=#go" }
          - step: Mistyped argument
            recording:
              web:
                - web_wait: { seconds: lots }
          - step: Missing required argument
            recording:
              web:
                - assertEquals: { actual: x }
          - step: Undeclared arg
            recording:
              web:
                - assertEquals: { actual: "{{args.user}}", expected: x }
          - step: Workspace tool with a mistyped argument
            recording:
              web:
                - shop_web_greet: { who: Ada, times: many }
          - step: Tokens are known only at run time
            recording:
              web:
                - web_wait: { seconds: "{{args.delay}}" }
                - web_wait: { seconds: "{{pause}}" }
                - shop_web_greet: { who: Ada, times: "{{args.delay}}" }
    """,
    "trails/target.trail.yaml": """
        config:
          id: broken/target
          target: shpo
        trail:
          - step: Check
            recording:
              web:
                - assertEquals: { actual: a, expected: a }
    """,
}

#: A second workspace whose tool files are broken: two bodies, names against the convention.
STORE = {
    "other/trails/config/trailblaze.yaml": "targets: [store]\n",
    "other/trails/config/trailmaps/store/trailmap.yaml": "id: store\ntarget:\n  display_name: Store\n",
    "other/trails/config/trailmaps/store/tools/store_twoBodies.tool.yaml": """
        id: store_twoBodies
        description: Two bodies.
        parameters: []
        tools:
          - dumpMemory: {}
        script: helpers:run
    """,
    "other/trails/config/trailmaps/store/tools/store_web_Open.tool.yaml": """
        id: store_web_Open
        description: Badly named.
        parameters: []
        tools:
          - dumpMemory: {}
    """,
    "other/trails/config/trailmaps/store/tools/store_iphone_scroll.tool.yaml": """
        id: store_iphone_scroll
        description: Names a device type.
        parameters: []
        tools:
          - dumpMemory: {}
    """,
}

SCOPING = "trails/config/trailmaps/shop/trailmap.yaml:5:5: warning: [TrailmapScopingCheck] trailmap 'shop'"
#: Every error of SHOP + BROKEN_TRAILS + STORE, as ``file:line:col: what`` prefixes.
EXPECTED_ERRORS = [
    "trails/malformed.trail.yaml:7:1: malformed YAML",
    "trails/calls.trail.yaml:10:11: unknown tool 'web_clik'",
    "trails/calls.trail.yaml:14:23: invalid arguments for 'web_wait': argument 'seconds'",
    "trails/calls.trail.yaml:18:11: invalid arguments for 'assertEquals': "
    "missing required argument 'expected'",
    "trails/calls.trail.yaml:22:11: 'assertEquals' uses {{args.user}}, which the trail does not declare",
    "trails/calls.trail.yaml:26:39: invalid arguments for 'shop_web_greet': argument 'times'",
    "trails/target.trail.yaml:3:11: unknown target 'shpo' in config.target",
    "other/trails/config/trailmaps/store/tools/store_twoBodies.tool.yaml:1:1: tool 'store_twoBodies' has "
    "tools and script",
    "other/trails/config/trailmaps/store/tools/store_web_Open.tool.yaml:1:5: tool name 'store_web_Open' does "
    "not follow the naming convention",
    "other/trails/config/trailmaps/store/tools/store_iphone_scroll.tool.yaml:1:5: tool name "
    "'store_iphone_scroll' names a device type ('iphone')",
]
#: Trail mistakes that do not depend on the workspace's tools.
WORKSPACE_INDEPENDENT = [e for e in EXPECTED_ERRORS[:5] if "web_clik" not in e]


def located(out: str) -> list[str]:
    """Lines of the output that start a finding (``path:line:col: ...``)."""
    return [line for line in out.splitlines() if not line.startswith(" ") and ".yaml:" in line]


# -- check ----------------------------------------------------------------------------------------
def test_check_of_the_examples_is_clean() -> None:
    result = console("check", "examples/", cwd=REPO)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "no problems" in result.stdout
    assert "1 workspace(s)" in result.stdout
    assert result.stderr == ""


def test_check_lists_every_problem_with_its_location(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, {**SHOP, **BROKEN_TRAILS, **STORE})

    code, out, _ = cli("check", "trails", "other")

    assert code == 1
    found = located(out)
    for expected in EXPECTED_ERRORS:
        assert [line for line in found if line.startswith(expected)], f"missing {expected!r} in:\n{out}"
    assert [line for line in found if line.startswith(SCOPING)], out
    assert len(found) == len(EXPECTED_ERRORS) + 1, out  # nothing else: tokens are not judged
    assert f"{len(EXPECTED_ERRORS)} problem(s), 1 warning(s)" in out.splitlines()[-1]
    assert "did you mean 'web_click'?" in out and "did you mean 'shop'?" in out


def test_check_reads_a_blaze_yaml_definition_like_collection_does(tmp_path: Path, cli) -> None:
    write_tree(
        tmp_path,
        {
            "trails/legacy/blaze.yaml": "- prompts:\n    - step: Go\n      recording:\n"
            "        tools:\n          - web_clik: { ref: e1 }\n",
            # a blaze.yaml under the workspace config is never a trail
            "trails/config/blaze.yaml": "- prompts:\n    - step: Go\n      recording:\n"
            "        tools:\n          - nothing_here: {}\n",
        },
    )

    code, out, _ = cli("check", "trails")

    assert code == 1
    assert "trails/legacy/blaze.yaml:5:13: unknown tool 'web_clik'" in out, out
    assert "nothing_here" not in out


def test_the_console_script_exits_1_on_findings(tmp_path: Path) -> None:
    write_tree(tmp_path, {**SHOP, **BROKEN_TRAILS})

    result = console("check", "trails", cwd=tmp_path)

    assert result.returncode == 1
    assert "trails/calls.trail.yaml:10:11: unknown tool 'web_clik'" in result.stdout


def test_check_reports_trail_mistakes_even_when_the_workspace_is_broken(tmp_path: Path, cli) -> None:
    broken_tool = STORE["other/trails/config/trailmaps/store/tools/store_twoBodies.tool.yaml"]
    write_tree(
        tmp_path,
        {**SHOP, **BROKEN_TRAILS, "trails/config/trailmaps/shop/tools/shop_twoBodies.tool.yaml": broken_tool},
    )

    code, out, _ = cli("check", "trails")

    assert code == 1
    assert "trails/config/trailmaps/shop/tools/shop_twoBodies.tool.yaml:1:1:" in out
    missing = [e for e in WORKSPACE_INDEPENDENT if not any(x.startswith(e) for x in located(out))]
    assert not missing, f"not reported: {missing}\n{out}"


def test_warnings_alone_pass_unless_strict(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, SHOP)
    write_tree(
        tmp_path,
        {
            "trails/greet.trail.yaml": """
                config:
                  target: shop
                trail:
                  - step: Greet
                    recording:
                      web:
                        - shop_web_greet: { who: Ada }
            """
        },
    )

    code, out, _ = cli("check", "trails")
    strict_code, strict_out, _ = cli("check", "trails", "--strict")

    assert code == 0, out
    assert located(out) == [located(out)[0]] and located(out)[0].startswith(SCOPING)
    assert "no problems, 1 warning(s)" in out
    assert strict_code == 1, strict_out
    assert "[TrailmapScopingCheck]" in strict_out and "1 problem(s)" in strict_out


def test_strict_still_reports_every_trail_problem(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, {**SHOP, **BROKEN_TRAILS})

    code, out, _ = cli("check", "trails", "--strict")

    assert code == 1
    found = located(out)
    missing = [e for e in EXPECTED_ERRORS[:7] if not any(line.startswith(e) for line in found)]
    assert not missing, f"--strict hid: {missing}\n{out}"
    assert "8 problem(s)" in out.splitlines()[-1]  # the 7 above and the scoping finding


def test_arguments_with_tokens_are_not_judged_by_type(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, SHOP)
    write_tree(
        tmp_path,
        {
            "trails/tokens.trail.yaml": """
                config:
                  target: shop
                  args:
                    pause: { type: integer, default: 1 }
                    name: { type: string }
                trail:
                  - step: Values known at run time
                    recording:
                      web:
                        - web_wait: { seconds: "{{args.pause}}" }
                        - web_wait: { seconds: "${delay}" }
                        - web_resize: { width: "{{memory.width}}", height: "{{height}}" }
                        - shop_web_greet: { who: "{{args.name}}", times: "{{args.pause}}" }
                        - assertMath: { expression: "{{a}} + 1", expected: "{{b}}" }
            """
        },
    )

    code, out, _ = cli("check", "trails/tokens.trail.yaml")

    assert code == 0, out
    assert located(out) == [located(out)[0]] and located(out)[0].startswith(SCOPING)  # the warning only


def test_check_config_dir_points_at_a_workspace_elsewhere(tmp_path: Path, cli) -> None:
    write_tree(tmp_path / "shared", SHOP)  # shared/trails/config: not above the suite
    write_tree(
        tmp_path,
        {
            "suite/greet.trail.yaml": """
                trail:
                  - step: Greet
                    recording:
                      web:
                        - shop_web_greet: { who: Ada }
            """
        },
    )

    alone_code, alone_out, _ = cli("check", "suite")
    code, out, _ = cli("check", "suite", "--config-dir", "shared/trails/config")

    assert alone_code == 1 and "unknown tool 'shop_web_greet'" in alone_out
    assert code == 0, out
    assert "1 workspace(s)" in out


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["check", "no/such/folder"], id="missing-path"),
        pytest.param(["check"], id="no-path"),
        pytest.param(["check", ".", "--bogus"], id="unknown-option"),
        pytest.param(["check", ".", "--config-dir", "no/such/folder"], id="missing-config-dir"),
        pytest.param(["check", ".", "--config-dir", "."], id="config-dir-without-trailblaze-yaml"),
        pytest.param(["frobnicate"], id="unknown-command"),
    ],
)
def test_usage_errors_exit_2(cli, args: list[str]) -> None:
    code, out, err = cli(*args)

    assert code == 2, out + err
    assert err.strip(), "a usage error says what is wrong on stderr"
    assert "Traceback" not in out + err


def test_the_console_script_exits_2_on_a_missing_path(tmp_path: Path) -> None:
    result = console("check", "nowhere", cwd=tmp_path)

    assert result.returncode == 2
    assert "no such file or folder: nowhere" in result.stderr


# -- toolbox --------------------------------------------------------------------------------------
def listed(out: str) -> dict[str, str]:
    """Tool name -> source column of a toolbox listing."""
    rows = [line.split() for line in out.splitlines()[:-1] if line.strip()]
    return {row[0]: row[2] for row in rows}


def test_toolbox_lists_the_web_tools_without_hidden_ones(cli) -> None:
    code, out, _ = cli("toolbox", "--platform", "web")
    all_code, all_out, _ = cli("toolbox", "--platform", "web", "--all")

    assert code == 0 and all_code == 0
    tools = listed(out)
    for name in ("web_click", "web_navigate", "web_type", "web_verifyTextVisible", "web_verifyValue"):
        assert tools.get(name) == "builtin", out
    assert "web_evaluate" not in tools  # hidden from agents (surface_to_llm false)
    assert not [name for name in tools if name.startswith(("android_", "ios_", "mobile_"))], out
    assert out.splitlines()[-1] == f"{len(tools)} tool(s) for web (no target)"
    assert "web_evaluate" in listed(all_out)
    assert set(tools) < set(listed(all_out))


def test_toolbox_all_lists_every_tool_a_recording_can_call(cli) -> None:
    """Selector taps and asserts are recorded by upstream but never offered to agents: --all lists them."""
    code, out, _ = cli("toolbox", "--platform", "android", "--all")
    agent_code, agent_out, _ = cli("toolbox", "--platform", "android")

    assert code == 0 and agent_code == 0
    tools, offered = listed(out), listed(agent_out)
    rows = {line.split()[0]: line for line in out.splitlines()[:-1]}
    hidden = ("tapOnElementBySelector", "tapOn", "assertVisibleBySelector", "tapOnElementWithText", "script")
    for name in hidden:
        assert tools.get(name) == "builtin", out
        assert "[not offered to agents]" in rows[name]
    assert set(offered) < set(tools)
    assert "[not offered to agents]" not in rows["inputText"]
    assert not [name for name in tools if name.startswith("web_")], out  # not callable on android
    assert out.splitlines()[-1] == (
        f"{len(tools)} callable tool(s) for android (no target), {len(offered)} offered to agents"
    )


def test_toolbox_into_a_reader_that_went_away_ends_quietly(tmp_path: Path) -> None:
    """`trailblaze toolbox | head -1`: the closed pipe is the reader's choice, not a crash."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the listing is written: every write fails
    try:
        result = subprocess.run(
            [str(CONSOLE), "toolbox", "--platform", "web"],
            cwd=tmp_path,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write_end)

    assert result.returncode == 0
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr, result.stderr


def test_toolbox_of_the_examples_target_lists_its_tools_with_their_sources() -> None:
    result = console("toolbox", "--target", "sampleApp", "--platform", "web", cwd=EXAMPLES)

    assert result.returncode == 0, result.stderr
    tools = listed(result.stdout)
    assert tools["sampleApp_web_openSection"] == "yaml:sampleApp_web_openSection.tool.yaml"
    assert tools["sampleApp_web_rememberCounter"].startswith("python:")
    assert tools["sampleApp_web_incrementCounterTo"] == "script:sampleApp_web_incrementCounterTo.tool.yaml"
    assert tools["web_click"] == "builtin" and tools["web_verifyTextVisible"] == "builtin"
    assert "web_evaluate" not in tools
    assert result.stdout.splitlines()[-1] == f"{len(tools)} tool(s) for web (target sampleApp)"


def test_toolbox_unknown_target_and_driver_are_usage_errors(cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(EXAMPLES)
    target_code, _, target_err = cli("toolbox", "--target", "sampleAp", "--platform", "web")
    driver_code, _, driver_err = cli("toolbox", "--driver", "nope")

    assert target_code == 2
    assert "unknown target 'sampleAp'" in target_err and "did you mean 'sampleApp'?" in target_err
    assert driver_code == 2
    assert "unknown driver 'nope'" in driver_err and "playwright-native" in driver_err


def test_toolbox_of_a_target_hides_tools_not_surfaced_to_agents(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, SHOP)
    write_tree(
        tmp_path,
        {
            "trails/config/trailmaps/shop/tools/shop_web_resetAll.tool.yaml": """
                id: shop_web_resetAll
                description: Reset everything behind the agent's back.
                parameters: []
                surface_to_llm: false
                tools:
                  - dumpMemory: {}
            """
        },
    )

    code, out, _ = cli("toolbox", "--target", "shop", "--platform", "web")
    all_code, all_out, _ = cli("toolbox", "--target", "shop", "--platform", "web", "--all")

    assert code == 0 and all_code == 0
    assert listed(out)["shop_web_greet"] == "yaml:shop_web_greet.tool.yaml"
    assert "shop_web_resetAll" not in listed(out)
    assert listed(all_out)["shop_web_resetAll"] == "yaml:shop_web_resetAll.tool.yaml"
    assert out.splitlines()[-1].endswith("(target shop)")


def test_toolbox_of_a_target_leaves_out_the_tools_of_other_targets(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, SHOP)
    write_tree(
        tmp_path,
        {
            "trails/config/trailblaze.yaml": "targets: [shop, store]\n",
            "trails/config/trailmaps/store/trailmap.yaml": """
                id: store
                target:
                  display_name: Store
                  tools: [store_web_restock]
            """,
            "trails/config/trailmaps/store/tools/store_web_restock.tool.yaml": """
                id: store_web_restock
                description: Restock the store.
                parameters: []
                tools:
                  - dumpMemory: {}
            """,
        },
    )

    shop_code, shop_out, _ = cli("toolbox", "--target", "shop", "--platform", "web")
    store_code, store_out, _ = cli("toolbox", "--target", "store", "--platform", "web")

    assert shop_code == 0 and store_code == 0
    assert "shop_web_greet" in listed(shop_out) and "store_web_restock" in listed(store_out)
    assert "store_web_restock" not in listed(shop_out), shop_out
    assert "shop_web_greet" not in listed(store_out), store_out


# -- every call against its tool's schema, at every depth -----------------------------------------
COMPOSED = {
    "trails/config/trailblaze.yaml": "targets: [shop]\n",
    "trails/config/trailmaps/shop/trailmap.yaml": """
        id: shop
        target:
          display_name: Shop
          tools: [shop_web_open, shop_web_typo, shop_web_unused]
    """,
    "trails/config/trailmaps/shop/tools/shop_web_open.tool.yaml": """
        id: shop_web_open
        description: Open a page and wait.
        parameters:
          - name: pause
            type: number
        tools:
          - web_navigate: {}
          - wait: { timeToWaitInSeconds: "{{params.pause}}" }
    """,
    "trails/config/trailmaps/shop/tools/shop_web_typo.tool.yaml": """
        id: shop_web_typo
        description: Calls a tool that does not exist.
        parameters: []
        tools:
          - web_clik: { ref: "css=#go" }
    """,
    "trails/config/trailmaps/shop/tools/shop_web_unused.tool.yaml": """
        id: shop_web_unused
        description: No trail calls it.
        parameters: []
        tools:
          - assertEquals: { actual: x }
          - shop_web_gone: {}
    """,
    "trails/calls.trail.yaml": """
        config:
          target: shop
        trail:
          - step: Open
            recording:
              web:
                - web_navigate: {}
                - shop_web_open: { pause: 1e300 }
                - shop_web_typo: {}
    """,
}


def test_check_judges_every_call_at_every_depth_of_composition(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, COMPOSED)

    code, out, _ = cli("check", "trails")

    assert code == 1
    tools = "trails/config/trailmaps/shop/tools"
    expected = [
        "trails/calls.trail.yaml:7:11: invalid arguments for 'web_navigate': missing required argument 'url'",
        f"{tools}/shop_web_open.tool.yaml:7:5: invalid arguments for 'web_navigate': "
        "missing required argument 'url'",
        f"{tools}/shop_web_open.tool.yaml:8:13: invalid arguments for 'wait': "
        "argument 'timeToWaitInSeconds': Input should be less than or equal to 600 (got 1e+300)",
        f"{tools}/shop_web_typo.tool.yaml:5:5: unknown tool 'web_clik' in composed tool 'shop_web_typo'",
        f"{tools}/shop_web_unused.tool.yaml:5:5: invalid arguments for 'assertEquals': "
        "missing required argument 'expected'",
        f"{tools}/shop_web_unused.tool.yaml:6:5: unknown tool 'shop_web_gone' in composed tool "
        "'shop_web_unused'",
    ]
    found = located(out)
    for line in expected:
        assert [f for f in found if f.startswith(line)], f"missing {line!r} in:\n{out}"
    assert len(found) == len(expected), out  # a mistake met from two callers is reported once
    assert "called at trails/calls.trail.yaml:8:11" in out
    assert "did you mean 'web_click'?" in out


#: ``@modelcontextprotocol/server-memory`` from npm (package.json): ``create_entities`` takes
#: ``entities: [{name, entityType, observations: [string]}]``.
MEMORY_SERVER = REPO / "node_modules" / "@modelcontextprotocol" / "server-memory" / "dist" / "index.js"


KG_TRAILMAP = "trails/config/trailmaps/kg/trailmap.yaml"


def kg_trailmap(server: str) -> str:
    """Target ``kg`` with one MCP server, given as the lines of its entry after ``- ``."""
    entry = textwrap.indent(textwrap.dedent(server).strip(), " " * 6)[6:]
    return f"id: kg\ntarget:\n  display_name: Knowledge graph\n  mcp_servers:\n    - {entry}\n"


def memory_workspace(graph: Path) -> dict[str, str]:
    return {
        "trails/config/trailblaze.yaml": "targets: [kg]\n",
        KG_TRAILMAP: kg_trailmap(
            f"""
            command: node
            args: ["{MEMORY_SERVER}"]
            env: {{ MEMORY_FILE_PATH: "{graph}" }}
            """
        ),
        "trails/graph.trail.yaml": """
            config:
              target: kg
            trail:
              - step: Remember Ada
                recording:
                  web:
                    - create_entities:
                        entities:
                          - { name: Ada, entityType: person, observations: [replays trails] }
                          - { name: Bob, observations: [ { note: x } ] }
                    - create_entities: { entities: [ { name: "{{who}}", entityType: "{{kind}}" } ] }
                    - read_graph: {}
                    - delete_entities: { entityNames: Ada }
                    - create_entitis: {}
        """,
    }


def test_check_validates_mcp_calls_against_the_servers_input_schema(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, memory_workspace(tmp_path / "graph.jsonl"))

    code, out, _ = cli("check", "trails")

    assert code == 1, out
    expected = [  # at the argument each problem is in; paths lead into it
        "trails/graph.trail.yaml:8:13: invalid arguments for 'create_entities': "
        "entities[1].entityType is required",
        "trails/graph.trail.yaml:8:13: invalid arguments for 'create_entities': "
        "argument 'entities[1].observations[0]': {'note': 'x'} is not of type 'string'",
        "trails/graph.trail.yaml:11:30: invalid arguments for 'create_entities': "
        "entities[0].observations is required",
        "trails/graph.trail.yaml:13:30: invalid arguments for 'delete_entities': "
        "argument 'entityNames': 'Ada' is not of type 'array'",
        "trails/graph.trail.yaml:14:11: unknown tool 'create_entitis' in step 1",
    ]
    found = [line for line in located(out) if line.startswith("trails/graph")]
    for line in expected:
        assert [f for f in found if f.startswith(line)], f"missing {line!r} in:\n{out}"
    assert len(found) == len(expected), out
    assert "did you mean 'create_entities'?" in out
    assert not (tmp_path / "graph.jsonl").exists(), "check lists tools; it calls none"


def test_without_servers_their_calls_are_warnings_that_say_how_to_check_them(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, memory_workspace(tmp_path / "graph.jsonl"))

    code, out, _ = cli("check", "trails", "--no-servers")

    assert code == 0, out
    assert "trails/graph.trail.yaml:7:11: warning: tool 'create_entities' not checked (on web, step 1" in out
    assert "invalid arguments" not in out
    assert "fix: run without --no-servers to check it" in out


def failing_server_workspace(graph: Path) -> dict[str, str]:
    """The memory workspace, its one MCP server writing a line and exiting before its handshake."""
    crash = "import sys; print('no graph file here', file=sys.stderr); sys.exit(3)"
    server = f"""
        command: {sys.executable}
        args: ["-c", "{crash}"]
        """
    return {**memory_workspace(graph), KG_TRAILMAP: kg_trailmap(server)}


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary folder for this test alone: where commands put their server logs."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return temp


SERVER_COMMANDS = [["check", "trails"], ["toolbox", "--target", "kg"]]


@pytest.mark.parametrize("command", SERVER_COMMANDS)
def test_a_command_whose_servers_ran_leaves_no_logs(tmp_path: Path, temp_dir: Path, cli, command) -> None:
    write_tree(tmp_path, memory_workspace(tmp_path / "graph.jsonl"))

    code, out, err = cli(*command)

    assert "create_entities" in out, out + err  # the server started and listed its tools
    assert code == (1 if command[0] == "check" else 0), out + err
    assert list(temp_dir.iterdir()) == []


@pytest.mark.parametrize("command", SERVER_COMMANDS)
def test_a_failed_server_keeps_the_log_it_names(tmp_path: Path, temp_dir: Path, cli, command) -> None:
    write_tree(tmp_path, failing_server_workspace(tmp_path / "graph.jsonl"))

    code, out, err = cli(*command)

    assert code == 1, out + err
    logs = re.findall(r"log: (\S+)", out + err)
    assert logs, out + err
    for log in logs:
        assert Path(log).parent.parent == temp_dir, log  # a folder of this run's own
        assert "no graph file here" in Path(log).read_text(encoding="utf-8")
    assert len(list(temp_dir.iterdir())) == 1


def test_check_names_broken_links_and_folders_named_like_trails(tmp_path: Path, cli) -> None:
    write_tree(tmp_path, {"trails/x.trail.yaml/inner.trail.yaml": "trail: []\n"})
    (tmp_path / "trails" / "gone.trail.yaml").symlink_to("moved.trail.yaml")

    code, out, _ = cli("check", "trails")

    assert code == 1
    assert "trails/gone.trail.yaml:1:1: broken symbolic link to 'moved.trail.yaml'" in out
    assert "trails/x.trail.yaml:1:1: a folder named like a trail file" in out
