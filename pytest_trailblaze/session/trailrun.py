"""One trail item's run: memory, registry, plan and runner, plus what the reports need.

The run knows no test framework: its host (the pytest plugin) hands it the item's facts, the
run's setup and the hooks it reports steps to and asks agents through, and turns its
``TrailSkipped`` into a skip.
"""

from __future__ import annotations

import shutil
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..core.errors import AgentStepRequired, TrailblazeError, TrailheadError, first_line
from ..core.masking import Masker
from ..core.run.driver import Driver, FileConfinement, Hierarchy, Screenshots
from ..core.run.runner import ResolvedStep, StepFailureInfo, TrailRunner, plan_trail
from ..core.tooling.context import DeviceInfo, ToolContext
from ..core.tooling.memory import Memory
from ..core.tooling.registry import ToolRegistry
from ..core.trail.lineage import resolve
from ..workspace import Workspace, code_roots, toolbox
from .artifacts import display_path
from .settings import AgentSettings, EvidenceSettings, Settings
from .trail_items import ItemFacts


class TrailSkipped(TrailblazeError):
    """The trail does not run here (a ``config.skip`` for the live device, an agent step no agent
    takes under ``--trailblaze-agent-steps skip``); the message says why. The pytest plugin reports
    it as a skip: nothing failed."""


class TrailHooks(Protocol):
    """What a trail run tells its host and asks of it; the pytest plugin answers with its hooks."""

    def step_started(self, step: ResolvedStep, ctx: ToolContext) -> None: ...

    def step_finished(self, step: ResolvedStep, ctx: ToolContext, error: BaseException | None) -> None: ...

    def has_agent(self) -> bool:
        """Whether anything takes agent steps (decided before the first step runs)."""
        ...

    def agent_step(self, step: ResolvedStep, ctx: ToolContext) -> object:
        """Take an agent step: None declines it, anything else is the step done."""
        ...

    def publish(self, properties: list[tuple[str, str]]) -> None:
        """The run's report properties, as they stand (after set-up, the trailhead, the steps)."""
        ...


@dataclass(frozen=True)
class RunSetup:
    """What every trail of a run shares: the settings it was told, its masking filter, its root
    folder, and what stops a tool call from outside the trail (pytest-timeout's ``pytest.fail``)."""

    settings: Settings
    agent: AgentSettings
    evidence: EvidenceSettings
    masker: Masker
    rootpath: Path
    stops: tuple[type[BaseException], ...] = ()


class _StepEvents:
    """The runner's step events, handed to the host's hooks with the run's tool context."""

    def __init__(self, hooks: TrailHooks, ctx: ToolContext) -> None:
        self.hooks = hooks
        self.ctx = ctx

    def step_started(self, step: ResolvedStep) -> None:
        self.hooks.step_started(step, self.ctx)

    def step_finished(self, step: ResolvedStep, error: BaseException | None) -> None:
        self.hooks.step_finished(step, self.ctx, error)


