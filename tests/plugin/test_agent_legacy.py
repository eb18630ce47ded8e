"""Legacy per-device trail files (docs/upstream.md, Trail files) and the save-back rules, through pytest.

A directory holding a v1 definition (``trail.yaml`` or ``blaze.yaml``) and per-device recordings
(``web.trail.yaml``, ``android-phone.trail.yaml``) is ONE trail: one item per platform, each in
the file its device runs. Runs use real headless Chromium and a scripted model on 127.0.0.1.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from llm_server import ScriptedModel, call, done, serve

DEFINITION = """\
# The plain-language definition of the trail.
- config:
    id: legacy/counter   # one id for every file
- trailhead:
    step: Open the counter
    tools:
      - web_navigate: { url: "{{app}}/index.html#counter" }
- prompts:
    - step: Click increment twice

    - verify: The counter shows 2
"""

WEB_RECORDING = """\
# The plain-language definition of the trail.
- config:
    id: legacy/counter   # one id for every file
- trailhead:
    step: Open the counter
    tools:
      - web_navigate: { url: "{{app}}/index.html#counter" }
- prompts:
    - step: Click increment twice
      recording:
        tools:
          - web_click:
              ref: "e11"
              nodeSelector:
                web:
                  cssSelector: "#increment-btn"
          - web_click:
              ref: "e11"
              nodeSelector:
                web:
                  cssSelector: "#increment-btn"

    - verify: The counter shows 2
      recording:
        tools:
          - web_verifyTextVisible:
              text: "Current value: 2"
"""

PHONE = """\
- config:
    id: legacy/counter
- prompts:
    - step: Click increment twice
      recording:
        tools:
          - tapOnElementWithText: { text: "+" }
          - tapOnElementWithText: { text: "+" }
    - verify: The counter shows 2
      recording:
        tools: []
