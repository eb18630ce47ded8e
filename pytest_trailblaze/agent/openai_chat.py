"""OpenAI Chat Completions with function tools, through the official ``openai`` SDK.

Serves OpenAI itself, Azure OpenAI (the SDK's Azure client) and every server speaking the same
protocol (Ollama, vLLM, LM Studio, llama.cpp, OpenRouter) through ``--trailblaze-llm-base-url``.
The request keeps to what those servers accept: ``tool_choice: "required"`` only where the
endpoint is known to honour it (``"auto"`` elsewhere: some servers refuse ``required`` with an
HTTP 500), and an assistant turn's ``content`` is ``""``, never ``null``, which some servers'
validation rejects. The SDK is imported when the first request is sent, never at collection.
"""

from __future__ import annotations

import base64
import importlib
import os
from collections.abc import Mapping
from typing import Any

from ..core.jsondata import JsonObject, JsonValue
from .wire import Conversation, ProviderError, Reply, SdkProvider, ToolRequest, Turn, Usage

#: Output cap for servers behind a base URL: a tool call is short, and a small local model that
#: rambles would otherwise write until its context is full.
COMPATIBLE_MAX_TOKENS = 1024


def build_request(conversation: Conversation, model: str, *, max_tokens: int | None = None) -> JsonObject:
    """The ``chat.completions.create`` arguments for a conversation (pure, for tests and benchmarks)."""
    messages: list[JsonValue] = [{"role": "system", "content": conversation.system}]
    messages += [_message(turn) for turn in conversation.turns]
    tools: list[JsonValue] = [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)},
        }
        for t in conversation.tools
    ]
    choice = "required" if conversation.require_tool else "auto"
    request: JsonObject = {"model": model, "messages": messages, "tools": tools, "tool_choice": choice}
    if max_tokens is not None:
        request["max_tokens"] = max_tokens
    return request


def _message(turn: Turn) -> JsonObject:
    if turn.role == "assistant" and turn.call is not None:
        call = turn.call
        function: JsonObject = {"name": call.name, "arguments": call.arguments}
        return {
            "role": "assistant",
            "content": turn.text or "",
            "tool_calls": [{"id": call.id, "type": "function", "function": function}],
        }
    if turn.role == "result" and turn.call is not None:
        return {"role": "tool", "tool_call_id": turn.call.id, "content": turn.text}
    if turn.role == "assistant":
        return {"role": "assistant", "content": turn.text}
    if turn.image is None:
        return {"role": "user", "content": turn.text}
    url = f"data:{turn.image_type};base64," + base64.b64encode(turn.image).decode("ascii")
    return {
        "role": "user",
        "content": [{"type": "text", "text": turn.text}, {"type": "image_url", "image_url": {"url": url}}],
    }


def parse_response(response: object) -> Reply:
    """The first choice's text and tool calls; a reply without choices is unreadable."""
    choices = getattr(response, "choices", None) or []
    if not choices or getattr(choices[0], "message", None) is None:
        raise ProviderError("the reply holds no message (no `choices[0].message`)")
    message = choices[0].message
    calls = []
    for index, call in enumerate(getattr(message, "tool_calls", None) or []):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        if not isinstance(name, str) or not name:
            raise ProviderError(f"malformed tool call #{index + 1}: it names no function")
        arguments = getattr(function, "arguments", None)
        calls.append(ToolRequest(getattr(call, "id", None) or f"call_{index}", name, arguments or "{}"))
    return Reply(
        getattr(message, "content", None) or "", tuple(calls), usage_of(getattr(response, "usage", None))
    )


def usage_of(usage: object) -> Usage:
    """Prompt tokens count the cached ones, which ``prompt_tokens_details`` names (OpenAI, Azure)."""
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        int(getattr(usage, "prompt_tokens", 0) or 0),
        int(getattr(usage, "completion_tokens", 0) or 0),
        int(getattr(details, "cached_tokens", 0) or 0),
    )


class OpenAIChat(SdkProvider):
    """A model behind a Chat Completions endpoint."""

    sdk, client_class, base_error, api_name = "openai", "OpenAI", "OpenAIError", "the OpenAI API"

    def build_request(self, conversation: Conversation, model: str) -> JsonObject:
        cap = COMPATIBLE_MAX_TOKENS if self.spec.base_url and self.spec.provider == "openai" else None
        if cap is not None and conversation.max_answer_tokens is not None:
            cap = min(cap, conversation.max_answer_tokens)
        return build_request(conversation, model, max_tokens=cap)

    def send(self, client: Any, request: Mapping[str, object]) -> object:
        return client.chat.completions.create(**request)

    def parse_response(self, response: object) -> Reply:
        return parse_response(response)


#: The Azure OpenAI API version used unless ``OPENAI_API_VERSION`` names another.
AZURE_API_VERSION = "2024-10-21"


class AzureChat(OpenAIChat):
    """A deployment of Azure OpenAI, through the SDK's ``AzureOpenAI`` client.

    The model part of ``azure/<deployment>`` is the deployment's name; the endpoint comes from
    ``--trailblaze-llm-base-url`` or ``AZURE_OPENAI_ENDPOINT``, the key from ``AZURE_OPENAI_API_KEY``.
    """

    client_class, api_name = "AzureOpenAI", "Azure OpenAI"

    def _connect(self) -> Any:
        if self._client is None:
            make = getattr(importlib.import_module(self.sdk), self.client_class)
            self._client = make(
                api_key=self.spec.api_key(),
                azure_endpoint=self.spec.base_url,
                api_version=os.environ.get("OPENAI_API_VERSION") or AZURE_API_VERSION,
                timeout=self.spec.timeout_s,
                max_retries=self.spec.retries,
            )
        return self._client
