"""What the agent loop and the provider adapters exchange, independent of any provider.

The loop builds a ``Conversation`` of neutral turns; an adapter turns it into its provider's wire
format (OpenAI Chat Completions, Anthropic Messages), sends it with the provider's SDK and parses
the answer back into a ``Reply``. Keeping the turns neutral lets one loop drive every provider and
lets the masking filter see every string before any of it leaves the process.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the model sees it: name, description and the JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ToolRequest:
    """One tool call the model asked for; ``arguments`` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


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
    """Everything sent to the model for one step: the system prompt, the tools and the turns."""

    system: str
    tools: tuple[ToolSpec, ...]
    turns: list[Turn] = field(default_factory=list)


class ProviderError(Exception):
    """The provider could not answer: an HTTP error, a timeout, an unreadable reply.

    ``cause`` is a one-line reason for the step failure message; adapters raise it for every
    error of their SDK so the loop never shows a provider traceback.
    """

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


class Provider(Protocol):
    """A model behind a provider's API; ``name`` is ``provider/model`` as the user wrote it."""

    name: str

    def complete(self, conversation: Conversation) -> Reply: ...


def error_cause(exc: BaseException) -> str:
    """The innermost reason of an SDK error, on one line (connection refused, bad JSON...)."""
    inner: BaseException = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    text = str(inner).strip() or str(exc).strip() or type(inner).__name__
    return text.splitlines()[0]


def status_message(exc: BaseException) -> str:
    """The ``error.message`` of an HTTP error's JSON body, else the error's own first line."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return str(message).strip().splitlines()[0]
    return error_cause(exc)


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

    def __init__(self, spec: Any) -> None:
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

    def build_request(self, conversation: Conversation, model: str) -> dict[str, Any]:
        raise NotImplementedError

    def send(self, client: Any, request: dict[str, Any]) -> Any:
        raise NotImplementedError

    def parse_response(self, response: Any) -> Reply:
        raise NotImplementedError
