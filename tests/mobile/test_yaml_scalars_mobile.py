"""Recorded text checks compare what the author wrote, on a real Appium server (YAML 1.2
scalars: ``text: 017`` checks ``017``).

YAML 1.1 read ``text: 8:00`` as 480: ``assertNotVisibleWithText {text: 8:00}`` passed while 8:00
was on screen, and the corpus's ``textRegex: 8:00`` looked for 480. Each case reads a real trail
text and replays its recorded call through ``ToolRegistry.execute`` on a fake-driver screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.drivers.appium import MobileDriver
from pytest_trailblaze.tools import builtin_tools

SCREEN = """<app width="1080" height="2400">
  <hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">
    <android.widget.FrameLayout id="root" class="android.widget.FrameLayout" package="com.test" enabled="true"
        displayed="true" bounds="[0,0][1080,2400]" left="0" top="0" width="1080" height="2400">
      <android.widget.TextView id="time" class="android.widget.TextView" package="com.test" text="{shown}"
          resource-id="com.test:id/time" enabled="true" displayed="true" bounds="[40,100][1040,200]"
          left="40" top="100" width="1000" height="100"/>
    </android.widget.FrameLayout>
  </hierarchy>
</app>
"""


@pytest.fixture
def screen(open_session: Any, tmp_path: Path, short_waits: None) -> Any:
    """``screen("8:00")``: a tool context on an android fake-driver session showing one text."""

    def make(shown: str) -> ToolContext:
        app = tmp_path / f"screen-{len(list(tmp_path.glob('screen-*')))}.xml"
        app.write_text(SCREEN.format(shown=shown))
        driver = MobileDriver(open_session(app), "android", owns_session=False)
        registry = ToolRegistry(platform="android", driver_key="appium-android")
        registry.register_all(builtin_tools())
        return ToolContext(registry, Memory(), driver.device_info(), driver, str(tmp_path / "t.trail.yaml"))

    return make


def replay(ctx: ToolContext, call: str) -> str:
    """The one call a trail records for ``android``, as the loader reads it, through the registry."""
    text = f"trail:\n  - verify: v\n    recording:\n      android:\n        - {call}\n"
    [found] = parse_trail(text, "t.trail.yaml").steps[0].calls()
    return ctx.registry.execute(found.name, dict(found.args), ctx).message


def test_not_visible_fails_while_the_time_is_on_screen(screen: Any) -> None:
    ctx = screen("8:00 AM")
    with pytest.raises(ToolFailure, match="8:00"):
        replay(ctx, "assertNotVisibleWithText: {text: 8:00}")


def test_not_visible_passes_when_only_the_old_misreading_is_on_screen(screen: Any) -> None:
    ctx = screen("480")
    assert replay(ctx, "assertNotVisibleWithText: {text: 8:00}") == "no element shows '8:00'"


def test_the_corpus_selector_finds_the_time(screen: Any) -> None:
    """``textRegex: 8:00`` as in corpus/upstream/trails/clock/assert-mixed-visibility.trail.yaml."""
    call = "assertVisibleBySelector: {nodeSelector: {androidAccessibility: {textRegex: 8:00}}}"
    assert replay(screen("8:00"), call).endswith("is visible")
    with pytest.raises(ToolFailure):
        replay(screen("480"), call)
