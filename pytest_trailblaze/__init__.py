"""pytest-trailblaze: run Trailblaze UI trails as pytest tests.

The public API for authors of tools, drivers and agents. Everything else is internal.

The names load on first use (PEP 562): pytest imports this package for the plugin in every
process, the xdist controller too, which runs no tool and should not pay for pydantic and the
tool machinery before its workers start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core.lazy import lazy_names

if TYPE_CHECKING:
    from .core.errors import (
        AgentStepRequired,
        ConfigurationError,
        DriverError,
        FatalToolError,
        RegistryError,
        StepFailure,
        ToolArgumentError,
        ToolError,
        ToolFailure,
        ToolServerError,
        TrailblazeError,
        TrailheadError,
        TrailLoadError,
        UnknownToolError,
        UnsupportedToolError,
    )
    from .core.tooling.context import DeviceInfo, ToolContext
    from .core.tooling.memory import Memory
    from .core.tooling.tooldef import Tool, ToolDescriptor, ToolResult, tool

__version__ = "0.1.0"

#: Each public name and the module it lives in.
_HOMES = {
    **dict.fromkeys(
        (
            "AgentStepRequired",
            "ConfigurationError",
            "DriverError",
            "FatalToolError",
            "RegistryError",
            "StepFailure",
            "ToolArgumentError",
            "ToolError",
            "ToolFailure",
            "ToolServerError",
            "TrailblazeError",
            "TrailheadError",
            "TrailLoadError",
            "UnknownToolError",
            "UnsupportedToolError",
        ),
        ".core.errors",
    ),
    "DeviceInfo": ".core.tooling.context",
    "ToolContext": ".core.tooling.context",
    "Memory": ".core.tooling.memory",
    "Tool": ".core.tooling.tooldef",
    "ToolDescriptor": ".core.tooling.tooldef",
    "ToolResult": ".core.tooling.tooldef",
    "tool": ".core.tooling.tooldef",
}

__all__ = [
    "AgentStepRequired",
    "ConfigurationError",
    "DeviceInfo",
    "DriverError",
    "FatalToolError",
    "Memory",
    "RegistryError",
    "StepFailure",
    "Tool",
    "ToolArgumentError",
    "ToolContext",
    "ToolDescriptor",
    "ToolError",
    "ToolFailure",
    "ToolResult",
    "ToolServerError",
    "TrailLoadError",
    "TrailblazeError",
    "TrailheadError",
    "UnknownToolError",
    "UnsupportedToolError",
    "__version__",
    "tool",
]


__getattr__ = lazy_names(__name__, _HOMES, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
