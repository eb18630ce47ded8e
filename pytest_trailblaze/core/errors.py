"""Errors raised by pytest-trailblaze.

Every error derives from one base so callers can catch the whole family:

    TrailblazeError
    ├── TrailLoadError        a trail or definition file is malformed; carries every Problem found
    ├── ConfigurationError    bad options, settings or trail args; raised before anything runs
    ├── RegistryError         a tool cannot be registered (name collision, bad definition)
    ├── DriverError           a driver (browser, device) could not start or broke underneath a trail
    ├── ToolServerError       an MCP tool server could not start, or died (pytest ERROR)
    ├── TrailheadError        the trailhead could not reach the starting state (pytest ERROR)
    ├── ToolError             a single tool call went wrong
    │   ├── UnknownToolError      no tool of that name in the session's registry
    │   ├── UnsupportedToolError  the tool exists but not for this platform / driver / agent mode
    │   ├── ToolArgumentError     arguments do not match the tool's schema
    │   ├── ToolFailure           the tool ran and reported a failure (also an AssertionError)
    │   └── FatalToolError        the machinery under the tool broke; the trail cannot continue
    └── StepFailure           a step of the trail failed (also an AssertionError: pytest FAILED)
        ├── AgentStepRequired a step has no recording for the device and no agent took it
        └── AgentFailure      the LLM agent could not do a step (model error, budget, gave up)

Messages follow the compiler convention: ``path:line:col: what`` on the first line, then
``why:`` and ``fix:`` lines, so an editor can jump to the spot and a reader knows what to do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .jsondata import JsonValue
from .masking import visible


@dataclass(frozen=True, slots=True)
class SourceSpan:
    """A position in a file; ``line`` and ``col`` are 1-based like an editor's."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding in a file: where, what, why it matters and how to fix it."""

    span: SourceSpan | None
    what: str
    why: str = ""
    fix: str = ""
    severity: str = "error"

    def format(self) -> str:
        """The problem as printed: control characters a file put into it are shown, not obeyed."""
        where = f"{self.span}: " if self.span is not None else ""
        kind = "warning: " if self.severity == "warning" else ""
        lines = [f"{where}{kind}{self.what}"]
        if self.why:
            lines.append(f"  why: {self.why}")
        if self.fix:
            lines.append(f"  fix: {self.fix}")
        return visible("\n".join(lines))

    def sort_key(self) -> tuple[str, int, int]:
        if self.span is None:
            return ("", 0, 0)
        return (self.span.path, self.span.line, self.span.col)


class TrailblazeError(Exception):
    """Base of every error this package raises on purpose."""


class TrailLoadError(TrailblazeError):
    """A file could not be loaded; ``problems`` lists everything wrong with it at once."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=Problem.sort_key)
        super().__init__(self.format())

    def format(self) -> str:
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''} found:" if count > 1 else ""
        body = "\n".join(p.format() for p in self.problems)
        return f"{head}\n{body}" if head else body


class ConfigurationError(TrailblazeError):
    """Options, settings or trail args are wrong; nothing has run yet."""


class RegistryError(TrailblazeError):
    """A tool cannot be registered."""


class DriverError(TrailblazeError):
    """A driver could not start, or broke while a trail was running."""


class ToolServerError(TrailblazeError):
    """An MCP tool server could not start, or died; the trails that need it cannot run."""


class TrailheadError(TrailblazeError):
    """The trailhead failed: the trail could not reach its starting state."""


class ToolError(TrailblazeError):
    """A tool call went wrong; ``tool`` names the tool."""

    def __init__(self, message: str, *, tool: str = "") -> None:
        self.tool = tool
        #: The interpolated, masked arguments of the failing call (set by the registry).
        self.arguments: dict[str, JsonValue] | None = None
        super().__init__(message)


class UnknownToolError(ToolError):
    """No tool of that name is registered for the session."""


class UnsupportedToolError(ToolError):
    """The tool exists but does not run on this platform, driver or agent mode."""


class ToolArgumentError(ToolError):
    """The arguments of a tool call do not match the tool's parameters."""


class ToolFailure(ToolError, AssertionError):
    """The tool ran and reported failure, e.g. an assertion that did not hold."""


class FatalToolError(ToolError):
    """The machinery under a tool broke (a dead server, a closed browser)."""


class StepFailure(TrailblazeError, AssertionError):
    """A trail step failed; rendered by the plugin as a pytest failure."""


class AgentStepRequired(StepFailure):
    """A step needs an agent (no recording for the device) and no agent took it."""


class AgentFailure(StepFailure):
    """The LLM agent could not do a step; the message names the model and the cause."""

    #: The agent's record of the failed attempt (its calls, tokens and price: an
    #: ``agent.loop.StepRun``, a class of a package above this one, hence untyped here), which
    #: reports count like a step's that passed.
    run: Any = None


def first_line(exc: BaseException, text: str | None = None) -> str:
    """The first line of an error's message (``text`` when the library keeps it elsewhere).

    Library errors carry call logs and stack dumps after their first line; messages quote only
    the cause. An error without a message is named by its type.
    """
    shown = (text or str(exc)).strip()
    return shown.splitlines()[0] if shown else type(exc).__name__
