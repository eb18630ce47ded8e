"""Which model the agent talks to: ``PROVIDER/MODEL``, its endpoint, key and client library.

Providers: ``openai`` (OpenAI, and every OpenAI-compatible server through a base URL: Ollama,
vLLM, LM Studio, llama.cpp, OpenRouter), ``anthropic``, ``google`` (Gemini; ``gemini/`` is the
same) and ``azure`` (Azure OpenAI: the model part is the deployment name).

Nothing here imports a provider SDK: whether the provider's extra is installed is checked with
``importlib.util.find_spec`` so that a run with ``--trailblaze-llm`` can say what to install
before anything starts, and a run without it never loads the SDKs.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..core.errors import ConfigurationError

if TYPE_CHECKING:  # a type: reading the options of a run without a model loads no model table
    from .models import Price


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    """A provider's client library, the extra that installs it, and where its key and URL live."""

    sdk: str
    extra: str
    keys: tuple[str, ...]
    url_variable: str


PROVIDERS: dict[str, ProviderInfo] = {
    "openai": ProviderInfo("openai", "agent-openai", ("OPENAI_API_KEY",), "OPENAI_BASE_URL"),
    "anthropic": ProviderInfo("anthropic", "agent-anthropic", ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL"),
    "google": ProviderInfo(
        "google.genai", "agent-google", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GOOGLE_GEMINI_BASE_URL"
    ),
    "azure": ProviderInfo("openai", "agent-openai", ("AZURE_OPENAI_API_KEY",), "AZURE_OPENAI_ENDPOINT"),
}
#: Other names people write for a provider.
ALIASES = {"gemini": "google"}
EXTRA_HINT = "pip install 'pytest-trailblaze[agent]'"
DEFAULT_MAX_CALLS = 50
DEFAULT_TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class LlmSpec:
    """A resolved model choice. ``key`` stays out of ``repr`` so it never lands in a report."""

    provider: str
    model: str
    base_url: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    retries: int = 2
    screenshots: bool = True
    #: The endpoint honours a forced tool call (else the model is asked in words, ``auto``).
    forced_tools: bool = False
    #: Dollars per million tokens, when known (JUnit ``llm_cost_usd``, the run's totals).
    price: Price | None = None
    #: Tokens the model's context holds, where ``llm: models:`` says (else learned, or unknown).
    context_tokens: int | None = None

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @property
    def sdk(self) -> str:
        return PROVIDERS[self.provider].sdk

    def api_key(self) -> str:
        """The key from the provider's usual variable; local servers need none."""
        variables = PROVIDERS[self.provider].keys
        key = next((os.environ[v] for v in variables if os.environ.get(v)), "")
        if key:
            return key
        if self.base_url and self.provider != "azure":
            return "not-needed"  # Ollama, vLLM, LM Studio accept any key
        variable = variables[0]
        raise ConfigurationError(
            f"--trailblaze-llm {self.name}: no API key\n"
            f"  why: {variable} is not set and no --trailblaze-llm-base-url points at a local server\n"
            f"  fix: export {variable}=..., or pass --trailblaze-llm-base-url for a compatible server"
        )


def parse_model(text: str, where: str) -> tuple[str, str]:
    """``openai/gpt-4.1`` -> (``openai``, ``gpt-4.1``); the model part may hold more slashes."""
    problem = model_problem(text)
    if problem is not None:
        what, why, fix = problem
        raise ConfigurationError(f"{where}: {what}" + (f"\n  why: {why}" if why else "") + f"\n  fix: {fix}")
    provider, _, model = text.strip().partition("/")
    provider = provider.strip().lower()
    return ALIASES.get(provider, provider), model.strip()


def model_problem(text: str) -> tuple[str, str, str] | None:
    """What is wrong with a ``PROVIDER/MODEL`` text (what, why, fix), or None when it is usable."""
    provider, sep, model = text.strip().partition("/")
    provider = provider.strip().lower()
    if not sep or not model.strip() or not provider:
        return (
            f"expected PROVIDER/MODEL, got {text!r}",
            "",
            "write e.g. openai/gpt-4.1, anthropic/claude-sonnet-4-5 or google/gemini-2.5-flash "
            "(openai/<model> also serves Ollama and other OpenAI-compatible servers)",
        )
    if ALIASES.get(provider, provider) not in PROVIDERS:
        return (
            f"unknown LLM provider {provider!r} in {text!r}",
            f"supported providers are {', '.join(PROVIDERS)} (and gemini, the same as google)",
            "use openai/<model> with --trailblaze-llm-base-url for any OpenAI-compatible server",
        )
    return None


def base_url_for(provider: str, given: str | None) -> str | None:
    """The option, else the provider's own variable (``OPENAI_BASE_URL``)."""
    return given or os.environ.get(PROVIDERS[provider].url_variable) or None


def extra_hint(provider: str) -> str:
    """The pip command that installs what ``provider`` needs (and the umbrella extra)."""
    extra = PROVIDERS[provider].extra
    return f"pip install 'pytest-trailblaze[{extra}]' (or [agent] for every provider)"


def require_sdk(spec: LlmSpec, where: str = "--trailblaze-llm") -> None:
    """Fail early, naming the extra, when the provider's client library is not installed;
    ``where`` says where the model was chosen (the option, or the workspace's trailblaze.yaml)."""
    try:
        found = importlib.util.find_spec(spec.sdk) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ConfigurationError(
            f"{where} {spec.name} needs the '{spec.sdk}' client library, which is not installed\n"
            f"  fix: {extra_hint(spec.provider)}"
        )
