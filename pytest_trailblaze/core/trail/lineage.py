"""Closest-wins resolution of classifier-keyed maps (docs/upstream.md, Device classifiers).

A device reports classifier segments broad-first (``[android, phone]``). Its resolution chain
lists keys from the most to the least specific: the joined compound, its ancestors (drop the
last ``-segment`` each time), then each raw segment's own lineage. The first chain entry that
is a key of a map wins. The same chain serves ``recording:``, the trailhead, ``config.devices``
and ``config.skip``.

So the chain of an Android phone ends at ``phone``: a bare ``phone:`` (or ``tablet:``, ``iphone:``,
``ipad:``) key is a recording for that device type whenever no key of its platform is closer
(``core.devices.platform_of`` maps such a key to its platform for collection).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from .model import ANY_DEVICE

T = TypeVar("T")


def _ancestry(key: str) -> list[str]:
    """``a-b-c`` -> ``[a-b-c, a-b, a]``."""
    parts = key.split("-")
    return ["-".join(parts[:n]) for n in range(len(parts), 0, -1)]


def resolution_chain(segments: Sequence[str]) -> tuple[str, ...]:
    """Keys to try, most specific first, for a device reporting ``segments``."""
    clean = [s.strip() for s in segments if s and s.strip()]
    if not clean:
        return ()
    chain: dict[str, None] = dict.fromkeys(_ancestry("-".join(clean)))
    for segment in reversed(clean):
        chain.update(dict.fromkeys(_ancestry(segment)))
    return tuple(chain)


def resolve(mapping: Mapping[str, T], chain: Iterable[str]) -> tuple[str, T] | None:
    """The first ``(key, value)`` of ``mapping`` along ``chain``; ``ANY_DEVICE`` matches last."""
    for key in chain:
        if key in mapping:
            return key, mapping[key]
    if ANY_DEVICE in mapping:
        return ANY_DEVICE, mapping[ANY_DEVICE]
    return None


def segments_for(platform: str, form_factor: str | None = None) -> tuple[str, ...]:
    """Classifier segments a device of ``platform`` reports."""
    return (platform, form_factor) if form_factor else (platform,)
