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
from typing import Any, Protocol, runtime_checkable

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
    def parameter_defaults(self) -> Mapping[str, Any]: ...


class _Drop:
    """Marks a value that referenced an omitted parameter."""


DROP = _Drop()


def parameter_of(token_body: str, declared: Collection[str]) -> str | None:
    """The parameter a token names, or None when it is a memory / args token."""
    if token_body.startswith("params."):
        return token_body[len("params.") :]
    return token_body if token_body in declared else None


def expand(
    calls: tuple[ToolCall, ...], params: Mapping[str, Any], declared: Collection[str]
) -> list[tuple[str, Any]]:
    """``(tool name, arguments)`` of every call with parameters substituted."""
    expanded = []
    for call in calls:
        args = substitute(dict(call.args), params, declared)
        expanded.append((call.name, {} if args is DROP else args))
    return expanded


def substitute(value: Any, params: Mapping[str, Any], declared: Collection[str]) -> Any:
    if isinstance(value, str):
        return _text(value, params, declared)
    if isinstance(value, dict):
        out = {k: substitute(v, params, declared) for k, v in value.items()}
        return {k: v for k, v in out.items() if v is not DROP}
    if isinstance(value, list):
        return [v for v in (substitute(item, params, declared) for item in value) if v is not DROP]
    return value


def _text(text: str, params: Mapping[str, Any], declared: Collection[str]) -> Any:
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


def render(value: Any) -> str:
    """A parameter spliced into text: booleans as true/false, structures as JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)
