"""The framework ``script`` tool: call a Python function from a recording, without a tool file.

Upstream's ``script`` runs inline JavaScript. Running inline *source* from a trail file would
execute arbitrary text, so this plugin's form names an importable function instead:
``- script: {function: "helpers:reset_cart", params: {...}}``. The function receives
``(params, ctx)`` exactly like a ``script:`` tool file. Relative file paths resolve against the
trail's folder and must stay inside the workspace root (``ctx.code``; collection checks the
values written in the trail, this checks values known only at run time). Like upstream's, the
wrapper is not recorded; the tools it runs are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import ToolFailure
from ..core.system.pycall import ImportFailure, resolve_callable
from ..core.tooling.context import ToolContext
from ..core.tooling.scripts import run_script
from ..core.tooling.tooldef import ToolResult, tool


@tool(source="builtin", toolset="meta", surface_to_llm=False, is_recordable=False)
def script(
    ctx: ToolContext, function: str = "", params: dict[str, Any] | None = None, source: str | None = None
) -> ToolResult:
    """Run a Python function ``module:attr`` (or ``file.py:attr``) as a script with ``params``."""
    if source is not None:
        raise ToolFailure(
            "inline script `source:` is not supported: name a Python function instead, "
            "e.g. `script: {function: 'helpers.py:reset_cart', params: {...}}`"
        )
    if not function:
        raise ToolFailure("script needs `function: module:attr` (or `path/to/file.py:attr`)")
    base = Path(ctx.trail_path).parent if ctx.trail_path else Path.cwd()
    try:
        target = resolve_callable(function, base, ctx.code)
    except ImportFailure as exc:
        raise ToolFailure(f"cannot load {function}: {exc}") from None
    return run_script(target, dict(params or {}), ctx, "script")


TOOLS = (script,)