class TrailRun:
    """Runs one trail item: the trailhead (``start``), then its steps (``run_steps``).

    Raises ``TrailSkipped`` where the trail does not run here; ``properties`` are the facts the
    reports show (what ran, where it failed, its screenshot).
    """

    def __init__(
        self,
        item: ItemFacts,
        driver: Driver | None,
        device: DeviceInfo,
        registry: ToolRegistry,
        memory: Memory,
        setup: RunSetup,
        *,
        hooks: TrailHooks,
        artifacts: Path,
    ) -> None:
        self.item = item
        self.driver = driver
        self.device = device
        self.settings = settings = setup.settings
        self.evidence = setup.evidence
        self.hooks = hooks
        self.screenshot: str | None = None
        self._check_device_skip(device)
        self.plan = plan_trail(item.trail, device.chain(), use_recordings=not setup.agent.ai_only)
        self._check_agent_policy()
        self.masker = setup.masker
        self.artifacts = artifacts
        self.server_logs: list[Path] = []
        shutil.rmtree(self.artifacts, ignore_errors=True)
        ctx = ToolContext(registry, memory, device, driver, str(item.path), self.artifacts)
        config_dir = item.workspace.config_dir if item.workspace else None
        ctx.code = code_roots(setup.rootpath, config_dir, settings.allow_outside_code)
        if isinstance(driver, FileConfinement):  # file:// pages: workspace, rootdir, what the user allowed
            driver.confine_file_urls((*ctx.code.roots, *settings.file_url_roots))
        ctx.toolbox = tuple(toolbox(item.workspace or Workspace(None), item.target, registry))
        self.runner = TrailRunner(
            self.plan,
            ctx,
            agent=hooks.agent_step,
            self_heal=setup.agent.self_heal,
            stops=setup.stops,
        )
        self.runner.listeners.append(_StepEvents(hooks, ctx))
        self.publish()

    @property
    def context(self) -> ToolContext:
        return self.runner.ctx

    def _check_device_skip(self, device: DeviceInfo) -> None:
        """``config.skip`` keyed by a full classifier (``android-tablet``) needs the live device."""
        hit = resolve(self.item.trail.config.skip, device.chain())
        if hit and hit[1].strip():
            raise TrailSkipped(f"config.skip for {hit[0]}: {hit[1].strip()}")

    def _check_agent_policy(self) -> None:
        if self.settings.agent_steps != "skip" or not self.plan.agent_steps():
            return
        if self.hooks.has_agent():
            return
        first = self.plan.agent_steps()[0]
        raise TrailSkipped(f"{first.label} needs an agent: no recording for {first.classifier}")

    # -- phases -------------------------------------------------------------------------------
    def start(self) -> None:
        """Run the trailhead; a failure is a setup ERROR with a screenshot."""
        try:
            self.runner.run_trailhead()
        except TrailheadError as exc:
            self._capture(exc)
            raise
        finally:
            self.publish()

    def run_steps(self) -> None:
        try:
            self.runner.run_steps()
        except AgentStepRequired as exc:
            if self.settings.agent_steps == "skip":
                raise TrailSkipped(first_line(exc)) from None
            self._capture(exc)
            raise
        except TrailblazeError as exc:
            self._capture(exc)
            raise
        finally:
            self.publish()

    def _capture(self, exc: TrailblazeError) -> None:
        """Keep the evidence of a failure in the test's artifacts: server logs, a screenshot and
        the screen's structure (unless ``--trailblaze-screenshot off``)."""
        self._copy_server_logs()
        if not self.evidence.failure_screenshot:
            return
        if isinstance(self.driver, Screenshots):
            self._screenshot(exc, self.driver)
        self._save_source(exc)

    def _save_source(self, exc: TrailblazeError) -> None:
        """Appium's page source (XML) or the web page's aria snapshot at the failure, masked."""
        if not isinstance(self.driver, Hierarchy):
            return
        read = self.driver.hierarchy
        name = "failure-page.aria.yaml" if self.device.platform == "web" else "failure-source.xml"
        try:
            text = read()
        except Exception as source_error:  # as for the screenshot: the failure matters more
            note = f"\n  page source: not read ({type(source_error).__name__}: {first_line(source_error)})"
            exc.args = (f"{exc.args[0]}{note}",)
            return
        path = self.context.write_artifact(name, str(text))  # masked there, by the run's secrets too
        exc.args = (f"{exc.args[0]}\n  page source: {display_path(path)}",)

    def _screenshot(self, exc: TrailblazeError, driver: Screenshots) -> None:
        try:
            path = driver.screenshot(self.artifacts / "failure.png")
        except Exception as shot_error:  # the failure itself matters more than its picture
            note = f"\n  screenshot: not taken ({type(shot_error).__name__}: {first_line(shot_error)})"
            exc.args = (f"{exc.args[0]}{note}",)
            return
        self.screenshot = display_path(path)
        if isinstance(exc, StepFailureInfo):
            exc.with_screenshot(self.screenshot)
        else:
            exc.args = (f"{exc.args[0]}\n  screenshot: {self.screenshot}",)

    def _copy_server_logs(self) -> None:
        for log in self.server_logs:
            self.artifacts.mkdir(parents=True, exist_ok=True)
            with suppress(OSError):
                shutil.copyfile(log, self.artifacts / self.masker.name(f"mcp-{log.name}"))

    # -- reporting ----------------------------------------------------------------------------
    def properties(self) -> list[tuple[str, str]]:
        runner, trail = self.runner, self.item.trail
        props = [
            ("trail_id", self.item.trail_id),
            ("platform", self.device.platform),
            ("classifier", self.device.classifier),
            ("driver", self.device.driver_key),
            ("steps_run", f"{runner.steps_run}/{len(trail.steps)}"),
        ]
        if runner.failed is not None:
            props.append(("failing_step", f"{runner.failed.label}: {runner.failed.step.text}"))
        if self.screenshot:
            props.append(("screenshot", self.screenshot))
        return props

    def publish(self) -> list[tuple[str, str]]:
        """Hand the report properties to the host (the plugin puts them on the item: they travel
        to xdist's controller), and return them."""
        properties = self.properties()
        self.hooks.publish(properties)
        return properties
