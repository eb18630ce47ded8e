"""One MCP server process and the official SDK's ``ClientSession`` over its stdio.

This module runs inside the background event loop (see ``portal.py``). The process is spawned
here, in its own process group, so that shutdown can follow the contract exactly (close stdin,
wait 5 s, SIGTERM the group, wait 2 s, SIGKILL the group, reap) and a crash can be reported
with its exit code. The SDK does the protocol; this module only frames its messages on the
pipes, one JSON-RPC message per line, with the SDK's own message types.
"""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from mcp import ClientSession
from mcp.shared.message import SessionMessage

from .launch import LaunchSpec

STDERR_TAIL = 64
CLOSE_GRACE_S = 5.0
TERM_GRACE_S = 2.0
REAP_S = 2.0


class ServerConnection:
    """A running server: its process, its SDK session, its stderr tail."""

    def __init__(self, launch: LaunchSpec, env: dict[str, str], log_path: Path, version: str) -> None:
        self.launch = launch
        self.env = env
        self.log_path = log_path
        self.version = version
        self.tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self.process: Process | None = None
        self.session: ClientSession | None = None
        self._stop: anyio.Event | None = None
        self.handshake_timed_out = False

    async def run(self, handshake_timeout: float, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        """Spawn, initialize under a watchdog, list tools, then serve until ``stop``."""
        self._stop = anyio.Event()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        process = await anyio.open_process(
            list(self.launch.argv), cwd=self.launch.cwd, env=self.env, start_new_session=True
        )
        self.process = process
        started = False
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._pump_stderr, process)
                async with (
                    _line_transport(process) as (read, write),
                    ClientSession(
                        read,
                        write,
                        client_info=types.Implementation(name="trailblaze", version=self.version),
                        logging_callback=self._log_notification,
                    ) as session,
                ):
                    try:
                        with anyio.fail_after(handshake_timeout):
                            await session.initialize()
                            tools = await _list_all_tools(session)
                    except TimeoutError:
                        self.handshake_timed_out = True
                        raise
                    self.session = session
                    started = True
                    task_status.started(tools)
                    await self._stop.wait()
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self._terminate(process, graceful=started)

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def call(self, name: str, arguments: dict[str, Any], timeout: float) -> types.CallToolResult:
        if self.session is None:
            raise RuntimeError("the server session is not running")
        with anyio.fail_after(timeout):
            result = await self.session.call_tool(name, arguments)
        return result  # type: ignore[return-value]

    async def wait_exit(self, timeout: float) -> int | None:
        """The exit code once the process has died (waiting up to ``timeout``), else None."""
        if self.process is None:
            return None
        await _wait_exit(self.process, timeout)
        return self.process.returncode

    async def kill(self) -> None:
        """Kill at once (after a call timed out): SIGKILL the group and reap."""
        if self.process is not None:
            _signal_group(self.process, signal.SIGKILL)
            await _wait_exit(self.process, REAP_S)
        await self.stop()

    async def _terminate(self, process: Process, *, graceful: bool) -> None:
        """Close stdin, wait 5 s, SIGTERM the group, wait 2 s, SIGKILL the group, reap."""
        if graceful:
            if process.stdin is not None:
                with suppress(Exception):
                    await process.stdin.aclose()
            if not await _wait_exit(process, CLOSE_GRACE_S):
                _signal_group(process, signal.SIGTERM)
                await _wait_exit(process, TERM_GRACE_S)
        _signal_group(process, signal.SIGKILL)  # also whatever children the server left in its group
        await _wait_exit(process, REAP_S)
        with suppress(Exception):
            await process.aclose()

    async def _pump_stderr(self, process: Process) -> None:
        if process.stderr is None:
            return
        with self.log_path.open("a", encoding="utf-8") as log, suppress(Exception):
            async for lines in _complete_lines(process.stderr):
                for line in lines:
                    self.tail.append(line)
                    log.write(line + "\n")
                log.flush()

    async def _log_notification(self, params: Any) -> None:
        """``notifications/message`` from the server (ctx.log) go to the same log as its stderr."""
        line = f"[{getattr(params, 'level', 'info')}] {getattr(params, 'data', params)}"
        self.tail.append(line)
        with self.log_path.open("a", encoding="utf-8") as log:
            log.write(line + "\n")


async def _complete_lines(stream: Any) -> AsyncIterator[list[str]]:
    """The whole lines each chunk of a process pipe completes; a partial line waits for the next."""
    buffer = ""
    async for chunk in TextReceiveStream(stream, errors="replace"):
        lines = (buffer + chunk).split("\n")
        buffer = lines.pop()
        yield lines


async def _list_all_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor = None
    while True:
        page = await session.list_tools(
            params=types.PaginatedRequestParams(cursor=cursor) if cursor else None
        )
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


@asynccontextmanager
async def _line_transport(process: Process) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's message streams over the process pipes, one JSON-RPC message per line."""
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        async with read_writer:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                async for lines in _complete_lines(process.stdout):
                    for line in lines:
                        if line.strip():
                            await read_writer.send(_parse(line))

    async def writer() -> None:
        assert process.stdin is not None
        async with write_reader:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await process.stdin.send((text + "\n").encode())

    async with anyio.create_task_group() as group:
        group.start_soon(reader)
        group.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            group.cancel_scope.cancel()


def _parse(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _wait_exit(process: Process, timeout: float) -> bool:
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _signal_group(process: Process, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
