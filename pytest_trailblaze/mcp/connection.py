"""One MCP server process and the official SDK's ``ClientSession`` over its stdio.

This module runs inside the background event loop (``Portal`` in ``server.py``). The process is
spawned here, in its own process group, so that shutdown can follow the contract exactly (close
stdin, wait 5 s, SIGTERM the group, wait 2 s, SIGKILL the group, reap) and a crash can be reported
with its exit code. The SDK does the protocol; this module only frames its messages on the
pipes, one JSON-RPC message per line, with the SDK's own message types. A stdout line that is
not JSON-RPC is the server's mistake, not a message: it ends the handshake at once, or, later,
is kept in the server's log (see ``ServerConnection._not_protocol``).
"""

from __future__ import annotations

import os
import signal
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard, cast

import anyio
import mcp_types as types
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from mcp import ClientSession
from mcp.shared.message import SessionMessage

from ..core.jsondata import JsonObject
from ..core.masking import Masker
from ..core.system.reaper import REAPER
from .callbacks import CallbackRouter
from .launch import LaunchSpec
from .serverlog import LINE_LIMIT, MAX_MESSAGE_CHARS, LineSplitter, Overlong, ServerLog

if TYPE_CHECKING:
    from anyio.abc import ByteReceiveStream, TaskStatus
    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

STDERR_TAIL = 64
CLOSE_GRACE_S = 5.0
TERM_GRACE_S = 2.0
REAP_S = 2.0


class ServerConnection:
    """A running server: its process, its SDK session, its stderr tail."""

    def __init__(
        self, launch: LaunchSpec, env: dict[str, str], log_path: Path, version: str, masker: Masker
    ) -> None:
        self.launch = launch
        #: Every line the server writes passes it before the tail or the log file keeps it.
        self.masker = masker
        self.env = env
        self.log_path = log_path
        self.version = version
        self.tail: deque[str] = deque(maxlen=STDERR_TAIL)
        self.process: Process | None = None
        self.session: ClientSession | None = None
        self._stop: anyio.Event | None = None
        self.handshake_timed_out = False
        #: A call was cancelled (Ctrl-C, SIGTERM, a timeout) before the server answered it.
        self.abandoned_call = False
        #: The first stdout line that was not JSON-RPC (masked), and whether it ended the handshake.
        self.stdout_junk: str | None = None
        self.junk_ended_handshake = False
        #: The start-up phase a junk line ends; None once ``initialize`` is answered.
        self._handshake: anyio.CancelScope | None = None
        self._answered = False
        #: The server's log file, kept to its last megabyte (``serverlog.py``); open while it runs.
        self.log: ServerLog | None = None
        #: How long a stdout message grew before it was refused as too big (0: none was).
        self.too_big = 0
        #: Calls in progress and the secret a ``trailblaze/callTool`` request must carry.
        self.router = CallbackRouter()
        self._write: MemoryObjectSendStream[SessionMessage] | None = None

    async def run(
        self,
        handshake_timeout: float,
        *,
        task_status: TaskStatus[list[types.Tool]] = anyio.TASK_STATUS_IGNORED,
    ) -> None:
        """Spawn, initialize under a watchdog, list tools, then serve until ``stop``."""
        self._stop = anyio.Event()
        self.log = ServerLog(self.log_path)
        process = await anyio.open_process(
            list(self.launch.argv), cwd=self.launch.cwd, env=self.env, start_new_session=True
        )
        REAPER.watch(process.pid)  # the group dies with this process even if no teardown runs
        self.process = process
        started = False
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._pump_stderr, process)
                async with (
                    _line_transport(
                        process, self._not_protocol, self._refuse_message, self._request
                    ) as (read, write),
                    ClientSession(
                        read,
                        write,
                        client_info=types.Implementation(name="trailblaze", version=self.version),
                        logging_callback=self._log_notification,
                    ) as session,
                ):
                    self._write = write
                    tools = await self._handshake_with(session, handshake_timeout)
                    self.session = session
                    started = True
                    task_status.started(tools)
                    await self._stop.wait()
                group.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                # A server busy with a call nobody waits for any more gets no 5 s for a clean exit.
                await self._terminate(process, graceful=started and not self.abandoned_call)

    async def _handshake_with(self, session: ClientSession, timeout: float) -> list[types.Tool]:
        """``initialize`` and ``tools/list`` under the watchdog; output that is not JSON-RPC
        before ``initialize`` is answered ends the handshake at once (see ``_not_protocol``)."""
        try:
            with anyio.CancelScope() as self._handshake, anyio.fail_after(timeout):
                if self.junk_ended_handshake:  # written before this scope existed
                    self._handshake.cancel()
                await session.initialize()
                self._handshake, self._answered = None, True
                return await _list_all_tools(session)
        except TimeoutError:
            self.handshake_timed_out = True
            raise
        raise NotProtocolError(self.stdout_junk or "")

    async def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def call(
        self, name: str, arguments: JsonObject, meta: JsonObject | None = None
    ) -> types.CallToolResult:
        """One ``tools/call``; the caller bounds it (``Portal.run``'s timeout cancels it)."""
        if self.session is None:
            raise RuntimeError("the server session is not running")
        try:
            # the SDK's request meta is an open map (its TypedDict allows extra keys): ours is one
            return await self.session.call_tool(
                name, arguments, meta=cast("types.RequestParamsMeta | None", meta)
            )
        except anyio.get_cancelled_exc_class():
            self.abandoned_call = True
            raise

    async def reply(
        self, request_id: types.RequestId, result: JsonObject | None, error: tuple[int, str] | None = None
    ) -> None:
        """Answer a request the server sent (``trailblaze/callTool``)."""
        if self._write is None:
            return
        if error is not None:
            message: types.JSONRPCError | types.JSONRPCResponse = types.JSONRPCError(
                jsonrpc="2.0", id=request_id, error=types.ErrorData(code=error[0], message=error[1])
            )
        else:
            message = types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result or {})
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._write.send(SessionMessage(message))

    async def _request(self, message: types.JSONRPCRequest) -> None:
        """A request from the server: routed to the call it belongs to, or refused at once (and noted)."""
        refusal = self.router.receive(message.id, message.method, message.params)
        if refusal is not None:
            self.note(f"[{message.method}] {refusal[1]}")
            await self.reply(message.id, None, refusal)

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
        REAPER.release(process.pid)
        if self.log is not None:
            self.log.close()

    async def _pump_stderr(self, process: Process) -> None:
        if process.stderr is None:
            return
        with suppress(Exception):
            async for lines in _complete_lines(process.stderr, LINE_LIMIT):
                for line in lines:
                    self._keep(line.cut() if isinstance(line, Overlong) else line)
                if self.log is not None:
                    self.log.flush()

    def _keep(self, line: str) -> None:
        line = self.masker.text(line)
        self.tail.append(line)
        if self.log is not None:
            self.log.write(line)

    def note(self, line: str) -> None:
        """Add a line of ours about the server to its tail and log (masked)."""
        self._keep(line)
        if self.log is not None:
            self.log.flush()

    def _refuse_message(self, size: int) -> None:
        """A stdout message past ``MAX_MESSAGE_CHARS``: the server is stopped (its call fails as that)."""
        self.too_big = size
        self.note(
            f"[trailblaze] a message on stdout grew past {MAX_MESSAGE_CHARS:,} characters ({size:,} read); "
            "the server was stopped"
        )
        if self.process is not None:
            _signal_group(self.process, signal.SIGKILL)

    def _not_protocol(self, line: str) -> None:
        """A stdout line that is not JSON-RPC. Before ``initialize`` is answered the stream is
        clearly not the protocol: the handshake ends at once instead of at its timeout. Later
        (a stray ``print`` in a tool) the line is kept in the log and tail, and the session goes on."""
        shown = self.masker.text(line.rstrip("\r"))
        if self.stdout_junk is None:
            self.stdout_junk = shown
        self.note(f"[stdout, not JSON-RPC] {shown}")
        if not self._answered:
            self.junk_ended_handshake = True
            if self._handshake is not None:
                self._handshake.cancel()

    async def _log_notification(self, params: object) -> None:
        """``notifications/message`` from the server (ctx.log) go to the same log as its stderr."""
        text = f"[{getattr(params, 'level', 'info')}] {getattr(params, 'data', params)}"
        self.note(text if len(text) <= LINE_LIMIT else Overlong(text[:LINE_LIMIT], len(text)).cut())


