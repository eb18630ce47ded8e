"""MCP tool servers as the synchronous runner sees them.

The runner and Playwright's sync API own the main thread; the SDK client is async. All servers of
a worker share one background event loop (an anyio blocking portal), and every operation crosses
into it with ``portal.call``. Errors come back as this package's errors: a server that cannot
start is a ``ToolServerError`` (pytest ERROR), a tool error is a ``ToolFailure``, a server that
died under a call is a ``FatalToolError`` with its exit code and last stderr lines.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import os
import queue
import threading
from concurrent.futures import Future
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..core.errors import FatalToolError, ToolFailure, ToolServerError, first_line
from ..core.jsondata import JsonObject
from ..core.masking import Masker
from ..core.system import waits
from ..core.system.offloop import run_in_loop
from ..core.tooling.context import ToolContext
from ..core.tooling.tooldef import ToolResult
from .callbacks import Finished, serve
from .launch import LaunchSpec
from .timeouts import DEFAULT_CALL_S, DEFAULT_HANDSHAKE_S
from .timeouts import handshake_timeout_default as handshake_timeout_default  # read here by the commands

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    import mcp_types as types
    from anyio.from_thread import BlockingPortal

T = TypeVar("T")

#: How much of a non-JSON-RPC stdout line a start-up error quotes.
JUNK_QUOTE = 200
_session_numbers = itertools.count(1)


def new_session_id(worker: str = "main") -> str:
    return f"tb-{worker}-{os.getpid()}-{next(_session_numbers)}"


class Portal:
    """The background event loop every server of this process talks through."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._manager: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._event_loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> BlockingPortal:
        with self._lock:
            if self._portal is None:
                from anyio.from_thread import start_blocking_portal

                self._manager = start_blocking_portal()
                self._portal = self._manager.__enter__()
            return self._portal

    def run(
        self, function: Callable[..., Coroutine[Any, Any, T]], *args: object, timeout: float | None = None
    ) -> T:
        """Await ``function(*args)`` in the loop and return its result: the hot path of tool calls.
        Past ``timeout``, or on Ctrl-C, the task is cancelled (``offloop.run_in_loop``)."""
        return run_in_loop(self._loop(), function, *args, timeout=timeout)

    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop the servers run in (on its own thread)."""
        return self._loop()

    def call(self, function: Callable[..., Any], *args: object) -> Any:
        """``function(*args)`` (a coroutine function or a plain one) run in the loop: its result."""
        return waits.result(self.get().start_task_soon(function, *args))

    def start_task(
        self, function: Callable[..., Coroutine[Any, Any, None]], *args: object
    ) -> tuple[Future[None], Any]:
        """Start ``function(*args, task_status=...)`` in the loop and wait until it reports started:
        the task's future and the value it started with (an error before that is raised here)."""
        status = _Started()
        task = self.get().start_task_soon(functools.partial(function, *args, task_status=status))
        task.add_done_callback(status.ended)
        return task, waits.result(status.future)

    def _loop(self) -> asyncio.AbstractEventLoop:
        if self._event_loop is None:
            self._event_loop = self.call(_running_loop)
        return self._event_loop

    def close(self) -> None:
        """Stop the loop; a server still starting (its start was interrupted by Ctrl-C) is cancelled,
        which kills its process group, instead of being waited for until its handshake times out."""
        with self._lock:
            manager, portal = self._manager, self._portal
            self._manager, self._portal, self._event_loop = None, None, None
        if manager is not None and portal is not None:
            waits.result(portal.start_task_soon(portal.stop, True))
            manager.__exit__(None, None, None)


class _Started:
    """A task's ``task_status``: what it reports started with goes to the thread that waits."""

    def __init__(self) -> None:
        self.future: Future[Any] = Future()

    def started(self, value: object = None) -> None:
        self.future.set_result(value)

    def ended(self, task: Future[None]) -> None:
        """The task ended: one that never reported started fails (or is cancelled) its wait."""
        if self.future.done():
            return
        if task.cancelled():
            self.future.cancel()
        else:
            self.future.set_exception(task.exception() or RuntimeError("the task ended before it started"))


