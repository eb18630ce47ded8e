"""Appium replay speed: a trail replayed through the plugin against the same client calls made
directly, on one Appium server with the fake driver, in one run.

The trail finds elements by recorded ``nodeSelector``, which the plugin resolves in Python over the
page source, then clicks the element it found (by its exact XPath) and types into it, as recordings
do. The direct variant sends the same Appium commands with the same payloads by hand: the same
page-source reads, the same XPaths, the same clicks and keys. The script records both command
sequences and refuses to time them unless they are identical, so the ratio is the plugin's own
cost at replay: planning, dispatch, interpolation, validation, the tool log, parsing the hierarchy
and resolving selectors. The trail is loaded once beforehand, as pytest loads it at collection
(``benchmarks/collect.py`` times that); its load time is printed beside. For context it also times
a hand-written test that skips the page-source reads and finds elements by shorter XPaths. One
session; rounds alternate; medians.

    .venv/bin/python benchmarks/appium_replay.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from selenium.webdriver.common.by import By

from pytest_trailblaze.core.run.runner import TrailRunner, plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import load_trail
from pytest_trailblaze.drivers.appium import AppiumHost
from pytest_trailblaze.drivers.appium_settings import AppiumSettings
from pytest_trailblaze.tools import builtin_tools

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "examples" / "mobile" / "apps" / "android-phone.xml"
CAPS = {"platformName": "Fake", "appium:automationName": "Fake", "appium:app": str(APP)}
#: The form's XPath as the plugin writes it: every step indexed, from the page source's root.
ROOT = "/AppiumAUT/app[1]/hierarchy[1]/android.widget.FrameLayout[1]"
#: The same element as a hand-written test would more likely write it.
SHORT_ROOT = "/AppiumAUT/app/hierarchy/android.widget.FrameLayout"
TRAIL = """config:
  id: bench/android
trail:
  - step: Fill in the form
    recording:
      android:
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { resourceIdRegex: ".*:id/name" } }
        - inputText: { text: Grace Hopper, hideKeyboardAfter: false }
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { resourceIdRegex: ".*:id/email" } }
        - inputText: { text: grace@example.test, hideKeyboardAfter: false }
        - tapOnElementBySelector: { nodeSelector: { androidAccessibility: { textRegex: Feedback } } }
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { textRegex: Submit, isClickable: true } }
  - verify: The version is shown
    recording:
      android:
        - assertVisibleBySelector:
            nodeSelector: { androidAccessibility: { resourceIdRegex: ".*:id/version" } }
            expectedText: Version 1.0.0
"""


FIELDS = (
    ("MockInputField[1]", "Grace Hopper"),
    ("MockInputField[2]", "grace@example.test"),
    ("android.widget.RadioGroup[1]/android.widget.RadioButton[3]", None),
    ("android.widget.Button[1]", None),
)


def same_calls(session) -> None:
    """The Appium commands the plugin sends for the trail, with the same payloads, sent by hand."""
    for path, text in FIELDS:
        assert session.page_source
        element = session.find_element(By.XPATH, f"{ROOT}/{path}")
        element.click()
        if text is not None:
            element.send_keys(text)
    assert "Version 1.0.0" in session.page_source


def hand_written(session) -> None:
    """What a hand-written test would send: no page-source reads, lookups by shorter XPaths."""
    for path, text in FIELDS:
        element = session.find_element(By.XPATH, f"{SHORT_ROOT}/{path.replace('[1]', '')}")
        element.click()
        if text is not None:
            element.send_keys(text)
    assert session.find_element(By.XPATH, f"{SHORT_ROOT}/android.widget.TextView[2]").is_displayed()


def commands_of(action) -> list[tuple[str, str]]:
    """The Appium commands ``action`` sends, each with its payload (the session id left out)."""
    from selenium.webdriver.remote.remote_connection import RemoteConnection

    sent = []
    original = RemoteConnection.execute

    def recording(self, command, params):
        payload = {k: v for k, v in (params or {}).items() if k != "sessionId"}
        sent.append((command, json.dumps(payload, sort_keys=True)))
        return original(self, command, params)

    RemoteConnection.execute = recording
    try:
        action()
    finally:
        RemoteConnection.execute = original
    return sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    options = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="tb-appium-bench-"))
    host = AppiumHost(AppiumSettings(server_home=REPO), logs)
    try:
        driver = host.new_driver("android", CAPS)
        registry = ToolRegistry(platform="android", driver_key=driver.driver_key)
        registry.register_all(builtin_tools())
        trail_path = logs / "bench.trail.yaml"
        trail_path.write_text(TRAIL)
        began = time.perf_counter()
        trail = load_trail(trail_path)  # at collection, as the plugin does
        load_ms = (time.perf_counter() - began) * 1000

        def through_plugin() -> None:
            device = driver.device_info()
            ctx = ToolContext(registry, Memory(), device, driver, str(trail_path))
            TrailRunner(plan_trail(trail, device.chain()), ctx).run_steps()

        variants = {
            "through plugin": through_plugin,
            "same calls by hand": lambda: same_calls(driver.session),
            "hand-written test": lambda: hand_written(driver.session),
        }
        for run in variants.values():  # warm-up: the session measures the device once
            run()
        sent = {name: commands_of(run) for name, run in variants.items()}
        if sent["through plugin"] != sent["same calls by hand"]:
            raise SystemExit("not like for like: the plugin and the by-hand variant send different commands")
        commands = {name: len(calls) for name, calls in sent.items()}
        times: dict[str, list[float]] = {name: [] for name in variants}
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(options.rounds):
            for name, run in variants.items():
                began, began_cpu = time.perf_counter(), time.process_time()
                run()
                times[name].append(time.perf_counter() - began)
                cpu[name].append(time.process_time() - began_cpu)
    finally:
        host.close()
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        client = statistics.median(cpu[name]) * 1000
        print(
            f"{name:>20}: median {median * 1000:6.1f} ms per run ({client:5.2f} ms of it client CPU), "
            f"{commands[name]} Appium commands"
        )
    print("the plugin and the by-hand variant send identical commands and payloads")
    print(f"loading the trail (collection, not in the replay times): {load_ms:.1f} ms")
    plugin = medians["through plugin"]
    ratio = plugin / medians["same calls by hand"]
    verdict = "OK" if ratio <= 1.10 else "MISSED"
    print(f"ratio plugin / same calls by hand: {ratio:.2f}  (goal <= 1.10) {verdict}")
    print(f"ratio plugin / hand-written test:  {plugin / medians['hand-written test']:.2f}  (context)")


if __name__ == "__main__":
    main()
