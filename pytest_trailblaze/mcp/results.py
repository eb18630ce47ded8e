"""Memory writes an MCP tool result carries back to the trail (upstream's scripting convention).

Upstream's TypeScript SDK returns a handler's ``ctx.memory.set(...)`` / ``.delete(...)`` on the
result as ``_meta.trailblaze.memoryDelta`` (key -> string) and ``_meta.trailblaze.memoryDeletions``
(a list of keys), and the host applies them to the trail's memory, so later steps read the values
as ``{{key}}``. The flat spelling of tool ``_meta`` keys is accepted too:
``_meta["trailblaze/memoryDelta"]`` and ``_meta["trailblaze/memoryDeletions"]``.

As upstream: only a successful result writes (an ``isError`` result leaves memory as a thrown
error would), sets apply before deletions (a key in both ends deleted), and an entry that is not
a string is skipped on its own without spoiling the others. Secrets stay secret: a key marked
secret keeps its mark when a server overwrites or deletes it, so its new value is masked like the
old one and never sent to servers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..core.tooling.memory import Memory

DELTA = "memoryDelta"
DELETIONS = "memoryDeletions"


@dataclass(frozen=True)
class MemoryWrites:
    """What a result asks the trail's memory to change, and what it sent that could not be used."""

    sets: dict[str, str] = field(default_factory=dict)
    deletions: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.sets or self.deletions or self.skipped)

    def apply(self, memory: Memory) -> None:
        """Sets first, then deletions; a secret key stays secret (``Memory`` keeps the mark)."""
        for key, value in self.sets.items():
            memory.set(key, value)
        for key in self.deletions:
            memory.delete(key)


def memory_writes(meta: Mapping[str, object] | None) -> MemoryWrites:
    """The memory writes in a result's ``_meta`` (nested ``trailblaze`` envelope or flat keys)."""
    if not meta:
        return MemoryWrites()
    envelope = meta.get("trailblaze")
    nested = envelope if isinstance(envelope, Mapping) else {}
    sets: dict[str, str] = {}
    deletions: list[str] = []
    skipped: list[str] = []
    for delta in (nested.get(DELTA), meta.get(f"trailblaze/{DELTA}")):
        if isinstance(delta, Mapping):
            for key, value in delta.items():
                if isinstance(value, str):
                    sets[str(key)] = value
                else:
                    skipped.append(f"{DELTA} entry '{key}': not a string ({type(value).__name__})")
    for removed in (nested.get(DELETIONS), meta.get(f"trailblaze/{DELETIONS}")):
        if isinstance(removed, list):
            for key in removed:
                if isinstance(key, str):
                    deletions.append(key)
                else:
                    skipped.append(f"{DELETIONS} entry {key!r}: not a string")
    return MemoryWrites(sets, deletions, skipped)
