"""Anthropic Messages with tools, through the official ``anthropic`` SDK (imported on first use).

Requests carry prompt-cache breakpoints (``cache_control``) on what repeats from one call to the
next: the tools, the system prompt, and the history before the current screen. Cached input costs
a tenth of fresh input; the usage read back counts cache reads and writes (``wire.Usage``).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from ..core.jsondata import JsonObject, JsonValue
from .wire import Conversation, ProviderError, Reply, SdkProvider, ToolRequest, Turn, Usage

MAX_TOKENS = 4096


CACHE: JsonObject = {"type": "ephemeral"}


def build_request(conversation: Conversation, model: str) -> JsonObject:
    """The ``messages.create`` arguments; tool results and the next screen share one user message.

    Three cache breakpoints: the last tool (caching every tool), the system prompt, and the last
    block of the history before the current screen (``conversation.cache_until`` turns).
    """
    said: list[tuple[str, list[JsonValue]]] = []  # (role, content blocks), one entry per turn of a role
    for index, turn in enumerate(conversation.turns):
        role = "assistant" if turn.role == "assistant" else "user"
        blocks = _blocks(turn)
        if index == conversation.cache_until - 1 and blocks:
            blocks[-1] = {**blocks[-1], "cache_control": CACHE}
        if said and said[-1][0] == role:
            said[-1][1].extend(blocks)
        else:
            said.append((role, list(blocks)))
    messages: list[JsonValue] = [{"role": role, "content": content} for role, content in said]
    tools: list[JsonObject] = [
        {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
        for t in conversation.tools
    ]
    if tools:
        tools[-1]["cache_control"] = CACHE
    return {
        "model": model,
        "max_tokens": min(MAX_TOKENS, conversation.max_answer_tokens or MAX_TOKENS),
        "system": [{"type": "text", "text": conversation.system, "cache_control": CACHE}],
        "messages": messages,
        "tools": list[JsonValue](tools),
        "tool_choice": {"type": "any" if conversation.require_tool else "auto"},
    }


def _blocks(turn: Turn) -> list[JsonObject]:
    if turn.role == "assistant":
        blocks: list[JsonObject] = [{"type": "text", "text": turn.text}] if turn.text.strip() else []
        if turn.call is not None:
            call = turn.call
            blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _input(call)})
        return blocks or [{"type": "text", "text": "(no reply)"}]
    if turn.role == "result" and turn.call is not None:
        return [{"type": "tool_result", "tool_use_id": turn.call.id, "content": turn.text}]
    blocks = [{"type": "text", "text": turn.text}]
    if turn.image is not None:
        data = base64.b64encode(turn.image).decode("ascii")
        source: JsonObject = {"type": "base64", "media_type": turn.image_type, "data": data}
        blocks.append({"type": "image", "source": source})
    return blocks


def _input(call: ToolRequest) -> JsonObject:
    try:
        value = json.loads(call.arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def parse_response(response: object) -> Reply:
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
    return Reply("\n".join(t for t in texts if t), tuple(calls), usage_of(getattr(response, "usage", None)))


def usage_of(usage: object) -> Usage:
    """``input_tokens`` counts only fresh input here; reads and writes of the cache come apart."""
    read = int(getattr(usage, "cache_read_input_tokens", 0) or 0)
    written = int(getattr(usage, "cache_creation_input_tokens", 0) or 0)
    fresh = int(getattr(usage, "input_tokens", 0) or 0)
    return Usage(fresh + read + written, int(getattr(usage, "output_tokens", 0) or 0), read, written)


class AnthropicMessages(SdkProvider):
    """A model behind the Anthropic Messages API."""

    sdk, client_class, base_error, api_name = "anthropic", "Anthropic", "AnthropicError", "the Anthropic API"

    def build_request(self, conversation: Conversation, model: str) -> JsonObject:
        return build_request(conversation, model)

    def send(self, client: Any, request: Mapping[str, object]) -> object:
        return client.messages.create(**request)

    def parse_response(self, response: object) -> Reply:
        return parse_response(response)
