"""The ``pytest_trailblaze_*`` hooks: agent steps, tool observers, registering tools."""

from __future__ import annotations

import json
import re

import pytest

SECRET = "hunter2-but-longer"

HOOKS = """
import json
import pathlib

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.core.tooling.tooldef import tool

LOG = pathlib.Path(__file__).parent / "hooks.log"


def _log(kind, name, args, extra=None):
    with LOG.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"kind": kind, "name": name, "args": dict(args), "extra": extra}) + "\\n")


@tool(description="Remember a greeting for a name")
def shop_greet(ctx, name: str, times: int = 1) -> str:
    ctx.memory.set("greeting", " ".join([f"hello {name}"] * times))
    return "greeted"


def pytest_trailblaze_register_tools(registry, config):
    registry.register(shop_greet)


def pytest_trailblaze_agent_step(step, context, item):
    _log("agent", step.step.text, {}, {"label": step.label, "classifier": step.classifier})
    if step.step.text == "Press increment like a human would":
        context.run("web_click", {"ref": "css=#increment-btn"})
        return "clicked"
    if step.step.text == "Greet with a typo, as an agent might":
        context.run("shop_gret", {"name": "Ada"})
    return None


def pytest_trailblaze_before_tool(name, args, context):
    _log("before", name, args)


def pytest_trailblaze_after_tool(name, args, result, context):
    _log("after", name, args, result.message)


def pytest_trailblaze_tool_error(name, args, error, context):
    _log("error", name, args, type(error).__name__)
"""

AGENT_TAKES_IT = """
config:
  id: hooks/agent
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Press increment like a human would
    recording:
      android-phone:
        - tapOnElementWithText: { text: "+" }
  - verify: The counter shows 1
    recording:
      web:
        - web_verifyValue: { ref: "css=#counter-value", expected: "1" }
"""

AGENT_DECLINES = """
config:
  id: hooks/declined
trail:
  - step: Check the colours are pleasant
"""

OBSERVED = """
config:
  id: hooks/observed
trail:
  - step: Greet and fail
    recording:
      web:
        - shop_greet: { name: "{{password}}", times: 2 }
        - assertEquals: { actual: "{{greeting}}", expected: "hello {{password}} hello {{password}}" }
        - assertEquals: { actual: "{{password}}", expected: nope }
"""

CUSTOM_TOOL = """
config:
  id: hooks/custom-tool
trail:
  - step: Greet Ada through a registered Python tool
    recording:
      web:
        - shop_greet: { name: Ada }
        - assertEquals: { actual: "{{greeting}}", expected: hello Ada }
"""

UNKNOWN_TOOL = """
config:
  id: hooks/unknown-tool
trail:
  - step: Greet with a typo
    recording:
      web:
        - shop_gret: { name: Ada }
"""

#: A misspelt name that only the run meets (an agent's call): static checks cannot see it.
AGENT_TYPO = """
config:
  id: hooks/agent-typo
trail:
  - step: Greet with a typo, as an agent might
"""

MISSING_ARG = """
config:
  id: hooks/missing-arg
trail:
  - step: Greet with a misspelt argument
    recording:
      web:
        - shop_greet: { nme: Ada }
"""

WRONG_TYPE = """
config:
  id: hooks/wrong-type
trail:
  - step: Greet a number of times that is not a number
    recording:
      web:
        - shop_greet: { name: Ada, times: lots }
"""


@pytest.fixture
def hooked(pytester: pytest.Pytester, tb) -> pytest.Pytester:
    pytester.makeconftest(HOOKS)
    for name, text in {
        "agent": AGENT_TAKES_IT,
        "declined": AGENT_DECLINES,
        "observed": OBSERVED,
        "custom-tool": CUSTOM_TOOL,
        "unknown-tool": UNKNOWN_TOOL,
        "agent-typo": AGENT_TYPO,
        "missing-arg": MISSING_ARG,
        "wrong-type": WRONG_TYPE,
    }.items():
        tb.write(pytester.path, f"trails/{name}.trail.yaml", text)
    return pytester


