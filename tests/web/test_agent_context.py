"""A step longer than a small model's context, on real Chromium with a scripted model.

The scripted server has a context window as a local server has one: a request counts a token per
four bytes, one past the window is refused with the words llama-cpp-python and vLLM use. The
step's calls are long (their arguments are never cut), so by the fourth call the history no
longer fits. The agent learns the window from the refusal, fits the conversation to it (earlier
results cut, then the oldest calls left out and named), sends it once more, and fits every
later request before it is sent: the step ends done, with every scripted call made once, and no
other request refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from llm_server import ScriptedModel, call, done, serve

from pytest_trailblaze.agent import AgentLoop, LlmSpec, StepRun, make_provider
from pytest_trailblaze.agent.agent_tools import TOOLS
from pytest_trailblaze.agent.context_window import ContextWindow
from pytest_trailblaze.core.run.runner import ResolvedStep, plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.trail.parse import parse_trail

WORDS = "Check the five long values"
LONG = "a long value " * 120  # 1,560 characters in each call's arguments


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve() as scripted:
        yield scripted


def step() -> ResolvedStep:
    trail = parse_trail(f"trail:\n  - step: {json.dumps(WORDS)}\n", "agent.trail.yaml")
    return plan_trail(trail, ("web",)).steps[0]


def moves() -> list[Any]:
    checks = [call("assertEquals", actual=f"{LONG}{n}", expected=f"{LONG}{n}") for n in range(5)]
    return [*checks, done("all five hold")]


def take(model: ScriptedModel, ctx: ToolContext, window: ContextWindow) -> StepRun:
    model.script[WORDS] = moves()
    provider = make_provider(LlmSpec("openai", "small-1", model.openai_url, 10, retries=0))
    try:
        return AgentLoop(provider, max_calls=12, window=window).run(step(), ctx)
    finally:
        provider.close()


def test_a_step_longer_than_the_context_is_fitted_after_one_refusal(
    model: ScriptedModel, ctx: ToolContext, open_app: Any
) -> None:
    ctx.registry.register_all(TOOLS)
    open_app("index.html#counter")
    take(model, ctx, ContextWindow(tokens=10_000_000))  # no window: how big each request is
    sizes = [len(body) // 4 for body in model.bodies]
    assert len(sizes) == 6 and sizes == sorted(sizes)
    # a window that holds three calls' history, not four
    model.context_tokens = (sizes[3] + sizes[4]) // 2
    model.bodies.clear()

    window = ContextWindow()
    run = take(model, ctx, window)

    assert run.done and run.explanation == "all five hold"
    made = [c.args["actual"][-1] for c in run.calls if c.name == "assertEquals"]
    assert made == ["0", "1", "2", "3", "4"] and all(c.ok for c in run.calls)
    refused = [len(body) // 4 > model.context_tokens for body in model.bodies]
    assert refused == [False, False, False, False, True, False, False], refused
    assert run.llm_calls == 7
    assert window.tokens == model.context_tokens
    # the retry holds every call, their results cut; the next one leaves the oldest out, named
    retry, last = (r["messages"] for r in model.requests()[5:])
    assert sum(1 for m in retry if m["role"] == "assistant") == 4
    assert any(m["role"] == "tool" and m["content"].endswith("characters left out)") for m in retry)
    note = r"\(\d earlier calls? of this step left out to fit the model's context, in order: assertEquals ok"
    assert re.search(note, last[1]["content"]), last[1]["content"]
    # the answer's cap leaves the room the window has
    assert all(r["max_tokens"] <= 1024 for r in model.requests()[5:])
