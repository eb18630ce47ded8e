"""How values are shown: a long text is cut, with a note of its size.

A tool argument, a memory value or an answer may be megabytes long (a 50 MB argument once made
150 MB of terminal output, a 350 MB ``record.json`` and 2 GB of memory). What a human or a report
sees of it (the arguments and messages in the tool log, failure messages, records, hooks) is cut
to ``SHOWN_CHARS`` characters plus ``… [50,000,000 characters, 49,998,000 not shown]``; the tool
itself always gets the whole value.
"""

from __future__ import annotations

from typing import TypeVar, cast

V = TypeVar("V")

#: The longest text shown whole.
SHOWN_CHARS = 2_000


def clip(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text``, or its start and a note of how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text):,} characters, {len(text) - limit:,} not shown]"


def clip_value(value: V, limit: int = SHOWN_CHARS) -> V:
    """A JSON-like ``value`` with each long string in it cut (``clip``); other values as they are.

    The result has the shape of ``value`` (a dict stays a dict of the same keys, a string a string).
    """
    if isinstance(value, str):
        return cast(V, clip(value, limit))
    if isinstance(value, dict):
        return cast(V, {k: clip_value(v, limit) for k, v in value.items()})
    if isinstance(value, list):
        return cast(V, [clip_value(v, limit) for v in value])
    if isinstance(value, tuple):
        return cast(V, tuple(clip_value(v, limit) for v in value))
    return value
