"""The agent on Appium's fake driver: the view hierarchy as the screen, ``tap`` by ref recorded as
``tapOnElementBySelector``; and ``-n 2`` writing the web and android recordings of one trail.

The scripted model (``llm_server``) answers on a real HTTP server of 127.0.0.1 through the
official OpenAI SDK. Effects are read back from the fake driver with plain client calls.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from llm_server import ScriptedModel, call, done, serve

from pytest_trailblaze.agent import AgentLoop, LlmSpec, make_provider
from pytest_trailblaze.agent.agent_tools import TOOLS
from pytest_trailblaze.agent.recording import recorded_step
from pytest_trailblaze.core.run.runner import plan_trail
from pytest_trailblaze.core.trail.parse import parse_trail

if TYPE_CHECKING:
    from conftest import AppiumServer, Device

REPO = Path(__file__).resolve().parents[2]
APPS = Path(__file__).resolve().parent / "apps"
SIGN_IN = [
    call("tap", ref="{ref:Username}"),
    call("inputText", text="{{user}}", hideKeyboardAfter=False),
    call("tap", ref="{ref:Submit}"),
    done(),
]


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve({"Sign in as": SIGN_IN}) as scripted:
        yield scripted


def test_a_step_is_done_on_the_device_and_recorded_with_selectors(
    device: Device, model: ScriptedModel
) -> None:
    device.ctx.registry.register_all(TOOLS)
    device.memory.set("user", "ada")
    device.probe.set_value("username", "")
    trail = parse_trail("trail:\n  - step: Sign in as {{user}}\n", "t.trail.yaml")
    step = plan_trail(trail, device.ctx.device.chain()).steps[0]
    provider = make_provider(
        LlmSpec("openai", "scripted-1", model.openai_url, 10, retries=0, screenshots=False)
    )
    with device.probe.watch() as effects:
        run = AgentLoop(provider).run(step, device.ctx)
    provider.close()
    assert effects.clicked.get("submit") == 1
    assert device.probe.value("username") == "ada"
    screen = model.requests()[0]["messages"][-1]["content"]
    assert re.search(r"^\[y\d{4}\] .*Submit", screen, re.M) and "screen " in screen

    recorded = recorded_step(run, device.ctx.tool_log, device.ctx.registry)
    assert [name for name, _ in recorded] == ["tapOnElementBySelector", "inputText", "tapOnElementBySelector"]
    assert recorded[1][1] == {"text": "{{user}}", "hideKeyboardAfter": False}
    dialect = "androidAccessibility" if device.platform == "android" else "iosMaestro"
    submit = recorded[2][1]["nodeSelector"]
    assert list(submit) == [dialect]
    # The recorded selector alone finds the same button again.
    with device.probe.watch() as again:
        device.run("tapOnElementBySelector", nodeSelector=submit)
    assert again.clicked == {"submit": 1}


def test_on_a_device_mistakes_go_back_to_the_model_and_the_request_is_lean(
    device: Device, model: ScriptedModel
) -> None:
    """A made-up tool and a tap without its ref are handed back; the model then taps by ref."""
    device.ctx.registry.register_all(TOOLS)
    model.script["Press Submit"] = [
        call("tapOnText", text="Submit"),
        call("tap"),
        call("tap", ref="{ref:Submit}", reasoning="the Submit button"),
        done(),
    ]
    trail = parse_trail("trail:\n  - step: Press Submit\n", "t.trail.yaml")
    step = plan_trail(trail, device.ctx.device.chain()).steps[0]
    provider = make_provider(
        LlmSpec("openai", "scripted-1", model.openai_url, 10, retries=0, screenshots=False)
    )
    with device.probe.watch() as effects:
        run = AgentLoop(provider).run(step, device.ctx)
    provider.close()
    assert effects.clicked.get("submit") == 1 and run.llm_calls == 4
    second, third = model.requests()[1]["messages"], model.requests()[2]["messages"]
    assert second[3]["content"].startswith("error: there is no tool 'tapOnText' here")
    assert third[5]["content"].startswith(
        "error: invalid arguments for 'tap': missing required argument 'ref'"
    )
    tools = {t["function"]["name"]: t["function"] for t in model.requests()[0]["tools"]}
    assert "takeSnapshot" not in tools and "web_click" not in tools and "tap" in tools
    assert tools["tap"]["parameters"]["properties"]["ref"]["description"].endswith("e.g. y1234.")
    assert all("reasoning" in t["parameters"]["properties"] for t in tools.values())
    assert len(model.bodies[0]) <= 20 * 1024


def test_a_vision_model_gets_the_devices_screenshot(device: Device, model: ScriptedModel) -> None:
    device.ctx.registry.register_all(TOOLS)
    model.script["Look at the screen"] = [done()]
    trail = parse_trail("trail:\n  - step: Look at the screen\n", "t.trail.yaml")
    step = plan_trail(trail, device.ctx.device.chain()).steps[0]
    spec = LlmSpec("openai", "scripted-1", model.openai_url, 10, retries=0, screenshots=True)
    provider = make_provider(spec)
    try:
        AgentLoop(provider, screenshots=True).run(step, device.ctx)
    finally:
        provider.close()
    content = model.requests()[0]["messages"][-1]["content"]
    assert "\n\nCurrent screen:\nscreen " in content[0]["text"]
    url = content[1]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    png = base64.b64decode(url.split(",", 1)[1])
    assert png.startswith(b"\x89PNG")
    assert png == (device.ctx.artifacts_dir / "agent-step1-01.png").read_bytes()  # kept as evidence


# -- two platforms of one trail, written by two xdist workers ------------------------------------------
BOTH = """\
config:
  id: agent/both
  devices: { web: PLAYWRIGHT_NATIVE, android: ANDROID_ONDEVICE_ACCESSIBILITY }
