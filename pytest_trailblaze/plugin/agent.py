"""The built-in LLM agent in pytest: options, the agent-step hook, recording write-back, reports.

``--trailblaze-llm`` (else ini ``trailblaze_llm``, env ``TRAILBLAZE_LLM_MODEL``, workspace
``llm: defaults: model:``) turns the agent on: steps without a recording for the device go to it,
``--trailblaze-self-heal`` hands it failed recorded steps, ``--trailblaze-ai-only`` everything.
``--trailblaze-save-recordings`` writes what it did into the trail files after a trail passed.
What a model can take and costs comes from ``agent.models``, overridden by a workspace's
``llm: models:``; usage and cost are reported by ``agent_reports``.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from dataclasses import replace
from typing import Any

import pytest

from ..agent import EXTRA_HINT, AgentLoop, LlmSpec, Provider, StepRun, make_provider, parse_model, require_sdk
from ..agent.agent_tools import TOOLS
from ..agent.judgement import Judge
from ..agent.models import facts_for
from ..agent.prompt import previous_step
from ..agent.spec import DEFAULT_MAX_CALLS, DEFAULT_TIMEOUT_S, base_url_for
from ..core.errors import AgentFailure, ConfigurationError
from ..session.agent_writeback import save_agent_recordings
from ..session.settings import AgentSettings
from .agent_reports import JUDGE_KEY, REPORTS_PLUGIN, RUNS_KEY, AgentReports

AGENT_KEY = pytest.StashKey["AgentSettings"]()


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("trailblaze")

    def option(name: str, ini_type: str | None = None, **cli: Any) -> None:
        group.addoption(f"--trailblaze-{name}", dest=f"trailblaze_{name.replace('-', '_')}", **cli)
        parser.addini(f"trailblaze_{name.replace('-', '_')}", help=cli["help"], type=ini_type)

    option(
        "llm",
        metavar="PROVIDER/MODEL",
        help="model for steps without a recording, e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, "
        "google/gemini-2.5-flash or azure/<deployment> (or TRAILBLAZE_LLM_MODEL); needs the provider's "
        f"extra (agent-openai, agent-anthropic, agent-google) or all of them: {EXTRA_HINT}",
    )
    option(
        "llm-base-url",
        metavar="URL",
        help="OpenAI-compatible server (Ollama, vLLM, LM Studio...), the Azure OpenAI endpoint, "
        "or another Anthropic or Gemini endpoint; default OPENAI_BASE_URL / AZURE_OPENAI_ENDPOINT / "
        "ANTHROPIC_BASE_URL / GOOGLE_GEMINI_BASE_URL",
    )
    option(
        "llm-timeout",
        metavar="SECONDS",
        help=f"how long one model request may take (default {DEFAULT_TIMEOUT_S:g})",
    )
    option(
        "llm-screenshots",
        choices=("auto", "on", "off"),
        help="send a screenshot with each screen: auto (default) = for models known to take "
        "images (trailblaze.yaml llm.models.<model>.vision overrides)",
    )
    option(
        "ai-only",
        "bool",
        action="store_true",
        default=None,
        help="ignore recordings: the agent does every step (the trailhead still replays)",
    )
    option(
        "self-heal",
        "bool",
        action="store_true",
        default=None,
        help="when a recorded tool of a `step:` "
        "fails, let the agent do the step (or TRAILBLAZE_SELF_HEAL_ENABLED=true)",
    )
    option(
        "max-llm-calls",
        metavar="N",
        help=f"LLM calls allowed per step (default {DEFAULT_MAX_CALLS}, or TRAILBLAZE_MAX_LLM_CALLS)",
    )
    option(
        "save-recordings",
        "bool",
        action="store_true",
        default=None,
        help="write what the agent did "
        "into the trail files, under the device's classifier, after the trail passed",
    )


def _pick(config: pytest.Config, name: str) -> Any:
    cli = getattr(config.option, f"trailblaze_{name}", None)
    return cli if cli not in (None, "") else config.getini(f"trailblaze_{name}") or None


def resolve(config: pytest.Config) -> AgentSettings:
    """Read the agent options once; a bad value is a usage error naming the option."""
    try:
        return _resolve(config)
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None


def _resolve(config: pytest.Config) -> AgentSettings:
    env_heal = os.environ.get("TRAILBLAZE_SELF_HEAL_ENABLED", "").strip().lower()
    settings = AgentSettings(
        spec=None,
        base_url=_pick(config, "llm_base_url"),
        timeout_s=_number(_pick(config, "llm_timeout"), "--trailblaze-llm-timeout", DEFAULT_TIMEOUT_S),
        screenshots=_choice(_pick(config, "llm_screenshots") or "auto"),
        ai_only=bool(_pick(config, "ai_only")),
        self_heal=bool(_pick(config, "self_heal")) or env_heal in ("1", "true", "yes"),
        max_calls=_calls(_pick(config, "max_llm_calls") or os.environ.get("TRAILBLAZE_MAX_LLM_CALLS")),
        save_recordings=bool(_pick(config, "save_recordings")),
    )
    model = _pick(config, "llm") or os.environ.get("TRAILBLAZE_LLM_MODEL") or None
    if model is None:
        return settings
    spec = spec_of(settings, model, "--trailblaze-llm")
    require_sdk(spec)
    return replace(settings, spec=spec)


def spec_of(settings: AgentSettings, model: str, where: str, workspace: Any = None) -> LlmSpec:
    """The model with its endpoint and facts (images, forced tool calls, price): the built-in
    table, then the workspace's ``llm: models:`` entry for it."""
    provider, name = parse_model(model, where)
    base_url = base_url_for(provider, settings.base_url)
    if provider == "azure" and not base_url:
        raise ConfigurationError(
            f"{where} {model}: Azure OpenAI needs its endpoint\n"
            "  fix: export AZURE_OPENAI_ENDPOINT=https://<resource>.openai.azure.com, "
            "or pass --trailblaze-llm-base-url"
        )
    hosted = not base_url or provider == "azure"
    models = workspace_llm(workspace).get("models")
    facts = facts_for(provider, name, hosted=hosted, overrides=models, where="trailblaze.yaml llm.models")
    shots = settings.screenshots == "on" or (settings.screenshots == "auto" and facts.vision)
    return LlmSpec(
        provider,
        name,
        base_url,
        settings.timeout_s,
        screenshots=shots,
        forced_tools=facts.forced_tools,
        price=facts.price,
    )


