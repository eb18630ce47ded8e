"""What a tool sees when it runs: the device, memory, driver, and a way to call other tools."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import FatalToolError, ToolError
from ..jsondata import JsonObject, JsonValue
from ..system.pycall import CodeRoots
from ..trail.devices import form_factor
from ..trail.lineage import resolution_chain, segments_for
from .memory import Memory
from .registry import MAX_DEPTH, ToolLogEntry, ToolRegistry
from .tooldef import ToolDescriptor, ToolResult

if TYPE_CHECKING:  # the driver contract names DeviceInfo, so it is imported for annotations only
    from ..run.driver import Driver


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """The measured device: size in pixels, optional density, and the classifier it implies.

    A device profile that names its type (``android-tablet``) declares the form factor; the
    size decides only for devices that do not say.
    """

    platform: str
    driver_key: str
    width: int
    height: int
    density: float | None = None
    declared_form_factor: str | None = None

    @property
    def form_factor(self) -> str | None:
        if self.declared_form_factor:
            return self.declared_form_factor
        return form_factor(self.platform, self.width, self.height, self.density)

    @property
    def segments(self) -> tuple[str, ...]:
        return segments_for(self.platform, self.form_factor)

    @property
    def classifier(self) -> str:
        return "-".join(self.segments)

    def chain(self) -> tuple[str, ...]:
        return resolution_chain(self.segments)

    def as_context(self) -> JsonObject:
        """The ``device`` block handed to tool servers (``_trailblazeContext``)."""
        return {
            "platform": self.platform,
            "widthPixels": self.width,
            "heightPixels": self.height,
            "driverType": self.driver_key,
        }


@dataclass
class ToolContext:
    """The first argument of every tool function."""

    registry: ToolRegistry
    memory: Memory
    device: DeviceInfo
    #: The device's driver (``core/run/driver.py``); None where nothing drives a device (checks).
    driver: Driver | None = None
    trail_path: str | None = None
    artifacts_dir: Path | None = None
    depth: int = 0
    call_chain: tuple[str, ...] = ()
    tool_log: list[ToolLogEntry] = field(default_factory=list)
    #: Index in ``tool_log`` of the call that made the calls of this context (set by ``run``).
    log_parent: int | None = None
    #: Index in ``tool_log`` of the call running in this context, and its tool (set by the registry).
    current_entry: int | None = None
    current_tool: str | None = None
    #: The tools an agent is offered in this session (empty when there is no workspace).
    toolbox: tuple[ToolDescriptor, ...] = ()
    #: Where Python files named at run time (the ``script`` tool) may lie; None: anywhere.
    code: CodeRoots | None = None
    #: Asks a model about the current screen, for the tools that need a model's judgement
    #: (``rememberWithAi``, ``assertWithAi``...); None when the run has no model. It is the agent's
    #: ``Judge``, a class of a package above this one, hence untyped here.
    judge: Any = None

    @property
    def platform(self) -> str:
        return self.device.platform

    def run(self, name: str, params: Mapping[str, JsonValue] | None = None) -> ToolResult:
        """Call another tool through the same dispatcher; failures raise."""
        caller = self.call_chain or ((self.current_tool,) if self.current_tool else ())
        if self.depth + 1 > MAX_DEPTH:
            chain = " -> ".join((*caller, name))
            raise FatalToolError(
                f"tool calls nested deeper than {MAX_DEPTH} levels: {chain}\n"
                f"  fix: a tool probably calls itself; break the cycle",
                tool=name,
            )
        nested = ToolContext(
            registry=self.registry,
            memory=self.memory,
            device=self.device,
            driver=self.driver,
            trail_path=self.trail_path,
            artifacts_dir=self.artifacts_dir,
            depth=self.depth + 1,
            call_chain=(*caller, name),
            tool_log=self.tool_log,
            log_parent=self.current_entry,
            toolbox=self.toolbox,
            code=self.code,
            judge=self.judge,
        )
        return self.registry.execute(name, dict(params or {}), nested)

    def execute(self, name: str, params: Mapping[str, JsonValue] | None = None) -> dict[str, str]:
        """Synchronously run another tool; recoverable failures come back as an Error object.

        Returns ``{"type": "Success", "message": ...}`` or ``{"type": "Error", "message": ...}``.
        Fatal errors (a broken driver, nesting too deep) raise instead.
        """
        try:
            result = self.run(name, params)
        except FatalToolError:
            raise
        except ToolError as exc:
            return {"type": "Error", "message": self.memory.mask(str(exc))}
        return {"type": "Success", "message": result.message}

    def artifact(self, filename: str) -> Path:
        """A path inside this test's artifacts folder (created on demand); secrets in the name masked."""
        path = (self.artifacts_dir or Path.cwd() / "trailblaze-output") / self.memory.masker.name(filename)
        path.parent.mkdir(parents=True, exist_ok=True)
        return path

    def write_artifact(self, filename: str, text: str) -> Path:
        """Write a text artifact with secrets masked in its name and its content."""
        path = self.artifact(filename)
        path.write_text(self.memory.mask(text), encoding="utf-8")
        return path