def hook_log(pytester: pytest.Pytester) -> list[dict]:
    path = pytester.path / "hooks.log"
    return (
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
    )


def report(result: pytest.RunResult, name: str) -> str:
    match = re.search(rf"_+ {re.escape(name)} _+\n(.*?)(?=\n_{{3,}} |\n=+ )", result.stdout.str(), re.S)
    assert match, result.stdout.str()
    return match.group(1)


def test_hooks_drive_agent_steps_observe_tools_and_register_tools(hooked: pytest.Pytester, tb) -> None:
    result = hooked.runpytest(
        tb.APP_MEMORY,
        f"--trailblaze-secret=password={SECRET}",
        "-m",
        "web",
        "-rA",
        "--trailblaze-screenshots=off",
        *(f"trails/{name}.trail.yaml" for name in ("agent", "declined", "observed", "custom-tool")),
    )
    log = hook_log(hooked)

    result.assert_outcomes(passed=2, failed=2, deselected=1)
    result.stdout.fnmatch_lines(
        [
            "PASSED trails/agent.trail.yaml::hooks/agent[web]",
            "PASSED trails/custom-tool.trail.yaml::hooks/custom-tool[web]",
        ],
        consecutive=False,
    )

    # The agent took its step through context.run, and the click went through the tool hooks.
    agent_calls = [e for e in log if e["kind"] == "agent"]
    assert {e["name"] for e in agent_calls} == {
        "Press increment like a human would",
        "Check the colours are pleasant",
    }
    assert {"kind": "after", "name": "web_click", "args": {"ref": "css=#increment-btn"}} in [
        {k: e[k] for k in ("kind", "name", "args")} for e in log
    ]
    # Declining (returning None) leaves the step to the usual "needs an agent" failure.
    assert "step 1 of 1 needs an agent: no recording for web" in report(result, "hooks/declined[web]")

    # Every call of the observed trail was seen, with the secret masked in the arguments.
    seen = [(e["kind"], e["name"], e["args"]) for e in log if e["kind"] != "agent"]
    assert ("before", "shop_greet", {"name": "********", "times": 2}) in seen
    assert ("after", "shop_greet", {"name": "********", "times": 2}) in seen
    masked_greeting = "hello ******** hello ********"
    assert ("after", "assertEquals", {"actual": masked_greeting, "expected": masked_greeting}) in seen
    assert ("before", "assertEquals", {"actual": "********", "expected": "nope"}) in seen
    assert ("error", "assertEquals", {"actual": "********", "expected": "nope"}) in seen
    assert SECRET not in json.dumps([e["args"] for e in log])
    assert SECRET not in result.stdout.str()


def test_after_tool_results_do_not_leak_secrets(hooked: pytest.Pytester, tb) -> None:
    """Hooks feed logs and reports: the result message must be masked like the arguments are."""
    result = hooked.runpytest(
        tb.APP_MEMORY, f"--trailblaze-secret=password={SECRET}", "--trailblaze-screenshots=off",
        "trails/observed.trail.yaml",
    )  # fmt: skip
    messages = [e["extra"] for e in hook_log(hooked) if e["kind"] == "after"]

    result.assert_outcomes(failed=1)
    assert len(messages) == 2
    assert not [m for m in messages if SECRET in m], messages


def test_every_tool_call_reaches_before_and_after_or_error(hooked: pytest.Pytester, tb) -> None:
    result = hooked.runpytest(
        tb.APP_MEMORY, "-m", "web", "--trailblaze-screenshots=off",
        "trails/custom-tool.trail.yaml", "trails/agent-typo.trail.yaml",
    )  # fmt: skip
    calls = [(e["kind"], e["name"]) for e in hook_log(hooked) if e["kind"] != "agent"]

    result.assert_outcomes(passed=1, failed=1)
    assert calls[:4] == [
        ("before", "shop_greet"),
        ("after", "shop_greet"),
        ("before", "assertEquals"),
        ("after", "assertEquals"),
    ]
    # A call that cannot even start (unknown tool) still reaches tool_error, once.
    assert calls[4:] in (
        [("error", "shop_gret")],
        [("before", "shop_gret"), ("error", "shop_gret")],
    )


