"""One tool registry per session: registration, lookup, and the single dispatch boundary.

Every tool call, whether replayed from a recording or made by a script through
``ctx.execute``, passes ``ToolRegistry.execute``: memory interpolation, annotation stripping,
platform/driver checks, argument validation, observers before / after / on error, logging.
Keeping one boundary means secrets are masked and hooks fire in exactly one place.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from .errors import (
    RegistryError,
    ToolError,
    UnknownToolError,
    UnsupportedToolError,
)
from .memory import MASK, mask_with
from .tokens import strings_in
from .tooldef import Tool, ToolDescriptor, ToolResult
from .yamlsource import did_you_mean

#: Arguments that annotate a recorded call for humans and are never load-bearing at replay.
ANNOTATION_ARGS = frozenset({"reason", "reasoning"})
MAX_DEPTH = 16


class ToolObserver(Protocol):
    """Receives every tool call; the plugin turns these into ``pytest_trailblaze_*`` hooks."""

    def before_tool(self, name: str, args: Mapping[str, Any], ctx: Any) -> None: ...

    def after_tool(self, name: str, args: Mapping[str, Any], result: ToolResult, ctx: Any) -> None: ...

    def tool_error(self, name: str, args: Mapping[str, Any], error: BaseException, ctx: Any) -> None: ...


@dataclass(frozen=True, slots=True)
class ToolLogEntry:
    """One executed tool call as it will appear in reports (arguments already masked)."""

    name: str
    args: Mapping[str, Any]
    success: bool
    message: str
    duration_ms: float
    depth: int
    is_recordable: bool


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
        hint = did_you_mean(name, self._tools)
        raise UnknownToolError(
            f"unknown tool '{name}'\n"
            f"  why: no tool with that name is registered for platform '{self.platform}' "
            f"({len(self._tools)} tools registered)\n"
            f"  fix: {hint or 'check the spelling, or register the tool (see the README, Writing tools)'}",
            tool=name,
        )

    def unsupported_reason(self, tool: Tool) -> str | None:
        """Why ``tool`` cannot run in this session, or None when it can."""
        d = tool.descriptor
        if d.platforms and self.platform not in d.platforms:
            return f"it runs on {', '.join(sorted(d.platforms))}, not on {self.platform}"
        if d.drivers and self.driver_key and not _driver_allowed(d.drivers, self.driver_key, self.platform):
            return f"it runs with drivers {', '.join(sorted(d.drivers))}, not with {self.driver_key}"
        if d.requires_host and self.agent_mode != "host":
            return "it needs a host-driven agent and this session runs on-device"
        return None

    def check(self, name: str) -> Tool:
        """The tool named ``name`` if this session can run it; otherwise a clear error."""
        tool = self.get(name)
        reason = self.unsupported_reason(tool)
        if reason:
            raise UnsupportedToolError(f"tool '{name}' is not available in this session: {reason}", tool=name)
        return tool

    # -- dispatch ---------------------------------------------------------------------------
    def execute(self, name: str, raw_args: Mapping[str, Any], ctx: Any) -> ToolResult:
        """Interpolate, validate and run one tool call; every path through here is observed."""
        depth = getattr(ctx, "depth", 0)
        args = {k: v for k, v in ctx.memory.interpolate(dict(raw_args)).items() if k not in ANNOTATION_ARGS}
        shown = self._shown(name, args, ctx)
        start = time.perf_counter()
        try:
            tool = self.check(name)
            validated = tool.validate(args)
            for observer in self.observers:
                observer.before_tool(name, shown, ctx)
            result = tool.invoke(ctx, validated)
        except ToolError as exc:
            self._scrub(exc, name, args)
            self._failed(name, shown, exc, ctx, start, depth)
            exc.tool = exc.tool or name
            exc.arguments = dict(shown)
            raise
        except BaseException as exc:
            self._scrub(exc, name, args)
            self._failed(name, shown, exc, ctx, start, depth)
            raise
        self._log(ctx, name, shown, True, result.message, start, depth, tool)
        if self.observers:
            masked = replace(
                result, message=ctx.memory.mask(result.message), data=ctx.memory.mask(result.data)
            )
            for observer in self.observers:
                observer.after_tool(name, shown, masked, ctx)
        return result

    def _scrub(self, exc: BaseException, name: str, args: Mapping[str, Any]) -> None:
        """Remove the values of sensitive arguments from an error's message before anyone sees it."""
        tool = self._tools.get(name)
        hidden = tool.descriptor.sensitive_args if tool is not None else frozenset()
        values = [text for key in hidden if key in args for text in (*strings_in(args[key]), str(args[key]))]
        if values and exc.args and isinstance(exc.args[0], str):
            exc.args = (mask_with(values, exc.args[0]), *exc.args[1:])

    def _shown(self, name: str, args: Mapping[str, Any], ctx: Any) -> dict[str, Any]:
        """The arguments as a human may see them: secrets and sensitive arguments masked."""
        tool = self._tools.get(name)
        hidden = tool.descriptor.sensitive_args if tool is not None else frozenset()
        shown = ctx.memory.mask(dict(args))
        return {k: (MASK if k in hidden else v) for k, v in shown.items()}

    def _failed(
        self, name: str, shown: Mapping[str, Any], exc: BaseException, ctx: Any, start: float, depth: int
    ) -> None:
        tool = self._tools.get(name)
        self._log(ctx, name, shown, False, ctx.memory.mask(str(exc)), start, depth, tool)
        for observer in self.observers:
            observer.tool_error(name, shown, exc, ctx)

    @staticmethod
    def _log(
        ctx: Any,
        name: str,
        shown: Mapping[str, Any],
        ok: bool,
        message: str,
        start: float,
        depth: int,
        tool: Tool | None,
    ) -> None:
        log = getattr(ctx, "tool_log", None)
        if log is None:
            return
        recordable = tool.descriptor.is_recordable if tool is not None else True
        elapsed = (time.perf_counter() - start) * 1000
        log.append(ToolLogEntry(name, shown, ok, ctx.memory.mask(message), elapsed, depth, recordable))


def _driver_allowed(drivers: frozenset[str], driver_key: str, platform: str) -> bool:
    """Driver lists accept exact keys, the platform shorthand, and ``all``."""
    return driver_key in drivers or platform in drivers or "all" in drivers
