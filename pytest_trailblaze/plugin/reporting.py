"""Reports: trail failures as plain trail text, notes about driver pins, unknown args."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from ..core.errors import TrailblazeError
from .collection import DECLARED_ARGS_KEY, PIN_NOTES_KEY
from .options import SETTINGS_KEY


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    """Setup and teardown errors of our own kind read like trail failures, without plugin frames."""
    report = yield
    excinfo = call.excinfo
    if (
        call.when != "call"
        and excinfo is not None
        and isinstance(excinfo.value, TrailblazeError)
        and not item.config.stash[SETTINGS_KEY].full_trace
    ):
        report.longrepr = str(excinfo.value)
    return report


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config) -> None:
    """A ``--trailblaze-arg`` that no collected trail declares is a usage error, before anything runs."""
    provided = config.stash[SETTINGS_KEY].args
    declared = config.stash.get(DECLARED_ARGS_KEY, set())
    unknown = sorted(set(provided) - declared)
    if unknown:
        known = ", ".join(sorted(declared)) or "none"
        raise pytest.UsageError(
            f"unknown trail arg(s) {', '.join(unknown)}: no collected trail declares them in config.args "
            f"(declared: {known})"
        )


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    """One line per upstream driver pin this plugin replaces with its own driver."""
    notes = config.stash.get(PIN_NOTES_KEY, {})
    return [
        f"trailblaze: driver pin {pin} ({len(ids)} item{'s' if len(ids) != 1 else ''}) "
        f"runs on this plugin's driver for its platform"
        for pin, ids in sorted(notes.items())
    ]
