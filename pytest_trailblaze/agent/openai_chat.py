"""OpenAI Chat Completions with function tools, through the official ``openai`` SDK.

Serves OpenAI itself and every server speaking the same protocol (Ollama, vLLM, LM Studio,
OpenRouter, Azure) through ``--trailblaze-llm-base-url``. The SDK is imported when the first
request is sent, never at collection.
"""

from __future__ import annotations

import base64
from typing import Any

from .wire import Conversation, ProviderError, Reply, SdkProvider, ToolRequest, Turn, Usage


def build_request(conversation: Conversation, model: str) -> dict[str, Any]:
    """The ``chat.completions.create`` arguments for a conversation (pure, for tests and benchmarks)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": conversation.system}]
    messages += [_message(turn) for turn in conversation.turns]
    tools = [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)},
        }
        for t in conversation.tools
    ]
    return {"model": model, "messages": messages, "tools": tools, "tool_choice": "required"}


def _message(turn: Turn) -> dict[str, Any]:
    if turn.role == "assistant" and turn.call is not None:
        call = turn.call
        function = {"name": call.name, "arguments": call.arguments}
        return {
            "role": "assistant",
            "content": turn.text or None,
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


def parse_response(response: Any) -> Reply:
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
    usage = getattr(response, "usage", None)
    tokens = Usage(
        int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)
    )
    return Reply(getattr(message, "content", None) or "", tuple(calls), tokens)


class OpenAIChat(SdkProvider):
    """A model behind a Chat Completions endpoint."""

    sdk, client_class, base_error, api_name = "openai", "OpenAI", "OpenAIError", "the OpenAI API"

    def build_request(self, conversation: Conversation, model: str) -> dict[str, Any]:
        return build_request(conversation, model)

    def send(self, client: Any, request: dict[str, Any]) -> Any:
        return client.chat.completions.create(**request)

    def parse_response(self, response: Any) -> Reply:
        return parse_response(response)
