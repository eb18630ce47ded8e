"""A server's stderr: a per-server log file (named in failure messages) and a rolling 64-line tail."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import FatalToolError, ToolFailure


def _wait_for(path: Path, text: str, timeout: float = 5.0) -> str:
    deadline = time.monotonic() + timeout
    while True:
        content = path.read_text() if path.exists() else ""
        if text in content or time.monotonic() > deadline:
            return content
        time.sleep(0.05)


def test_stderr_goes_to_the_log_file_and_the_tail_keeps_the_last_64_lines(toolsets, fx) -> None:
    ts = toolsets()
    tools = fx.start_tools(ts, "logs", fx.script("py_server.py"))
    registry = fx.registry_of(list(tools.values()))
    server = tools["pyfx_stderr"].server

    assert fx.run_tool(registry, "pyfx_stderr", {"lines": 100}).message == "wrote 100 lines"
    log = server.connection.log_path
    content = _wait_for(log, "pyfx stderr line 100\n")

    lines = content.splitlines()
    for index in range(1, 101):
        assert f"pyfx stderr line {index}" in lines
    assert ts.logs("logs") == [log]
    assert log.parent == ts.log_dir
    assert re.fullmatch(r".+-py_server\.log", log.name), log.name

    tail = list(server.connection.tail)
    assert len(tail) == 64
    assert tail == lines[-64:]
    assert "pyfx stderr line 100" in tail
    assert "pyfx stderr line 36" not in tail  # lines 1-36 fell out (if the tail holds only ours)
    assert "pyfx stderr line 1" not in tail


def test_a_failure_message_names_the_log_holding_the_stderr(toolsets, fx) -> None:
    ts = toolsets()
    spec = fx.command(str(fx.RAW_SERVER), "crash", label="logs", name="crasher")
    tools = fx.start_tools(ts, "crash-log", spec)
    registry = fx.registry_of(list(tools.values()))

    with pytest.raises(FatalToolError) as info:
        fx.run_tool(registry, "crash_on_call")

    [log_line] = [line for line in str(info.value).splitlines() if line.strip().startswith("log:")]
    log = Path(log_line.split("log:", 1)[1].strip())
    assert log.is_file()
    content = _wait_for(log, "line two")
    assert "intentional crash diagnostic line one" in content
    assert "intentional crash diagnostic line two" in content
    assert log in ts.logs("crash-log")


def test_a_message_quotes_the_last_ten_tail_lines(toolsets, fx) -> None:
    """Messages quote the end of the tail (here: the call-timeout message); the log keeps everything."""
    ts = toolsets(call=1.0)
    tools = fx.start_tools(ts, "noisy", fx.script("py_server.py"))
    registry = fx.registry_of(list(tools.values()))
    server = tools["pyfx_stderr"].server
    fx.run_tool(registry, "pyfx_stderr", {"lines": 30})
    _wait_for(server.connection.log_path, "pyfx stderr line 30\n")
    quoted = list(server.connection.tail)[-10:]
    assert quoted[-1] == "pyfx stderr line 30"

    with pytest.raises(ToolFailure) as info:
        fx.run_tool(registry, "pyfx_sleep", {"seconds": 10})

    text = str(info.value)
    block = text.split("stderr (last lines):\n", 1)[1].split("\n  log:", 1)[0]
    assert [line.strip() for line in block.splitlines()] == quoted
    assert f"log: {server.connection.log_path}" in text
    assert "pyfx stderr line 1\n" in server.connection.log_path.read_text()


def test_a_server_that_writes_without_end_keeps_a_bounded_log_that_says_what_it_dropped(toolsets, fx) -> None:
    ts = toolsets()
    tools = fx.start_tools(ts, "spew", fx.command(str(fx.RAW_SERVER), "spew", label="spew", name="spewer"))
    registry = fx.registry_of(list(tools.values()))
    server = tools["raw_echo"].server

    assert fx.run_tool(registry, "raw_echo", {"message": "after the flood"}).message == "after the flood"
    log = server.connection.log_path
    content = _wait_for(log, "spew done\n")

    assert "spew done" in content
    assert log.stat().st_size < 3 * 1024 * 1024  # 20 MB and a 1 MB line were written
    first = content.splitlines()[0]
    assert re.fullmatch(
        r"\[trailblaze: [0-9,]+ characters \([0-9,]+ lines\) of earlier output dropped; "
        r"this log keeps the last 1,048,576\]",
        first,
    ), first
    assert "spewed stderr line 000199999" in content  # the most recent lines are kept
    assert "spewed stderr line 000000000" not in content
    cut = next(line for line in content.splitlines() if line.startswith("zzz"))
    assert cut == "z" * 16384 + "… [line cut: 1,032,192 more characters]"
    assert all(len(line) < 20_000 for line in server.connection.tail)


def test_an_answer_too_big_is_named_as_such_not_as_a_timeout(toolsets, fx) -> None:
    ts = toolsets(call=60.0)
    tools = fx.start_tools(ts, "huge", fx.command(str(fx.RAW_SERVER), "huge", label="huge", name="hugger"))
    registry = fx.registry_of(list(tools.values()))

    started = time.monotonic()
    with pytest.raises(FatalToolError) as info:
        fx.run_tool(registry, "raw_echo", {"message": "x"})
    took = time.monotonic() - started

    message = str(info.value)
    assert message.startswith(
        "MCP server hugger was stopped: its answer to tool 'raw_echo' was too big (more than 33,554,432 "
        "characters in one message;"
    ), message
    assert "fix: return less data from the tool" in message
    assert "did not answer" not in message
    assert took < 45, f"took {took:.0f} s: the answer was read in linear time and refused at the limit"
