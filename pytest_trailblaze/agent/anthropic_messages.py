"""Anthropic Messages with tools, through the official ``anthropic`` SDK (imported on first use)."""

from __future__ import annotations

import base64
import json
from typing import Any

from .spec import LlmSpec
from .wire import Conversation, ProviderError, Reply, ToolRequest, Turn, Usage, error_cause, status_message

MAX_TOKENS = 4096


def build_request(conversation: Conversation, model: str) -> dict[str, Any]:
    """The ``messages.create`` arguments; tool results and the next screen share one user message."""
    messages: list[dict[str, Any]] = []
    for turn in conversation.turns:
        role = "assistant" if turn.role == "assistant" else "user"
        blocks = _blocks(turn)
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": blocks})
    tools = [
        {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
        for t in conversation.tools
    ]
    return {
        "model": model,
        "max_tokens": MAX_TOKENS,
        "system": conversation.system,
        "messages": messages,
        "tools": tools,
        "tool_choice": {"type": "any"},
    }


def _blocks(turn: Turn) -> list[dict[str, Any]]:
    if turn.role == "assistant":
        blocks: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        if turn.call is not None:
            call = turn.call
            blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call)})
        return blocks
    if turn.role == "result" and turn.call is not None:
        return [{"type": "tool_result", "tool_use_id": turn.call.id, "content": turn.text}]
    blocks = [{"type": "text", "text": turn.text}]
    if turn.image_png is not None:
        data = base64.b64encode(turn.image_png).decode("ascii")
        blocks.append(
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
        )
    return blocks


def _input(call: ToolRequest) -> Any:
    try:
        value = json.loads(call.arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def parse_response(response: Any) -> Reply:
    """Text blocks joined, ``tool_use`` blocks as calls (their input re-encoded as JSON text)."""
    content = getattr(response, "content", None)
    if not isinstance(content, list):
        raise ProviderError("the reply holds no `content` list")
    texts, calls = [], []
    for index, block in enumerate(content):
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(getattr(block, "text", "") or "")
        elif kind == "tool_use":
            name = getattr(block, "name", None)
            if not isinstance(name, str) or not name:
                raise ProviderError(f"malformed tool call #{index + 1}: it names no tool")
            arguments = json.dumps(getattr(block, "input", None), ensure_ascii=False)
            calls.append(ToolRequest(getattr(block, "id", None) or f"toolu_{index}", name, arguments))
    usage = getattr(response, "usage", None)
    tokens = Usage(int(getattr(usage, "input_tokens", 0) or 0), int(getattr(usage, "output_tokens", 0) or 0))
    return Reply("\n".join(t for t in texts if t), tuple(calls), tokens)


class AnthropicMessages:
    """A model behind the Anthropic Messages API."""

    def __init__(self, spec: LlmSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self._client: Any = None

    def _connect(self) -> Any:
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(
                api_key=self.spec.api_key(),
                base_url=self.spec.base_url,
                timeout=self.spec.timeout_s,
                max_retries=self.spec.retries,
            )
        return self._client

    def complete(self, conversation: Conversation) -> Reply:
        import anthropic

        request = build_request(conversation, self.spec.model)
        try:
            response = self._connect().messages.create(**request)
        except anthropic.APITimeoutError:
            raise ProviderError(f"no answer within {self.spec.timeout_s:g} s (timeout)") from None
        except anthropic.APIStatusError as exc:
            raise ProviderError(f"HTTP {exc.status_code}: {status_message(exc)}") from None
        except anthropic.APIConnectionError as exc:
            where = self.spec.base_url or "the Anthropic API"
            raise ProviderError(f"cannot connect to {where}: {error_cause(exc)}") from None
        except anthropic.AnthropicError as exc:
            raise ProviderError(f"unreadable reply: {error_cause(exc)}") from None
        return parse_response(response)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
