"""What a run was told, resolved once (``run_options`` and ``agent_options`` read options and ini
keys into these)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.jsondata import JsonValue
from ..core.system.files import DEFAULT_MAX_BYTES

if TYPE_CHECKING:  # annotations only: an xdist controller reads settings without the drivers
    from ..agent import LlmSpec
    from ..drivers.appium_settings import AppiumSettings
    from ..drivers.browser_options import BrowserOptions


@dataclass(frozen=True)
class Settings:
    """Everything the plugin was told; nothing else reads pytest options.

    Built only by ``run_options.read_settings``: the defaults live with the options and ini keys
    (``option_table``).
    """

    patterns: tuple[str, ...]
    output_dir: Path
    browser: BrowserOptions
    memory: Mapping[str, str]
    secrets: Mapping[str, str] = field(repr=False)  # never in a repr: tracebacks show locals
    #: ``--trailblaze-arg`` values (text) over the ``--trailblaze-args-file`` ones (plain values).
    args: Mapping[str, JsonValue]
    agent_steps: str
    default_platform: str
    agent_mode: str
    driver_override: str | None
    full_trace: bool
    config_dir: Path | None
    strict: bool
    #: Python files named by trails and tool files may lie outside the workspace root.
    allow_outside_code: bool
    mcp_handshake_timeout: float
    mcp_call_timeout: float
    appium: AppiumSettings
    #: Trail and workspace files larger than this are refused (``--trailblaze-max-file-size``).
    max_file_bytes: int = DEFAULT_MAX_BYTES
    #: Folders ``file://`` URLs may open besides the trail's workspace and the rootdir.
    file_url_roots: tuple[Path, ...] = ()

    def args_for(self, declared: Mapping[str, object]) -> dict[str, JsonValue]:
        """The ``--trailblaze-arg`` / args-file values a trail declares (others belong to other trails)."""
        return {k: v for k, v in self.args.items() if k in declared}


@dataclass(frozen=True)
class EvidenceSettings:
    """What evidence the run keeps; every field defaults to the cheapest useful choice."""

    #: Where the self-contained HTML report goes (None: no report).
    report: Path | None = None
    #: ``on``: after every step; ``only-on-failure`` (default): when a trail fails; ``off``.
    screenshot: str = "only-on-failure"
    #: Playwright traces of web trails: ``on``, ``off`` (default) or ``retain-on-failure``.
    tracing: str = "off"
    #: Videos (Playwright web, Appium screen recording): ``on``, ``off`` or ``retain-on-failure``.
    video: str = "off"

    @property
    def failure_screenshot(self) -> bool:
        return self.screenshot != "off"

    @property
    def step_screenshots(self) -> bool:
        return self.screenshot == "on"

    @staticmethod
    def keep(mode: str, failed: bool) -> bool:
        """Whether a trace or video recorded under ``mode`` is kept for a trail that ``failed``."""
        return mode == "on" or (mode == "retain-on-failure" and failed)


@dataclass(frozen=True)
class AgentSettings:
    """The agent options of the run; ``spec`` is None when no model is set outside workspaces."""

    spec: LlmSpec | None
    base_url: str | None
    timeout_s: float
    screenshots: str
    ai_only: bool
    self_heal: bool
    max_calls: int | None
    save_recordings: bool
