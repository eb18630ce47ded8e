"""Which calls of an agent-done step a recording keeps (docs/upstream.md, Recording write-back).

Recordable top-level calls that succeeded, with the arguments the model wrote (so an authored
``{{email}}`` stays a token) and, for web calls by ``eN``, the nodeSelector found before the call.
A call that is not recordable itself (``tap``, a script) is recorded as the recordable calls it
made, from the tool log. ``objectiveStatus`` and failed calls are left out; a verification
repeated identically is kept once. The model's optional ``reasoning`` stays with its call, last.

A healed step keeps the recorded calls that worked, in order, in front of the agent's calls:
the agent only did what was left, so without them the recording would skip part of the step.
"""

from __future__ import annotations

from ..core.jsondata import JsonObject
from ..core.tooling.memory import MASK
from ..core.tooling.registry import ToolLogEntry, ToolRegistry
from .loop import AgentCall, StepRun

Recorded = tuple[str, JsonObject]


def recorded_step(run: StepRun, log: list[ToolLogEntry], registry: ToolRegistry) -> list[Recorded] | None:
    """The calls to write for the step, or None when one of them cannot be written faithfully
    (a nested call whose logged arguments hold a masked secret)."""
    heal = run.step.healing
    calls: list[Recorded] = [(c.name, dict(c.args)) for c in heal.kept] if heal is not None else []
    for call in run.calls:
        if not call.ok or call.name not in registry:
            continue
        if registry.get(call.name).descriptor.is_recordable:
            calls.append((call.name, _with_selector(call)))
            continue
        nested = _nested(call, log)
        if nested is None:
            return None
        calls.extend(nested)
    return _dedupe_verifications(calls, registry)


def _with_selector(call: AgentCall) -> JsonObject:
    args = {k: v for k, v in call.args.items() if k != "reasoning"}
    if call.node_selector is not None and "nodeSelector" not in args:
        args["nodeSelector"] = call.node_selector
    reasoning = call.args.get("reasoning")
    if isinstance(reasoning, str) and reasoning.strip():
        args["reasoning"] = reasoning
    return args


def _nested(call: AgentCall, log: list[ToolLogEntry]) -> list[Recorded] | None:
    """The recordable calls a non-recordable call made (not those made by a recordable one)."""
    out = []
    for index in range(call.log_start + 1, call.log_end):
        entry = log[index]
        if not entry.is_recordable or entry.success is False or _covered(log, index, call.log_start):
            continue
        if _holds_mask(entry.args):
            return None
        out.append((entry.name, dict(entry.args)))
    return out


def _covered(log: list[ToolLogEntry], index: int, top: int) -> bool:
    parent = log[index].parent
    while parent is not None and parent != top:
        if log[parent].is_recordable:
            return True
        parent = log[parent].parent
    return False


def _holds_mask(value: object) -> bool:
    if isinstance(value, str):
        return MASK in value
    if isinstance(value, dict):
        return any(_holds_mask(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_mask(v) for v in value)
    return False


def _dedupe_verifications(calls: list[Recorded], registry: ToolRegistry) -> list[Recorded]:
    out: list[Recorded] = []
    for name, args in calls:
        verification = registry.get(name).descriptor.is_verification
        if verification and out and out[-1] == (name, args):
            continue
        out.append((name, args))
    return out
