"""The agent's options, and what they and a workspace's ``llm:`` say the agent runs on.

``--trailblaze-llm`` (else ini ``trailblaze_llm``, env ``TRAILBLAZE_LLM_MODEL``, workspace
``llm: defaults: model:``) turns the agent on. What a model can take and costs comes from
``agent.models``, overridden by a workspace's ``llm: models:``. A bad value is a
``ConfigurationError`` naming the option.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from ..agent import EXTRA_HINT, LlmSpec, parse_model, require_sdk
from ..agent.spec import DEFAULT_MAX_CALLS, DEFAULT_TIMEOUT_S, base_url_for
from ..core.errors import ConfigurationError
from ..core.jsondata import JsonObject
from .option_table import IniSpec, IniType, OptionSpec
from .option_values import Given
from .settings import AgentSettings

if TYPE_CHECKING:  # an annotation: an xdist controller reads the agent's options without the loader
    from ..workspace.model import Workspace


def _agent(name: str, ini_type: IniType | None = None, **cli: object) -> OptionSpec:
    """``--trailblaze-<name>`` and ini key ``trailblaze_<name>`` (of ``ini_type``), one help."""
    key = f"trailblaze_{name.replace('-', '_')}"
    ini = IniSpec(key, str(cli["help"]), {"type": ini_type})
    return OptionSpec((f"--trailblaze-{name}",), key, cli, (ini,))


AGENT_OPTIONS: tuple[OptionSpec, ...] = (
    _agent(
        "llm",
        metavar="PROVIDER/MODEL",
        help="model for steps without a recording, e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5, "
        "google/gemini-2.5-flash or azure/<deployment> (or TRAILBLAZE_LLM_MODEL); needs the provider's "
        f"extra (agent-openai, agent-anthropic, agent-google) or all of them: {EXTRA_HINT}",
    ),
    _agent(
        "llm-base-url",
        metavar="URL",
        help="OpenAI-compatible server (Ollama, vLLM, LM Studio...), the Azure OpenAI endpoint, "
        "or another Anthropic or Gemini endpoint; default OPENAI_BASE_URL / AZURE_OPENAI_ENDPOINT / "
        "ANTHROPIC_BASE_URL / GOOGLE_GEMINI_BASE_URL",
    ),
    _agent(
        "llm-timeout",
        metavar="SECONDS",
        help=f"how long one model request may take (default {DEFAULT_TIMEOUT_S:g})",
    ),
    _agent(
        "llm-screenshots",
        choices=("auto", "on", "off"),
        help="send a screenshot with each screen: auto (default) = for models known to take "
        "images (trailblaze.yaml llm.models.<model>.vision overrides)",
    ),
    _agent(
        "ai-only",
        "bool",
        action="store_true",
        default=None,
        help="ignore recordings: the agent does every step (the trailhead still replays)",
    ),
    _agent(
        "self-heal",
        "bool",
        action="store_true",
        default=None,
        help="when a recorded tool of a `step:` "
        "fails, let the agent do the step (or TRAILBLAZE_SELF_HEAL_ENABLED=true)",
    ),
    _agent(
        "max-llm-calls",
        metavar="N",
        help=f"LLM calls allowed per step (default {DEFAULT_MAX_CALLS}, or TRAILBLAZE_MAX_LLM_CALLS)",
    ),
    _agent(
        "save-recordings",
        "bool",
        action="store_true",
        default=None,
        help="write what the agent did "
        "into the trail files, under the device's classifier, after the trail passed",
    ),
)


def read_agent(given: Given) -> AgentSettings:
    """The agent options of the run; the model's client library must be installed when one is set."""
    env_heal = os.environ.get("TRAILBLAZE_SELF_HEAL_ENABLED", "").strip().lower()
    settings = AgentSettings(
        spec=None,
        base_url=_pick(given, "llm_base_url"),
        timeout_s=_number(_pick(given, "llm_timeout"), "--trailblaze-llm-timeout", DEFAULT_TIMEOUT_S),
        screenshots=_choice(_pick(given, "llm_screenshots") or "auto"),
        ai_only=given.flag("ai_only"),
        self_heal=given.flag("self_heal") or env_heal in ("1", "true", "yes"),
        max_calls=_calls(_pick(given, "max_llm_calls") or os.environ.get("TRAILBLAZE_MAX_LLM_CALLS")),
        save_recordings=given.flag("save_recordings"),
    )
    model = _pick(given, "llm") or os.environ.get("TRAILBLAZE_LLM_MODEL") or None
    if model is None:
        return settings
    spec = spec_of(settings, model, "--trailblaze-llm")
    require_sdk(spec)
    return replace(settings, spec=spec)


