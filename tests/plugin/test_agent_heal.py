"""Healing and recording through pytest, the way a team uses it: heal with a model, save the
recording, then replay it in CI without any model.

A scripted model (``llm_server``) answers on a real HTTP server of 127.0.0.1 through the official
SDKs; trails run on real headless Chromium against the sample app opened from disk.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from html import unescape

import pytest
from junit_props import props
from llm_server import ScriptedModel, call, done, serve

PARTLY_STALE = """\
config:
  id: heal/partly-stale
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Add two to the counter
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }   # still good
        - web_click: { ref: "css=#plus-one-btn" }    # stale: the button was renamed
        - web_wait: { seconds: 1 }
  - verify: The counter shows 2
    recording:
      web:
        - web_verifyValue: { ref: "css=#counter-value", expected: "2" }
"""

MOVES = {"Add two to the counter": [call("web_click", ref="{ref:Increment}"), done("added the second one")]}


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve(MOVES) as scripted:
        yield scripted


def test_a_partly_stale_recording_heals_keeps_what_worked_and_replays_without_a_model(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(pytester.path, "trails/stale.trail.yaml", PARTLY_STALE)
    healed = pytester.runpytest(
        tb.APP_MEMORY,
        "--trailblaze-llm=openai/scripted-1",
        f"--trailblaze-llm-base-url={model.openai_url}",
        "--trailblaze-self-heal",
        "--trailblaze-save-recordings",
        "--junitxml=report.xml",
    )
    healed.assert_outcomes(passed=1)
    assert props(pytester)["heal/partly-stale[web]"]["outcome"] == "passed-with-self-heal"

    # The model was told which recorded calls ran, which failed and why, and what never ran.
    objective = model.requests()[0]["messages"][1]["content"]
    lines = objective.splitlines()
    assert "Previous step (the trailhead): Open the counter" in lines[0]
    assert 'web_click {"ref": "css=#increment-btn"} -> ok: Clicked' in objective
    assert (
        '2. web_click {"ref": "css=#plus-one-btn"} -> error: No element found matching css=#plus-one-btn'
        in (objective)
    )
    assert '3. web_wait {"seconds": 1} -> not run' in objective

    # The recording keeps the call that worked, in order, before the agent's call.
    new = trail.read_text(encoding="utf-8")
    diff = [line for line in difflib.ndiff(PARTLY_STALE.splitlines(), new.splitlines()) if line[:1] in "+-"]
    assert diff == [
        '-         - web_click: { ref: "css=#increment-btn" }   # still good',
        '-         - web_click: { ref: "css=#plus-one-btn" }    # stale: the button was renamed',
        "-         - web_wait: { seconds: 1 }",
        "+         - web_click:",
        '+             ref: "css=#increment-btn"',
        "+         - web_click:",
        '+             ref: "e11"',
        "+             nodeSelector:",
        "+               web:",
        '+                 cssSelector: "#increment-btn"',
    ]

    # CI: no model at all; the healed recording replays green, the verification included.
    again = pytester.runpytest(tb.APP_MEMORY, "--junitxml=report.xml")
    again.assert_outcomes(passed=1)
    assert props(pytester)["heal/partly-stale[web]"]["outcome"] == "passed"


NL_STEPS = """\
config:
  id: agent/steps
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
  - step: Click increment again
  - verify: The counter shows 2
"""


def test_each_step_is_told_the_step_before_it_and_how_it_ended(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    tb.write(pytester.path, "trails/steps.trail.yaml", NL_STEPS)
    model.script["Click increment again"] = [
        call("web_click", ref="{ref:Increment}"),
        done("clicked it once more"),
    ]
    model.script["The counter shows 2"] = [call("web_verifyTextVisible", text="Current value: 2")]
    result = pytester.runpytest(
        tb.APP_MEMORY, "--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}"
    )
    result.assert_outcomes(passed=1)
    again, verify = (r["messages"][1]["content"] for r in (model.requests()[0], model.requests()[2]))
    assert again.startswith(
        "Previous step (step 1 of 3): Click increment\n  outcome: passed, replayed from its recording\n"
        "Objective (step 2 of 3): Click increment again"
    )
    assert verify.startswith(
        "Previous step (step 2 of 3): Click increment again\n"
        "  outcome: passed, done by the agent: clicked it once more\n"
        "Verify (step 3 of 3): The counter shows 2"
    )


JUDGED = """\
config:
  id: agent/judged
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment three times
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
        - web_click: { ref: "css=#increment-btn" }
        - web_click: { ref: "css=#increment-btn" }
  - step: Remember the number the counter shows as count
  - verify: The page looks like a counter at three
  - step: Check the remembered count
    recording:
      web:
        - assertEquals: { actual: "{{count}}", expected: "3" }
"""

JUDGE_MOVES = {
    "Find on the screen: the value of the counter": [call("answer", found=True, value="Current value: 3")],
    "Statement: The counter reads 3": [call("answer", holds=True, explanation="it says Current value: 3")],
    "Remember the number the counter shows": [
        call("rememberNumber", prompt="the value of the counter", variable="count"),
        done(),
    ],
    "The page looks like a counter at three": [call("assertWithAi", prompt="The counter reads 3"), done()],
}


def test_judgement_tools_remember_and_judge_and_are_marked_as_the_models(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(pytester.path, "trails/judged.trail.yaml", JUDGED)
    model.script.update(JUDGE_MOVES)
    llm = ["--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}"]
    first = pytester.runpytest(
        tb.APP_MEMORY, *llm, "--trailblaze-save-recordings", "--junitxml=report.xml", "-rA",
        "--trailblaze-report=report.html",
    )  # fmt: skip
    first.assert_outcomes(passed=1)
    case = props(pytester)["agent/judged[web]"]
    assert case["llm_calls"] == "5"  # three for the steps (a held check ends the verify), two judgements
    html = (pytester.path / "report.html").read_text(encoding="utf-8")
    assert html.count("<span class=judged>model judgement</span> <code>") == 2
    shown = unescape(html)
    assert "model judgement: remembered {{count}} = '3' (the value of the counter)" in shown
    assert "model judgement: 'The counter reads 3' holds: it says Current value: 3" in shown
    text = trail.read_text(encoding="utf-8")
    assert "        - rememberNumber:  # model judgement: asks the model at every run\n" in text
    assert "        - assertWithAi:  # model judgement: asks the model at every run\n" in text

    # Replayed with the model: the judgement is asked again (it is never a recorded value).
    asked = len(model.bodies)
    pytester.runpytest(tb.APP_MEMORY, *llm).assert_outcomes(passed=1)
    assert len(model.bodies) == asked + 2
    # Without a model the judged steps cannot run, and say why.
    alone = pytester.runpytest(tb.APP_MEMORY)
    alone.assert_outcomes(failed=1)
    assert "rememberNumber asks a model to read the screen, and this run has none" in alone.stdout.str()
