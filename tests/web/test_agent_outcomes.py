"""How an agent step ends, and what the model sees, on real Chromium with a scripted model.

The scripted model makes the moves real models make: it checks one claim of two and then finds
the other false, repeats a failing call, sends a `reasoning`; each test asserts what the step
does about it. The model answers on a real local HTTP server through the official SDKs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from llm_server import ScriptedModel, call, done, give_up, serve, text

from pytest_trailblaze.agent import AgentLoop, LlmSpec, StepRun, make_provider
from pytest_trailblaze.agent.agent_tools import TOOLS
from pytest_trailblaze.agent.recording import recorded_step
from pytest_trailblaze.core.errors import AgentFailure
from pytest_trailblaze.core.run.runner import ResolvedStep, plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.trail.parse import parse_trail


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve() as scripted:
        yield scripted


@pytest.fixture
def agent_ctx(ctx: ToolContext) -> ToolContext:
    ctx.registry.register_all(TOOLS)
    return ctx


def step_of(words: str, kind: str = "step") -> ResolvedStep:
    trail = parse_trail(f"trail:\n  - {kind}: {json.dumps(words)}\n", "agent.trail.yaml")
    return plan_trail(trail, ("web",)).steps[0]


def run_step(
    model: ScriptedModel, ctx: ToolContext, words: str, *moves: Any, kind: str = "step", **loop: Any
) -> StepRun:
    model.script[words] = list(moves)
    provider = make_provider(LlmSpec("openai", "scripted-1", model.openai_url, 10, retries=0))
    try:
        return AgentLoop(provider, **loop).run(step_of(words, kind), ctx)
    finally:
        provider.close()


def failure_of(model: ScriptedModel, ctx: ToolContext, words: str, *moves: Any, **options: Any) -> str:
    with pytest.raises(AgentFailure) as caught:
        run_step(model, ctx, words, *moves, **options)
    return str(caught.value)


def counter(page: Any) -> str:
    return page.locator("#counter-value").inner_text()


# -- verify: steps end on the model's word -------------------------------------------------------------
def test_a_verification_of_two_claims_waits_for_the_model_and_fails_on_the_false_one(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    """The first claim holds; the step must not pass on it while the second is false."""
    open_app("index.html#counter")
    message = failure_of(
        model,
        agent_ctx,
        "The counter shows 0 and the heading reads Blorp",
        call("web_verifyTextVisible", text="Current value: 0"),
        call("web_verifyTextVisible", text="Blorp"),
        give_up("the heading does not read Blorp"),
        kind="verify",
    )
    assert "cause: the model reports the objective failed: the heading does not read Blorp" in message
    assert "after: 3 LLM calls" in message
    # the failed check went back to the model as a finding
    assert "error: " in model.requests()[2]["messages"][-2]["content"]


def test_a_model_may_end_a_verification_itself(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    open_app("index.html#counter")
    run = run_step(
        model,
        agent_ctx,
        "The counter shows 0 and the Increment button is there",
        call("web_verifyTextVisible", text="Current value: 0"),
        call("web_verifyElementVisible", ref="{ref:Increment}"),
        done("both hold"),
        kind="verify",
    )
    assert run.done and run.llm_calls == 3 and run.explanation == "both hold"


@pytest.mark.parametrize(
    "claim",
    [
        "The counter does not show 5",
        "No error shows, only the counter",
        "Counter: 0, Reset",
        "The counter shows 0 with the heading Blorp",
        "Every button says Current value",
        "Der Zähler zeigt 0 und die Überschrift Blorp",
    ],
)
def test_a_passing_check_ends_only_a_single_positive_claim(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any, claim: str
) -> None:
    """A passing check of "Current value" proves nothing about "does not show 5"."""
    open_app("index.html#counter")
    run = run_step(
        model, agent_ctx, claim, call("web_verifyTextVisible", text="Current value"), done(), kind="verify"
    )
    assert run.llm_calls == 2


def test_a_failed_status_fails_a_verification_after_a_passing_check(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    open_app("index.html#counter")
    message = failure_of(
        model,
        agent_ctx,
        "Both buttons are there, and nothing else",
        call("web_verifyElementVisible", ref="{ref:Increment}"),
        give_up("there is a third button"),
        kind="verify",
    )
    assert "the model reports the objective failed: there is a third button" in message


# -- repetition ----------------------------------------------------------------------------------------
def test_a_model_repeating_a_failing_call_is_told_then_stopped(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    open_app("index.html#counter")
    stuck = call("web_click", ref="e999")
    message = failure_of(model, agent_ctx, "Open the shop", *[stuck] * 30, max_calls=30)
    assert "cause: the model repeated itself: made the same call (web_click" in message
    assert "5 times on an unchanged screen" in message and "after: 5 LLM calls" in message
    reminders = [r["messages"][-1]["content"] for r in model.requests()]
    assert "Warning: you have made the same call" not in reminders[2]
    assert "Warning: you have made the same call (web_click" in reminders[3]  # after the third


def test_repeating_replies_without_a_tool_call_stop_too(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    open_app("index.html#counter")
    message = failure_of(model, agent_ctx, "Open the shop", *[text("I cannot see a shop.")] * 9)
    assert "the model repeated itself: replied without calling a tool 5 times" in message


def test_the_same_call_on_a_changing_screen_is_no_repetition(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    page = open_app("index.html#counter")
    click = call("web_click", ref="{ref:Increment}")
    run = run_step(model, agent_ctx, "Click increment six times", *[click] * 6, done())
    assert counter(page) == "6" and run.done


# -- what the model sees and sends ---------------------------------------------------------------------
def test_the_request_is_lean_and_every_tool_takes_a_reasoning(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    open_app("index.html#counter")
    run = run_step(
        model,
        agent_ctx,
        "Click increment",
        call("web_click", ref="{ref:Increment}", reasoning="the + button adds one"),
        done(),
    )
    request = model.bodies[0]
    assert len(request) <= 16 * 1024, len(request)
    tools = {t["function"]["name"]: t["function"] for t in model.requests()[0]["tools"]}
    plumbing = {"web_applyCookies", "web_getStorageState", "web_resize", "web_snapshot", "launchApp"}
    assert not plumbing & set(tools) and "rememberText" in tools and "assertWithAi" in tools
    for name, function in tools.items():
        assert "\n" not in function["description"], name
        props = function["parameters"]["properties"]
        assert "nodeSelector" not in props and "reasoning" in props, name
        assert all("description" in p for p in props.values()), name
    body = request.decode()
    assert '"title"' not in body and "anyOf" not in body and '"default": null' not in body
    assert tools["web_click"]["parameters"]["required"] == ["ref"]
    # the reasoning is stripped before the tool runs and kept in the recording
    recorded = recorded_step(run, agent_ctx.tool_log, agent_ctx.registry)
    assert recorded == [
        (
            "web_click",
            {
                "ref": "e11",
                "nodeSelector": {"web": {"cssSelector": "#increment-btn"}},
                "reasoning": "the + button adds one",
            },
        )
    ]


def test_conditional_and_multi_part_objectives_get_their_guidance(
    model: ScriptedModel, agent_ctx: ToolContext, open_app: Any
) -> None:
    open_app("index.html#counter")
    run_step(model, agent_ctx, "If a cookie banner shows, close it", done("no banner"))
    run_step(model, agent_ctx, "Click increment, then click reset", done())
    conditional, parts = (r["messages"][-1]["content"] for r in model.requests())
    assert "Conditional: when the condition does not hold" in conditional
    assert "several parts: do all of them" in parts
    system = model.requests()[0]["messages"][0]["content"]
    for rule in ("loading, blank or splash screen", "permission prompt", "Do the current objective"):
        assert rule in system
