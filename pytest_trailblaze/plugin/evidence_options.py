"""Options for the evidence a run keeps: report, screenshots, traces, video (resolved once).

Names and values follow pytest-playwright's ``--screenshot`` / ``--tracing`` / ``--video``
with the ``--trailblaze-`` prefix, so the two plugins never collide. ``--trailblaze-screenshots
on-failure`` (the older spelling) still works.
"""

from __future__ import annotations

import pytest

from ..session.option_table import EVIDENCE_OPTIONS
from ..session.run_options import read_evidence
from ..session.settings import EvidenceSettings
from . import playwright_compat
from .options import as_usage_error, declare, given

EVIDENCE_KEY = pytest.StashKey["EvidenceSettings"]()


def add_options(parser: pytest.Parser) -> None:
    declare(parser, EVIDENCE_OPTIONS)


def resolve(config: pytest.Config) -> EvidenceSettings:
    """The command line over the ini file over pytest-playwright's ``--tracing`` / ``--video`` /
    ``--screenshot`` (when it is active) over the defaults; a bad ini value is a usage error."""
    theirs = playwright_compat.evidence_defaults(config)
    return as_usage_error(lambda: read_evidence(given(config), theirs))


def evidence_of(config: pytest.Config) -> EvidenceSettings:
    """The run's evidence settings (resolved at configure time)."""
    return config.stash.get(EVIDENCE_KEY, EvidenceSettings())
