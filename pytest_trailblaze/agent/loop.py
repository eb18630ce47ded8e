"""The agent loop of one step: screen and prompt in, one tool call out, until done.

Each iteration sends the system prompt, the objective, the calls made so far (as the provider's
own tool-call turns) and the *current* screen only, so a long step does not resend old screens.
Every tool the model picks runs through the session registry (validation, interpolation, hooks,
logging, masking) exactly like a replayed call. The conversation passes one masking filter right
before it is handed to the provider.

The model's mistakes are handed back to it as the result of its call, as a tool's own failure
is: a tool that is not offered, arguments that are not JSON or fail validation, a reply without
a tool call. It tries again within the call budget; a model that repeats itself is told, then
stopped (``repeats``). A step ends when the model reports ``objectiveStatus`` (a verification
of a single positive claim also ends when its check holds); FAILED always fails it. What
cannot go on (HTTP errors, timeouts, the budget, giving up) ends as one ``AgentFailure`` naming
the model and the cause.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace

from ..core.errors import AgentFailure, FatalToolError, ToolError
from ..core.jsondata import JsonObject
from ..core.run.runner import ResolvedStep
from ..core.screen import aria
from ..core.tooling.context import ToolContext
from ..core.tooling.memory import Memory
from ..core.trail.yamlsource import did_you_mean
from .context_window import ContextWindow
from .durable_selectors import web_node_selector
from .models import Price
from .prompt import OBJECTIVE_TOOL, PreviousStep, menu, objective_text, reminder, single_claim, system_prompt
from .prompt import tool_specs as lean_specs
from .repeats import RepeatGuard, call_key, digest
from .screen import capture_image, capture_text
from .wire import Conversation, Provider, ProviderError, Reply, ToolRequest, ToolSpec, Turn, Usage

NO_TOOL = (
    "error: your reply called no tool. Answer with exactly one tool call; when the objective is done "
    "or cannot be done, call objectiveStatus."
)


@dataclass
class AgentCall:
    """One tool call the model made: its arguments as sent (tokens kept) and where it is logged."""

    name: str
    args: JsonObject
    ok: bool
    log_start: int
    log_end: int
    node_selector: JsonObject | None = None


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
    #: The model's last words on the objective (objectiveStatus ``explanation``).
    explanation: str = ""
    #: The model's price (``models.Price``) when known, for the cost of ``usage``.
    price: Price | None = None
    #: Agent overhead per iteration in ms: screen + prompt + masking (model and tool time excluded).
    overhead_ms: list[float] = field(default_factory=list)


@dataclass
class _Turned:
    """What one reply led to: turns for the history, the repetition key, the status reported."""

    turns: list[Turn]
    key: str
    what: str
    status: str | None = None
    finished: bool = False


@dataclass
class AgentLoop:
    """Runs steps through one model with a per-step budget of LLM calls."""

    provider: Provider
    max_calls: int = 50
    screenshots: bool = False
    context: str | None = None
    #: The endpoint honours a forced tool call; otherwise the model is asked in words.
    forced_tools: bool = False
    repeats: RepeatGuard = field(default_factory=RepeatGuard)
    #: The model's context, shared by the steps of a session (``context_window``).
    window: ContextWindow = field(default_factory=ContextWindow)

    def run(self, step: ResolvedStep, ctx: ToolContext, previous: PreviousStep | None = None) -> StepRun:
        run = StepRun(step, self.provider.name, healed=step.healing is not None)
        mask = ctx.memory.mask
        specs = tuple(
            replace(s, description=mask(s.description), parameters=mask(dict(s.parameters)))
            for s in lean_specs(menu(step, ctx), ctx.platform)
        )
        verifying = step.step.kind == "verify" and single_claim(step.step.text)
        system = system_prompt(ctx, self.context, self.screenshots)
        history: list[Turn] = [Turn("user", objective_text(step, previous))]
        guard = replace(self.repeats, seen=type(self.repeats.seen)())
        note: str | None = None
        warning: str | None = None
        while True:
            if run.llm_calls >= self.max_calls:
                raise self._failure(run, f"used its budget of {self.max_calls} LLM calls without finishing")
            started = time.perf_counter()
            text, image, media_type = self._screen(step, ctx, run)
            words = reminder(step, ctx.memory, status_note=note, warning=warning)
            screen = Turn("user", f"{words}\n\nCurrent screen:\n{text}", image=image, image_type=media_type)
            conversation = Conversation(
                system, specs, [*history, screen], require_tool=self.forced_tools, cache_until=len(history)
            )
            conversation = _masked(conversation, ctx.memory)
            run.overhead_ms.append((time.perf_counter() - started) * 1000)
            reply = self._ask(conversation, run)
            turned = self._turn(reply, specs, step, ctx, run, digest(text), verifying)
            history += turned.turns
            if turned.finished:
                run.done = True
                return run
            if turned.status == "FAILED":
                raise self._failure(run, f"the model reports the objective failed: {run.explanation}")
            if turned.status == "IN_PROGRESS":
                note = f"IN_PROGRESS: {run.explanation}"
            times = guard.count(turned.key)
            if guard.exhausted(times):
                raise self._failure(
                    run, f"the model repeated itself: {turned.what} {times} times on an unchanged screen"
                )
            warning = guard.warning(times, turned.what)

    # -- one reply -------------------------------------------------------------------------------------
    def _turn(
        self,
        reply: Reply,
        specs: tuple[ToolSpec, ...],
        step: ResolvedStep,
        ctx: ToolContext,
        run: StepRun,
        screen: str,
        verifying: bool,
    ) -> _Turned:
        """Run the reply's call, or hand its mistake back; the turns that record it."""
        if not reply.calls:
            turns = [Turn("assistant", _echoed(reply.text)), Turn("user", NO_TOOL)]
            return _Turned(turns, call_key("", {}, screen, "no tool"), "replied without calling a tool")
        request = reply.calls[0]
        extra = len(reply.calls) - 1
        args, problem = _arguments(request)
        if problem is None and request.name not in {s.name for s in specs}:
            problem = _unknown(request.name, specs, step)
        if problem is None:
            problem = _hidden_arguments(request.name, args, specs, ctx)
        if problem is not None:
            message, status = f"error: {problem}", None
        else:
            message, status = self._dispatch(request.name, args, ctx, run)
        if extra:
            message += f"\n(only the first of your {extra + 1} calls ran: make one call per turn)"
        turns = [Turn("assistant", _echoed(reply.text), call=request), Turn("result", message, call=request)]
        shown = json.dumps(args, ensure_ascii=False, default=str) if problem is None else request.arguments
        what = f"made the same call ({request.name} {_short(shown, 120)})"
        key = call_key(request.name, args if problem is None else request.arguments, screen, message)
        if status == "COMPLETED":
            return _Turned(turns, key, what, status, finished=True)
        passed = problem is None and run.calls and run.calls[-1].ok
        checked = passed and ctx.registry.get(request.name).descriptor.is_verification
        return _Turned(turns, key, what, status, finished=bool(verifying and checked))

    # -- one iteration's parts -------------------------------------------------------------------------
    def _screen(self, step: ResolvedStep, ctx: ToolContext, run: StepRun) -> tuple[str, bytes | None, str]:
        """The current screen as text, and a picture unless a secret is visible on it."""
        try:
            text = capture_text(ctx)
            image = None
            if self.screenshots and ctx.memory.mask(text) == text:
                name = f"agent-step{step.number}-{run.llm_calls + 1:02d}.png"
                image = capture_image(ctx, ctx.artifact(name))
        except ToolError as exc:
            raise self._failure(run, f"could not read the screen: {ctx.memory.mask(str(exc))}") from None
        data, media_type = image if image is not None else (None, "image/png")
        return text, data, media_type

    def _ask(self, whole: Conversation, run: StepRun) -> Reply:
        """The model's reply to the conversation as it fits the model's context.

        A refusal for length that names the server's limit is learned from: the conversation is
        fitted to it and sent once more, when it then fits (else the refusal is the cause).
        """
        conversation = self._fitted(whole)
        retried = False
        while True:
            try:
                reply = self.provider.complete(conversation)
            except ProviderError as exc:
                run.llm_calls += 1
                if not retried and run.llm_calls < self.max_calls:
                    smaller = self._refitted(whole, conversation, exc.cause)
                    if smaller is not None:
                        conversation, retried = smaller, True
                        continue
                raise self._failure(run, exc.cause) from None
            run.llm_calls += 1
            run.usage = run.usage + reply.usage
            self.window.observe(conversation, reply.usage.input_tokens)
            return reply

    def _fitted(self, whole: Conversation) -> Conversation:
        fitted = self.window.fit(whole)
        if self.window.tokens is None:
            return fitted
        return replace(fitted, max_answer_tokens=self.window.answer_cap(fitted))

    def _refitted(self, whole: Conversation, sent: Conversation, cause: str) -> Conversation | None:
        """The conversation fitted to the limit a refusal for length names, when it then fits."""
        if not self.window.learn_refusal(cause, sent):
            return None
        smaller = self._fitted(whole)
        budget = self.window.prompt_budget()
        if budget is None or self.window.estimate(smaller) > budget:
            return None
        return smaller

    def _dispatch(
        self, name: str, args: JsonObject, ctx: ToolContext, run: StepRun
    ) -> tuple[str, str | None]:
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
        if name != OBJECTIVE_TOOL:
            return f"ok: {ctx.memory.mask(result.message)}", None
        run.explanation = ctx.memory.mask(str(args.get("explanation", "")))
        return f"ok: {ctx.memory.mask(result.message)}", str(args.get("status", "")).strip().upper()

    def _failure(self, run: StepRun, cause: str) -> AgentFailure:
        step = run.step
        tools = [c.name for c in run.calls]
        done = f"{run.llm_calls} LLM call{'s' if run.llm_calls != 1 else ''}, {len(tools)} tool call"
        done += f"{'s' if len(tools) != 1 else ''}" + (f" ({', '.join(tools[-8:])})" if tools else "")
        lines = cause.strip().splitlines() or ["(no reason given)"]
        shown = "\n".join([lines[0], *(f"    {line}" for line in lines[1:])])
        failure = AgentFailure(
            f"{step.step.span}: {step.label} failed: the agent could not do it: {step.step.text}\n"
            f"  model: {run.model}\n"
            f"  cause: {shown}\n"
            f"  after: {done}"
        )
        failure.run = run
        return failure