class McpServer:
    """One started server of one session scope."""

    def __init__(
        self,
        launch: LaunchSpec,
        *,
        portal: Portal,
        device_env: dict[str, str],
        log_path: Path,
        handshake_timeout: float = DEFAULT_HANDSHAKE_S,
        call_timeout: float = DEFAULT_CALL_S,
        masker: Masker | None = None,
    ) -> None:
        from .. import __version__
        from .connection import ServerConnection  # the SDK loads only when a server is used

        self.launch = launch
        self.portal = portal
        self.handshake_timeout = handshake_timeout
        self.call_timeout = call_timeout
        self.connection = ServerConnection(
            launch, launch.environment(device_env), log_path, __version__, masker or Masker()
        )
        self.tools: list[types.Tool] = []
        self.broken: str | None = None
        self._future: Future[None] | None = None

    @property
    def name(self) -> str:
        return self.launch.name

    def start(self) -> list[types.Tool]:
        """Spawn, handshake (under the watchdog) and list the tools; failures say why and how."""
        try:
            self._future, self.tools = self.portal.start_task(self.connection.run, self.handshake_timeout)
        except Exception as exc:  # anyio may wrap the cause in a group: the connection knows what happened
            self.broken = self._start_failure(exc)
            raise ToolServerError(self.broken) from None
        return self.tools

    def _start_failure(self, exc: Exception) -> str:
        """Why the server did not start, from what its connection saw."""
        connection = self.connection
        if connection.junk_ended_handshake:
            junk = connection.stdout_junk or ""
            quoted = junk if len(junk) <= JUNK_QUOTE else junk[:JUNK_QUOTE] + "..."
            return self._describe(
                "wrote non-JSON-RPC output on stdout instead of answering `initialize`; it was stopped\n"
                f"  first line: {quoted!r}",
                fix="an MCP server over stdio writes only JSON-RPC messages on stdout: "
                "send banners, logs and prints to stderr",
            )
        if connection.handshake_timed_out:
            wait = f"{self.handshake_timeout:g} s"
            return self._describe(f"did not answer `initialize` within {wait}; it was killed")
        code = self.portal.call(connection.wait_exit, 2.0)
        return self._describe(
            f"exited with code {code} during start-up" if code is not None else f"failed to start: {exc}"
        )

    def call(self, name: str, arguments: JsonObject) -> ToolResult:
        """Call a tool; map the SDK's answer (or the server's death) to a result or an error."""
        return to_result(self.call_result(name, arguments))

    def call_result(
        self,
        name: str,
        arguments: JsonObject,
        *,
        ctx: ToolContext | None = None,
        meta: JsonObject | None = None,
    ) -> types.CallToolResult:
        """Call a tool: the SDK's answer as it came, or an error (a timeout, the server's death).

        With ``ctx``, the call carries ``_meta.trailblaze`` (``meta`` plus the invocation id and the
        callback secret) and the tools it calls back run on this thread until it answers; the
        timeout then bounds each wait for the server, not the tool calls it makes.
        """
        if self.broken:
            raise FatalToolError(self.broken, tool=name)
        fatal: BaseException | None = None
        try:
            if ctx is None:
                result = self.portal.run(self.connection.call, name, arguments, timeout=self.call_timeout)
            else:
                result, fatal = self._call_serving(name, arguments, ctx, meta or {})
        except TimeoutError:
            if self.connection.too_big:
                self._too_big(name)
            code = self.portal.call(self.connection.wait_exit, 0.0)
            self.portal.call(self.connection.kill)
            if code is not None:  # it had died and nobody noticed: the call waited for nothing
                self.broken = self._describe(f"died while running tool '{name}'", exit_code=code)
                raise FatalToolError(self.broken, tool=name) from None
            self.broken = self._describe(
                f"was stopped: tool '{name}' did not answer within {self.call_timeout:g} s"
            )
            raise ToolFailure(self.broken, tool=name) from None
        except Exception as exc:
            if self.connection.too_big:
                self._too_big(name)
            # An error reply comes from a live server; a lost connection may be its death: give it a moment.
            wait = 0.0 if _is_error_reply(exc) else 2.0
            code = self.portal.call(self.connection.wait_exit, wait)
            if code is None and not _is_error_reply(exc):  # the pipes closed, the process lives on
                self.portal.call(self.connection.kill)
                code = self.portal.call(self.connection.wait_exit, 0.0)
                what = (
                    f"closed its connection while running tool '{name}' ({first_line(exc)}); it was stopped"
                )
                self.broken = self._describe(what, exit_code=code)
                raise FatalToolError(self.broken, tool=name) from None
            if code is not None:
                self.broken = self._describe(f"died while running tool '{name}'", exit_code=code)
                raise FatalToolError(self.broken, tool=name) from None
            raise ToolFailure(
                f"MCP server {self.name}: tool '{name}' failed: {first_line(exc)}", tool=name
            ) from None
        if fatal is not None:
            raise fatal
        return result

    def _too_big(self, name: str) -> None:
        """The server's answer was refused for its size (``serverlog.MAX_MESSAGE_CHARS``): say so."""
        from .serverlog import MAX_MESSAGE_CHARS

        read = self.connection.too_big
        self.broken = self._describe(
            f"was stopped: its answer to tool '{name}' was too big (more than {MAX_MESSAGE_CHARS:,} "
            f"characters in one message; {read:,} read)",
            fix="return less data from the tool: a file path or a summary instead of the content",
        )
        raise FatalToolError(self.broken, tool=name) from None

    def _call_serving(
        self, name: str, arguments: JsonObject, ctx: ToolContext, meta: JsonObject
    ) -> tuple[types.CallToolResult, BaseException | None]:
        """The call, while its ``trailblaze/callTool`` requests are served here (see ``callbacks``)."""
        router = self.connection.router
        invocation, events = router.open()
        envelope: JsonObject = {
            "trailblaze": {**meta, "invocationId": invocation, "callbackToken": router.secret}
        }
        loop = self.portal.loop()
        box: list[asyncio.Task[types.CallToolResult]] = []

        def start() -> None:
            task = loop.create_task(self.connection.call(name, arguments, envelope))
            box.append(task)
            task.add_done_callback(lambda done: events.put(Finished(done)))

        loop.call_soon_threadsafe(start)
        fatal: BaseException | None = None
        try:
            while True:
                try:
                    event = waits.get(events, self.call_timeout)
                except queue.Empty:
                    loop.call_soon_threadsafe(lambda: box[0].cancel())
                    raise TimeoutError from None
                if isinstance(event, Finished):
                    return event.task.result(), fatal
                reply, error = serve(ctx, event)
                fatal = fatal or error
                self.portal.run(self.connection.reply, event.request_id, reply)
        except BaseException:
            if box and not box[0].done():
                loop.call_soon_threadsafe(lambda: box[0].cancel())
            raise
        finally:
            router.close(invocation)

    def stop(self) -> None:
        """Shut the server down (close stdin, 5 s, SIGTERM, 2 s, SIGKILL) and wait for it."""
        if self._future is None:
            return
        future, self._future = self._future, None
        try:
            self.portal.call(self.connection.stop)
            waits.result(future, 15)
        except Exception:  # the process is reaped in the connection's own finally block
            return

    def _describe(self, what: str, *, exit_code: int | None = None, fix: str = "") -> str:
        lines = [f"MCP server {self.name} {what}", f"  command: {' '.join(self.launch.argv)}"]
        if exit_code is not None:
            lines.append(f"  exit code: {exit_code}")
        tail = list(self.connection.tail)[-10:]
        if tail:
            lines.append("  stderr (last lines):")
            lines.extend(f"    {line}" for line in tail)
        lines.append(f"  log: {self.connection.log_path}")
        if fix:
            lines.append(f"  fix: {fix}")
        return "\n".join(lines)


async def _running_loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def to_result(result: object) -> ToolResult:
    """The first text content is the message; ``is_error`` fails the step with it."""
    text = next(
        (c.text for c in getattr(result, "content", []) or [] if getattr(c, "type", "") == "text"), None
    )
    if getattr(result, "is_error", False):
        raise ToolFailure(text or "the MCP tool returned isError=true with no text content")
    return ToolResult(message=text or "", data=getattr(result, "structured_content", None))


def _is_error_reply(exc: Exception) -> bool:
    """A JSON-RPC error the server sent back, as opposed to the connection closing under the call."""
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    return isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED
