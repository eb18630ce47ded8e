"""Options for the evidence a run keeps: report, screenshots, traces, video (resolved once).

Names and values follow pytest-playwright's ``--screenshot`` / ``--tracing`` / ``--video``
with the ``--trailblaze-`` prefix, so the two plugins never collide. ``--trailblaze-screenshots
on-failure`` (the older spelling) still works.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ..session.settings import EvidenceSettings
from . import playwright_compat
from .options import _Given

EVIDENCE_KEY = pytest.StashKey["EvidenceSettings"]()
SCREENSHOT = ("on", "off", "only-on-failure")
RECORDING = ("on", "off", "retain-on-failure")
#: Older values still accepted, and what they mean now.
_SCREENSHOT_ALIASES = {"on-failure": "only-on-failure"}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("trailblaze")
    group.addoption(
        "--trailblaze-report",
        dest="trailblaze_report",
        metavar="PATH",
        help="write a self-contained HTML report of the trails (steps, tool calls, screenshots) to PATH",
    )
    parser.addini("trailblaze_report", "HTML report path (see --trailblaze-report)")
    group.addoption(
        "--trailblaze-screenshot",
        "--trailblaze-screenshots",
        dest="trailblaze_screenshot",
        choices=(*SCREENSHOT, *_SCREENSHOT_ALIASES),
        help="screenshots of trails: on (after every step), off, only-on-failure (default)",
    )
    parser.addini("trailblaze_screenshot", "screenshots of trails: on, off, only-on-failure")
    parser.addini("trailblaze_screenshots", "older name of trailblaze_screenshot")
    group.addoption(
        "--trailblaze-tracing",
        dest="trailblaze_tracing",
        choices=RECORDING,
        help="Playwright traces of web trails (open with `playwright show-trace`): on, off (default), "
        "retain-on-failure",
    )
    parser.addini("trailblaze_tracing", "Playwright traces: on, off, retain-on-failure")
    group.addoption(
        "--trailblaze-video",
        dest="trailblaze_video",
        choices=RECORDING,
        help="videos of trails (web; mobile where the Appium driver can record the screen): on, "
        "off (default), retain-on-failure",
    )
    parser.addini("trailblaze_video", "videos of trails: on, off, retain-on-failure")


def resolve(config: pytest.Config) -> EvidenceSettings:
    """The command line over the ini file over pytest-playwright's ``--tracing`` / ``--video`` /
    ``--screenshot`` (when it is active) over the defaults; a bad ini value is a usage error."""
    theirs = playwright_compat.evidence_defaults(config)
    given = _Given(config)
    report = given.pick("report")
    shot = given.pick("screenshot") or config.getini("trailblaze_screenshots")
    shot = shot or theirs.get("screenshot") or "only-on-failure"
    return EvidenceSettings(
        report=Path(config.invocation_params.dir, report) if report else None,
        screenshot=_choice("screenshot", _SCREENSHOT_ALIASES.get(shot, shot), SCREENSHOT),
        tracing=_choice("tracing", given.pick("tracing") or theirs.get("tracing"), RECORDING),
        video=_choice("video", given.pick("video") or theirs.get("video"), RECORDING),
    )


def _choice(name: str, value: str | None, allowed: tuple[str, ...]) -> str:
    value = (value or "off").strip()
    if value not in allowed:
        raise pytest.UsageError(f"trailblaze_{name} expects one of {', '.join(allowed)}, got {value!r}")
    return value


def evidence_of(config: pytest.Config) -> EvidenceSettings:
    """The run's evidence settings (resolved at configure time)."""
    return config.stash.get(EVIDENCE_KEY, EvidenceSettings())