def test_unknown_tools_and_bad_arguments_of_registered_tools_are_collection_errors(
    hooked: pytest.Pytester,
) -> None:
    """Tools a conftest registers are known at collection, so their names and arguments are checked
    before anything starts."""
    result = hooked.runpytest(
        "-m", "web", "--trailblaze-screenshots=off",
        "trails/unknown-tool.trail.yaml", "trails/missing-arg.trail.yaml", "trails/wrong-type.trail.yaml",
    )  # fmt: skip

    result.assert_outcomes(errors=3)
    unknown = report(result, "ERROR collecting trails/unknown-tool.trail.yaml")
    assert "unknown tool 'shop_gret'" in unknown
    assert "did you mean 'shop_greet'?" in unknown
    missing = report(result, "ERROR collecting trails/missing-arg.trail.yaml")
    assert "missing required argument 'name'" in missing
    assert "'shop_greet'" in missing
    assert "unknown argument 'nme'" in missing
    wrong = report(result, "ERROR collecting trails/wrong-type.trail.yaml")
    assert "argument 'times'" in wrong
    assert "'shop_greet'" in wrong
    assert "lots" in wrong
    for text in (unknown, missing, wrong):
        assert "Traceback" not in text


# -- drivers from a hook ----------------------------------------------------------------------------
OWN_DRIVERS = """
import pathlib

from pytest_trailblaze.core.run.driver import Driver, Hierarchy, Screenshots
from pytest_trailblaze.core.tooling.context import DeviceInfo

KEYS = {"android": "android-ondevice-instrumentation", "desktop": "compose"}
CLOSED = pathlib.Path(__file__).parent / "closed.log"


class ConftestDriver:
    def __init__(self, platform):
        self.platform = platform
        self.driver_key = KEYS[platform]

    def device_info(self):
        return DeviceInfo(self.platform, self.driver_key, 1080, 2400, 2.75)

    def hierarchy(self):
        return "<hierarchy/>"

    def screenshot(self, path):
        return None

    def close(self):
        with CLOSED.open("a") as fh:
            fh.write(self.platform + "\\n")


def pytest_trailblaze_make_driver(platform, request):
    if platform not in KEYS:
        return None
    driver = ConftestDriver(platform)
    assert isinstance(driver, Driver) and isinstance(driver, Hierarchy) and isinstance(driver, Screenshots)
    return driver
"""

EVERY_PLATFORM = """
config:
  id: hooks/own-driver
trail:
  - step: Compare two words
    recording:
      android:
        - assertEquals: { actual: same, expected: same }
      desktop:
        - assertEquals: { actual: same, expected: same }
      ios:
        - assertEquals: { actual: same, expected: same }
"""


def test_a_make_driver_hook_serves_platforms_the_plugin_has_no_driver_for(
    pytester: pytest.Pytester, tb
) -> None:
    """No Appium and no desktop support built in: the hook's drivers still run those trails."""
    pytester.makeconftest(OWN_DRIVERS)
    tb.write(pytester.path, "own.trail.yaml", EVERY_PLATFORM)

    result = pytester.runpytest("--trailblaze-screenshots=off", "-rA")

    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "PASSED own.trail.yaml::hooks/own-driver[android]",
            "PASSED own.trail.yaml::hooks/own-driver[desktop]",
            "SKIPPED * no ios driver configured: ios recordings replay through Appium*",
        ]
    )
    closed = (pytester.path / "closed.log").read_text().split()
    assert sorted(closed) == ["android", "desktop"], "the plugin closes the drivers a hook made"
