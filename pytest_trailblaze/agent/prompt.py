"""The words the model gets for one step: rules, the objective, a reminder each turn.

* The system prompt states what stays true for the whole trail (the same text for every step,
  so a provider's prompt cache keeps it): one objective at a time, refs from the latest screen,
  tokens for remembered values, waiting out loading screens, handling permission prompts and
  dialogs, reading errors, and how to finish with ``objectiveStatus``.
* The objective turn names the step, the step before it and how that one ended, and, when the
  step heals a recording, the recorded calls that ran, the one that failed and its error.
* The reminder goes with each screen: the remembered values (secrets by name only: the model
  passes the token, the registry substitutes the value when the tool runs, so no secret is ever
  part of a prompt), the model's last progress note, a warning when it repeats itself, and
  guidance for the kind of objective (a verification, a conditional, a multi-part one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.run.runner import ResolvedStep
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import ToolDescriptor
from ..core.trail.model import Trail
from .tool_briefs import specs_for
from .wire import ToolSpec

if TYPE_CHECKING:  # the loop builds prompts from here
    from ..core.tooling.memory import Memory
    from .loop import StepRun

OBJECTIVE_TOOL = "objectiveStatus"

SYSTEM = """\
You are Trailblaze: you carry out one step of a UI test at a time on a {platform} device \
({classifier}). Each turn brings the step's objective, the tool calls made for it so far with \
their results, and the current screen{picture}. Answer every turn with exactly one tool call.

How to work:
- Do the current objective and nothing more; later steps of the test come later.
- Name elements by the ref the latest screen shows: `[ref=e7]` means ref "e7"{mobile_refs}. \
Refs change when the screen changes: take them from the latest screen only.
- Remembered values appear as {{{{name}}}}: put the token itself into arguments; it becomes the \
value when the tool runs (secrets too, which you never see).
- A loading, blank or splash screen: wait ({wait_tool}) and look again before acting.
- A permission prompt, cookie banner or dialog in the way: answer it as the objective needs \
(allow, accept, close), then go on. Prefer the app's own close and back controls to the \
device's back button. A disabled control does nothing when pressed.
- A result starting with "error:" means the call did not work: read why and try another way; \
repeating a failed call gives the same error.
- Finish with {objective}: COMPLETED once every part of the objective is done, FAILED (saying \
why) when it cannot be done; IN_PROGRESS only to note progress on a long objective.{context}"""


def system_prompt(ctx: ToolContext, context: str | None, screenshots: bool = False) -> str:
    mobile = ctx.platform != "web"
    return SYSTEM.format(
        platform=ctx.platform,
        classifier=ctx.device.classifier,
        picture=" (and a screenshot of it)" if screenshots else "",
        mobile_refs=" (on mobile, tap with `tap` and refs like y1234)" if mobile else "",
        wait_tool="wait" if mobile else "web_wait",
        objective=OBJECTIVE_TOOL,
        context=f"\n\nAbout this trail:\n{context.strip()}" if context and context.strip() else "",
    )


@dataclass(frozen=True, slots=True)
class PreviousStep:
    """The step before this one and how it ended, for the objective turn."""

    label: str
    text: str
    outcome: str


def previous_step(trail: Trail, step: ResolvedStep, runs: Sequence[StepRun]) -> PreviousStep | None:
    """The step before ``step`` and how it ended (it passed: steps run in order); ``runs`` are
    the agent's runs of this trail so far (``loop.StepRun``)."""
    if step.step.kind == "trailhead" or step.number < 1:
        return None
    if step.number == 1:
        if trail.trailhead is None:
            return None
        before, label = trail.trailhead, "the trailhead"
    else:
        before, label = trail.steps[step.number - 2], f"step {step.number - 1} of {len(trail.steps)}"
    number = step.number - 1
    done = [r for r in runs if r.done and r.step.number == number and r.step.step is before]
    if not done:
        return PreviousStep(label, before.text, "passed, replayed from its recording")
    how = "healed by the agent" if done[-1].healed else "done by the agent"
    words = f": {done[-1].explanation}" if done[-1].explanation else ""
    return PreviousStep(label, before.text, f"passed, {how}{words}")


def objective_text(step: ResolvedStep, previous: PreviousStep | None = None) -> str:
    """The step's objective, the step before it, and a healed recording's calls."""
    lines = []
    if previous is not None:
        lines.append(f"Previous step ({previous.label}): {previous.text}\n  outcome: {previous.outcome}")
    lines.append(f"{_kind(step)} ({step.label}): {step.step.text}")
    heal = heal_text(step)
    if heal:
        lines.append(heal)
    return "\n".join(lines)


def _kind(step: ResolvedStep) -> str:
    return "Verify" if step.step.kind == "verify" else "Objective"


def heal_text(step: ResolvedStep) -> str:
    """The recorded calls of a step being healed: those that ran, the failed one, the rest."""
    heal = step.healing
    if heal is None:
        return ""
    lines = ["This step has a recording for this device, and replaying it failed. Its calls:"]
    for number, call in enumerate(heal.calls, start=1):
        shown = f"{call.name} {_args(call.args)}"
        if number <= len(heal.ran):
            lines.append(f"{number}. {shown} -> ok: {_one_line(heal.ran[number - 1])}")
        elif number == len(heal.ran) + 1:
            lines.append(f"{number}. {shown} -> error: {heal.cause.strip()}")
        else:
            lines.append(f"{number}. {shown} -> not run")
    lines.append(
        "The calls that worked are done and stay in the recording. From the current screen, do what "
        "is left of the objective (the failed call and any after it), then report COMPLETED."
    )
    return "\n".join(lines)


