"""How a script tool runs: a function ``(params, ctx)`` whose return value (or error) becomes the
tool's result.

A script may call other tools through ``ctx.execute`` (which returns ``{"type": "Success" |
"Error", "message": ...}``) and returns a message, a ``{"type": ..., "message": ...}`` result, or
raises to fail. It is the user's code: ``SystemExit`` or a ``KeyboardInterrupt`` it raises itself
becomes a failure of the tool (``system.foreign``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import ToolError, ToolFailure
from ..jsondata import JsonValue
from ..system.foreign import ForeignExit, foreign_code
from .tooldef import ToolResult

if TYPE_CHECKING:
    from .context import ToolContext


def run_script(
    function: Callable[..., object], params: dict[str, JsonValue], ctx: ToolContext, name: str
) -> ToolResult:
    """Call a script and turn what it returns (or raises) into a tool result."""
    try:
        with foreign_code():
            outcome = function(params, ctx)
    except ToolError:
        raise
    except AssertionError as exc:
        raise ToolFailure(str(exc) or f"{name} failed", tool=name) from exc
    except ForeignExit as exc:
        raise ToolFailure(f"{name} {exc}", tool=name) from None
    if isinstance(outcome, dict) and outcome.get("type") == "Error":
        raise ToolFailure(str(outcome.get("message") or f"{name} failed"), tool=name)
    if isinstance(outcome, dict) and outcome.get("type") == "Success":
        return ToolResult(message=str(outcome.get("message") or ""))
    return ToolResult.of(outcome)