async def _complete_lines(stream: ByteReceiveStream, limit: int) -> AsyncIterator[list[str | Overlong]]:
    """The whole lines each chunk of a process pipe completes (``serverlog.LineSplitter``)."""
    splitter = LineSplitter(limit)
    async for chunk in TextReceiveStream(stream, errors="replace"):
        lines = splitter.feed(chunk)
        if lines:
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
async def _line_transport(
    process: Process,
    not_protocol: Callable[[str], None],
    too_big: Callable[[int], None],
    ours: Callable[[types.JSONRPCRequest], Awaitable[None]],
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """The SDK's message streams over the process pipes, one JSON-RPC message per line.

    A line that is not a JSON-RPC message goes to ``not_protocol``, not to the SDK (which would
    drop it without a word); a request of ours (``trailblaze/...``) goes to ``ours``; one past
    ``MAX_MESSAGE_CHARS`` goes to ``too_big`` as soon as it passes the limit, and reading ends."""
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def reader() -> None:
        assert process.stdout is not None
        async with read_writer:
            with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
                splitter = LineSplitter(MAX_MESSAGE_CHARS)
                async for chunk in TextReceiveStream(process.stdout, errors="replace"):
                    lines = splitter.feed(chunk)
                    if splitter.pending() > MAX_MESSAGE_CHARS or any(isinstance(x, Overlong) for x in lines):
                        too_big(
                            max([splitter.pending(), *(x.length for x in lines if isinstance(x, Overlong))])
                        )
                        return
                    for line in lines:
                        if isinstance(line, Overlong) or not line.strip():
                            continue
                        message = _parse(line)
                        if message is None:
                            not_protocol(line)
                        elif _is_ours(message.message):
                            await ours(message.message)
                        else:
                            await read_writer.send(message)

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


def _is_ours(message: object) -> TypeGuard[types.JSONRPCRequest]:
    return isinstance(message, types.JSONRPCRequest) and message.method.startswith("trailblaze/")


def _parse(line: str) -> SessionMessage | None:
    """The JSON-RPC message on ``line``, or None when the line is something else."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError:
        return None


class NotProtocolError(Exception):
    """The server wrote something other than JSON-RPC on stdout before answering ``initialize``."""


async def _wait_exit(process: Process, timeout: float) -> bool:
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


def _signal_group(process: Process, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)