def _pick(given: Given, name: str) -> str | None:
    return given.pick(name) or None


def spec_of(settings: AgentSettings, model: str, where: str, workspace: Workspace | None = None) -> LlmSpec:
    """The model with its endpoint and facts (images, forced tool calls, price): the built-in
    table, then the workspace's ``llm: models:`` entry for it."""
    from ..agent.models import facts_for  # the table loads when a model is named, not in every run

    provider, name = parse_model(model, where)
    base_url = base_url_for(provider, settings.base_url)
    if provider == "azure" and not base_url:
        raise ConfigurationError(
            f"{where} {model}: Azure OpenAI needs its endpoint\n"
            "  fix: export AZURE_OPENAI_ENDPOINT=https://<resource>.openai.azure.com, "
            "or pass --trailblaze-llm-base-url"
        )
    hosted = not base_url or provider == "azure"
    where_models = "trailblaze.yaml llm.models"
    models = _model_overrides(workspace, where_models)
    facts = facts_for(provider, name, hosted=hosted, overrides=models, where=where_models)
    shots = settings.screenshots == "on" or (settings.screenshots == "auto" and facts.vision)
    return LlmSpec(
        provider,
        name,
        base_url,
        settings.timeout_s,
        screenshots=shots,
        forced_tools=facts.forced_tools,
        price=facts.price,
        context_tokens=facts.context_tokens,
    )


def _model_overrides(workspace: Workspace | None, where: str) -> Mapping[str, object] | None:
    """The workspace's ``llm: models:`` mapping (None when it gives none); anything else there is
    a ``ConfigurationError``, as ``facts_for`` says it."""
    models = workspace_llm(workspace).get("models")
    if not models:
        return None
    if not isinstance(models, dict):
        raise ConfigurationError(f"{where}: expected a mapping of model name to facts")
    return models


def _choice(value: str) -> str:
    if value not in ("auto", "on", "off"):
        raise ConfigurationError(f"trailblaze_llm_screenshots expects auto, on or off, got {value!r}")
    return value


def _number(text: str | None, option: str, default: float) -> float:
    if text in (None, ""):
        return default
    try:
        value = float(str(text))
    except ValueError:
        raise ConfigurationError(f"{option} expects a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise ConfigurationError(f"{option} must be a positive number of seconds, got {text!r}")
    return value


def _calls(text: str | None) -> int | None:
    if text in (None, ""):
        return None
    if not str(text).strip().isdigit() or int(text) < 1:
        raise ConfigurationError(
            f"--trailblaze-max-llm-calls expects a whole number of 1 or more, got {text!r}"
        )
    return int(text)


def workspace_llm(workspace: Workspace | None) -> JsonObject:
    """The ``llm:`` mapping of the workspace's ``trailblaze.yaml`` (empty without one)."""
    llm = workspace.config.llm if workspace is not None else None
    return llm if isinstance(llm, dict) else {}


def workspace_model(workspace: Workspace | None) -> str | None:
    """``llm: defaults: model:`` of the workspace's ``trailblaze.yaml``."""
    defaults = workspace_llm(workspace).get("defaults")
    model = defaults.get("model") if isinstance(defaults, dict) else None
    return str(model) if model else None


def workspace_max_calls(workspace: Workspace | None) -> int | None:
    """``defaults: max-llm-calls:`` of the workspace's ``trailblaze.yaml``."""
    return workspace.config.defaults.max_llm_calls if workspace is not None else None
