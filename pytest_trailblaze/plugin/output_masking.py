"""Where pytest's text leaves the process, the run's secrets are masked: no byte of one may leave.

Two doors, one filter (``core.masking.Masker``, built once from ``--trailblaze-secret``):

- every test and collection report, as it is made: its failure text, ``-l`` locals, captured
  output, sections and properties. Reports are what the terminal, JUnit, ``.pytest_cache``,
  pytest-xdist and other plugins read, so masking them once covers all of those;
- the terminal writer's stream, for what pytest prints that is not a report (warnings, notes),
  and the ``--log-file`` stream, which log records reach without a report.

Names (node ids, artifact folders, snapshot files) are masked where they are made, with the same
filter's ``name`` form, because a name must be stable, not starred out.
"""

from __future__ import annotations

from typing import TextIO, TypeVar

import pytest

from ..compat import wrap_log_file_stream, wrap_terminal_stream
from ..core.masking import KEEP, PAIRS, Masker, MaskingStream, Shape, has_controls, rewrite, visible
from ..evidence.summary import RECORD_SHAPE
from .options import SETTINGS_KEY

MASKER_KEY = pytest.StashKey[Masker]()
_STREAM_KEY = pytest.StashKey[MaskingStream]()


def masker_of(config: pytest.Config) -> Masker:
    """The run's masking filter, built from the secrets of the command line."""
    masker = config.stash.get(MASKER_KEY, None)
    if masker is None:
        masker = Masker(config.stash[SETTINGS_KEY].secrets)
        config.stash[MASKER_KEY] = masker
    return masker


_TRACEBACK: Shape = {"style": KEEP, "reprentries": {"type": KEEP, "data": {"style": KEEP}}}
#: What a serialized pytest report holds besides text: names, outcomes and kinds that pytest,
#: xdist and JUnit read back (``masking.rewrite`` leaves them as they are).
_Report = TypeVar("_Report", pytest.TestReport, pytest.CollectReport)

REPORT_SHAPE: Shape = {
    **dict.fromkeys(("$report_type", "nodeid", "outcome", "when", "keywords", "duration"), KEEP),
    **dict.fromkeys(("start", "stop", "worker_id", "testrun_uid", "item_index"), KEEP),
    "user_properties": PAIRS,
    "sections": PAIRS,
    "longrepr": {"reprtraceback": _TRACEBACK, "chain": _TRACEBACK, "sections": PAIRS},
    "trailblaze_record": RECORD_SHAPE,
}


def mask_report(config: pytest.Config, report: _Report, *, trail_text: bool = False) -> _Report:
    """The report with every secret masked, rebuilt through pytest's own (de)serialization.

    Serialization is how pytest-xdist ships reports, so every part of a report that reaches a
    reader is in it, and the rebuilt report keeps its structure (crash line, traceback entries):
    only text values change, never keys, outcomes or section names (``REPORT_SHAPE``). A report
    about ``trail_text`` (a trail item's, a trail file's) also gets its control characters made
    visible, so a trail cannot clear the terminal or hide a line of the CI log.
    """
    masker = masker_of(config)
    if not masker and not trail_text:
        return report
    data = config.hook.pytest_report_to_serializable(config=config, report=report)
    if data is None:
        return report
    secrets = bool(masker) and masker.holds(data)
    controls = trail_text and has_controls(data)
    if not secrets and not controls:
        return report

    def change(text: str) -> str:
        return visible(masker.text(text)) if controls else masker.text(text)

    data = rewrite(data, change, REPORT_SHAPE)
    masked: _Report | None = config.hook.pytest_report_from_serializable(config=config, data=data)
    if masked is None:
        return report
    if isinstance(report, pytest.CollectReport) and isinstance(masked, pytest.CollectReport):
        masked.result = report.result  # collected nodes: not serialized, and named already masked
    return masked


def warn_short_secrets(config: pytest.Config) -> None:
    """A one- or two-character secret is masked like any other, so every ``e`` of the output may
    turn into stars; say so once, naming the secret (never its value), so the garbled text makes sense."""
    short = masker_of(config).short_secrets()
    if short and not hasattr(config, "workerinput"):  # the controller warns once for the run
        names = ", ".join(short)
        config.issue_config_time_warning(
            pytest.PytestConfigWarning(
                f"--trailblaze-secret {names}: a secret of one or two characters is masked wherever "
                "those characters occur, so ordinary text in the output is starred out too; "
                "use the full secret value"
            ),
            stacklevel=2,
        )


def mask_streams(config: pytest.Config) -> None:
    """Route pytest's terminal writer and its ``--log-file`` through the filter.

    pytest publishes neither stream (see ``compat``); a plugin that has replaced the terminal
    reporter or the log handler is left as it is.
    """
    masker = masker_of(config)
    if not masker:
        return

    def masked(stream: TextIO) -> MaskingStream:
        return stream if isinstance(stream, MaskingStream) else masker.stream(stream)

    terminal = wrap_terminal_stream(config, masked)
    if terminal is not None:
        config.stash[_STREAM_KEY] = terminal
    wrap_log_file_stream(config, masker.stream)


def release_terminal(config: pytest.Config) -> None:
    """Write what the terminal stream held back: nothing can complete a secret any more."""
    stream = config.stash.get(_STREAM_KEY, None)
    if stream is not None:
        stream.release()