def _choice(value: str) -> str:
    if value not in ("auto", "on", "off"):
        raise ConfigurationError(f"trailblaze_llm_screenshots expects auto, on or off, got {value!r}")
    return value


def _number(text: Any, option: str, default: float) -> float:
    if text in (None, ""):
        return default
    try:
        value = float(str(text))
    except ValueError:
        raise ConfigurationError(f"{option} expects a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise ConfigurationError(f"{option} must be a positive number of seconds, got {text!r}")
    return value


def _calls(text: Any) -> int | None:
    if text in (None, ""):
        return None
    if not str(text).strip().isdigit() or int(text) < 1:
        raise ConfigurationError(
            f"--trailblaze-max-llm-calls expects a whole number of 1 or more, got {text!r}"
        )
    return int(text)


# -- the agent -----------------------------------------------------------------------------------------
class BuiltinAgent:
    """Takes agent steps for items whose model is known; registered only when a model is set."""

    def __init__(self, settings: AgentSettings) -> None:
        self.settings = settings
        self._providers: dict[LlmSpec, Provider] = {}
        self._specs: dict[int, LlmSpec | None] = {}

    def spec_for(self, item: Any, *, installed: bool = True) -> LlmSpec | None:
        """The item's model: the option's, else its workspace's, with the workspace's facts;
        ``installed`` checks that its client library is there (naming the extra when not)."""
        workspace = getattr(item, "workspace", None)
        key = id(workspace)
        if key not in self._specs:
            self._specs[key] = self._spec(workspace)
        spec = self._specs[key]
        if spec is not None and installed and self.settings.spec is None:
            require_sdk(spec, "trailblaze.yaml llm.defaults.model")
        return spec

    def _spec(self, workspace: Any) -> LlmSpec | None:
        given = self.settings.spec
        if given is not None:
            if workspace_llm(workspace).get("models") is None:
                return given
            return spec_of(self.settings, given.name, "--trailblaze-llm", workspace)
        model = workspace_model(workspace)
        if model is None:
            return None
        return spec_of(self.settings, model, "trailblaze.yaml llm.defaults.model", workspace)

    def provider(self, spec: LlmSpec) -> Provider:
        if spec not in self._providers:
            self._providers[spec] = make_provider(spec)
        return self._providers[spec]

    @pytest.hookimpl(tryfirst=True)
    def pytest_trailblaze_before_step(self, step: Any, context: Any, item: Any) -> None:
        """Tools that ask the model about the screen (``rememberWithAi``...) get it, replayed or not."""
        if context.judge is not None:
            return
        try:
            spec = self.spec_for(item, installed=False)
        except ConfigurationError:  # said by the first step that needs the model
            return
        if spec is not None:

            def connect() -> Provider:
                return self.provider(self.spec_for(item) or spec)

            judge = Judge(connect, spec.name, spec.screenshots, spec.forced_tools, price=spec.price)
            context.judge = item.stash.setdefault(JUDGE_KEY, judge)

    @pytest.hookimpl(tryfirst=True)
    def pytest_trailblaze_agent_step(self, step: Any, context: Any, item: Any) -> StepRun | None:
        spec = self.spec_for(item)
        if spec is None:
            return None
        calls = self.settings.max_calls or workspace_max_calls(item.workspace) or DEFAULT_MAX_CALLS
        loop = AgentLoop(
            self.provider(spec), calls, spec.screenshots, item.trail.config.context, spec.forced_tools
        )
        runs = item.stash.setdefault(RUNS_KEY, [])
        previous = previous_step(item.trail, step, runs)
        attempts = (step.step.max_retries or 0) + 1  # `maxRetries: N` gives the agent N more attempts
        for attempt in range(1, attempts + 1):
            try:
                run = loop.run(step, context, previous)
            except AgentFailure as exc:
                exc.run.price = spec.price  # type: ignore[attr-defined]
                runs.append(exc.run)  # type: ignore[attr-defined]
                if attempt == attempts:
                    if attempts > 1:
                        exc.args = (f"{exc.args[0]}\n  attempts: {attempts} (maxRetries: {attempts - 1})",)
                    raise
                continue
            run.price = spec.price
            runs.append(run)
            return run
        return None

    def close(self) -> None:
        for provider in self._providers.values():
            closer = getattr(provider, "close", None)
            if closer is not None:
                closer()
        self._providers.clear()


def workspace_llm(workspace: Any) -> dict[str, Any]:
    """The ``llm:`` mapping of the workspace's ``trailblaze.yaml`` (empty without one)."""
    llm = getattr(getattr(workspace, "config", None), "llm", None)
    return llm if isinstance(llm, dict) else {}


def workspace_model(workspace: Any) -> str | None:
    """``llm: defaults: model:`` of the workspace's ``trailblaze.yaml``."""
    defaults = workspace_llm(workspace).get("defaults")
    model = defaults.get("model") if isinstance(defaults, dict) else None
    return str(model) if model else None


def workspace_max_calls(workspace: Any) -> int | None:
    defaults = getattr(getattr(workspace, "config", None), "defaults", None)
    return getattr(defaults, "max_llm_calls", None)


# -- hooks ---------------------------------------------------------------------------------------------
AGENT_PLUGIN = "trailblaze-llm-agent"


def pytest_configure(config: pytest.Config) -> None:
    settings = resolve(config)
    config.stash[AGENT_KEY] = settings
    if config.pluginmanager.get_plugin(REPORTS_PLUGIN) is None:
        config.pluginmanager.register(AgentReports(), REPORTS_PLUGIN)
    if settings.spec is not None:
        _register_agent(config)


def _register_agent(config: pytest.Config) -> None:
    if config.pluginmanager.get_plugin(AGENT_PLUGIN) is None:
        config.pluginmanager.register(BuiltinAgent(config.stash[AGENT_KEY]), AGENT_PLUGIN)


def pytest_unconfigure(config: pytest.Config) -> None:
    agent = config.pluginmanager.get_plugin(AGENT_PLUGIN)
    if agent is not None:
        agent.close()


def pytest_trailblaze_register_tools(registry: Any, config: pytest.Config) -> None:
    for tool in TOOLS:
        registry.register(tool)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A model named only in a workspace's trailblaze.yaml turns the agent on too."""
    if any(workspace_model(getattr(item, "workspace", None)) for item in items):
        _register_agent(config)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    """After a trail passed, write what the agent did into the trail file (when asked to)."""
    result = yield
    run = getattr(item, "funcargs", {}).get("trailblaze_run")
    settings = item.config.stash[AGENT_KEY]
    if run is not None and settings.save_recordings and item.stash.get(RUNS_KEY, None):
        written = save_agent_recordings(
            item.trail, item.path, item.stash[RUNS_KEY], run.context, run.device, heal=settings.self_heal
        )
        item.user_properties.extend(written)
    return result


