"""What the agent did, as report data: a trail's properties, and the run's usage totals.

Per trail: ``outcome`` (``passed``, ``passed-with-self-heal``, ``passed-ai``, ``failed``), the
model, its LLM calls, input tokens (``llm_cached_input_tokens`` of them read from the provider's
cache), output tokens and ``llm_cost_usd`` when the model's price is known. Judgement tools
(``rememberWithAi``...) count with the steps. Totals add up those properties, so they can be
gathered from reports (on the xdist controller too).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: totals are read on an xdist controller too
    from ..agent.judgement import Judge
    from ..agent.loop import StepRun
    from ..core.run.runner import TrailRunner

USAGE_KEYS = ("llm_calls", "llm_input_tokens", "llm_cached_input_tokens", "llm_output_tokens")
#: The properties ``trail_properties`` sets (a rerun replaces them).
PROPERTIES = frozenset({"outcome", "llm_model", *USAGE_KEYS, "llm_cost_usd", "healed_steps"})


def trail_properties(
    runner: TrailRunner | None, runs: list[StepRun], judge: Judge | None, passed: bool
) -> list[tuple[str, str]]:
    """The trail's outcome, and its model usage when it used one (in its agent ``runs`` and the
    ``judge`` of tools that asked the model)."""
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
    judged = judge is not None and judge.llm_calls > 0
    if runs or judged:
        from ..agent.wire import Usage  # loaded with the agent: a replay-only run never needs it

        usage = sum((r.usage for r in runs), Usage())
        calls = sum(r.llm_calls for r in runs)
        if judge is not None and judged:
            usage, calls = usage + judge.usage, calls + judge.llm_calls
        model = runs[0].model if runs or judge is None else judge.model
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