def _arguments(request: ToolRequest) -> tuple[JsonObject, str | None]:
    """The call's arguments, or what is wrong with them (handed back to the model)."""
    try:
        args = json.loads(request.arguments or "{}")
    except ValueError as exc:
        return {}, (
            f"the arguments of '{request.name}' are not readable JSON ({exc}); "
            'send them as one JSON object, e.g. {"ref": "e7"}'
        )
    if not isinstance(args, dict):
        return {}, f"the arguments of '{request.name}' must be a JSON object, not {type(args).__name__}"
    return args, None


def _selector_for(name: str, args: JsonObject, ctx: ToolContext) -> JsonObject | None:
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


def _masked(conversation: Conversation, memory: Memory) -> Conversation:
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
    return replace(conversation, system=mask(conversation.system), turns=turns)


def _unknown(name: str, specs: tuple[ToolSpec, ...], step: ResolvedStep) -> str:
    names = [s.name for s in specs]
    hint = did_you_mean(name, names)
    scope = "this verification offers only" if step.step.kind == "verify" else "the tools offered are"
    return f"there is no tool '{name}' here{' (' + hint + ')' if hint else ''}; {scope}: {', '.join(names)}"


def _hidden_arguments(
    name: str, args: JsonObject, specs: tuple[ToolSpec, ...], ctx: ToolContext
) -> str | None:
    """Arguments the model was not offered (``nodeSelector``, computed for the recording) or that
    the tool does not take, named with what the model was offered: the registry's own message
    would list the arguments hidden from the model."""
    offered = next(s for s in specs if s.name == name).parameters.get("properties")
    if not isinstance(offered, dict) or name not in ctx.registry:
        return None
    full = ctx.registry.get(name).descriptor.parameters
    closed = full.get("additionalProperties") is False
    extra = [k for k in args if k not in offered and (closed or k in full.get("properties", {}))]
    if not extra:
        return None
    hint = did_you_mean(extra[0], list(offered))
    return (
        f"invalid arguments for '{name}': unknown argument '{extra[0]}'{' (' + hint + ')' if hint else ''}; "
        f"accepted: {', '.join(offered) or 'none'}"
    )


#: How much of a reply's prose the history keeps: a small model rambling up to its output cap
#: (1,024 tokens) would otherwise push the next request past a 4,096-token context, and what
#: the next call needs is the call made and its result, not the prose around it.
MAX_ECHOED_CHARS = 600


def _echoed(text: str) -> str:
    """A reply's text as the next request repeats it: the start, and how much was left out."""
    if len(text) <= MAX_ECHOED_CHARS:
        return text
    return f"{text[:MAX_ECHOED_CHARS]}... ({len(text) - MAX_ECHOED_CHARS} more characters left out)"


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return (text[:limit] + "...") if len(text) > limit else (text or "(empty reply)")
