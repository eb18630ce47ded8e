"""One trail item's run: memory, registry, plan and runner, plus what the reports need.

Sessions are scoped as upstream (target, platform, driver, agent mode): one registry per
scope per worker, built on first use from the built-in tools and the tool catalog that
``pytest_trailblaze_register_tools`` filled.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from ..core.errors import AgentStepRequired, RegistryError, TrailblazeError, TrailheadError, first_line
from ..core.run.runner import ResolvedStep, StepFailureInfo, TrailRunner, plan_trail
from ..core.tooling.context import DeviceInfo, ToolContext
from ..core.tooling.memory import Memory
from ..core.tooling.registry import ToolRegistry
from ..core.tooling.tooldef import Tool, ToolResult
from ..core.trail.lineage import resolve
from ..mcp.server_tools import naming_findings
from ..mcp.toolsets import McpToolsets
from ..tools import builtin_tools
from ..workspace import Target, Workspace, code_roots, toolbox
from .agent import AGENT_KEY
from .collection import warn_at
from .evidence_options import evidence_of
from .options import SETTINGS_KEY, Settings
from .output_masking import masker_of

CATALOG_KEY = pytest.StashKey["ToolCatalog"]()


class ToolCatalog:
    """Tools contributed by plugins and conftest files, shared by every session registry."""

    def __init__(self) -> None:
        self._tools: list[Tool] = []

    def register(self, tool: Tool) -> None:
        if not isinstance(tool, Tool):
            raise TypeError(f"register() takes a tool made with @trailblaze.tool, not {type(tool).__name__}")
        self._tools.append(tool)

    def tools(self) -> list[Tool]:
        return list(self._tools)


class HookObserver:
    """Forwards every tool call of a registry to the ``pytest_trailblaze_*_tool`` hooks."""

    def __init__(self, hook: Any) -> None:
        self.hook = hook

    def before_tool(self, name: str, args: Mapping[str, Any], ctx: Any) -> None:
        self.hook.pytest_trailblaze_before_tool(name=name, args=args, context=ctx)

    def after_tool(self, name: str, args: Mapping[str, Any], result: ToolResult, ctx: Any) -> None:
        self.hook.pytest_trailblaze_after_tool(name=name, args=args, result=result, context=ctx)

    def tool_error(self, name: str, args: Mapping[str, Any], error: BaseException, ctx: Any) -> None:
        self.hook.pytest_trailblaze_tool_error(name=name, args=args, error=error, context=ctx)


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


class SessionRegistries:
    """Registries per session scope for this worker: (workspace, target, platform, driver, agent mode).

    A scope's registry holds the built-in tools, the workspace's tools, the catalog's tools and
    the tools of the target's MCP servers (started when the scope's first trail needs them). A
    scope that failed to build fails the same way for every later trail, without retrying.
    """

    def __init__(self, catalog: ToolCatalog, hook: Any, mcp: McpToolsets, *, strict: bool = False) -> None:
        self.catalog = catalog
        self.hook = hook
        self.mcp = mcp
        #: ``--trailblaze-strict``: naming findings on servers' tools are errors of the scope's trails.
        self.strict = strict
        self._registries: dict[tuple[Any, ...], ToolRegistry] = {}
        self._failures: dict[tuple[Any, ...], TrailblazeError] = {}

    @staticmethod
    def scope(
        workspace: Workspace | None, target: Target | None, device: DeviceInfo, agent_mode: str
    ) -> tuple[Any, ...]:
        return (
            workspace.config_dir if workspace else None,
            target.id if target else "",
            device.platform,
            device.driver_key,
            agent_mode,
        )

    def get(
        self, *, workspace: Workspace | None, target: Target | None, device: DeviceInfo, agent_mode: str
    ) -> ToolRegistry:
        key = self.scope(workspace, target, device, agent_mode)
        if key in self._failures:
            raise type(self._failures[key])(str(self._failures[key]))
        if key not in self._registries:
            try:
                self._registries[key] = self._build(key, workspace, target, device, agent_mode)
            except TrailblazeError as exc:
                self._failures[key] = exc
                raise
        self.mcp.check_alive(key)
        return self._registries[key]

    def _build(
        self,
        key: tuple[Any, ...],
        workspace: Workspace | None,
        target: Target | None,
        device: DeviceInfo,
        agent_mode: str,
    ) -> ToolRegistry:
        registry = ToolRegistry(platform=device.platform, driver_key=device.driver_key, agent_mode=agent_mode)
        registry.register_all(builtin_tools())
        registry.register_all(self._workspace_tools(key, workspace, target, device))
        registry.register_all(self.catalog.tools())
        if target is not None and target.mcp_servers:
            served = self.mcp.tools_for(key, target, device, agent_mode)
            findings = naming_findings(served, target.span, strict=self.strict)
            if self.strict and findings:  # as `trailblaze check --strict` reports them: errors
                raise RegistryError("\n".join(finding.format() for finding in findings))
            for finding in findings:
                warn_at(finding, str(target.source))
            registry.register_all(served)
        registry.observers.append(HookObserver(self.hook))
        return registry

    def _workspace_tools(
        self, key: tuple[Any, ...], workspace: Workspace | None, target: Target | None, device: DeviceInfo
    ) -> list[Tool]:
        """The workspace's tools, its TypeScript tools bound to this scope's hosts."""
        tools = list(workspace.tools) if workspace else []
        if not workspace or not workspace.ts_tools:
            return tools
        from ..typescript.hosts import TsHosts
        from ..typescript.ts_tools import TsTool, bind

        scripted = [t for t in tools if isinstance(t, TsTool)]
        return bind(tools, TsHosts.of(self.mcp).binding(key, target, device, scripted))


#: Characters of the test id kept in an artifact folder's name (its end: trail name and platform).
SLUG_CHARS = 120


def artifacts_dir(settings: Settings, nodeid: str) -> Path:
    """A per-test folder: the end of the test id made file-safe, then a short hash of the whole id.

    The hash keeps apart two ids that differ only where the slug was cut or where it folded
    characters together; it has no salt or counter, so a test finds its folder on every run.
    """
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", nodeid).strip("-")[-SLUG_CHARS:].lstrip("-.")
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:10]
    return settings.output_dir / (f"{slug}-{digest}" if slug else digest)


def item_artifacts(item: pytest.Item, settings: Settings | None = None) -> Path:
    """The artifacts folder of a trail item: its test id, secrets masked, under the output folder
    of ``settings`` (the run's unless a ``trailblaze_settings`` override hands others)."""
    chosen = settings if settings is not None else item.config.stash[SETTINGS_KEY]
    return artifacts_dir(chosen, masker_of(item.config).name(item.nodeid))


def seed_memory(trail: Any, settings: Settings, defaults: Mapping[str, Any]) -> Memory:
    """``defaults`` < ``config.memory`` < ``--trailblaze-memory`` < ``--trailblaze-secret``, then args."""
    blank = os.environ.get("TRAILBLAZE_MEMORY_BLANK_UNKNOWN_TOKENS", "").lower() in ("1", "true")
    memory = Memory(blank_unknown=blank)
    memory.seed(defaults)
    memory.seed(trail.config.memory)
    memory.seed(settings.memory)
    memory.seed(settings.secrets, secret=True)
    memory.bind_args(trail.config.args, settings.args_for(trail.config.args))
    return memory


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


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
