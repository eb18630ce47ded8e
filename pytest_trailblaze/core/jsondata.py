"""Names for JSON-shaped data: what trails, tool arguments, tool results and pages exchange.

``JsonValue`` is any value ``json.loads`` can return (and YAML's plain scalars, lists and
mappings); ``JsonObject`` is the mapping form most of that data takes at the top. They replace
``Any`` where the data is known to be plain data, so a reader knows no live object hides there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeAlias

JsonValue: TypeAlias = bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
JsonObject: TypeAlias = dict[str, JsonValue]
#: A selector as trails write it (``nodeSelector``: ``{"web": {...}}``, ``{"androidAccessibility": ...}``).
SelectorSpec: TypeAlias = Mapping[str, JsonValue]


def as_json(value: object) -> JsonValue:
    """``value`` as plain JSON data: JSON values as they are (tuples as lists), anything else as
    its text, so a tool returning a live object still answers over a JSON wire."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, Mapping):
        return {str(key): as_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [as_json(item) for item in value]
    return str(value)
