"""More of the agent through pytest: Anthropic end to end, ``config.context``, ``recordable: false``,
the tool hooks around the model's calls, the per-step call budget, and healed trails that fail later.

A scripted model (``llm_server``) answers on a real HTTP server of 127.0.0.1 through the official
SDKs; trails run on real headless Chromium against the sample app opened from disk.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from junit_props import props
from llm_server import ScriptedModel, call, done, serve

JOURNEY = """\
config:
  id: agent/journey
  context: The counter page has an Increment and a Reset button.
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  # Always done by the agent, never written.
  - step: Press reset
    recordable: false
  - step: Click increment
  - verify: The counter shows 1
"""

MOVES = {
    "Press reset": [call("web_click", ref="{ref:Reset}"), done()],
    "Click increment": [call("web_click", ref="{ref:Increment}"), done()],
    "The counter shows 1": [call("web_verifyTextVisible", text="Current value: 1")],
    "Click forever": [call("web_click", ref="{ref:Increment}")] * 6,
}

HOOKS = """\
from pathlib import Path

def pytest_trailblaze_before_tool(name, args, context):
    with Path(__file__).with_name("tools.log").open("a") as log:
        log.write(name + "\\n")
"""


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve(MOVES) as scripted:
        yield scripted


def test_anthropic_end_to_end_with_context_hooks_and_an_unrecordable_step(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(pytester.path, "trails/journey.trail.yaml", JOURNEY)
    pytester.makeconftest(HOOKS)
    result = pytester.runpytest(
        tb.APP_MEMORY,
        "--trailblaze-llm=anthropic/scripted-2",
        f"--trailblaze-llm-base-url={model.anthropic_url}",
        "--trailblaze-save-recordings",
        "--junitxml=report.xml",
    )
    result.assert_outcomes(passed=1)
    # The unrecordable step went to the model, and so did every other step.
    requests = model.requests()
    assert len(requests) == 5 and {r["model"] for r in requests} == {"scripted-2"}
    context = "The counter page has an Increment and a Reset button."
    assert all(context in r["system"][0]["text"] for r in requests)
    # The model's calls ran through the registry, with the same hooks as replayed calls.
    tools = (pytester.path / "tools.log").read_text(encoding="utf-8").split()
    assert tools == [
        "web_navigate",
        "web_click",
        "objectiveStatus",
        "web_click",
        "objectiveStatus",
        "web_verifyTextVisible",
    ]
    case = props(pytester)["agent/journey[web]"]
    assert case["outcome"] == "passed-ai" and case["llm_calls"] == "5"
    assert case["llm_input_tokens"] == "500" and case["llm_output_tokens"] == "50"
    result.stdout.fnmatch_lines(["written trails/journey.trail.yaml (web): 2, 3"])
    assert trail.read_text(encoding="utf-8") == JOURNEY.replace(
        "  - step: Click increment\n",
        "  - step: Click increment\n"
        "    recording:\n"
        "      web:\n"
        "        - web_click:\n"
        '            ref: "e11"\n'
        "            nodeSelector:\n"
        "              web:\n"
        '                cssSelector: "#increment-btn"\n',
    ).replace(
        "  - verify: The counter shows 1\n",
        "  - verify: The counter shows 1\n"
        "    recording:\n"
        "      web:\n"
        "        - web_verifyTextVisible:\n"
        '            text: "Current value: 1"\n',
    )


FOREVER = """\
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click forever
"""


def test_the_call_budget_per_step_comes_from_the_option_or_the_workspace(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    tb.write(pytester.path, "trails/forever.trail.yaml", FOREVER)
    llm = ["--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}"]
    result = pytester.runpytest(tb.APP_MEMORY, *llm, "--trailblaze-max-llm-calls=2")
    result.assert_outcomes(failed=1)
    assert len(model.bodies) == 2
    result.stdout.fnmatch_lines(["*cause: used its budget of 2 LLM calls without finishing*"])

    tb.write(pytester.path, "trails/config/trailblaze.yaml", "defaults:\n  max-llm-calls: 3\n")
    result = pytester.runpytest(tb.APP_MEMORY, *llm)
    result.assert_outcomes(failed=1)
    assert len(model.bodies) == 2 + 3
    result.stdout.fnmatch_lines(["*cause: used its budget of 3 LLM calls without finishing*"])


HEALED_THEN_FAILS = """\
config:
  id: agent/later
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment
    recording:
      web:
        - web_evaluate: { script: "() => { throw new Error('stale') }" }   # fails at once: heals
  - verify: The counter shows 5
    recording:
      web:
        - web_verifyValue: { ref: "css=#counter-value", expected: "5" }
