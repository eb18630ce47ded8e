"""Built-in tools, one module per capability."""

from __future__ import annotations

from ..core.tooling.tooldef import Tool


def builtin_tools() -> list[Tool]:
    """Every built-in tool; the registry rejects those a session's platform cannot run."""
    from . import (
        common,
        memory_tools,
        mobile,
        mobile_device,
        mobile_input,
        mobile_text,
        script,
        web,
        web_verify,
    )

    mobiles = (*mobile.TOOLS, *mobile_text.TOOLS, *mobile_input.TOOLS, *mobile_device.TOOLS)
    return [*common.TOOLS, *memory_tools.TOOLS, *mobiles, *script.TOOLS, *web.TOOLS, *web_verify.TOOLS]
