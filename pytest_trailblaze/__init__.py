"""pytest-trailblaze: run Trailblaze UI trails as pytest tests.

The public API for authors of tools, drivers and agents. Everything else is internal.
"""

from __future__ import annotations

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
