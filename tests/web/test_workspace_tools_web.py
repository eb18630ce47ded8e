"""Workspace tools on real Chromium: a YAML composition, a ``class:`` Python tool, a ``script:`` tool.

The trails run in a pytest subprocess (this process already drives a browser through the sync
Playwright API, which cannot start twice in one process). The sample app is served by this
process (``app_url``) and reached by the subprocess over HTTP. A conftest in the subprocess writes
the page's state after every trail to ``page-state.json`` so the effects are checked in the page
itself, not only by the trail's own assertions.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

TOOLS = "trails/config/trailmaps/counter/tools"

WORKSPACE = {
    "trails/config/trailblaze.yaml": """
        targets: [counter]
        defaults:
          target: counter
    """,
    "trails/config/trailmaps/counter/trailmap.yaml": """
        id: counter
        target:
          display_name: Counter page of the sample app
          tools:
            - counter_web_open
            - counter_web_readValue
            - counter_web_incrementTo
            - counter_web_resetAndCheck
          platforms:
            web: {}
    """,
    # A YAML composition: navigate, then check the section is shown.
    f"{TOOLS}/counter_web_open.tool.yaml": """
        id: counter_web_open
        description: Open a section of the sample app.
        parameters:
          - name: section
            type: string
            default: counter
        tools:
          - web_navigate: { url: "{{app}}/index.html#{{params.section}}" }
          - web_verifyElementVisible: { ref: "css=#section-{{section}}" }
    """,
    # class: a typed @tool in counter_tools.py beside the tool file; it reads the live page.
    f"{TOOLS}/counter_web_readValue.tool.yaml": """
        id: counter_web_readValue
        class: counter_tools:read_value
    """,
    # script: observes the page through web_evaluate and reacts with web_click.
    f"{TOOLS}/counter_web_incrementTo.tool.yaml": """
        id: counter_web_incrementTo
        description: Click increment until the counter shows the target.
        parameters:
          - name: target
            type: integer
          - name: maxClicks
            type: integer
            default: 10
        script: counter_tools:increment_to
    """,
    # A composition whose third call fails when the counter is not what is expected.
    f"{TOOLS}/counter_web_resetAndCheck.tool.yaml": """
        id: counter_web_resetAndCheck
        description: Reset the counter, read it back, compare, then increment once.
        parameters:
          - name: expected
            type: string
        tools:
          - web_click: { ref: "css=#reset-btn" }
          - counter_web_readValue: { variable: afterReset }
          - assertEquals: { actual: "{{afterReset}}", expected: "{{params.expected}}" }
          - web_click: { ref: "css=#increment-btn" }
    """,
    f"{TOOLS}/counter_tools.py": """
        from pytest_trailblaze import ToolFailure, tool


        @tool("counter_web_readValue", platforms=["web"])
        def read_value(ctx, variable: str = "counter") -> str:
            \"\"\"Remember the counter's value.\"\"\"
            value = ctx.driver.page.locator("#counter-value").inner_text().strip()
            ctx.memory.set(variable, value)
            return value


        def increment_to(params, ctx):
            read = {"script": "document.querySelector('#counter-value').textContent"}
            for clicks in range(params["maxClicks"] + 1):
                seen = ctx.execute("web_evaluate", read)
                if seen["type"] == "Error":
                    raise ToolFailure("cannot read the counter: " + seen["message"])
                if int(seen["message"]) >= params["target"]:
                    ctx.memory.set("clicks", str(clicks))
                    return {"type": "Success", "message": f"reached {seen['message']}"}
                clicked = ctx.execute("web_click", {"ref": "css=#increment-btn"})
                if clicked["type"] == "Error":
                    raise ToolFailure(clicked["message"])
            raise ToolFailure("the counter did not reach the target")
    """,
    # After each trail: the counter and the section as the page shows them.
    "conftest.py": """
        import json
        import pathlib

        import pytest

        STATE = pathlib.Path(__file__).parent / "page-state.json"


        @pytest.fixture(autouse=True)
        def page_state(request, trailblaze_driver):
            yield
            page = trailblaze_driver.page
            seen = json.loads(STATE.read_text()) if STATE.exists() else {}
            seen[request.node.name] = {
                "counter": page.locator("#counter-value").inner_text(),
                "hash": page.evaluate("location.hash"),
            }
            STATE.write_text(json.dumps(seen))
    """,
    "trails/count.trail.yaml": """
        config:
          id: wsweb/count
        trail:
          - step: Open the counter through the YAML tool
            recording:
              web:
                - counter_web_open: {}
          - step: Count up to four with the scripted tool
            recording:
              web:
                - counter_web_incrementTo: { target: 4 }
                - assertEquals: { actual: "{{clicks}}", expected: "4" }
          - verify: The class tool reads the counter from the page
            recording:
              web:
                - counter_web_readValue: { variable: seen }
                - assertEquals: { actual: "{{seen}}", expected: "4" }
    """,
    "trails/fails.trail.yaml": """
        config:
          id: wsweb/fails
          target: counter
        trail:
          - step: Open the counter and count to two
            recording:
              web:
                - counter_web_open: { section: counter }
                - counter_web_incrementTo: { target: 2 }
          - step: Reset and expect a value the counter cannot have
            recording:
              web:
                - counter_web_resetAndCheck: { expected: "7" }
    """,
}


def build(base: Path) -> None:
    for relpath, text in WORKSPACE.items():
        path = base / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def failure_text(result: pytest.RunResult, name: str) -> str:
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith("_") and f" {name} " in line)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(("_", "="))), len(lines))
    return "\n".join(lines[start + 1 : end])


def test_yaml_class_and_script_tools_drive_the_page(pytester: pytest.Pytester, app_url: str) -> None:
    build(pytester.path)

    result = pytester.runpytest_subprocess(
        f"--trailblaze-memory=app={app_url}", "-rA", "-p", "no:cacheprovider", timeout=120
    )

    result.assert_outcomes(passed=1, failed=1)
    assert "PASSED trails/count.trail.yaml::wsweb/count[web]" in result.stdout.lines
    state = json.loads((pytester.path / "page-state.json").read_text())
    # The script clicked until the page showed 4; the YAML tool had opened the counter section.
    assert state["wsweb/count[web]"] == {"counter": "4", "hash": "#counter"}

    failure = failure_text(result, "wsweb/fails[web]")
    assert "trails/fails.trail.yaml:10:5: step 2 of 2 failed: Reset and expect a value" in failure, failure
    assert 'counter_web_resetAndCheck {"expected": "7"}' in failure, failure
    assert "call 3 of 4 (assertEquals) failed" in failure, failure
    assert "screenshot: " in failure
    # The reset ran, the read saw 0, and the increment after the failing call never ran.
    assert state["wsweb/fails[web]"] == {"counter": "0", "hash": "#counter"}


def test_the_examples_custom_tools_trail_passes(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess(
        str(EXAMPLES),
        "-k",
        "custom-tools",
        f"--rootdir={REPO}",
        f"--trailblaze-output={pytester.path / 'output'}",
        "-p",
        "no:cacheprovider",
        "-rA",
        timeout=120,
    )

    outcomes = result.parseoutcomes()
    assert (outcomes.get("passed"), outcomes.get("failed"), outcomes.get("errors")) == (1, None, None), (
        outcomes
    )
    assert outcomes.get("deselected", 0) >= 5  # every other example trail
    suffix = "examples/trails/web/custom-tools.trail.yaml::web/custom-tools[web]"
    assert [x for x in result.stdout.lines if x.startswith("PASSED ") and x.endswith(suffix)], result.stdout