"""


def test_a_healed_trail_that_fails_later_is_still_listed_as_healed(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(pytester.path, "trails/later.trail.yaml", HEALED_THEN_FAILS)
    result = pytester.runpytest(
        tb.APP_MEMORY,
        "--trailblaze-llm=openai/scripted-1",
        f"--trailblaze-llm-base-url={model.openai_url}",
        "--trailblaze-self-heal",
        "--trailblaze-save-recordings",
        "--trailblaze-screenshots=off",
        "--junitxml=report.xml",
    )
    result.assert_outcomes(failed=1)
    case = props(pytester)["agent/later[web]"]
    assert case["outcome"] == "failed" and case["healed_steps"] == "step 1 of 2"
    result.stdout.fnmatch_lines(
        [
            "*trailblaze: healed trails*",
            "HEALED trails/later.trail.yaml::agent/later[web]: step 1 of 2 (then the trail failed)",
        ]
    )
    assert trail.read_text(encoding="utf-8") == HEALED_THEN_FAILS  # a failed trail writes nothing


def test_a_workspace_model_without_the_agent_extra(pytester: pytest.Pytester, tb) -> None:
    """A model chosen in trailblaze.yaml needs the extra only when a step goes to the agent:
    recorded trails replay without it, an agent step fails naming where the model was chosen."""
    pytester.makeconftest("import sys\nsys.modules['openai'] = None  # as if the agent extra were absent\n")
    tb.write(pytester.path, "trails/config/trailblaze.yaml", "llm:\n  defaults:\n    model: openai/gpt-4.1\n")
    tb.write(pytester.path, "trails/forever.trail.yaml", FOREVER)
    recorded = FOREVER + '    recording:\n      web:\n        - web_click: { ref: "css=#increment-btn" }\n'
    tb.write(pytester.path, "trails/recorded.trail.yaml", recorded.replace("Click forever", "Click once"))
    result = pytester.runpytest(tb.APP_MEMORY, "--trailblaze-screenshots=off", "-rA")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "trailblaze.yaml llm.defaults.model openai/gpt-4.1 needs the 'openai' client library, "
            "which is not installed",
            "  fix: pip install 'pytest-trailblaze[agent-openai]' (or [agent] for every provider)",
        ]
    )
    assert "PASSED trails/recorded.trail.yaml" in result.stdout.str()
    assert "Traceback" not in result.stdout.str()


NEVER_HEALED = {
    "trails/head.trail.yaml": """\
trailhead:
  step: Open the counter
  recording:
    web:
      web_evaluate: { script: "() => { throw new Error('stale') }" }   # fails at once
trail:
  - step: Click increment
    recording:
      web: []
""",
    "trails/fatal.trail.yaml": """\
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment
    recording:
      web:
        - test_breakBrowser: {}
""",
}

FATAL_TOOL = """\
from pytest_trailblaze import FatalToolError, tool

@tool(platforms=("web",))
def test_breakBrowser(ctx) -> str:
    \"\"\"Fails as a dead browser does.\"\"\"
    raise FatalToolError("the browser page is gone: Target closed")

def pytest_trailblaze_register_tools(registry, config):
    registry.register(test_breakBrowser)
"""


def test_self_heal_never_takes_the_trailhead_or_a_fatal_error(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    for path, text in NEVER_HEALED.items():
        tb.write(pytester.path, path, text)
    pytester.makeconftest(FATAL_TOOL)
    result = pytester.runpytest(
        tb.APP_MEMORY,
        "--trailblaze-llm=openai/scripted-1",
        f"--trailblaze-llm-base-url={model.openai_url}",
        "--trailblaze-self-heal",
        "--trailblaze-screenshots=off",
        "--junitxml=report.xml",
    )
    result.assert_outcomes(failed=1, errors=1)
    assert model.bodies == []  # neither went to the model
    out = result.stdout.str()
    assert "could not reach the starting state" in out and "the browser page is gone" in out
    assert "trailblaze: healed trails" not in out
    cases = props(pytester)
    assert cases["head[web]"]["outcome"] == "failed" and cases["fatal[web]"]["outcome"] == "failed"
