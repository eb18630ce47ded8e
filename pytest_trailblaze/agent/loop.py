"""The agent loop of one step (U§7.1): screen and prompt in, one tool call out, until done.

Each iteration sends the system prompt, the objective, the calls made so far (as the provider's
own tool-call turns) and the *current* screen only, so a long step does not resend old screens.
Every tool the model picks runs through the session registry (validation, interpolation, hooks,
logging, masking) exactly like a replayed call. The conversation passes one masking filter right
before it is handed to the provider. Every way the model can fail the step (HTTP errors,
timeouts, unreadable or unknown tool calls, the call budget, giving up) ends as one
``AgentFailure`` naming the model and the cause.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.errors import AgentFailure, FatalToolError, ToolError
from ..core.runner import ResolvedStep
from ..drivers import aria
from .prompt import OBJECTIVE_TOOL, menu, objective_text, system_prompt, tool_specs
from .screen import capture_image, capture_text
from .selectors import web_node_selector
from .wire import Conversation, Provider, ProviderError, Reply, ToolRequest, ToolSpec, Turn, Usage

NUDGE = "Call exactly one of the tools now; when the objective is done, call objectiveStatus."


@dataclass
class AgentCall:
    """One tool call the model made: its arguments as sent (tokens kept) and where it is logged."""

    name: str
    args: dict[str, Any]
    ok: bool
    log_start: int
    log_end: int
    node_selector: dict[str, Any] | None = None


@dataclass
class StepRun:
    """What the agent did for one step; the plugin turns it into reports and a recording."""

    step: ResolvedStep
    model: str
    calls: list[AgentCall] = field(default_factory=list)
    llm_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    healed: bool = False
    #: True once the step is done (a failed attempt keeps its calls for the report, never a recording).
    done: bool = False
    #: Agent overhead per iteration in ms: screen + prompt + masking (model and tool time excluded).
    overhead_ms: list[float] = field(default_factory=list)


@dataclass
class AgentLoop:
    """Runs steps through one model with a per-step budget of LLM calls."""

    provider: Provider
    max_calls: int = 50
    screenshots: bool = False
    context: str | None = None

    def run(self, step: ResolvedStep, ctx: Any, heal_note: str | None = None) -> StepRun:
        run = StepRun(step, self.provider.name, healed=heal_note is not None)
        offered = menu(step, ctx)
        mask = ctx.memory.mask
        specs = tuple(
            replace(s, description=mask(s.description), parameters=mask(dict(s.parameters)))
            for s in tool_specs(offered)
        )
        # A verify: step ends when a verification holds (U§7.2 "auto-terminate"); a step: does not.
        verifying = {d.name for d in offered if d.is_verification} if step.step.kind == "verify" else set()
        system = system_prompt(step, ctx, self.context)
        history: list[Turn] = [Turn("user", objective_text(step, ctx.memory, heal_note))]
        nudged = False
        while True:
            if run.llm_calls >= self.max_calls:
                raise self._failure(run, f"used its budget of {self.max_calls} LLM calls without finishing")
            started = time.perf_counter()
            screen = self._screen(step, ctx, run)
            conversation = _masked(Conversation(system, specs, [*history, screen]), ctx.memory)
            run.overhead_ms.append((time.perf_counter() - started) * 1000)
            reply = self._ask(conversation, run)
            if not reply.calls:
                if nudged:
                    raise self._failure(run, f"replied without calling a tool: {_short(reply.text)}")
                nudged = True
                history += [Turn("assistant", reply.text), Turn("user", NUDGE)]
                continue
            request = reply.calls[0]
            args = self._arguments(request, run)
            if request.name not in {s.name for s in specs}:
                raise self._failure(run, _unknown(request.name, specs, step))
            message, status = self._dispatch(request.name, args, ctx, run)
            history += [Turn("assistant", reply.text, call=request), Turn("result", message, call=request)]
            if status == "COMPLETED" or (request.name in verifying and run.calls[-1].ok):
                run.done = True
                return run
            if status == "FAILED":
                raise self._failure(
                    run, f"the model reports the objective failed: {args.get('explanation', '')}"
                )

    # -- one iteration's parts -------------------------------------------------------------------------
    def _screen(self, step: ResolvedStep, ctx: Any, run: StepRun) -> Turn:
        """The current screen as a user turn; no picture is taken while a secret is visible on it."""
        try:
            text = capture_text(ctx)
            image = None
            if self.screenshots and ctx.memory.mask(text) == text:
                name = f"agent-step{step.number}-{run.llm_calls + 1:02d}.png"
                image = capture_image(ctx, ctx.artifact(name))
        except ToolError as exc:
            raise self._failure(run, f"could not read the screen: {ctx.memory.mask(str(exc))}") from None
        data, media_type = image if image is not None else (None, "")
        return Turn("user", f"Current screen:\n{text}", image=data, image_type=media_type)

    def _ask(self, conversation: Conversation, run: StepRun) -> Reply:
        try:
            reply = self.provider.complete(conversation)
        except ProviderError as exc:
            run.llm_calls += 1
            raise self._failure(run, exc.cause) from None
        run.llm_calls += 1
        run.usage = Usage(
            run.usage.input_tokens + reply.usage.input_tokens,
            run.usage.output_tokens + reply.usage.output_tokens,
        )
        return reply

    def _arguments(self, request: ToolRequest, run: StepRun) -> dict[str, Any]:
        try:
            args = json.loads(request.arguments or "{}")
        except ValueError as exc:
            why = f"malformed tool call: the arguments of '{request.name}' are not JSON ({exc})"
            raise self._failure(run, why) from None
        if not isinstance(args, dict):
            why = f"malformed tool call: the arguments of '{request.name}' are not a JSON object"
            raise self._failure(run, why)
        return args

    def _dispatch(self, name: str, args: dict[str, Any], ctx: Any, run: StepRun) -> tuple[str, str | None]:
        """Run the call through the registry; a tool's failure goes back to the model as its result."""
        selector = _selector_for(name, args, ctx)
        start = len(ctx.tool_log)
        try:
            result = ctx.registry.execute(name, args, ctx)
        except FatalToolError as exc:
            run.calls.append(AgentCall(name, args, False, start, len(ctx.tool_log)))
            raise self._failure(run, f"tool '{name}' broke: {ctx.memory.mask(str(exc))}") from exc
        except ToolError as exc:
            run.calls.append(AgentCall(name, args, False, start, len(ctx.tool_log)))
            return f"error: {ctx.memory.mask(str(exc))}", None
        run.calls.append(AgentCall(name, args, True, start, len(ctx.tool_log), selector))
        status = str(args.get("status", "")).upper() if name == OBJECTIVE_TOOL else None
        return f"ok: {ctx.memory.mask(result.message)}", status

    def _failure(self, run: StepRun, cause: str) -> AgentFailure:
        step = run.step
        tools = [c.name for c in run.calls]
        done = f"{run.llm_calls} LLM call{'s' if run.llm_calls != 1 else ''}, {len(tools)} tool call"
        done += f"{'s' if len(tools) != 1 else ''}" + (f" ({', '.join(tools[-8:])})" if tools else "")
        failure = AgentFailure(
            f"{step.step.span}: {step.label} failed: the agent could not do it: {step.step.text}\n"
            f"  model: {run.model}\n"
            f"  cause: {cause}\n"
            f"  after: {done}"
        )
        failure.run = run  # type: ignore[attr-defined]
        return failure


