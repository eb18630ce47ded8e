"""Noticing a model that repeats itself: the same call, on the same screen, with the same result.

A model stuck on one idea asks for the same failing call again and again until the call budget
is gone. Doing the same thing twice is not a mistake in itself ("click increment three times"
clicks the same button three times, but the screen changes each time), so a repetition is the
same tool with the same arguments (``reasoning`` aside) made on an unchanged screen and answered
with the same result; replies that call no tool repeat too. After ``warn_at`` such repeats the
model is told; after ``fail_at`` the step fails, saying so.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field

WARN_AT = 3
FAIL_AT = 5


def digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).hexdigest()


def call_key(name: str, args: object, screen: str, result: str) -> str:
    """What identifies a repetition: the call (without ``reasoning``), the screen and the result."""
    plain = (
        {k: v for k, v in args.items() if k not in ("reason", "reasoning")}
        if isinstance(args, dict)
        else args
    )
    shown = json.dumps(plain, sort_keys=True, ensure_ascii=False, default=str)
    return digest(f"{name}\0{shown}\0{screen}\0{result}")


@dataclass
class RepeatGuard:
    """Counts repetitions within one step."""

    warn_at: int = WARN_AT
    fail_at: int = FAIL_AT
    seen: Counter[str] = field(default_factory=Counter)

    def count(self, key: str) -> int:
        """Note one occurrence of ``key``; how many times it has happened in this step."""
        self.seen[key] += 1
        return self.seen[key]

    def warning(self, times: int, what: str) -> str | None:
        """The words for the model once a repetition is worth telling, else None."""
        if times < self.warn_at:
            return None
        return (
            f"you have {what} {times} times on an unchanged screen and got the same result each "
            f"time. Do something else, or report FAILED with objectiveStatus if the objective "
            f"cannot be done (the step fails after {self.fail_at} repeats)."
        )

    def exhausted(self, times: int) -> bool:
        return times >= self.fail_at
