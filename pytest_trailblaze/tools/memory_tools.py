"""Memory tools (toolset ``memory``) that need no AI: compare, compute and show remembered values."""

from __future__ import annotations

from typing import Any

from ..core.errors import ToolFailure
from ..core.tooling.context import ToolContext
from ..core.tooling.memory import MASK
from ..core.tooling.tooldef import tool
from .arithmetic import ExpressionError, evaluate
from .declaring import ToolDecorator

TOLERANCE = 1e-4


def memory_tool(**kwargs: Any) -> ToolDecorator:
    return tool(source="builtin", toolset="memory", **kwargs)


@memory_tool(is_verification=True)
def assertEquals(ctx: ToolContext, actual: str, expected: str) -> str:
    """Assert that two values (usually memory tokens) are equal."""
    if actual != expected:
        raise ToolFailure(f"expected {expected!r} but got {actual!r}")
    return f"{actual!r} equals {expected!r}"


@memory_tool(is_verification=True)
def assertNotEquals(ctx: ToolContext, actual: str, expected: str) -> str:
    """Assert that two values differ."""
    if actual == expected:
        raise ToolFailure(f"expected a value other than {expected!r}")
    return f"{actual!r} differs from {expected!r}"


@memory_tool(is_verification=True)
def assertMath(ctx: ToolContext, expression: str, expected: str) -> str:
    """Assert that an arithmetic expression evaluates to the expected number (within 1e-4)."""
    if "[[" in expression:
        raise ToolFailure(
            f"{expression!r} reads values from the screen with [[...]], which needs an agent; "
            "remember the values first and use {{tokens}} instead"
        )
    try:
        value = evaluate(expression)
        target = evaluate(expected)
    except ExpressionError as exc:
        raise ToolFailure(str(exc)) from None
    if abs(value - target) > TOLERANCE:
        raise ToolFailure(f"{expression} = {value:g}, expected {target:g}")
    return f"{expression} = {value:g}"


@memory_tool()
def dumpMemory(ctx: ToolContext) -> str:
    """Show every remembered value (secrets masked)."""
    values = ctx.memory.snapshot()
    if not values:
        return "memory is empty"
    lines = [f"{k} = {MASK if ctx.memory.is_secret(k) else v}" for k, v in sorted(values.items())]
    return "\n".join(lines)


TOOLS = (assertEquals, assertNotEquals, assertMath, dumpMemory)
