"""One tool registry per session: registration, lookup, and the single dispatch boundary.

Every tool call, whether replayed from a recording or made by a script through
``ctx.execute``, passes ``ToolRegistry.execute``: memory interpolation, annotation stripping,
platform/driver checks, argument validation, observers before / after / on error, logging.
Keeping one boundary means secrets are masked and hooks fire in exactly one place.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from ..docs import docs_page
from ..errors import (
    ConfigurationError,
    RegistryError,
    ToolArgumentError,
    ToolError,
    UnknownToolError,
    UnsupportedToolError,
)
from ..jsondata import JsonValue
from ..shown import clip, clip_value
from ..trail.tokens import strings_in
from ..trail.yamlsource import did_you_mean
from .memory import MASK, mask_with
from .tooldef import Tool, ToolDescriptor, ToolResult, bind_tool_arguments

if TYPE_CHECKING:
    from .context import ToolContext

REGISTER_HINT = f"check the spelling, or register the tool (see {docs_page('guides/tools/')})"

#: Arguments that annotate a recorded call for humans and are never load-bearing at replay.
ANNOTATION_ARGS = frozenset({"reason", "reasoning"})
MAX_DEPTH = 16
#: An error message longer than this is cut where the registry passes it on (``shown.clip``).
FAILURE_CHARS = 10_000


class ToolObserver(Protocol):
    """Receives every tool call; the plugin turns these into ``pytest_trailblaze_*`` hooks."""

    def before_tool(self, name: str, args: Mapping[str, JsonValue], ctx: ToolContext) -> None: ...

    def after_tool(
        self, name: str, args: Mapping[str, JsonValue], result: ToolResult, ctx: ToolContext
    ) -> None: ...

    def tool_error(
        self, name: str, args: Mapping[str, JsonValue], error: BaseException, ctx: ToolContext
    ) -> None: ...


@dataclass(frozen=True, slots=True)
class ToolLogEntry:
    """One tool call as reports show it (arguments masked).

    Entries are opened when a call starts, so a composed tool comes before the calls it made;
    ``parent`` is the index of the entry that made this call (None for a recorded step's call)
    and ``success`` is None while the call is running.
    """

    name: str
    args: Mapping[str, JsonValue]
    success: bool | None
    message: str
    duration_ms: float
    depth: int
    is_recordable: bool
    parent: int | None = None


def recorded_calls(log: list[ToolLogEntry]) -> list[ToolLogEntry]:
    """The entries a recording keeps: recordable calls not made by another recordable call.

    A YAML-composed tool is recorded itself (its expansion is not); a script, which is never
    recordable, is recorded as the primitives it ran, in order.
    """

    def covered(entry: ToolLogEntry) -> bool:
        parent = entry.parent
        while parent is not None:
            if log[parent].is_recordable:
                return True
            parent = log[parent].parent
        return False

    return [e for e in log if e.is_recordable and e.success is not False and not covered(e)]


class ToolRegistry:
    """The tools of one session scope: (platform, driver, agent mode)."""

    def __init__(self, *, platform: str, driver_key: str = "", agent_mode: str = "host") -> None:
        self.platform = platform
        self.driver_key = driver_key
        self.agent_mode = agent_mode
        self._tools: dict[str, Tool] = {}
        self.observers: list[ToolObserver] = []

    # -- registration -----------------------------------------------------------------------
    def register(self, tool: Tool) -> None:
        """Add a tool; a name already taken is an error naming both sources."""
        existing = self._tools.get(tool.name)
        if existing is not None and existing is not tool:
            raise RegistryError(
                f"tool name collision: '{tool.name}' is defined by {tool.descriptor.source} "
                f"and by {existing.descriptor.source}\n"
                f"  fix: rename one of them; tool names are global within a session"
            )
        self._tools[tool.name] = tool

    def register_all(self, tools: Iterable[Tool]) -> None:
        for tool in tools:
            self.register(tool)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def descriptors(self) -> list[ToolDescriptor]:
        return [self._tools[name].descriptor for name in self.names()]

    # -- lookup -----------------------------------------------------------------------------
    def get(self, name: str) -> Tool:
        tool = self._tools.get(name)
        if tool is not None:
            return tool
        hint = did_you_mean(name, self._tools) or REGISTER_HINT
        raise UnknownToolError(
            f"unknown tool '{name}'\n"
            f"  why: no tool with that name is registered for platform '{self.platform}' "
            f"({len(self._tools)} tools registered)\n"
            f"  fix: {hint}",
            tool=name,
        )

    def unsupported_reason(self, tool: Tool) -> str | None:
        """Why ``tool`` cannot run in this session, or None when it can."""
        d = tool.descriptor
        if tool.unavailable:
            return tool.unavailable
        if d.platforms and self.platform not in d.platforms:
            return f"it runs on {', '.join(sorted(d.platforms))}, not on {self.platform}"
        if d.drivers and self.driver_key and not driver_allowed(d.drivers, self.driver_key, self.platform):
            return f"it runs with drivers {', '.join(sorted(d.drivers))}, not with {self.driver_key}"
        if d.requires_host and self.agent_mode != "host":
            return "it needs a host-driven agent and this session runs on-device"
        return None

    def check(self, name: str) -> Tool:
        """The tool named ``name`` if this session can run it; otherwise a clear error."""
        tool = self.get(name)
        reason = self.unsupported_reason(tool)
        if reason:
            raise UnsupportedToolError(
                reason if tool.unavailable else f"tool '{name}' is not available in this session: {reason}",
                tool=name,
            )
        return tool

    # -- dispatch ---------------------------------------------------------------------------
    def execute(self, name: str, raw_args: Mapping[str, JsonValue], ctx: ToolContext) -> ToolResult:
        """Interpolate, validate and run one tool call; every path through here is observed."""
        args = {k: v for k, v in dict(raw_args).items() if k not in ANNOTATION_ARGS}
        try:
            args = ctx.memory.interpolate(args)
        except ConfigurationError as exc:  # a malformed token: the call's own fault, reported like one
            interpolation_error: ToolError | None = ToolArgumentError(str(exc), tool=name)
        else:
            interpolation_error = None
        known = self._tools.get(name)
        if known is not None:  # YAML numbers bound to string parameters: the text as written
            args = bind_tool_arguments(known, args)
        hidden = known.descriptor.sensitive_args if known is not None else frozenset()
        shown = _shown(args, hidden, ctx)
        entry = _LogSlot(ctx, name, shown, known)
        try:
            if interpolation_error is not None:
                raise interpolation_error
            tool = self.check(name)
            validated = tool.validate(args)
            for observer in self.observers:
                observer.before_tool(name, shown, ctx)
            with entry.running():
                result = tool.invoke(ctx, validated)
        except BaseException as exc:
            _scrub(exc, args, hidden)
            entry.close(False, clip(ctx.memory.mask(str(exc))))
            if isinstance(exc, ToolError):
                exc.tool = exc.tool or name
                exc.arguments = dict(shown)
            for observer in self.observers:
                observer.tool_error(name, shown, exc, ctx)
            raise
        entry.close(True, clip(ctx.memory.mask(result.message)))
        if self.observers:
            masked = replace(
                result, message=clip(ctx.memory.mask(result.message)), data=ctx.memory.mask(result.data)
            )
            for observer in self.observers:
                observer.after_tool(name, shown, masked, ctx)
        return result


def _scrub(exc: BaseException, args: Mapping[str, JsonValue], hidden: frozenset[str]) -> None:
    """Remove the values of sensitive arguments from an error's message before anyone sees it, and
    cut a message too long to show (an assertion quoting a 50 MB value)."""
    values = [text for key in hidden if key in args for text in (*strings_in(args[key]), str(args[key]))]
    if exc.args and isinstance(exc.args[0], str):
        message = mask_with(values, exc.args[0]) if values else exc.args[0]
        exc.args = (clip(message, FAILURE_CHARS), *exc.args[1:])


def _shown(args: Mapping[str, JsonValue], hidden: frozenset[str], ctx: ToolContext) -> dict[str, JsonValue]:
    """The arguments as a human may see them: secrets and sensitive arguments masked, long texts cut."""
    shown = clip_value(ctx.memory.mask(dict(args)))
    return {k: (MASK if k in hidden else v) for k, v in shown.items()}


class _LogSlot:
    """A tool-log entry opened at the start of a call and completed when it ends."""

    def __init__(
        self, ctx: ToolContext, name: str, shown: Mapping[str, JsonValue], tool: Tool | None
    ) -> None:
        self.ctx = ctx
        self.name = name
        self.log: list[ToolLogEntry] | None = getattr(ctx, "tool_log", None)
        self.start = time.perf_counter()
        self.index = -1
        if self.log is not None:
            recordable = tool.descriptor.is_recordable if tool is not None else True
            parent = getattr(ctx, "log_parent", None)
            self.index = len(self.log)
            self.log.append(
                ToolLogEntry(name, shown, None, "", 0.0, getattr(ctx, "depth", 0), recordable, parent)
            )

    @contextmanager
    def running(self) -> Iterator[None]:
        """While the tool runs, calls it makes through its context name it (and this entry) as parent."""
        previous = getattr(self.ctx, "current_entry", None), getattr(self.ctx, "current_tool", None)
        self.ctx.current_entry = self.index if self.index >= 0 else None
        self.ctx.current_tool = self.name
        try:
            yield
        finally:
            self.ctx.current_entry, self.ctx.current_tool = previous

    def close(self, ok: bool, message: str) -> None:
        if self.log is not None:
            elapsed = (time.perf_counter() - self.start) * 1000
            e = self.log[self.index]  # built directly: ``dataclasses.replace`` costs more than the rest
            self.log[self.index] = ToolLogEntry(
                e.name, e.args, ok, message, elapsed, e.depth, e.is_recordable, e.parent
            )


def driver_allowed(drivers: Collection[str], driver_key: str, platform: str) -> bool:
    """Driver lists accept exact keys, the platform shorthand, and ``all``."""
    return driver_key in drivers or platform in drivers or "all" in drivers
