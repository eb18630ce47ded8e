"""The agent end to end through pytest: author with a model, replay without one, heal, report.

A scripted model (``llm_server``) answers on a real HTTP server of 127.0.0.1 through the official
SDKs; trails run on real headless Chromium against the sample app opened from disk.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path

import pytest
from junit_props import props
from llm_server import ScriptedModel, call, done, first, give_up, http, serve

NL_ONLY = """\
# Authored in plain words; the agent records it.
config:
  id: agent/counter   # stable id
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment twice
  - verify: 'The counter shows 2'
"""

STALE = """\
config:
  id: agent/stale
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }


  - step: Click increment
    recording:
      android-phone:
        - tapOnElementWithText: { text: "+" }   # phone recording stays
      web:
        - web_click: { ref: e99 }   # stale: the page has no e99 any more
        - web_wait: { seconds: 1 }
      ios: []
  - verify: The counter shows 1
    recording:
      web:
        - web_verifyValue: { ref: "css=#counter-value", expected: "1" }
"""

MOVES = {
    "Click increment twice": [
        call("web_click", ref="{ref:Increment}"),
        call("web_click", ref="{ref:Increment}"),
        done(),
    ],
    "The counter shows 2": [call("web_verifyTextVisible", text="Current value: 2")],
    "Click increment": [call("web_click", ref="{ref:Increment}"), done()],
}


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve(MOVES) as scripted:
        yield scripted


def llm(model: ScriptedModel, *extra: str) -> list[str]:
    return ["--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}", *extra]


def test_an_nl_only_trail_is_recorded_then_replays_without_the_model(pytester: pytest.Pytester, tb) -> None:
    trail = tb.write(pytester.path, "trails/counter.trail.yaml", NL_ONLY)
    with serve(MOVES) as model:
        recorded = pytester.runpytest(
            tb.APP_MEMORY, *llm(model, "--trailblaze-save-recordings"), "--junitxml=report.xml", "-rA"
        )
        requests = len(model.bodies)
    recorded.assert_outcomes(passed=1)
    assert requests == 4  # three for the step (two clicks, done), one for the verification
    case = props(pytester)["agent/counter[web]"]
    assert case["outcome"] == "passed-ai"
    assert (
        case["llm_calls"] == "4" and case["llm_input_tokens"] == "400" and case["llm_output_tokens"] == "40"
    )
    recorded.stdout.fnmatch_lines(
        ["*trailblaze: recordings*", "written trails/counter.trail.yaml (web): 1, 2"]
    )

    text = trail.read_text(encoding="utf-8")
    assert text == NL_ONLY.replace(
        "  - step: Click increment twice\n",
        "  - step: Click increment twice\n"
        "    recording:\n"
        "      web:\n"
        "        - web_click:\n"
        '            ref: "e11"\n'
        "            nodeSelector:\n"
        "              web:\n"
        '                cssSelector: "#increment-btn"\n'
        "        - web_click:\n"
        '            ref: "e11"\n'
        "            nodeSelector:\n"
        "              web:\n"
        '                cssSelector: "#increment-btn"\n',
    ).replace(
        "  - verify: 'The counter shows 2'\n",
        "  - verify: 'The counter shows 2'\n"
        "    recording:\n"
        "      web:\n"
        "        - web_verifyTextVisible:\n"
        '            text: "Current value: 2"\n',
    )

    # The model server is gone: the recording replays on its own, and nothing is written.
    replay = pytester.runpytest(
        tb.APP_MEMORY, *llm(model, "--trailblaze-save-recordings"), "--junitxml=report.xml"
    )
    replay.assert_outcomes(passed=1)
    assert props(pytester)["agent/counter[web]"]["outcome"] == "passed"
    assert "llm_calls" not in props(pytester)["agent/counter[web]"]
    assert trail.read_text(encoding="utf-8") == text


def test_without_save_recordings_no_file_is_modified(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(pytester.path, "trails/counter.trail.yaml", NL_ONLY)
    before = trail.read_bytes()
    result = pytester.runpytest(tb.APP_MEMORY, *llm(model))
    result.assert_outcomes(passed=1)
    assert trail.read_bytes() == before
    assert "trailblaze: recordings" not in result.stdout.str()


def test_a_stale_recording_heals_and_the_file_gets_the_new_one(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(pytester.path, "trails/stale.trail.yaml", STALE)
    plain = pytester.runpytest(tb.APP_MEMORY, *llm(model), "--trailblaze-screenshots=off")
    plain.assert_outcomes(failed=1, skipped=2)  # android and ios have no driver here
    assert len(model.bodies) == 0  # no self-heal unless asked

    healed = pytester.runpytest(
        tb.APP_MEMORY,
        *llm(model, "--trailblaze-self-heal", "--trailblaze-save-recordings"),
        "--junitxml=report.xml",
        "-v",
    )
    healed.assert_outcomes(passed=1, skipped=2)
    healed.stdout.re_match_lines([r"    step 2/3 Click increment … ✓ \d+\.\d\d s \(self-healed\)$"])
    case = props(pytester)["agent/stale[web]"]
    assert case["outcome"] == "passed-with-self-heal" and case["healed_steps"] == "step 2 of 3"
    healed.stdout.fnmatch_lines(
        ["*trailblaze: healed trails*", "HEALED trails/stale.trail.yaml::agent/stale[web]: step 2 of 3"]
    )
    assert "element id e99 is not on the current page" in model.bodies[0].decode()  # told what failed

    new = trail.read_text(encoding="utf-8")
    diff = [line for line in difflib.ndiff(STALE.splitlines(), new.splitlines()) if line[:1] in "+-"]
    assert diff == [
        "-         - web_click: { ref: e99 }   # stale: the page has no e99 any more",
        "-         - web_wait: { seconds: 1 }",
        "+         - web_click:",
        '+             ref: "e11"',
        "+             nodeSelector:",
        "+               web:",
        '+                 cssSelector: "#increment-btn"',
    ]
    again = pytester.runpytest(tb.APP_MEMORY, "--junitxml=report.xml")
    again.assert_outcomes(passed=1, skipped=2)
    assert props(pytester)["agent/stale[web]"]["outcome"] == "passed"


def test_self_heal_from_the_environment_never_heals_a_verify_step(
    pytester: pytest.Pytester, tb, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    tb.write(pytester.path, "trails/stale.trail.yaml", STALE.replace('expected: "1"', 'expected: "7"'))
    monkeypatch.setenv("TRAILBLAZE_SELF_HEAL_ENABLED", "true")
    result = pytester.runpytest(
        tb.APP_MEMORY, *llm(model), "--trailblaze-screenshots=off", "--junitxml=report.xml"
    )
    result.assert_outcomes(failed=1, skipped=2)
    assert len(model.bodies) == 2  # step 2 healed (click, done); the failing verify: never reached the model
    assert "step 3 of 3 failed: The counter shows 1" in result.stdout.str()
    assert props(pytester)["agent/stale[web]"]["outcome"] == "failed"


def test_ai_only_ignores_recordings(pytester: pytest.Pytester, tb, model: ScriptedModel) -> None:
    tb.write(pytester.path, "trails/stale.trail.yaml", STALE)
    model.script["Open the counter"] = [call("web_navigate", url="{{app}}/index.html#counter"), done()]
    model.script["The counter shows 1"] = [call("web_verifyValue", ref="{ref:Current value}", expected="1")]
    result = pytester.runpytest(
        tb.APP_MEMORY, *llm(model, "--trailblaze-ai-only"), "--junitxml=report.xml", "-v"
    )
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.re_match_lines([r"    step 1/3 Open the counter \[agent\] … ✓ \d+\.\d\d s$"])
    assert len(model.bodies) == 5
    assert props(pytester)["agent/stale[web]"]["outcome"] == "passed-ai"


def test_a_model_failure_is_one_clear_step_failure(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", NL_ONLY)
    model.script["Click increment twice"] = [http(503, "upstream model unavailable")]
    result = pytester.runpytest(
        tb.APP_MEMORY, *llm(model, "--trailblaze-screenshots=off"), "--junitxml=report.xml"
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert (
        "trails/counter.trail.yaml:10:5: step 1 of 2 failed: the agent could not do it: Click increment twice"
        in out
    )
    assert "model: openai/scripted-1" in out and "cause: HTTP 503: upstream model unavailable" in out
    assert "Traceback" not in out and "pytest_trailblaze/" not in out
    case = props(pytester)["agent/counter[web]"]
    assert case["outcome"] == "failed" and case["llm_calls"] == "1"


def test_the_model_comes_from_ini_env_or_the_workspace(
    pytester: pytest.Pytester, tb, model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", NL_ONLY)
    monkeypatch.setenv("OPENAI_BASE_URL", model.openai_url)
    monkeypatch.setenv("TRAILBLAZE_LLM_MODEL", "openai/from-env")
    pytester.runpytest(tb.APP_MEMORY).assert_outcomes(passed=1)
    assert model.requests()[-1]["model"] == "from-env"

    ini = tb.write(pytester.path, "pytest.ini", "[pytest]\ntrailblaze_llm = openai/from-ini\n")
    pytester.runpytest(tb.APP_MEMORY).assert_outcomes(passed=1)
    assert model.requests()[-1]["model"] == "from-ini"

    monkeypatch.delenv("TRAILBLAZE_LLM_MODEL")
    ini.unlink()
    tb.write(
        pytester.path,
        "trails/config/trailblaze.yaml",
        "llm:\n  defaults:\n    model: openai/from-workspace\n",
    )
    pytester.runpytest(tb.APP_MEMORY).assert_outcomes(passed=1)
    assert model.requests()[-1]["model"] == "from-workspace"


def test_bad_llm_options_are_usage_errors(pytester: pytest.Pytester) -> None:
    for option, message in (
        ("--trailblaze-llm=gpt-4.1", "expected PROVIDER/MODEL, got 'gpt-4.1'"),
        ("--trailblaze-llm=mistral/large", "unknown LLM provider 'mistral'"),
        ("--trailblaze-max-llm-calls=0", "--trailblaze-max-llm-calls expects a whole number of 1 or more"),
    ):
        result = pytester.runpytest(option)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert message in result.stderr.str()


def test_without_the_agent_extra_an_llm_option_names_it(pytester: pytest.Pytester, tb) -> None:
    pytester.makeconftest("import sys\nsys.modules['openai'] = None  # as if the agent extra were absent\n")
    tb.write(pytester.path, "trails/counter.trail.yaml", NL_ONLY)
    plain = pytester.runpytest("--collect-only", "-q")
    assert plain.ret == pytest.ExitCode.OK  # the plugin works without the extra
    result = pytester.runpytest("--trailblaze-llm=openai/gpt-4.1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "needs the 'openai' client library" in result.stderr.str()
    fix = "pip install 'pytest-trailblaze[agent-openai]' (or [agent] for every provider)"
    assert fix in result.stderr.str()


def test_collection_never_imports_the_provider_sdks(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", NL_ONLY)
    pytester.makeconftest(
        "import sys\n"
        "def pytest_collection_finish(session):\n"
        "    print('SDKS', sorted(m for m in ('openai', 'anthropic') if m in sys.modules))\n"
    )
    result = pytester.runpytest_subprocess("--collect-only", "-q", "-s", "--trailblaze-llm=openai/gpt-4.1")
    result.stdout.fnmatch_lines(["SDKS []"])


def test_a_secret_never_reaches_the_model_or_the_recording(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    secret = "s3cr3t-Pa55-word"
    trail = tb.write(
        pytester.path,
        "trails/form.trail.yaml",
        "trailhead:\n  step: Open the form\n  recording:\n    web:\n"
        '      web_navigate: { url: "{{app}}/index.html#form" }\n'
        "trail:\n  - step: Type {{password}} as the name\n",
    )
    model.script["Type {{password}}"] = [
        call("web_type", ref='{ref:textbox "Name"}', text="{{password}}"),
        done(),
    ]
    result = pytester.runpytest(
        tb.APP_MEMORY, f"--trailblaze-secret=password={secret}", *llm(model, "--trailblaze-save-recordings")
    )
    result.assert_outcomes(passed=1)
    assert len(model.bodies) == 2
    assert all(secret.encode() not in body for body in model.bodies)
    text = trail.read_text(encoding="utf-8")
    assert 'text: "{{password}}"' in text and secret not in text
    assert Path(pytester.path).joinpath("trails").exists()


def test_max_retries_gives_the_agent_another_attempt(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    tb.write(
        pytester.path,
        "trails/retry.trail.yaml",
        "trailhead:\n  step: Open\n  recording:\n    web:\n"
        '      web_navigate: { url: "{{app}}/index.html#counter" }\n'
        "trail:\n  - step: Press reset\n    maxRetries: 1\n  - step: Press reset again\n",
    )
    press = call("web_click", ref="{ref:Reset}")
    model.script["Press reset again"] = [give_up("no luck")]
    model.script["Press reset"] = [first(give_up("not yet"), press), done()]
    result = pytester.runpytest(
        tb.APP_MEMORY, *llm(model, "--trailblaze-save-recordings"), "--trailblaze-screenshots=off"
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "step 2 of 2 failed: the agent could not do it: Press reset again" in out
    assert "attempts:" not in out  # step 2 has no maxRetries: one attempt
    assert len(model.bodies) == 4  # step 1: a failed attempt (1 call), a good one (2); step 2: one
    assert "trailblaze: recordings" not in out  # a failed trail writes nothing


def test_an_nl_only_trailhead_is_done_by_the_agent_and_recorded_as_one_call(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(
        pytester.path,
        "trails/head.trail.yaml",
        "trailhead:\n  step: Open the counter page\ntrail:\n  - step: Click increment\n",
    )
    model.script["Open the counter page"] = [call("web_navigate", url="{{app}}/index.html#counter"), done()]
    result = pytester.runpytest(tb.APP_MEMORY, *llm(model, "--trailblaze-save-recordings"))
    result.assert_outcomes(passed=1)
    assert trail.read_text(encoding="utf-8") == (
        "trailhead:\n  step: Open the counter page\n  recording:\n    web:\n      web_navigate:\n"
        '        url: "{{app}}/index.html#counter"\n'
        "trail:\n  - step: Click increment\n    recording:\n      web:\n        - web_click:\n"
        '            ref: "e11"\n            nodeSelector:\n              web:\n'
        '                cssSelector: "#increment-btn"\n'
    )


def test_an_agent_trailhead_that_fails_is_a_setup_error(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    tb.write(
        pytester.path, "trails/head.trail.yaml", "trailhead:\n  step: Open the shop\ntrail:\n  - step: Buy\n"
    )
    model.script["Open the shop"] = [give_up("there is no shop")]
    result = pytester.runpytest(
        tb.APP_MEMORY, *llm(model), "--trailblaze-screenshots=off", "--junitxml=report.xml"
    )
    result.assert_outcomes(errors=1)
    assert "could not reach the starting state" in result.stdout.str()
    assert "cause: the model reports the objective failed: there is no shop" in result.stdout.str()
    assert props(pytester)["head[web]"]["outcome"] == "failed"
