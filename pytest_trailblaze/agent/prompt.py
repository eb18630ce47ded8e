"""The words and the tool menu the model gets for one step (U§7.1).

The system prompt states the rules; the objective turn names the step, the trail's context and
the remembered values by token (secret ones by name only: the model passes the token, the
registry substitutes the value when the tool runs, so no secret is ever part of a prompt).
"""

from __future__ import annotations

from typing import Any

from ..core.runner import ResolvedStep
from ..core.tooldef import ToolDescriptor
from .wire import ToolSpec

OBJECTIVE_TOOL = "objectiveStatus"

SYSTEM = """\
You are Trailblaze, an agent that drives a {platform} device ({classifier}) to carry out one step \
of a UI test. Each turn you get the objective, the tool calls made so far for it and the current \
screen. Call exactly one tool per turn.
- Refer to elements by the ref the screen shows: `[ref=e7]` means `ref: "e7"`{mobile_refs}.
- Values written as {{{{name}}}} are remembered values: put the token itself in tool arguments; \
it is replaced by its value when the tool runs.
- When the objective is done, call {objective} with status COMPLETED. If it cannot be done, call \
it with status FAILED and explain why. Do not do more than the objective asks.{verify}{context}"""

VERIFY_RULE = """
- This step is a verification: check it with the verification tools only; never change the screen. \
If the check cannot hold, call {objective} with status FAILED."""


def system_prompt(step: ResolvedStep, ctx: Any, context: str | None) -> str:
    mobile = ctx.platform != "web"
    return SYSTEM.format(
        platform=ctx.platform,
        classifier=ctx.device.classifier,
        mobile_refs=" (on mobile tap with `tap` and refs like `y1234`)" if mobile else "",
        objective=OBJECTIVE_TOOL,
        verify=VERIFY_RULE.format(objective=OBJECTIVE_TOOL) if step.step.kind == "verify" else "",
        context=f"\n\nAbout this trail:\n{context.strip()}" if context and context.strip() else "",
    )


def objective_text(step: ResolvedStep, memory: Any, heal_note: str | None = None) -> str:
    kind = "Verify" if step.step.kind == "verify" else "Objective"
    lines = [f"{kind} ({step.label}): {step.step.text}"]
    if heal_note:
        lines.append(f"The recorded tool calls for this step failed ({heal_note}); reach the objective anew.")
    remembered = remembered_values(memory)
    if remembered:
        lines.append("Remembered values:\n" + "\n".join(remembered))
    return "\n".join(lines)


def remembered_values(memory: Any) -> list[str]:
    """``{{token}} = value`` lines; a secret shows its token and never its value."""
    values = memory.snapshot()
    lines = []
    for key in sorted(values):
        if memory.is_secret(key):
            lines.append(f"- {{{{{key}}}}} = (a secret: pass the token as it is)")
        else:
            lines.append(f"- {{{{{key}}}}} = {values[key]}")
    for key, value in sorted(memory.args.items()):
        lines.append(f"- {{{{args.{key}}}}} = {value}")
    return lines


def menu(step: ResolvedStep, ctx: Any) -> list[ToolDescriptor]:
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


def tool_specs(descriptors: list[ToolDescriptor]) -> tuple[ToolSpec, ...]:
    return tuple(ToolSpec(d.name, d.description or d.name, _schema(d.parameters)) for d in descriptors)


def _schema(parameters: Any) -> dict[str, Any]:
    """The tool's JSON Schema as an object schema (providers require ``type: object``)."""
    schema = {k: v for k, v in dict(parameters).items() if k != "title"}
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return schema
