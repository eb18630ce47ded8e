"""What the agent loop and the provider adapters exchange, independent of any provider.

The loop builds a ``Conversation`` of neutral turns; an adapter turns it into its provider's wire
format (OpenAI Chat Completions, Anthropic Messages, Gemini), sends it with the provider's SDK and parses
the answer back into a ``Reply``. Keeping the turns neutral lets one loop drive every provider and
lets the masking filter see every string before any of it leaves the process.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..core.jsondata import JsonValue

if TYPE_CHECKING:
    from .spec import LlmSpec


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it: name, description and the JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, JsonValue]


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """One tool call the model asked for; ``arguments`` is the raw JSON text it sent.

    ``signature`` is an opaque token some providers attach to a call and want back with it in
    the history (Gemini's thought signature); the loop carries it and never reads it.
    """

    id: str
    name: str
    arguments: str
    signature: bytes | None = None


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens of one or more requests. ``input_tokens`` counts every input token, those read from
    the provider's prompt cache (``cached_input_tokens``) and those written to it
    (``cache_write_tokens``, Anthropic) included, so the three providers add up alike."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True, slots=True)
class Reply:
    """The model's answer: optional text and the tool calls it made (the loop uses the first)."""

    text: str
    calls: tuple[ToolRequest, ...]
    usage: Usage = Usage()


@dataclass(frozen=True, slots=True)
class Turn:
    """One entry of the conversation.

    ``user`` turns carry text and an optional picture (``image``, of media type ``image_type``);
    an ``assistant`` turn carries the call it made; a ``result`` turn answers that call (by
    ``call.id``) with the tool's message.
    """

    role: Literal["user", "assistant", "result"]
    text: str = ""
    image: bytes | None = None
    call: ToolRequest | None = None
    image_type: str = "image/png"


@dataclass
class Conversation:
    """Everything sent to the model for one step: the system prompt, the tools and the turns.

    ``require_tool`` asks the provider to force a tool call; adapters send it only to servers
    known to honour it (others answer such requests with an error, or ignore them).
    ``cache_until`` is how many turns form a stable prefix worth caching (the history before
    the current screen); providers with explicit cache breakpoints mark it.
    ``max_answer_tokens`` is the room the model's context leaves for the answer, when the
    context is known (``context_window``); adapters that cap the answer send the smaller of the two.
    """

    system: str
    tools: tuple[ToolSpec, ...]
    turns: list[Turn] = field(default_factory=list)
    require_tool: bool = True
    cache_until: int = 0
    max_answer_tokens: int | None = None


class ProviderError(Exception):
    """The provider could not answer: an HTTP error, a timeout, an unreadable reply.

    ``cause`` is the reason for the step failure message (the server's own words, a few lines at
    most); adapters raise it for every error of their SDK so the loop never shows a provider
    traceback.
    """

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class Provider(Protocol):
    """A model behind a provider's API; ``name`` is ``provider/model`` as the user wrote it."""

    name: str

    def complete(self, conversation: Conversation) -> Reply: ...


#: How much of a server's error text a failure quotes: enough to read, never a page of HTML.
MAX_CAUSE_LINES = 6
MAX_CAUSE_CHARS = 800


def trimmed(text: str) -> str:
    """``text`` without blank lines, cut to a few lines and characters (marked when cut)."""
    lines = [line.rstrip() for line in str(text).strip().splitlines() if line.strip()]
    cut = len(lines) > MAX_CAUSE_LINES
    out = "\n".join(lines[:MAX_CAUSE_LINES])
    if len(out) > MAX_CAUSE_CHARS:
        out, cut = out[:MAX_CAUSE_CHARS].rstrip(), True
    return out + (" [...]" if cut else "")


def error_cause(exc: BaseException) -> str:
    """The innermost reason of an SDK error (connection refused, bad JSON...), trimmed."""
    inner: BaseException = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    return trimmed(str(inner).strip() or str(exc).strip() or type(inner).__name__)


def server_text(body: object, raw: str | None) -> str:
    """What the server said about a refused request, in its own words.

    The usual ``{"error": {"message": ...}}`` (OpenAI, Anthropic, Gemini, llama.cpp, vLLM),
    FastAPI's ``{"detail": ...}``, a bare ``{"message": ...}``; otherwise the raw body text.
    An empty message is said to be empty rather than replaced by the SDK's own summary.
    """
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict):
            for key in ("message", "detail", "msg"):
                if key in error:
                    return _said(error[key])
            if "detail" in body:
                return _said(body["detail"])
        elif isinstance(error, str):
            return _said(error)
    if raw and raw.strip():
        return trimmed(raw)
    return "(the server sent no error text)"


