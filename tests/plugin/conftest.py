"""Helpers of the plugin tests: the sample app on disk, trail writing, process inspection."""

from __future__ import annotations

from pathlib import Path

import pytest
from sandbox import PROCESS_PROBE, alive, matching, processes, write

REPO = Path(__file__).resolve().parents[2]
SAMPLE_APP = REPO / "examples" / "sample-app"
EXAMPLES = REPO / "examples"
#: ``file://`` URL of the sample app; trails reach it as ``{{app}}/index.html``.
APP_URL = SAMPLE_APP.as_uri()
APP_MEMORY = f"--trailblaze-memory=app={APP_URL}"

#: A conftest for pytester dirs that records each item's final outcome in ``outcomes.json``
#: (on the xdist controller too, where reports arrive from the workers).
OUTCOME_RECORDER = """
import json, pathlib

_OUTCOMES = {}

def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if report.nodeid not in _OUTCOMES or _OUTCOMES[report.nodeid] == "passed":
            kind = "error" if report.when != "call" and report.outcome == "failed" else report.outcome
            _OUTCOMES[report.nodeid] = kind

def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        path = pathlib.Path(str(session.config.rootpath), "outcomes.json")
        path.write_text(json.dumps(_OUTCOMES, sort_keys=True))
"""


class Helpers:
    """What the plugin tests share; reached through the ``tb`` fixture (test dirs are not packages)."""

    REPO = REPO
    SAMPLE_APP = SAMPLE_APP
    EXAMPLES = EXAMPLES
    APP_URL = APP_URL
    APP_MEMORY = APP_MEMORY
    OUTCOME_RECORDER = OUTCOME_RECORDER
    PROCESS_PROBE = PROCESS_PROBE
    write = staticmethod(write)
    processes = staticmethod(processes)
    matching = staticmethod(matching)
    alive = staticmethod(alive)


@pytest.fixture
def tb() -> type[Helpers]:
    """Shared helpers and paths of the plugin tests."""
    return Helpers
