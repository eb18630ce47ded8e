"""Built-in tools, one module per capability."""

from __future__ import annotations

from ..core.tooldef import Tool


def builtin_tools() -> list[Tool]:
    """Every built-in tool; the registry rejects those a session's platform cannot run."""
    from . import common, memory, mobile, script, web

    return [*common.TOOLS, *memory.TOOLS, *mobile.TOOLS, *script.TOOLS, *web.TOOLS]
