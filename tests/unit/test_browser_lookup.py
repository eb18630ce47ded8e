"""Which system Chromium the plugin picks when Playwright's own browser is not installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_trailblaze.drivers import browser
from pytest_trailblaze.drivers.browser import find_system_chromium


def install(folder: Path, *names: str) -> None:
    for name in names:
        program = folder / name
        program.write_text("#!/bin/sh\n")
        program.chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", str(tmp_path))
    return tmp_path


def test_headless_prefers_the_headless_shell(bin_dir: Path) -> None:
    install(bin_dir, "chromium", "chromium-headless-shell")
    assert find_system_chromium(headless=True) == str(bin_dir / "chromium-headless-shell")


def test_headed_never_takes_the_headless_shell(bin_dir: Path) -> None:
    install(bin_dir, "chromium", "chromium-headless-shell")
    assert find_system_chromium(headless=False) == str(bin_dir / "chromium")


def test_headless_without_the_shell_takes_the_full_browser(
    bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Debian's fixed path is looked at too: take it out of the lookup for this machine.
    monkeypatch.setattr(browser, "HEADLESS_SHELL", ("chromium-headless-shell",))
    install(bin_dir, "chromium")
    assert find_system_chromium(headless=True) == str(bin_dir / "chromium")
