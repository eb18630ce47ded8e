"""A server's stdout carries JSON-RPC only (MCP stdio transport); anything else is named, not waited on.

- text on stdout before ``initialize`` is answered (a banner, a ``print`` at import, a program that
  is no MCP server) fails the start at once, quoting the first line (secrets masked) and naming the
  server, instead of waiting for the handshake watchdog;
- a stray line later (a ``print`` left in a tool) does not break the session: the call is answered
  and the line is kept, masked, in the server's log and in the tail that failure messages quote.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import ToolServerError

SECRET = "tb-s3cret-9271"
BANNER = f"Listening on 127.0.0.1:8080 token={SECRET}"


def test_a_banner_on_stdout_fails_the_start_at_once_quoting_it_masked(toolsets, fx) -> None:
    marker = fx.sentinel("junk")
    ts = toolsets(secrets={"token": SECRET})  # the handshake watchdog keeps its 20 s
    spec = fx.command(str(fx.RAW_SERVER), "junk", label="junk", name="junker", env={"MCPFX_JUNK": BANNER})
    try:
        with pytest.raises(ToolServerError) as info:
            ts.tools_for("junk", fx.make_target(spec), fx.WEB, "host")
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    text = str(info.value)
    assert text.startswith(
        "MCP server junker wrote non-JSON-RPC output on stdout instead of answering `initialize`"
    ), text
    assert "  first line: 'Listening on 127.0.0.1:8080 token=********'" in text
    assert "did not answer `initialize` within" not in text
    assert "fix: an MCP server over stdio writes only JSON-RPC messages on stdout" in text
    assert SECRET not in text
    assert left == {}, f"the server survived: {left}"
    log = Path(text.split("  log: ", 1)[1].splitlines()[0])
    assert "[stdout, not JSON-RPC] Listening on 127.0.0.1:8080 token=********" in log.read_text()
    assert SECRET not in log.read_text()


def test_a_program_that_is_no_mcp_server_is_named_as_such(toolsets, fx) -> None:
    """`command:` pointing at something that prints and exits: the output is the cause, not the exit."""
    spec = fx.McpServerSpec(command="echo", args=["usage: tool [--help]"], name="notmcp")
    with pytest.raises(ToolServerError) as info:
        toolsets().tools_for("notmcp", fx.make_target(spec), fx.WEB, "host")
    text = str(info.value)
    assert "MCP server notmcp wrote non-JSON-RPC output on stdout" in text, text
    assert "first line: 'usage: tool [--help]'" in text


def test_a_stray_line_mid_session_is_logged_masked_and_the_call_is_answered(toolsets, fx) -> None:
    ts = toolsets(secrets={"token": SECRET})
    spec = fx.command(
        str(fx.RAW_SERVER), "junkcall", label="junkcall", name="chatty", env={"MCPFX_JUNK": f"debug {SECRET}"}
    )
    tools = fx.start_tools(ts, "junkcall", spec)
    registry = fx.registry_of(list(tools.values()))

    assert fx.run_tool(registry, "raw_echo", {"message": "one"}).message == "one"
    assert fx.run_tool(registry, "raw_echo", {"message": "two"}).message == "two"

    server = tools["raw_echo"].server
    assert server.broken is None
    assert list(server.connection.tail)[-1] == "[stdout, not JSON-RPC] debug ********"
    log = server.connection.log_path.read_text()
    assert log.count("[stdout, not JSON-RPC] debug ********") == 2
    assert SECRET not in log