def _args(args: Mapping[str, object]) -> str:
    shown = {k: v for k, v in dict(args).items() if k not in ("reason", "reasoning")}
    return json.dumps(shown, ensure_ascii=False, default=str)


def _one_line(text: str) -> str:
    text = " ".join(str(text).split())
    return text[:200] + ("..." if len(text) > 200 else "") if text else "done"


# -- the reminder with each screen ---------------------------------------------------------------
_CONDITIONAL = re.compile(r"^\s*(if|when|in case|should)\b|\bif (there is|there's|a|an|the|any)\b", re.I)
_PARTS = re.compile(r"\b(and then|then|after that|followed by|afterwards|next)\b|;|,\s*and\b", re.I)


def reminder(
    step: ResolvedStep,
    memory: Memory,
    *,
    status_note: str | None = None,
    warning: str | None = None,
) -> str:
    """What the model is reminded of each turn, above the current screen."""
    lines = []
    remembered = remembered_values(memory)
    if remembered:
        lines += ["Remembered values:", *remembered]
    if status_note:
        lines.append(f"Your last note: {status_note}")
    if warning:
        lines.append(f"Warning: {warning}")
    lines.append(f"{_kind(step)}: {step.step.text}")
    lines += [f"- {line}" for line in guidance(step)]
    return "\n".join(lines)


def guidance(step: ResolvedStep) -> list[str]:
    """Completion guidance fitting the kind of objective."""
    text = step.step.text
    if step.step.kind == "verify":
        return [
            "A verification: only look and check; change nothing on the screen.",
            "COMPLETED when every claim holds; FAILED as soon as one does not.",
        ]
    out = []
    if _CONDITIONAL.search(text):
        out.append(
            "Conditional: when the condition does not hold (nothing of the kind is shown), there is "
            "nothing to do: report COMPLETED. FAILED only for a real error."
        )
    if _PARTS.search(text):
        out.append("It has several parts: do all of them before COMPLETED.")
    elif not out:
        out.append("Once the action worked, report COMPLETED; the screen changing after it is expected.")
    out.append("A result starting with ok: means the call worked.")
    return out


#: Remembered values longer than this are cut in prompts (a page of text helps no model).
MAX_VALUE_CHARS = 200


def remembered_values(memory: Memory) -> list[str]:
    """``{{token}} = value`` lines; a secret shows its token and never its value."""
    values = memory.snapshot()
    lines = []
    for key in sorted(values):
        if memory.is_secret(key):
            lines.append(f"- {{{{{key}}}}} = (a secret: pass the token as it is)")
        else:
            lines.append(f"- {{{{{key}}}}} = {_value(values[key])}")
    for key, value in sorted(memory.args.items()):
        lines.append(f"- {{{{args.{key}}}}} = {_value(value)}")
    return lines


def _value(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else value
    text = text.replace("\n", "\\n")
    return text[:MAX_VALUE_CHARS] + ("..." if len(text) > MAX_VALUE_CHARS else "")


# -- the tools -----------------------------------------------------------------------------------
def menu(step: ResolvedStep, ctx: ToolContext) -> list[ToolDescriptor]:
    """The tools offered for the step: the session's toolbox; a ``verify:`` step gets only the
    verification tools, and every step gets ``objectiveStatus`` to finish."""
    registry = ctx.registry
    offered = list(ctx.toolbox) or [
        d
        for d in registry.descriptors()
        if d.surface_to_llm and registry.unsupported_reason(registry.get(d.name)) is None
    ]
    if step.step.kind == "verify":
        offered = [d for d in offered if d.is_verification]
    if OBJECTIVE_TOOL in registry and all(d.name != OBJECTIVE_TOOL for d in offered):
        offered.append(registry.get(OBJECTIVE_TOOL).descriptor)
    return offered


def tool_specs(descriptors: Sequence[ToolDescriptor], platform: str = "web") -> tuple[ToolSpec, ...]:
    """What the model sees of the offered tools (``schema``: lean, described, no plumbing)."""
    return specs_for(descriptors, platform)


# -- how a verification may end ------------------------------------------------------------------
_MORE_THAN_ONE = re.compile(
    r"\b(and|or|but|both|also|as well|nor|then|while|whereas|plus|with|after|before|including|"
    r"besides|along|together|each|every|all|any)\b|[,;&+/]|\.\s+\S|\n",
    re.I,
)
_NEGATION = re.compile(
    r"\b(not|no|none|never|without|nothing|neither|absent|hidden|gone|disappear\w*|missing|isn't|"
    r"aren't|doesn't|don't|cannot|can't|won't|only)\b|n't\b",
    re.I,
)


def single_claim(text: str) -> bool:
    """True when a ``verify:`` text states one positive fact, so one passing check proves it.

    Two claims ("shows 2 and reads Blorp", "shows 2 with the heading Blorp"), alternatives,
    lists, quantifiers ("every item has a price": one passing item proves nothing of the others)
    and negations ("no error shows", where a passing check of the text would prove the opposite)
    are not single claims: those verifications end only when the model reports
    ``objectiveStatus``. The words are English ones, so a text in another script or language
    (any letter beyond ASCII: "zeigt 2 und die Überschrift") is not taken for a single claim
    either: waiting for the model costs one call, a false pass costs a bug.
    """
    return (
        bool(text.strip())
        and text.isascii()
        and not _MORE_THAN_ONE.search(text)
        and not _NEGATION.search(text)
    )
