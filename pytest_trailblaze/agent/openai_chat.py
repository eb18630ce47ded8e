"""OpenAI Chat Completions with function tools, through the official ``openai`` SDK.

Serves OpenAI itself and every server speaking the same protocol (Ollama, vLLM, LM Studio,
OpenRouter, Azure) through ``--trailblaze-llm-base-url``. The SDK is imported when the first
request is sent, never at collection.
"""

from __future__ import annotations

import base64
from typing import Any

from .spec import LlmSpec
from .wire import Conversation, ProviderError, Reply, ToolRequest, Turn, Usage, error_cause, status_message


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
    if turn.image_png is None:
        return {"role": "user", "content": turn.text}
    url = "data:image/png;base64," + base64.b64encode(turn.image_png).decode("ascii")
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


class OpenAIChat:
    """A model behind a Chat Completions endpoint."""

    def __init__(self, spec: LlmSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self._client: Any = None

    def _connect(self) -> Any:
        if self._client is None:
            import openai

            self._client = openai.OpenAI(
                api_key=self.spec.api_key(),
                base_url=self.spec.base_url,
                timeout=self.spec.timeout_s,
                max_retries=self.spec.retries,
            )
        return self._client

    def complete(self, conversation: Conversation) -> Reply:
        import openai

        request = build_request(conversation, self.spec.model)
        try:
            response = self._connect().chat.completions.create(**request)
        except openai.APITimeoutError:
            raise ProviderError(f"no answer within {self.spec.timeout_s:g} s (timeout)") from None
        except openai.APIStatusError as exc:
            raise ProviderError(f"HTTP {exc.status_code}: {status_message(exc)}") from None
        except openai.APIConnectionError as exc:
            where = self.spec.base_url or "the OpenAI API"
            raise ProviderError(f"cannot connect to {where}: {error_cause(exc)}") from None
        except openai.OpenAIError as exc:
            raise ProviderError(f"unreadable reply: {error_cause(exc)}") from None
        return parse_response(response)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
