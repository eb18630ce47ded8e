"""What the agent did, as reports: JUnit properties per trail (``session.agent_usage``), and at the
end of the run healed trails (a flake signal a team must see), written recordings, and the usage
and cost of the whole run. Totals are gathered from reports, so they add up on the xdist
controller too.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

import pytest

from ..session.agent_usage import PROPERTIES, Totals, trail_properties
from ..session.properties import published

if TYPE_CHECKING:  # an xdist controller totals reports and never imports the agent's loop
    from ..agent.judgement import Judge
    from ..agent.loop import StepRun

RUNS_KEY: pytest.StashKey[list[StepRun]] = pytest.StashKey()
JUDGE_KEY: pytest.StashKey[Judge] = pytest.StashKey()
REPORTS_PLUGIN = "trailblaze-agent-reports"


class AgentReports:
    """Sets the properties, gathers healed trails, written recordings and usage from reports
    (on the xdist controller too) and lists them at the end."""

    def __init__(self) -> None:
        self.healed: list[tuple[str, str]] = []
        self.saved: list[str] = []
        self.notes: list[str] = []
        self.totals = Totals()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """The trail's outcome and LLM usage as properties (JUnit reads them from the item)."""
        report = yield
        ended = call.when == "call" or (call.when == "setup" and report.failed)
        if ended and not report.skipped and hasattr(item, "trail"):
            runner = getattr(getattr(item, "funcargs", {}).get("trailblaze_run"), "runner", None)
            runs, judge = item.stash.get(RUNS_KEY, []), item.stash.get(JUDGE_KEY, None)
            usage = trail_properties(runner, runs, judge, report.passed)
            item.user_properties[:] = published(item.user_properties, usage, PROPERTIES)
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "teardown":
            return
        props = report.user_properties
        self.totals.add({str(k): str(v) for k, v in props})
        for key, value in props:
            if key == "healed_steps":  # also when a later step failed: the recording is still stale
                failed = any(k == "outcome" and v == "failed" for k, v in props)
                later = " (then the trail failed)" if failed else ""
                self.healed.append((report.nodeid, f"{value}{later}"))
            elif key == "recording_saved":
                self.saved.append(str(value))
            elif key == "recording_note":
                self.notes.append(str(value))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        write = terminalreporter.write_line
        if self.healed:
            terminalreporter.section(
                "trailblaze: healed trails (their recordings are stale)", sep="-", yellow=True
            )
            for nodeid, steps in self.healed:
                write(f"HEALED {nodeid}: {steps}")
        if self.saved or self.notes:
            terminalreporter.section("trailblaze: recordings", sep="-")
            for line in self.saved:
                write(f"written {line}")
            for line in self.notes:
                write(f"note {line}")
        if self.totals.trails:
            terminalreporter.section("trailblaze: model usage", sep="-")
            write(self.totals.line())
            for model in sorted(self.totals.unpriced):
                write(
                    f"note {model}: no price known; set llm.models.<model>.price "
                    "(dollars per million input / output tokens) in trailblaze.yaml"
                )
