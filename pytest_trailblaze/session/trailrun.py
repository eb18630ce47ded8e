"""One trail item's run: memory, registry, plan and runner, plus what the reports need.

Sessions are scoped as upstream (target, platform, driver, agent mode): one registry per
scope per worker, built on first use from the built-in tools and the tool catalog that
``pytest_trailblaze_register_tools`` filled.
"""

from __future__ import annotations

import shutil
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from ..core.errors import AgentStepRequired, TrailblazeError, TrailheadError, first_line
from ..core.run.runner import ResolvedStep, StepFailureInfo, TrailRunner, plan_trail
from ..core.tooling.context import DeviceInfo, ToolContext
from ..core.tooling.memory import Memory
from ..core.tooling.registry import ToolRegistry
from ..core.trail.lineage import resolve
from ..plugin.agent import AGENT_KEY
from ..plugin.evidence_options import evidence_of
from ..plugin.output_masking import masker_of
from ..workspace import Workspace, code_roots, toolbox
from .artifacts import _display, item_artifacts
from .settings import Settings


class StepHooks:
    """Forwards the runner's step events to the ``pytest_trailblaze_*_step`` hooks (the one
    step observer: progress, records, reports and other plugins all implement those hooks)."""

    def __init__(self, item: Any, ctx: ToolContext) -> None:
        self.item = item
        self.ctx = ctx
        self.hook = item.config.hook

    def step_started(self, step: ResolvedStep) -> None:
        self.hook.pytest_trailblaze_before_step(step=step, context=self.ctx, item=self.item)

    def step_finished(self, step: ResolvedStep, error: BaseException | None) -> None:
        if error is None:
            self.hook.pytest_trailblaze_after_step(step=step, context=self.ctx, item=self.item)
        else:
            self.hook.pytest_trailblaze_step_error(step=step, context=self.ctx, item=self.item, error=error)


class TrailRun:
    """Runs one trail item: the trailhead in setup, the steps in the call phase."""

    def __init__(
        self,
        item: Any,
        driver: Any,
        device: DeviceInfo,
        registry: ToolRegistry,
        memory: Memory,
        settings: Settings,
    ) -> None:
        self.item = item
        self.driver = driver
        self.device = device
        self.settings = settings
        self.screenshot: str | None = None
        self._check_device_skip(device)
        agent_settings = item.config.stash[AGENT_KEY]
        self.plan = plan_trail(item.trail, device.chain(), use_recordings=not agent_settings.ai_only)
        self._check_agent_policy()
        self.masker = masker_of(item.config)
        self.artifacts = item_artifacts(item, settings)
        self.server_logs: list[Path] = []
        shutil.rmtree(self.artifacts, ignore_errors=True)
        ctx = ToolContext(registry, memory, device, driver, str(item.path), self.artifacts)
        config_dir = item.workspace.config_dir if item.workspace else None
        ctx.code = code_roots(item.config.rootpath, config_dir, settings.allow_outside_code)
        confine = getattr(driver, "confine_file_urls", None)
        if callable(confine):  # file:// pages: the workspace, the rootdir and what the user allowed
            confine((*ctx.code.roots, *settings.file_url_roots))
        ctx.toolbox = tuple(toolbox(item.workspace or Workspace(None), item.target, registry))
        self.runner = TrailRunner(
            self.plan,
            ctx,
            agent=self._agent,
            self_heal=agent_settings.self_heal,
            stops=(pytest.fail.Exception,),  # pytest-timeout's signal method, pytest.fail() in a tool
        )
        self.runner.listeners.append(StepHooks(item, ctx))
        self.publish()

    @property
    def context(self) -> ToolContext:
        return self.runner.ctx

    def _check_device_skip(self, device: DeviceInfo) -> None:
        """``config.skip`` keyed by a full classifier (``android-tablet``) needs the live device."""
        hit = resolve(self.item.trail.config.skip, device.chain())
        if hit and hit[1].strip():
            pytest.skip(f"config.skip for {hit[0]}: {hit[1].strip()}")

    def _check_agent_policy(self) -> None:
        if self.settings.agent_steps != "skip" or not self.plan.agent_steps():
            return
        if self.item.config.pluginmanager.hook.pytest_trailblaze_agent_step.get_hookimpls():
            return
        first = self.plan.agent_steps()[0]
        pytest.skip(f"{first.label} needs an agent: no recording for {first.classifier}")

    def _agent(self, step: ResolvedStep, ctx: ToolContext) -> Any:
        hook = self.item.config.hook.pytest_trailblaze_agent_step
        return hook(step=step, context=ctx, item=self.item)

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
                pytest.skip(first_line(exc))
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
        if not evidence_of(self.item.config).failure_screenshot:
            return
        if hasattr(self.driver, "screenshot"):
            self._screenshot(exc)
        self._save_source(exc)

    def _save_source(self, exc: TrailblazeError) -> None:
        """Appium's page source (XML) or the web page's aria snapshot at the failure, masked."""
        read = getattr(self.driver, "hierarchy", None)
        if read is None:
            return
        name = "failure-page.aria.yaml" if self.device.platform == "web" else "failure-source.xml"
        try:
            text = read()
        except Exception as source_error:  # as for the screenshot: the failure matters more
            note = f"\n  page source: not read ({type(source_error).__name__}: {first_line(source_error)})"
            exc.args = (f"{exc.args[0]}{note}",)
            return
        path = self.context.write_artifact(name, str(text))  # masked there, by the run's secrets too
        exc.args = (f"{exc.args[0]}\n  page source: {_display(path)}",)

    def _screenshot(self, exc: TrailblazeError) -> None:
        try:
            path = self.driver.screenshot(self.artifacts / "failure.png")
        except Exception as shot_error:  # the failure itself matters more than its picture
            note = f"\n  screenshot: not taken ({type(shot_error).__name__}: {first_line(shot_error)})"
            exc.args = (f"{exc.args[0]}{note}",)
            return
        self.screenshot = _display(path)
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

    def publish(self) -> None:
        """Write the report properties onto the item (they travel to xdist's controller)."""
        ours = {name for name, _ in self.properties()} | {"failing_step", "screenshot"}
        kept = [(k, v) for k, v in self.item.user_properties if k not in ours]
        self.item.user_properties[:] = [*kept, *self.properties()]


