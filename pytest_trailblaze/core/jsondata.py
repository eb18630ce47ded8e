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
