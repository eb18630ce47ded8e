"""A trail's memory before its first step: defaults, the trail's own values, the run's, secrets, args."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..core.jsondata import JsonValue
from ..core.tooling.memory import Memory
from ..core.trail.model import Trail
from .settings import Settings


def seed_memory(trail: Trail, settings: Settings, defaults: Mapping[str, JsonValue]) -> Memory:
    """``defaults`` < ``config.memory`` < ``--trailblaze-memory`` < ``--trailblaze-secret``, then args."""
    blank = os.environ.get("TRAILBLAZE_MEMORY_BLANK_UNKNOWN_TOKENS", "").lower() in ("1", "true")
    memory = Memory(blank_unknown=blank)
    memory.seed(defaults)
    memory.seed(trail.config.memory)
    memory.seed(settings.memory)
    memory.seed(settings.secrets, secret=True)
    memory.bind_args(trail.config.args, settings.args_for(trail.config.args))
    return memory
