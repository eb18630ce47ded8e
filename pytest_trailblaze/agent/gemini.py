"""Google Gemini with function calling, through Google's official ``google-genai`` SDK.

``google/<model>`` (or ``gemini/<model>``) with a key in ``GEMINI_API_KEY`` / ``GOOGLE_API_KEY``;
``--trailblaze-llm-base-url`` (or ``GOOGLE_GEMINI_BASE_URL``) points the SDK at another endpoint.
Tools go as function declarations with their JSON Schema (``parameters_json_schema``), a forced
call as ``mode: ANY``. A function call may carry a thought signature that Gemini wants back with
that call in the history; it rides along in ``ToolRequest.signature``. Gemini's prompt cache is
implicit: the cached share of the input is read from ``cached_content_token_count``. The SDK is
imported on the first request, never at collection.
"""

from __future__ import annotations

import importlib
import json
from typing import TYPE_CHECKING, Any, TypeAlias

from ..core.jsondata import JsonObject
from .wire import Conversation, ProviderError, Reply, ToolRequest, Turn, Usage, error_cause, server_text

if TYPE_CHECKING:
    from .spec import LlmSpec

MAX_OUTPUT_TOKENS = 4096
#: A part of a turn: JSON, but for an image's bytes (``inline_data``).
Part: TypeAlias = dict[str, object]


def build_request(conversation: Conversation, model: str) -> dict[str, object]:
    """The ``models.generate_content`` arguments (plain data, images as bytes; the SDK validates it
    into its types)."""
    said: list[tuple[str, list[Part]]] = []  # (role, parts), one entry per turn of a role
    for turn in conversation.turns:
        role = "model" if turn.role == "assistant" else "user"
        parts = _parts(turn)
        if said and said[-1][0] == role:
            said[-1][1].extend(parts)
        else:
            said.append((role, parts))
    contents = [{"role": role, "parts": parts} for role, parts in said]
    declarations = [
        {"name": t.name, "description": t.description, "parameters_json_schema": dict(t.parameters)}
        for t in conversation.tools
    ]
    mode = "ANY" if conversation.require_tool else "AUTO"
    config = {
        "system_instruction": conversation.system,
        "tools": [{"function_declarations": declarations}],
        "tool_config": {"function_calling_config": {"mode": mode}},
        "automatic_function_calling": {"disable": True},
        "max_output_tokens": min(MAX_OUTPUT_TOKENS, conversation.max_answer_tokens or MAX_OUTPUT_TOKENS),
    }
    return {"model": model, "contents": contents, "config": config}


def _parts(turn: Turn) -> list[Part]:
    if turn.role == "assistant":
        parts: list[Part] = [{"text": turn.text}] if turn.text.strip() else []
        if turn.call is not None:
            call: JsonObject = {"name": turn.call.name, "args": _args(turn.call)}
            part: Part = {"function_call": call}
            if turn.call.signature:
                part["thought_signature"] = turn.call.signature
            parts.append(part)
        return parts or [{"text": "(no reply)"}]
    if turn.role == "result" and turn.call is not None:
        key = "error" if turn.text.startswith("error:") else "output"
        response = {"name": turn.call.name, "response": {key: turn.text}}
        return [{"function_response": response}]
    parts = [{"text": turn.text}]
    if turn.image is not None:
        parts.append({"inline_data": {"mime_type": turn.image_type, "data": turn.image}})
    return parts


def _args(call: ToolRequest) -> JsonObject:
    try:
        value = json.loads(call.arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def parse_response(response: object) -> Reply:
    """The first candidate's text parts and function calls; no candidate is an unreadable reply."""
    candidates = getattr(response, "candidates", None) or []
    content = getattr(candidates[0], "content", None) if candidates else None
    if content is None:
        feedback = getattr(response, "prompt_feedback", None)
        why = f" (prompt feedback: {feedback})" if feedback else ""
        raise ProviderError(f"the reply holds no candidate content{why}")
    texts, calls = [], []
    for index, part in enumerate(getattr(content, "parts", None) or []):
        if getattr(part, "thought", False):
            continue
        call = getattr(part, "function_call", None)
        if call is not None:
            name = getattr(call, "name", None)
            if not isinstance(name, str) or not name:
                raise ProviderError(f"malformed tool call #{index + 1}: it names no function")
            arguments = json.dumps(getattr(call, "args", None) or {}, ensure_ascii=False)
            signature = getattr(part, "thought_signature", None)
            calls.append(
                ToolRequest(getattr(call, "id", None) or f"gemini_{index}", name, arguments, signature)
            )
        elif getattr(part, "text", None):
            texts.append(part.text)
    return Reply("\n".join(texts), tuple(calls), usage_of(getattr(response, "usage_metadata", None)))


def usage_of(usage: object) -> Usage:
    """Prompt tokens include the cached ones; thinking tokens are billed as output."""
    output = int(getattr(usage, "candidates_token_count", 0) or 0)
    output += int(getattr(usage, "thoughts_token_count", 0) or 0)
    return Usage(
        int(getattr(usage, "prompt_token_count", 0) or 0),
        output,
        int(getattr(usage, "cached_content_token_count", 0) or 0),
    )


class GeminiChat:
    """A Gemini model behind the Gemini API (or another endpoint speaking it)."""

    def __init__(self, spec: LlmSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self._client: Any = None

    def _connect(self) -> Any:
        if self._client is None:
            genai = importlib.import_module("google.genai")
            options: dict[str, object] = {
                "timeout": int(self.spec.timeout_s * 1000),
                "retry_options": {"attempts": self.spec.retries + 1},
            }
            if self.spec.base_url:
                options["base_url"] = self.spec.base_url
            self._client = genai.Client(api_key=self.spec.api_key(), http_options=options)
        return self._client

    def complete(self, conversation: Conversation) -> Reply:
        errors = importlib.import_module("google.genai.errors")
        request = build_request(conversation, self.spec.model)
        try:
            response = self._connect().models.generate_content(**request)
        except errors.APIError as exc:
            raw = _raw_text(exc)
            raise ProviderError(f"HTTP {exc.code}: {server_text(exc.details, raw)}") from None
        except Exception as exc:
            raise ProviderError(self._transport(exc)) from None
        try:
            return parse_response(response)
        except (AttributeError, TypeError, ValueError) as exc:
            raise ProviderError(f"unreadable reply: {type(exc).__name__}: {error_cause(exc)}") from None

    def _transport(self, exc: Exception) -> str:
        """Timeouts and refused connections of whichever HTTP client the SDK runs on (httpx or
        httpx2, which share their error names), and replies that are not Gemini's JSON."""
        names = {kind.__name__ for kind in type(exc).__mro__}
        if "TimeoutException" in names:
            return f"no answer within {self.spec.timeout_s:g} s (timeout)"
        if "TransportError" in names:
            return f"cannot connect to {self.spec.base_url or 'the Gemini API'}: {error_cause(exc)}"
        if isinstance(exc, ValueError):  # a 200 whose body is not JSON, or JSON of another shape
            return f"unreadable reply: {type(exc).__name__}: {error_cause(exc)}"
        raise exc

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _raw_text(exc: BaseException) -> str | None:
    response = getattr(exc, "response", None)
    try:
        return response.text if response is not None else None
    except Exception:
        return None