def _selector_for(name: str, args: dict[str, Any], ctx: Any) -> dict[str, Any] | None:
    """A web element call by ``eN`` gets a durable nodeSelector, computed before it acts."""
    ref = args.get("ref")
    if ctx.platform != "web" or not isinstance(ref, str) or aria.element_id(ref) is None:
        return None
    if name not in ctx.registry:
        return None
    descriptor = ctx.registry.get(name).descriptor
    if not descriptor.is_recordable or "nodeSelector" not in descriptor.parameters.get("properties", {}):
        return None
    return web_node_selector(ctx.driver, ref)


def _masked(conversation: Conversation, memory: Any) -> Conversation:
    """The one filter between the trail's secrets and the model: every string of every turn."""
    if not memory.secret_values():
        return conversation
    mask = memory.mask
    turns = [
        replace(
            t,
            text=mask(t.text),
            call=replace(t.call, arguments=mask(t.call.arguments)) if t.call else None,
        )
        for t in conversation.turns
    ]
    return Conversation(mask(conversation.system), conversation.tools, turns)


def _unknown(name: str, specs: tuple[ToolSpec, ...], step: ResolvedStep) -> str:
    scope = "verification tools offered to a verify: step" if step.step.kind == "verify" else "tools offered"
    return f"asked for tool '{name}', which is not among the {len(specs)} {scope}"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return (text[:200] + "...") if len(text) > 200 else (text or "(empty reply)")