"""

MOVES = {
    "Click increment twice": [
        call("web_click", ref="{ref:Increment}"),
        call("web_click", ref="{ref:Increment}"),
        done(),
    ],
    "The counter shows 2": [call("web_verifyTextVisible", text="Current value: 2")],
}


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve(MOVES) as scripted:
        yield scripted


def llm(model: ScriptedModel, *extra: str) -> list[str]:
    return ["--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}", *extra]


def collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest("--collect-only", "-q", "-p", "no:randomly", *args)
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED), result.stdout.str()
    return sorted(line for line in result.stdout.lines if "::" in line)


# -- collection ----------------------------------------------------------------------------------------
def test_a_directory_of_device_files_is_one_trail_with_one_item_per_platform(
    pytester: pytest.Pytester, tb
) -> None:
    tb.write(pytester.path, "trails/counter/trail.yaml", DEFINITION)
    tb.write(pytester.path, "trails/counter/android-phone.trail.yaml", PHONE)
    tb.write(pytester.path, "trails/counter/web.trail.yaml", WEB_RECORDING)
    tb.write(pytester.path, "trails/alone/trail.yaml", DEFINITION.replace("legacy/counter", "legacy/alone"))
    items = collected(pytester)
    assert items == [
        "trails/alone/trail.yaml::legacy/alone[web]",  # a definition on its own: as before
        "trails/counter/android-phone.trail.yaml::legacy/counter[android]",
        "trails/counter/web.trail.yaml::legacy/counter[web]",
    ]
    assert collected(pytester) == items  # the same ids on every run (and every xdist worker)
    # A file named on the command line keeps to its own items.
    assert collected(pytester, "trails/counter/web.trail.yaml") == [items[2]]
    assert collected(pytester, "trails/counter/trail.yaml") == []


def test_each_device_profile_runs_its_most_specific_file(pytester: pytest.Pytester, tb) -> None:
    nl_only = DEFINITION.replace(
        '    tools:\n      - web_navigate: { url: "{{app}}/index.html#counter" }\n', ""
    )
    tb.write(pytester.path, "trails/counter/trail.yaml", nl_only)
    tb.write(pytester.path, "trails/counter/android-phone.trail.yaml", PHONE)
    tb.write(pytester.path, "trails/counter/android.trail.yaml", PHONE)
    tb.write(pytester.path, "trails/counter/ios-ipad.trail.yaml", PHONE)
    tb.write(
        pytester.path,
        "caps.yaml",
        "android-phone: {platformName: Android}\nandroid-tablet: {platformName: Android}\n"
        "ios-iphone: {platformName: iOS}\n",
    )
    assert collected(pytester, "trails", "--trailblaze-appium-caps=caps.yaml") == [
        "trails/counter/android-phone.trail.yaml::legacy/counter[android-phone]",
        "trails/counter/android.trail.yaml::legacy/counter[android-tablet]",  # then the platform's file
        "trails/counter/trail.yaml::legacy/counter[ios-iphone]",  # an ipad's file is not an iphone's
        "trails/counter/trail.yaml::legacy/counter[web]",
    ]
    # Without profiles the device is known at run time: a phone is assumed, as upstream's
    # phones and simulators report.
    assert collected(pytester, "trails") == [
        "trails/counter/android-phone.trail.yaml::legacy/counter[android]",
        "trails/counter/ios-ipad.trail.yaml::legacy/counter[ios]",  # the platform's only recording
        "trails/counter/trail.yaml::legacy/counter[web]",
    ]


def test_blaze_yaml_is_a_definition_when_it_is_a_v1_trail_outside_the_workspace_config(
    pytester: pytest.Pytester, tb
) -> None:
    blaze = DEFINITION.replace("legacy/counter", "legacy/blaze")
    tb.write(pytester.path, "trails/blaze/blaze.yaml", blaze)
    tb.write(
        pytester.path, "trails/blaze/android.trail.yaml", PHONE.replace("legacy/counter", "legacy/blaze")
    )
    tb.write(pytester.path, "trails/shadowed/blaze.yaml", blaze)  # trail.yaml wins for every device
    tb.write(pytester.path, "trails/shadowed/trail.yaml", DEFINITION.replace("counter", "shadowed"))
    tb.write(pytester.path, "trails/unified/blaze.yaml", "trail:\n  - step: Not a v1 definition\n")
    tb.write(pytester.path, "trails/config/blaze.yaml", blaze)  # workspace files, never trails
    tb.write(pytester.path, "trails/config/trailblaze.yaml", "targets: []\n")
    assert collected(pytester) == [
        "trails/blaze/android.trail.yaml::legacy/blaze[android]",
        "trails/blaze/blaze.yaml::legacy/blaze[web]",
        "trails/shadowed/trail.yaml::legacy/shadowed[web]",
    ]


def test_a_named_unified_file_is_a_trail_of_its_own(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/counter/trail.yaml", DEFINITION)
    tb.write(
        pytester.path,
        "trails/counter/web.trail.yaml",
        "config:\n  id: named/web\ntrail:\n  - step: Something else\n    recording:\n      web: []\n",
    )
    assert collected(pytester) == [
        "trails/counter/trail.yaml::legacy/counter[web]",
        "trails/counter/web.trail.yaml::named/web[web]",
    ]


# -- save-back -------------------------------------------------------------------------------------------
def test_the_agent_records_a_v1_definition_into_the_devices_own_file(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    definition = tb.write(pytester.path, "trails/counter/trail.yaml", DEFINITION)
    phone = tb.write(pytester.path, "trails/counter/android-phone.trail.yaml", PHONE)
    result = pytester.runpytest(tb.APP_MEMORY, *llm(model, "--trailblaze-save-recordings"), "-m", "web")
    result.assert_outcomes(passed=1, deselected=1)
    assert len(model.bodies) == 4
    result.stdout.fnmatch_lines(["written trails/counter/web.trail.yaml (web): 1, 2"])
    assert definition.read_text(encoding="utf-8") == DEFINITION  # the definition stays as it is
    assert phone.read_text(encoding="utf-8") == PHONE
    web = pytester.path / "trails/counter/web.trail.yaml"
    assert web.read_text(encoding="utf-8") == WEB_RECORDING  # config, comments and blank lines copied

    # The next run finds the web file and replays it: no model needed, nothing written.
    assert "trails/counter/web.trail.yaml::legacy/counter[web]" in collected(pytester)
    replay = pytester.runpytest(tb.APP_MEMORY, "-m", "web", "--junitxml=report.xml")
    replay.assert_outcomes(passed=1, deselected=1)
    report = (pytester.path / "report.xml").read_text(encoding="utf-8")
    assert re.search(r'<property name="outcome" value="passed" />', report)
    assert web.read_text(encoding="utf-8") == WEB_RECORDING


def test_a_blaze_yaml_definition_is_recorded_beside_it(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    blaze = tb.write(pytester.path, "trails/counter/blaze.yaml", DEFINITION)
    result = pytester.runpytest(tb.APP_MEMORY, *llm(model, "--trailblaze-save-recordings"))
    result.assert_outcomes(passed=1)
    assert blaze.read_text(encoding="utf-8") == DEFINITION
    assert (pytester.path / "trails/counter/web.trail.yaml").read_text(encoding="utf-8") == WEB_RECORDING
    assert collected(pytester) == ["trails/counter/web.trail.yaml::legacy/counter[web]"]


# -- what a run may replace -----------------------------------------------------------------------------
RECORDED = """\
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment twice
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
        - web_click: { ref: "css=#increment-btn" }
  - step: Click increment once more
