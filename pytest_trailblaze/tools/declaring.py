"""How the built-in tool families declare their tools.

Each family (web, verification, mobile, android, memory) has its own decorator that fills in its
platforms, drivers and toolset and passes the rest of its keywords on to ``tool()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from ..core.tooling.tooldef import PythonTool

#: What a family's decorator returns, as ``tool(...)`` does: it turns a function into a tool.
ToolDecorator: TypeAlias = Callable[[Callable[..., object]], PythonTool]
