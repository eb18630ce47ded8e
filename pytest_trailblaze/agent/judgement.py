"""Tools that need a model's judgement of the screen: remember what it shows, or judge a claim.

``rememberText``, ``rememberNumber`` and ``rememberWithAi`` put a value the model reads off the
current screen into memory; ``assertWithAi`` has the model judge whether a statement holds.
Unlike every other tool their outcome is an opinion, not a measurement, so it is marked as one:
the result message starts with ``model judgement:`` (the tool log, the step table, the HTML
report), and a recording that keeps such a call carries a comment saying the model decides it at
every run. They ask the run's model each time they run, recorded or not; without a model they
fail naming the option that sets one.

The question goes out as one request with one ``answer`` tool, through the same provider, masking
filter and screen capture as the agent loop: no secret reaches the model here either.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.errors import ConfigurationError, ToolFailure
from ..core.jsondata import JsonObject
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import PythonTool, tool
from .screen import capture_image, capture_text
from .wire import Conversation, Provider, ProviderError, ToolSpec, Turn, Usage

if TYPE_CHECKING:
    from .models import Price

MARK = "model judgement"
#: The comment a recording keeps beside such a call.
RECORDING_NOTE = "model judgement: asks the model at every run"

SYSTEM = (
    "You read a screen of an app under test and answer one question about it, with the `answer` "
    "tool. Answer from what the screen shows, never from guesses; say so when it does not show it."
)
_VALUE_TOOL = ToolSpec(
    "answer",
    "Give the value asked for.",
    {
        "type": "object",
        "properties": {
            "found": {"type": "boolean", "description": "False when the screen does not show it."},
            "value": {"type": "string", "description": "The value, exactly as shown."},
        },
        "required": ["found", "value"],
    },
)
_VERDICT_TOOL = ToolSpec(
    "answer",
    "Say whether the statement holds on the screen.",
    {
        "type": "object",
        "properties": {
            "holds": {"type": "boolean", "description": "True when the screen shows it holds."},
            "explanation": {"type": "string", "description": "What on the screen decides it."},
        },
        "required": ["holds", "explanation"],
    },
)


@dataclass
class Judge:
    """The run's model, for one trail: asks it about the screen and counts what that costs.

    ``connect`` makes (or finds) the provider when a question is first asked, so a trail that
    never asks needs neither the provider's client library nor its key.
    """

    connect: Callable[[], Provider]
    model: str
    screenshots: bool = False
    forced_tools: bool = False
    usage: Usage = field(default_factory=Usage)
    llm_calls: int = 0
    #: The model's price when known.
    price: Price | None = None

    def ask(self, ctx: ToolContext, question: str, tool_spec: ToolSpec) -> JsonObject:
        """The model's ``answer`` arguments to ``question`` about the current screen."""
        text = capture_text(ctx)
        image = None
        if self.screenshots and ctx.memory.mask(text) == text:
            image = capture_image(ctx, ctx.artifact(f"judgement-{self.llm_calls + 1:02d}.png"))
        data, media_type = image if image is not None else (None, "image/png")
        mask = ctx.memory.mask
        turn = Turn("user", mask(f"{question}\n\nCurrent screen:\n{text}"), image=data, image_type=media_type)
        conversation = Conversation(mask(SYSTEM), (tool_spec,), [turn], require_tool=self.forced_tools)
        try:
            provider = self.connect()
        except ConfigurationError as exc:
            raise ToolFailure(str(exc)) from None
        self.llm_calls += 1
        try:
            reply = provider.complete(conversation)
        except ProviderError as exc:
            raise ToolFailure(f"the model could not answer: {exc.cause}") from None
        self.usage = self.usage + reply.usage
        for call in reply.calls:
            try:
                args = json.loads(call.arguments or "{}")
            except ValueError:
                continue
            if isinstance(args, dict):
                return args
        raise ToolFailure(f"the model gave no answer with its `answer` tool: {_short(reply.text)}")


def _judge(ctx: ToolContext, tool_name: str) -> Judge:
    judge: Judge | None = ctx.judge
    if judge is None:
        raise ToolFailure(
            f"{tool_name} asks a model to read the screen, and this run has none\n"
            "  fix: pass --trailblaze-llm PROVIDER/MODEL (or set llm.defaults.model in trailblaze.yaml)"
        )
    return judge


def _value(ctx: ToolContext, tool_name: str, prompt: str) -> str:
    answer = _judge(ctx, tool_name).ask(ctx, f"Find on the screen: {prompt}", _VALUE_TOOL)
    value = str(answer.get("value", "")).strip()
    if answer.get("found") is False or not value:
        raise ToolFailure(f"{MARK}: the screen does not show {prompt!r}")
    return value


def _remembered(ctx: ToolContext, variable: str, value: str, prompt: str) -> str:
    name = variable.strip().strip("{}").strip()
    if not name:
        raise ToolFailure("`variable` names no memory variable")
    ctx.memory.set(name, value)
    return f"{MARK}: remembered {{{{{name}}}}} = {ctx.memory.mask(value)!r} ({prompt})"


def memory_tool(**kwargs: Any) -> Callable[[Callable[..., object]], PythonTool]:
    return tool(source="builtin", toolset="memory", **kwargs)


@memory_tool()
def rememberText(ctx: ToolContext, prompt: str, variable: str) -> str:
    """Remember a text the screen shows, found by the model from a description, as {{variable}}."""
    return _remembered(ctx, variable, _value(ctx, "rememberText", prompt), prompt)


_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?|[-+]?\.\d+")


@memory_tool()
def rememberNumber(ctx: ToolContext, prompt: str, variable: str) -> str:
    """Remember a number the screen shows, found by the model from a description, as {{variable}}."""
    shown = _value(ctx, "rememberNumber", prompt)
    found = _NUMBER.search(shown)
    if found is None:
        raise ToolFailure(f"{MARK}: the model read {shown!r} for {prompt!r}, which holds no number")
    return _remembered(ctx, variable, found.group(0).replace(",", ""), prompt)


@memory_tool()
def rememberWithAi(ctx: ToolContext, prompt: str, variable: str) -> str:
    """Remember what the model makes of the screen for a question (an extraction or a summary)."""
    answer = _judge(ctx, "rememberWithAi").ask(ctx, f"Question: {prompt}", _VALUE_TOOL)
    value = str(answer.get("value", "")).strip()
    if answer.get("found") is False or not value:
        raise ToolFailure(f"{MARK}: the model found no answer to {prompt!r} on the screen")
    return _remembered(ctx, variable, value, prompt)


@memory_tool(is_verification=True)
def assertWithAi(ctx: ToolContext, prompt: str) -> str:
    """Have the model judge whether a statement about the screen holds."""
    answer = _judge(ctx, "assertWithAi").ask(ctx, f"Statement: {prompt}", _VERDICT_TOOL)
    why = ctx.memory.mask(str(answer.get("explanation", "")).strip()) or "(no explanation)"
    if answer.get("holds") is not True:
        raise ToolFailure(f"{MARK}: {prompt!r} does not hold: {why}")
    return f"{MARK}: {prompt!r} holds: {why}"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return (text[:200] + "...") if len(text) > 200 else (text or "(empty reply)")


TOOLS = (rememberText, rememberNumber, rememberWithAi, assertWithAi)
JUDGED = frozenset(t.name for t in TOOLS)