trailhead:
  step: Open the sign-in screen
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#form" }
    android: {}
trail:
  # The same words on every device; the agent records each device's calls.
  - step: Press Submit
"""


def test_two_platforms_recorded_by_two_workers_both_land(
    pytester: pytest.Pytester, appium_server: AppiumServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    trail = pytester.path / "trails" / "both.trail.yaml"
    trail.parent.mkdir(parents=True)
    trail.write_text(BOTH, encoding="utf-8")
    caps = pytester.path / "caps.yaml"
    fake = "platformName: Fake\n  appium:automationName: Fake"
    caps.write_text(f"android:\n  {fake}\n  appium:app: {APPS / 'android.xml'}\n", encoding="utf-8")
    app = f"--trailblaze-memory=app={(REPO / 'examples' / 'sample-app').as_uri()}"
    device_args = [app, f"--trailblaze-appium-url={appium_server.url}", f"--trailblaze-appium-caps={caps}"]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]))
    moves: dict[str, Any] = {
        "web": [call("web_click", ref="{ref:Submit}"), done()],
        "android": [call("tap", ref="{ref:Submit}"), done()],
    }
    with serve({"Press Submit": moves}) as model:
        llm = ["--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}"]
        result = pytester.runpytest_subprocess(
            "-n", "2", "-p", "xdist", *device_args, *llm, "--trailblaze-save-recordings", "-rA", timeout=180
        )
        assert len(model.bodies) == 4
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*trailblaze: recordings*"])
    recording = parse_trail(trail.read_text(encoding="utf-8"), "t").steps[0].recording
    assert sorted(recording) == ["android-phone", "web"]
    assert recording["web"][0].name == "web_click"
    assert recording["android-phone"][0].name == "tapOnElementBySelector"
    text = trail.read_text(encoding="utf-8")
    assert text.startswith(BOTH)  # everything before the new slot is as written

    replay = pytester.runpytest_subprocess("-n", "2", "-p", "xdist", *device_args, "-rA", timeout=180)
    replay.assert_outcomes(passed=2)
    assert trail.read_text(encoding="utf-8") == text