def _said(value: object) -> str:
    if isinstance(value, str):
        return trimmed(value) if value.strip() else "(the server's error message is empty)"
    return trimmed(json.dumps(value, ensure_ascii=False, default=str))


def status_message(exc: BaseException) -> str:
    """The server's error text of an SDK's HTTP error (its parsed body, else the body as text)."""
    response = getattr(exc, "response", None)
    try:
        raw = response.text if response is not None else None
    except Exception:  # a streamed or closed body: the parsed one is all there is
        raw = None
    body = getattr(exc, "body", None)
    if body is None and raw:
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
    if body is None and not raw:
        return error_cause(exc)
    return server_text(body, raw)


class SdkProvider:
    """What both official SDK adapters share: one lazily made client and one error vocabulary.

    Both SDKs name their errors alike (``APITimeoutError``, ``APIStatusError``,
    ``APIConnectionError`` under one base class), so a subclass names its SDK module, client
    class, base error and the API it talks to, and says how to send a request and read a reply.
    The SDK is imported on the first request, never at collection.
    """

    sdk: str = ""
    client_class: str = ""
    base_error: str = ""
    api_name: str = ""

    def __init__(self, spec: LlmSpec) -> None:
        self.spec = spec
        self.name = spec.name
        self._client: Any = None

    def _connect(self) -> Any:
        if self._client is None:
            make = getattr(importlib.import_module(self.sdk), self.client_class)
            self._client = make(
                api_key=self.spec.api_key(),
                base_url=self.spec.base_url,
                timeout=self.spec.timeout_s,
                max_retries=self.spec.retries,
            )
        return self._client

    def complete(self, conversation: Conversation) -> Reply:
        sdk = importlib.import_module(self.sdk)
        request = self.build_request(conversation, self.spec.model)
        try:
            response = self.send(self._connect(), request)
        except sdk.APITimeoutError:
            raise ProviderError(f"no answer within {self.spec.timeout_s:g} s (timeout)") from None
        except sdk.APIStatusError as exc:
            raise ProviderError(f"HTTP {exc.status_code}: {status_message(exc)}") from None
        except sdk.APIConnectionError as exc:
            where = self.spec.base_url or self.api_name
            raise ProviderError(f"cannot connect to {where}: {error_cause(exc)}") from None
        except getattr(sdk, self.base_error) as exc:
            raise ProviderError(f"unreadable reply: {error_cause(exc)}") from None
        except ValueError as exc:  # a 200 whose body is not JSON (a proxy's HTML page)
            raise ProviderError(f"unreadable reply: the body is not JSON ({error_cause(exc)})") from None
        try:
            return self.parse_response(response)
        except (AttributeError, TypeError, ValueError) as exc:  # JSON of another shape
            raise ProviderError(f"unreadable reply: {type(exc).__name__}: {error_cause(exc)}") from None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def build_request(self, conversation: Conversation, model: str) -> Mapping[str, object]:
        raise NotImplementedError

    def send(self, client: Any, request: Mapping[str, object]) -> object:
        raise NotImplementedError

    def parse_response(self, response: object) -> Reply:
        raise NotImplementedError
