"""The LLM agent: runs natural-language steps, heals stale recordings, feeds recording write-back.

It talks to the rest of the plugin only through the session's tool registry, the driver's
snapshot methods and the runner's agent callback. Provider SDKs (``openai``, ``anthropic``,
``google-genai``: the ``agent-*`` extras) are imported by the provider adapters on the first
request, never at collection.

The names load on first use (PEP 562): reading the agent's options (``spec``) must not import the
loop and the runner under it, which a pytest-xdist controller never runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_names

if TYPE_CHECKING:
    from .loop import AgentCall, AgentLoop, StepRun
    from .spec import EXTRA_HINT, LlmSpec, parse_model, require_sdk
    from .wire import Provider

_HOMES = {
    "AgentCall": ".loop",
    "AgentLoop": ".loop",
    "StepRun": ".loop",
    "EXTRA_HINT": ".spec",
    "LlmSpec": ".spec",
    "parse_model": ".spec",
    "require_sdk": ".spec",
    "Provider": ".wire",
}


__getattr__ = lazy_names(__name__, _HOMES, globals())


def make_provider(spec: LlmSpec) -> Provider:
    """The adapter of the spec's provider (its SDK is imported when it first sends)."""
    if spec.provider == "anthropic":
        from .anthropic_messages import AnthropicMessages

        return AnthropicMessages(spec)
    if spec.provider == "google":
        from .gemini import GeminiChat

        return GeminiChat(spec)
    from .openai_chat import AzureChat, OpenAIChat

    return AzureChat(spec) if spec.provider == "azure" else OpenAIChat(spec)


__all__ = [
    "EXTRA_HINT",
    "AgentCall",
    "AgentLoop",
    "LlmSpec",
    "Provider",
    "StepRun",
    "make_provider",
    "parse_model",
    "require_sdk",
]
