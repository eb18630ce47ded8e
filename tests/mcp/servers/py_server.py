"""A Python MCP fixture server (the official SDK's ``MCPServer``) for the MCP tests.

Its tools report what the server sees (the ``_trailblazeContext`` of a call, its environment,
folder and command line) and exercise the result mapping and the ``_meta`` filters. Command-line
flags: ``--with-wait`` also advertises a tool named ``wait`` (a built-in's name), ``--also=NAME``
advertises a tool named NAME; any other argument (``--sentinel=...``) is ignored and only makes the
process easy to find with ``ps``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from pytest_trailblaze.mcp import trailblaze_context

server = MCPServer("py-fixture")


def _raw_arguments(ctx: Context) -> dict:
    """The arguments of the call as sent (the SDK keeps the raw request params)."""
    params = ctx.request_context.params
    arguments = params.get("arguments") if isinstance(params, dict) else getattr(params, "arguments", None)
    return dict(arguments or {})


def _raw_context(ctx: Context) -> object:
    return _raw_arguments(ctx).get("_trailblazeContext")


# -- what the server sees ------------------------------------------------------------------------
@server.tool()
def pyfx_echo(message: str) -> str:
    """Return the message."""
    return message


@server.tool()
def pyfx_context(ctx: Context) -> str:
    """The _trailblazeContext of this call, raw and as trailblaze_context() reads it."""
    tb = trailblaze_context(ctx)
    seen = None
    if tb is not None:
        seen = {
            "memory": dict(tb.memory),
            "device": {
                "platform": tb.device.platform,
                "width_pixels": tb.device.width_pixels,
                "height_pixels": tb.device.height_pixels,
                "driver_type": tb.device.driver_type,
            },
        }
    return json.dumps({"raw": _raw_context(ctx), "parsed": seen})


@server.tool()
def pyfx_env() -> str:
    """The TRAILBLAZE_* environment, a sentinel variable, the folder and the command line."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("TRAILBLAZE_", "MCPFX_"))}
    return json.dumps({"env": env, "cwd": str(Path.cwd()), "argv": sys.argv, "pid": os.getpid()})


@server.tool()
def pyfx_args(ctx: Context, text: str, count: int = 0) -> str:
    """The raw arguments of the call, _trailblazeContext left out."""
    arguments = _raw_arguments(ctx)
    arguments.pop("_trailblazeContext", None)
    return json.dumps(arguments)


_calls = {"count": 0}


@server.tool()
def pyfx_count(step: int) -> str:
    """Add ``step`` to a counter of this server process and return it."""
    _calls["count"] += step
    return str(_calls["count"])


@server.tool()
def pyfx_countValue() -> str:
    """The counter of this server process."""
    return str(_calls["count"])


# -- results -------------------------------------------------------------------------------------
@server.tool()
def pyfx_fail(message: str) -> str:
    """Fail with the message (is_error with a text content)."""
    raise ToolError(message)


@server.tool()
def pyfx_failWithoutText() -> types.CallToolResult:
    """Fail with no text content at all."""
    return types.CallToolResult(
        content=[types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png")], is_error=True
    )


@server.tool()
def pyfx_imageThenText() -> types.CallToolResult:
    """An image first, then two texts: the first text is the message."""
    return types.CallToolResult(
        content=[
            types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"),
            types.TextContent(type="text", text="first text"),
            types.TextContent(type="text", text="second text"),
        ]
    )


@server.tool()
def pyfx_structured(count: int) -> dict[str, int]:
    """Structured content: a count and its double."""
    return {"count": count, "double": count * 2}


@server.tool()
def pyfx_sleep(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return f"slept {seconds}"


@server.tool()
def pyfx_stderr(lines: int) -> str:
    """Write numbered lines to stderr."""
    for index in range(1, lines + 1):
        sys.stderr.write(f"pyfx stderr line {index}\n")
    sys.stderr.flush()
    return f"wrote {lines} lines"


@server.tool()
def pyfx_crash() -> str:
    """Write two stderr lines, then exit with code 42 in the middle of the call."""
    sys.stderr.write("intentional crash diagnostic line one\n")
    sys.stderr.write("intentional crash diagnostic line two\n")
    sys.stderr.flush()
    os._exit(42)


# -- memory writes on the result ------------------------------------------------------------------
@server.tool()
def pyfx_remember(
    values: dict[str, Any], deletions: list[Any] | None = None, flat: bool = False, fail: bool = False
) -> types.CallToolResult:
    """Write trail memory through the result's _meta: upstream's nested ``trailblaze`` envelope, or
    the flat ``trailblaze/memoryDelta`` keys; ``fail`` makes the result an error carrying the same writes."""
    writes: dict[str, Any] = {"memoryDelta": values}
    if deletions is not None:
        writes["memoryDeletions"] = deletions
    meta = {f"trailblaze/{k}": v for k, v in writes.items()} if flat else {"trailblaze": writes}
    text = "failed, but wrote" if fail else f"remembered {','.join(values)}"
    content = [types.TextContent(type="text", text=text)]
    return types.CallToolResult(content=content, is_error=fail, _meta=meta)


# -- _meta ---------------------------------------------------------------------------------------
def _meta_tool(name: str, meta: dict) -> None:
    def run() -> str:
        return f"{name} ran"

    run.__name__ = name
    run.__doc__ = f"A tool with _meta {meta}."
    server.tool(name=name, meta=meta)(run)


META_TOOLS = {
    "pyfx_anyDriver": {},
    "pyfx_playwrightDriver": {"trailblaze/supportedDrivers": ["Playwright-Native"]},
    "pyfx_androidDriver": {"trailblaze/supportedDrivers": ["android-ondevice-accessibility"]},
    "pyfx_webLower": {"trailblaze/supportedPlatforms": ["web"]},
    "pyfx_webUpper": {"trailblaze/supportedPlatforms": ["WEB"]},
    "pyfx_androidOnly": {"trailblaze/supportedPlatforms": ["android", "ios"]},
    "pyfx_hostOnly": {"trailblaze/requiresHost": True},
    "pyfx_notHostOnly": {"trailblaze/requiresHost": False},
    # malformed values count as absent
    "pyfx_badDrivers": {"trailblaze/supportedDrivers": "android-ondevice-accessibility"},
    "pyfx_badDriverItems": {"trailblaze/supportedDrivers": [1, 2]},
    "pyfx_badPlatforms": {"trailblaze/supportedPlatforms": "android"},
    "pyfx_badHost": {"trailblaze/requiresHost": "true"},
    "pyfx_badSurface": {"trailblaze/surfaceToLlm": "false"},
    "pyfx_badRecordable": {"trailblaze/isRecordable": 0},
    "pyfx_badToolset": {"trailblaze/toolset": 42},
    # descriptor shaping
    "pyfx_supportHours": {"trailblaze/toolset": "pyfx_support"},
    "pyfx_otherToolset": {"trailblaze/toolset": "pyfx_notEnabled"},
    "pyfx_hidden": {"trailblaze/surfaceToLlm": False},
    "pyfx_unrecorded": {"trailblaze/isRecordable": False},
    "pyfx_needsContext": {"trailblaze/requiresContext": True},
}

for _name, _meta in META_TOOLS.items():
    _meta_tool(_name, _meta)

if "--with-wait" in sys.argv:
    _meta_tool("wait", {})
for _arg in sys.argv[1:]:
    if _arg.startswith("--also="):
        _meta_tool(_arg.split("=", 1)[1], {})


if __name__ == "__main__":
    server.run()
