"""Appium replay speed: a trail replayed through the plugin against the same client calls made
directly, on one Appium server with the fake driver, in one run.

The trail finds elements by recorded ``nodeSelector``, which the plugin resolves in Python over the
page source, then clicks the element it found (by its XPath) and types into it, as recordings do.
The direct variant sends exactly the same Appium commands by hand (the script counts both to show
it), so the ratio is the plugin's own cost: loading, planning, dispatch, validation, parsing the
hierarchy and resolving selectors. For context it also times a hand-written test that skips the
page-source reads and finds elements by XPath alone. One session; rounds alternate; medians.

    .venv/bin/python benchmarks/appium_replay.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from selenium.webdriver.common.by import By

from pytest_trailblaze.core.context import ToolContext
from pytest_trailblaze.core.loader import load_trail
from pytest_trailblaze.core.memory import Memory
from pytest_trailblaze.core.registry import ToolRegistry
from pytest_trailblaze.core.runner import TrailRunner, plan_trail
from pytest_trailblaze.drivers.appium import AppiumHost, AppiumSettings
from pytest_trailblaze.tools import builtin_tools

REPO = Path(__file__).resolve().parent.parent
APP = REPO / "examples" / "mobile" / "apps" / "android-phone.xml"
CAPS = {"platformName": "Fake", "appium:automationName": "Fake", "appium:app": str(APP)}
ROOT = "/AppiumAUT/app/hierarchy/android.widget.FrameLayout"
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
    (f"{ROOT}/MockInputField[1]", "Grace Hopper"),
    (f"{ROOT}/MockInputField[2]", "grace@example.test"),
    (f"{ROOT}/android.widget.RadioGroup/android.widget.RadioButton[3]", None),
    (f"{ROOT}/android.widget.Button[1]", None),
)


def same_calls(session) -> None:
    """The Appium commands the plugin sends for the trail, sent by hand."""
    for xpath, text in FIELDS:
        assert session.page_source
        element = session.find_element(By.XPATH, xpath)
        element.click()
        if text is not None:
            element.send_keys(text)
    assert "Version 1.0.0" in session.page_source


def hand_written(session) -> None:
    """What a hand-written test would send: no page-source reads, lookups by XPath."""
    for xpath, text in FIELDS:
        element = session.find_element(By.XPATH, xpath)
        element.click()
        if text is not None:
            element.send_keys(text)
    assert session.find_element(By.XPATH, f"{ROOT}/android.widget.TextView[2]").is_displayed()


def count_commands(action) -> int:
    """How many Appium commands ``action`` sends."""
    from selenium.webdriver.remote.remote_connection import RemoteConnection

    sent = []
    original = RemoteConnection.execute

    def counting(self, command, params):
        sent.append(command)
        return original(self, command, params)

    RemoteConnection.execute = counting
    try:
        action()
    finally:
        RemoteConnection.execute = original
    return len(sent)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    options = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="tb-appium-bench-"))
    host = AppiumHost(AppiumSettings(server_home=REPO), logs)
    try:
        driver = host.new_driver("android", CAPS)
        registry = ToolRegistry(platform="android", driver_key=driver.driver_key)
        registry.register_all(builtin_tools())
        trail_path = logs / "bench.trail.yaml"
        trail_path.write_text(TRAIL)

        def through_plugin() -> None:
            trail = load_trail(trail_path)
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
        commands = {name: count_commands(run) for name, run in variants.items()}
        times: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(options.rounds):
            for name, run in variants.items():
                began = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - began)
    finally:
        host.close()
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"{name:>20}: median {median * 1000:6.1f} ms per run, {commands[name]} Appium commands")
    plugin = medians["through plugin"]
    print(f"ratio plugin / same calls by hand: {plugin / medians['same calls by hand']:.2f}  (goal <= 1.2)")
    print(f"ratio plugin / hand-written test:  {plugin / medians['hand-written test']:.2f}  (context)")


if __name__ == "__main__":
    main()
