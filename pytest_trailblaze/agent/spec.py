"""Which model the agent talks to: ``PROVIDER/MODEL``, its endpoint, key and client library.

Nothing here imports a provider SDK: whether the ``agent`` extra is installed is checked with
``importlib.util.find_spec`` so that a run with ``--trailblaze-llm`` can say what to install
before anything starts, and a run without it never loads the SDKs.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass

from ..core.errors import ConfigurationError

#: provider -> (SDK module, environment variable holding the key, environment variable of the base URL)
PROVIDERS: dict[str, tuple[str, str, str]] = {
    "openai": ("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "anthropic": ("anthropic", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
}
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

    @property
    def name(self) -> str:
        return f"{self.provider}/{self.model}"

    @property
    def sdk(self) -> str:
        return PROVIDERS[self.provider][0]

    def api_key(self) -> str:
        """The key from the provider's usual variable; local servers need none."""
        variable = PROVIDERS[self.provider][1]
        key = os.environ.get(variable, "")
        if key:
            return key
        if self.base_url:
            return "not-needed"  # Ollama, vLLM, LM Studio accept any key
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
    return provider.strip().lower(), model.strip()


def model_problem(text: str) -> tuple[str, str, str] | None:
    """What is wrong with a ``PROVIDER/MODEL`` text (what, why, fix), or None when it is usable."""
    provider, sep, model = text.strip().partition("/")
    provider = provider.strip().lower()
    if not sep or not model.strip() or not provider:
        return (
            f"expected PROVIDER/MODEL, got {text!r}",
            "",
            "write e.g. openai/gpt-4.1 or anthropic/claude-sonnet-4-5 "
            "(openai/<model> also serves Ollama and other OpenAI-compatible servers)",
        )
    if provider not in PROVIDERS:
        return (
            f"unknown LLM provider {provider!r} in {text!r}",
            f"supported providers are {', '.join(PROVIDERS)}",
            "use openai/<model> with --trailblaze-llm-base-url for any OpenAI-compatible server",
        )
    return None


def base_url_for(provider: str, given: str | None) -> str | None:
    """The option, else the provider's own variable (``OPENAI_BASE_URL``)."""
    return given or os.environ.get(PROVIDERS[provider][2]) or None


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
            f"  fix: {EXTRA_HINT}"
        )
