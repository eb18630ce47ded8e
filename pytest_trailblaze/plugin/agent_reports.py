"""What the agent did, as reports: JUnit properties per trail, and the run's totals at the end.

Per trail: ``outcome`` (``passed``, ``passed-with-self-heal``, ``passed-ai``, ``failed``), the
model, its LLM calls, input tokens (``llm_cached_input_tokens`` of them read from the provider's
cache), output tokens and ``llm_cost_usd`` when the model's price is known. Judgement tools
(``rememberWithAi``...) count with the steps. At the end of the run: healed trails (a flake
signal a team must see), written recordings, and the usage and cost of the whole run. Totals are
gathered from reports, so they add up on the xdist controller too.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import pytest

from ..agent.judgement import Judge
from ..agent.loop import StepRun
from ..agent.wire import Usage

RUNS_KEY = pytest.StashKey[list[StepRun]]()
JUDGE_KEY = pytest.StashKey[Judge]()
REPORTS_PLUGIN = "trailblaze-agent-reports"

USAGE_KEYS = ("llm_calls", "llm_input_tokens", "llm_cached_input_tokens", "llm_output_tokens")
_OURS = frozenset({"outcome", "llm_model", *USAGE_KEYS, "llm_cost_usd", "healed_steps"})


def trail_properties(item: Any, passed: bool) -> list[tuple[str, str]]:
    """The trail's outcome, and its model usage when it used one."""
    trail_run = getattr(item, "funcargs", {}).get("trailblaze_run")
    runner = getattr(trail_run, "runner", None)
    healed = list(getattr(runner, "healed", []))
    outcome = "failed"
    if passed:
        outcome = (
            "passed-with-self-heal"
            if healed
            else "passed-ai"
            if getattr(runner, "agent_done", [])
            else "passed"
        )
    props = [("outcome", outcome)]
    runs = item.stash.get(RUNS_KEY, [])
    judge = item.stash.get(JUDGE_KEY, None)
    judged = judge is not None and judge.llm_calls > 0
    if runs or judged:
        usage = sum((r.usage for r in runs), Usage())
        calls = sum(r.llm_calls for r in runs)
        if judged:
            usage, calls = usage + judge.usage, calls + judge.llm_calls
        model = runs[0].model if runs else judge.model
        props += [
            ("llm_model", model),
            ("llm_calls", str(calls)),
            ("llm_input_tokens", str(usage.input_tokens)),
            ("llm_cached_input_tokens", str(usage.cached_input_tokens)),
            ("llm_output_tokens", str(usage.output_tokens)),
        ]
        price = getattr(judge, "price", None) if judged else None
        price = next((r.price for r in runs if r.price is not None), price)
        if price is not None:
            props.append(("llm_cost_usd", f"{price.cost(usage):.6f}"))
    if healed:
        props.append(("healed_steps", ", ".join(s.label for s in healed)))
    return props


@dataclass
class Totals:
    """The run's model usage, summed over trails; ``unpriced`` names models without a price."""

    trails: int = 0
    calls: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unpriced: frozenset[str] = frozenset()

    def add(self, props: dict[str, str]) -> None:
        if "llm_calls" not in props:
            return
        self.trails += 1
        self.calls += int(props.get("llm_calls", 0))
        self.input_tokens += int(props.get("llm_input_tokens", 0))
        self.cached_input_tokens += int(props.get("llm_cached_input_tokens", 0))
        self.output_tokens += int(props.get("llm_output_tokens", 0))
        if "llm_cost_usd" in props:
            self.cost_usd += float(props["llm_cost_usd"])
        else:
            self.unpriced = self.unpriced | {props.get("llm_model", "?")}

    def line(self) -> str:
        cost = (
            f"${self.cost_usd:.4f}"
            if not self.unpriced
            else (f"${self.cost_usd:.4f} + unpriced" if self.cost_usd else "cost unknown")
        )
        return (
            f"{self.calls} LLM calls in {self.trails} trail{'s' if self.trails != 1 else ''}: "
            f"{self.input_tokens:,} input tokens ({self.cached_input_tokens:,} cached), "
            f"{self.output_tokens:,} output tokens, {cost}"
        )


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
    ) -> Generator[None, Any, Any]:
        """The trail's outcome and LLM usage as properties (JUnit reads them from the item)."""
        report = yield
        ended = call.when == "call" or (call.when == "setup" and report.failed)
        if ended and not report.skipped and hasattr(item, "trail"):
            item.user_properties[:] = [(k, v) for k, v in item.user_properties if k not in _OURS]
            item.user_properties.extend(trail_properties(item, report.passed))
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

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
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
