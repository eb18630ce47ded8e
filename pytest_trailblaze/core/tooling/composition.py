"""Expansion of YAML-defined tools: parameters into a list of tool calls (docs/guides/tools.md,
A YAML composition).

``{{params.x}}`` (or bare ``{{x}}`` when ``x`` is a declared parameter: parameters shadow
memory) is replaced at expansion. A value that is exactly one token keeps the parameter's
type; a token inside text is spliced in as text. A reference to an optional parameter that was
omitted and has no default drops the key (or list item) that holds it. Every other token
(memory, args) is left for interpolation when each expanded call is dispatched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Protocol, overload, runtime_checkable

from ..jsondata import JsonValue
from ..trail.model import ToolCall
from ..trail.tokens import TOKEN, body


@runtime_checkable
class Composed(Protocol):
    """A tool that runs by expanding into other tool calls; static checks follow it inside."""

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The calls as written in the definition, with their source spans."""
        ...

    @property
    def parameter_names(self) -> frozenset[str]: ...

    @property
    def parameter_defaults(self) -> Mapping[str, JsonValue]: ...


class _Drop:
    """Marks a value that referenced an omitted parameter."""


DROP = _Drop()


def parameter_of(token_body: str, declared: Collection[str]) -> str | None:
    """The parameter a token names, or None when it is a memory / args token."""
    if token_body.startswith("params."):
        return token_body[len("params.") :]
    return token_body if token_body in declared else None


def expand(
    calls: tuple[ToolCall, ...], params: Mapping[str, JsonValue], declared: Collection[str]
) -> list[tuple[str, dict[str, JsonValue]]]:
    """``(tool name, arguments)`` of every call with parameters substituted."""
    return [(call.name, substitute(dict(call.args), params, declared)) for call in calls]


@overload
def substitute(
    value: dict[str, JsonValue], params: Mapping[str, JsonValue], declared: Collection[str]
) -> dict[str, JsonValue]: ...


@overload
def substitute(
    value: JsonValue, params: Mapping[str, JsonValue], declared: Collection[str]
) -> JsonValue | _Drop: ...


def substitute(
    value: JsonValue, params: Mapping[str, JsonValue], declared: Collection[str]
) -> JsonValue | _Drop:
    """``value`` with parameters substituted; a mapping stays a mapping (the keys whose value
    referenced an omitted parameter left out), a text that referenced one is ``DROP``."""
    if isinstance(value, str):
        return _text(value, params, declared)
    if isinstance(value, dict):
        out = {k: substitute(v, params, declared) for k, v in value.items()}
        return {k: v for k, v in out.items() if not isinstance(v, _Drop)}
    if isinstance(value, list):
        return [v for v in (substitute(item, params, declared) for item in value) if not isinstance(v, _Drop)]
    return value


def _text(text: str, params: Mapping[str, JsonValue], declared: Collection[str]) -> JsonValue | _Drop:
    if "{{" not in text and "${" not in text:
        return text
    whole = TOKEN.fullmatch(text)
    if whole is not None:
        name = parameter_of(body(whole), declared)
        if name is not None:
            return params.get(name, DROP)
    dropped = False

    def splice(match: re.Match[str]) -> str:
        nonlocal dropped
        name = parameter_of(body(match), declared)
        if name is None:
            return match.group(0)
        if name not in params:
            dropped = True
            return ""
        return render(params[name])

    result = TOKEN.sub(splice, text)
    return DROP if dropped else result


def render(value: object) -> str:
    """A parameter spliced into text: booleans as true/false, structures as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)
