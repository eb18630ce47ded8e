"""Servers that crash, hang, ignore shutdown or take too long (docs/guides/mcp.md).

- a server dying under a call is a FatalToolError with its exit code and last stderr lines, and
  every later use of its session scope fails with the same cause;
- ``initialize`` runs under a watchdog: a silent server is killed and session start fails;
- shutdown is close stdin, 5 s, SIGTERM the group, 2 s, SIGKILL the group;
- a call past its timeout fails and the server is stopped.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import FatalToolError, ToolError, ToolFailure, ToolServerError

CRASH_LINES = ("intentional crash diagnostic line one", "intentional crash diagnostic line two")


# -- a server that dies mid-call --------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["raw", "python-sdk"])
def test_a_server_dying_mid_call_is_a_fatal_error_with_exit_code_and_stderr(toolsets, fx, kind) -> None:
    if kind == "raw":
        spec = fx.command(str(fx.RAW_SERVER), "crash", label="crash", name="crasher")
        name, tool = "crasher", "crash_on_call"
    else:
        spec = fx.script("py_server.py")
        name, tool = "py_server", "pyfx_crash"
    ts = toolsets()
    tools = fx.start_tools(ts, "crash", spec)
    registry = fx.registry_of(list(tools.values()))

    started = time.monotonic()
    with pytest.raises(FatalToolError) as info:
        fx.run_tool(registry, tool)
    elapsed = time.monotonic() - started

    text = str(info.value)
    assert text.startswith(f"MCP server {name} died while running tool '{tool}'"), text
    assert "exit code: 42" in text
    for line in CRASH_LINES:
        assert line in text
    assert elapsed < 5, f"reporting the crash took {elapsed:.1f} s"

    # the scope is broken now: the next call and the next trail fail at once with the same cause
    other = "crash_on_call" if kind == "raw" else "pyfx_echo"
    with pytest.raises(FatalToolError) as again:
        fx.run_tool(registry, other, {} if kind == "raw" else {"message": "x"})
    assert str(again.value) == text
    with pytest.raises(ToolServerError) as scope:
        ts.check_alive("crash")
    assert str(scope.value) == text


# -- the handshake watchdog --------------------------------------------------------------------------------
def test_a_server_that_never_answers_initialize_is_killed_by_the_watchdog(toolsets, fx) -> None:
    marker = fx.sentinel("hang")
    ts = toolsets(handshake=2.0)
    target = fx.make_target(fx.command(str(fx.RAW_SERVER), "hang", label="hang", name="hanger"))

    started = time.monotonic()
    try:
        with pytest.raises(ToolServerError) as info:
            ts.tools_for("hang", target, fx.WEB, "host")
        elapsed = time.monotonic() - started
        left = fx.wait_gone(marker, timeout=0.5)
    finally:
        fx.kill_matching(marker)

    text = str(info.value)
    assert "MCP server hanger did not answer `initialize` within 2 s; it was killed" in text
    assert f"raw_server.py hang {marker}" in text  # the command line
    assert 1.9 < elapsed < 5, f"the watchdog fired after {elapsed:.1f} s"
    assert left == {}, f"the silent server survived: {left}"

    # the scope remembers: no second spawn, no second wait
    started = time.monotonic()
    with pytest.raises(ToolServerError) as again:
        ts.tools_for("hang", target, fx.WEB, "host")
    assert time.monotonic() - started < 0.5
    assert str(again.value) == text
    assert fx.matching(marker) == {}


def test_the_handshake_timeout_defaults_from_the_upstream_variable(monkeypatch) -> None:
    from pytest_trailblaze.mcp.server import handshake_timeout_default

    monkeypatch.setenv("TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS", "2500")
    assert handshake_timeout_default() == 2.5
    monkeypatch.delenv("TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS")
    assert handshake_timeout_default() == 60.0


# -- shutdown ---------------------------------------------------------------------------------------------
def test_a_server_ignoring_eof_and_sigterm_is_killed_with_its_group(tmp_path: Path, toolsets, fx) -> None:
    marker = fx.sentinel("stubborn")
    pid_file = tmp_path / "child.pid"
    spec = fx.command(
        str(fx.RAW_SERVER),
        "stubborn",
        label="stubborn",
        name="stubborn",
        env={"MCPFX_CHILD_PID_FILE": str(pid_file)},
    )
    ts = toolsets()
    try:
        tools = fx.start_tools(ts, "stubborn", spec)
        assert set(tools) == {"stubborn_echo"}
        deadline = time.monotonic() + 5
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        child = int(pid_file.read_text())
        running = fx.matching(marker)
        assert child in running and "stubborn-child" in running[child]
        assert len(running) == 2, running  # the server and its child

        started = time.monotonic()
        ts.close()
        elapsed = time.monotonic() - started
        left = fx.wait_gone(marker, timeout=0.5)
    finally:
        fx.kill_matching(marker)

    assert 6.5 < elapsed < 10, f"stop took {elapsed:.1f} s, expected about 7 s (5 s + 2 s, then SIGKILL)"
    assert left == {}, f"survived the SIGKILL of the group: {left}"
    assert not fx.pid_alive(child)


def test_a_well_behaved_server_stops_at_once_on_stdin_eof(toolsets, fx) -> None:
    marker = fx.sentinel("polite")
    ts = toolsets()
    fx.start_tools(ts, "polite", fx.command(str(fx.RAW_SERVER), "normal", label="polite"))
    assert len(fx.matching(marker)) == 1
    started = time.monotonic()
    ts.close()
    assert time.monotonic() - started < 2
    assert fx.wait_gone(marker, timeout=0.5) == {}


# -- the per-call timeout ---------------------------------------------------------------------------------
def test_a_call_past_its_timeout_fails_and_the_server_is_stopped(toolsets, fx) -> None:
    ts = toolsets(call=1.0)
    tools = fx.start_tools(ts, "slow", fx.script("py_server.py"))
    registry = fx.registry_of(list(tools.values()))
    pid = json.loads(fx.run_tool(registry, "pyfx_env").message)["pid"]
    assert fx.pid_alive(pid)

    started = time.monotonic()
    with pytest.raises(ToolFailure) as info:
        fx.run_tool(registry, "pyfx_sleep", {"seconds": 30})
    elapsed = time.monotonic() - started

    text = str(info.value)
    assert "tool 'pyfx_sleep' did not answer within 1 s" in text
    assert "MCP server py_server was stopped" in text
    assert not isinstance(info.value, FatalToolError)
    assert elapsed < 4, f"the timed-out call returned after {elapsed:.1f} s"
    deadline = time.monotonic() + 2
    while fx.pid_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not fx.pid_alive(pid), "the server still runs after its call timed out"

    # the stopped server is not called again: the scope fails with the cause
    with pytest.raises(ToolError, match="did not answer within 1 s"):
        fx.run_tool(registry, "pyfx_echo", {"message": "again"})
    with pytest.raises(ToolServerError, match="did not answer within 1 s"):
        ts.check_alive("slow")


def test_a_server_that_hangs_up_mid_call_is_stopped_with_its_exit_code_and_stderr(toolsets, fx) -> None:
    ts = toolsets()
    spec = fx.command(str(fx.RAW_SERVER), "hangup", label="hangup", name="hanger")
    tools = fx.start_tools(ts, "hangup", spec)
    registry = fx.registry_of(list(tools.values()))
    pid = tools["raw_echo"].server.connection.process.pid

    started = time.monotonic()
    with pytest.raises(FatalToolError) as info:
        fx.run_tool(registry, "raw_echo", {"message": "x"})

    message = str(info.value)
    expected = "MCP server hanger closed its connection while running tool 'raw_echo'"
    assert message.startswith(expected), message
    assert "it was stopped" in message
    assert "  exit code: -9" in message
    assert "    hanging up on the client" in message
    assert time.monotonic() - started < 15
    assert not fx.pid_alive(pid)