"""


def test_an_ai_only_run_replaces_recordings_only_with_self_heal(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    trail = tb.write(pytester.path, "trails/counter.trail.yaml", RECORDED)
    model.script["Click increment once more"] = [call("web_click", ref="{ref:Increment}"), done()]
    result = pytester.runpytest(
        tb.APP_MEMORY, *llm(model, "--trailblaze-ai-only", "--trailblaze-save-recordings")
    )
    result.assert_outcomes(passed=1)
    text = trail.read_text(encoding="utf-8")
    assert text.count("web_click") == 3  # the new step is written; the recorded one is kept
    assert '- web_click: { ref: "css=#increment-btn" }' in text
    result.stdout.fnmatch_lines(
        [
            "note step 1 of 2: not written: it has a recording for web "
            "(the agent replaces recordings only with --trailblaze-self-heal)"
        ]
    )

    trail.write_text(RECORDED, encoding="utf-8")
    healing = pytester.runpytest(
        tb.APP_MEMORY,
        *llm(model, "--trailblaze-ai-only", "--trailblaze-self-heal", "--trailblaze-save-recordings"),
    )
    healing.assert_outcomes(passed=1)
    text = trail.read_text(encoding="utf-8")
    assert "css=#increment-btn" not in text and text.count('cssSelector: "#increment-btn"') == 3


# -- the workspace's model ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("model_text", "message"),
    [
        ("nonsense", "llm.defaults.model: expected PROVIDER/MODEL, got 'nonsense'"),
        ("mistral/large", "llm.defaults.model: unknown LLM provider 'mistral' in 'mistral/large'"),
    ],
)
def test_a_bad_workspace_model_is_a_collection_error_at_its_line(
    pytester: pytest.Pytester, tb, model_text: str, message: str
) -> None:
    tb.write(
        pytester.path,
        "trails/config/trailblaze.yaml",
        f"# models\nllm:\n  defaults:\n    model: {model_text}\n",
    )
    tb.write(pytester.path, "trails/counter.trail.yaml", RECORDED)
    for args in ((), ("--trailblaze-llm=openai/gpt-4.1",)):  # wrong even where the option overrides it
        result = pytester.runpytest(*args)
        assert result.ret == pytest.ExitCode.INTERRUPTED
        result.stdout.fnmatch_lines([f"trails/config/trailblaze.yaml:4:12: {message}", "  fix: *"])
        assert "Traceback" not in result.stdout.str()
    checked = subprocess.run(
        [str(Path(sys.executable).parent / "trailblaze"), "check", "--no-servers", "trails"],
        cwd=pytester.path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert checked.returncode == 1 and f"trailblaze.yaml:4:12: {message}" in checked.stdout + checked.stderr
    tb.write(pytester.path, "trails/config/trailblaze.yaml", "llm:\n  defaults:\n    model: openai/gpt-4.1\n")
    assert collected(pytester) == ["trails/counter.trail.yaml::counter[web]"]
