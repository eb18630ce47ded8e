"""What the agent knows about models: whether they take images, honour a forced tool call, and cost.

The built-in table covers the hosted models people use (matched by the longest name prefix, so
``claude-sonnet-4-5-20250929`` finds ``claude-sonnet-4-5``). Anything else, a local or renamed
model above all, is treated as text-only, free-choice (``tool_choice: auto``) and unpriced: a
text model never gets a picture it would refuse with an HTTP 400, a server that rejects a forced
tool call never gets one, and no cost is made up. A workspace's ``trailblaze.yaml`` overrides or
extends any of it under ``llm: models:`` (see ``ModelFacts.merged``).

Prices are US dollars per million tokens, as the providers listed them (standard tier, prompts
under 200k tokens); they change, which is why a team can set its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..core.errors import ConfigurationError
from .wire import Usage


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million tokens: fresh input, input read from the cache, cache writes, output."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None

    def cost(self, usage: Usage) -> float:
        """What ``usage`` costs at this price."""
        cached = usage.cached_input_tokens
        written = usage.cache_write_tokens
        fresh = max(usage.input_tokens - cached - written, 0)
        dollars = fresh * self.input + usage.output_tokens * self.output
        dollars += cached * (self.cached_input if self.cached_input is not None else self.input)
        dollars += written * (self.cache_write if self.cache_write is not None else self.input)
        return dollars / 1_000_000


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """What one model can take and costs; None where it is not known."""

    vision: bool = False
    #: True when the endpoint honours a forced tool call (``tool_choice: required`` / ``any``).
    forced_tools: bool = False
    price: Price | None = None
    #: Tokens the model's context holds, where a workspace says (``context_window``); a server's
    #: refusal for length teaches it otherwise.
    context_tokens: int | None = None

    def merged(self, override: Mapping[str, object], where: str) -> ModelFacts:
        """These facts with a ``trailblaze.yaml`` entry's ``vision``, ``tool_choice``, ``price``
        and ``context``."""
        unknown = set(override) - set(FACT_KEYS)
        if unknown:
            raise ConfigurationError(
                f"{where}: unknown key {sorted(unknown)[0]!r}; accepted: {', '.join(FACT_KEYS)}"
            )
        facts = self
        if "vision" in override:
            facts = replace(facts, vision=_flag(override["vision"], f"{where}.vision"))
        if "tool_choice" in override:
            choice = str(override["tool_choice"]).strip().lower()
            if choice not in ("auto", "required"):
                raise ConfigurationError(f"{where}.tool_choice: expected auto or required, got {choice!r}")
            facts = replace(facts, forced_tools=choice == "required")
        if "price" in override:
            facts = replace(facts, price=price_of(override["price"], f"{where}.price"))
        if "context" in override:
            facts = replace(facts, context_tokens=_context(override["context"], f"{where}.context"))
        return facts


#: The keys of an ``llm: models:`` entry.
FACT_KEYS = ("vision", "tool_choice", "price", "context")
#: Fewer tokens than this cannot hold a step's system prompt and tools.
MIN_CONTEXT = 1024


def _context(value: object, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < MIN_CONTEXT:
        raise ConfigurationError(
            f"{where}: expected the model's context in tokens, a whole number of at least "
            f"{MIN_CONTEXT} (as the server was started with, e.g. 8192), got {value!r}"
        )
    return value


def _flag(value: object, where: str) -> bool:
    if isinstance(value, bool):
        return value
    raise ConfigurationError(f"{where}: expected true or false, got {value!r}")


def price_of(value: object, where: str) -> Price:
    """A ``price:`` mapping: ``input`` and ``output`` (required), ``cached_input``, ``cache_write``."""
    if not isinstance(value, Mapping):
        raise ConfigurationError(f"{where}: expected a mapping of input, output, cached_input, cache_write")
    numbers: dict[str, float] = {}
    for key, raw in value.items():
        if key not in ("input", "output", "cached_input", "cache_write"):
            raise ConfigurationError(
                f"{where}: unknown key {key!r}; accepted: input, output, cached_input, cache_write"
            )
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 <= raw < float("inf"):
            raise ConfigurationError(f"{where}.{key}: expected dollars per million tokens, got {raw!r}")
        numbers[str(key)] = float(raw)
    if "input" not in numbers or "output" not in numbers:
        raise ConfigurationError(f"{where}: needs both input and output (dollars per million tokens)")
    return Price(**numbers)


def _p(i: float, o: float, cached: float, write: float | None = None) -> ModelFacts:
    return ModelFacts(vision=True, forced_tools=True, price=Price(i, o, cached, write))


#: provider -> model-name prefix -> facts. Hosted endpoints only (a base URL drops forced tools).
KNOWN: dict[str, dict[str, ModelFacts]] = {
    "openai": {
        "gpt-5-nano": _p(0.05, 0.40, 0.005),
        "gpt-5-mini": _p(0.25, 2.00, 0.025),
        "gpt-5": _p(1.25, 10.00, 0.125),
        "gpt-4.1-nano": _p(0.10, 0.40, 0.025),
        "gpt-4.1-mini": _p(0.40, 1.60, 0.10),
        "gpt-4.1": _p(2.00, 8.00, 0.50),
        "gpt-4o-mini": _p(0.15, 0.60, 0.075),
        "gpt-4o": _p(2.50, 10.00, 1.25),
        "o4-mini": _p(1.10, 4.40, 0.275),
        "o3": _p(2.00, 8.00, 0.50),
    },
    "anthropic": {
        "claude-opus-4-1": _p(15.00, 75.00, 1.50, 18.75),
        "claude-opus-4": _p(15.00, 75.00, 1.50, 18.75),
        "claude-sonnet-4-5": _p(3.00, 15.00, 0.30, 3.75),
        "claude-sonnet-4": _p(3.00, 15.00, 0.30, 3.75),
        "claude-haiku-4-5": _p(1.00, 5.00, 0.10, 1.25),
        "claude-3-7-sonnet": _p(3.00, 15.00, 0.30, 3.75),
        "claude-3-5-haiku": _p(0.80, 4.00, 0.08, 1.00),
    },
    "google": {
        "gemini-2.5-pro": _p(1.25, 10.00, 0.31),
        "gemini-2.5-flash-lite": _p(0.10, 0.40, 0.025),
        "gemini-2.5-flash": _p(0.30, 2.50, 0.075),
        "gemini-2.0-flash-lite": _p(0.075, 0.30, 0.075),
        "gemini-2.0-flash": _p(0.10, 0.40, 0.025),
    },
}
#: Azure deployments are named by their owner; what runs behind them is not known from the name.
KNOWN["azure"] = {}


def known_facts(provider: str, model: str, *, hosted: bool) -> ModelFacts:
    """The table's facts for ``provider/model``; a server behind a base URL forces no tool call
    (the OpenAI-compatible servers differ) and is not priced (its prices are its own)."""
    if provider == "azure":
        return ModelFacts(vision=_vision_by_name(model), forced_tools=True)
    table = KNOWN.get(provider, {})
    name = model.lower().rsplit("/", 1)[-1]
    best = max((prefix for prefix in table if name.startswith(prefix)), key=len, default=None)
    facts = table[best] if best is not None else ModelFacts()
    if best is None:  # a model newer than the table: its family says what it takes, not its price
        family = {
            "google": name.startswith("gemini"),  # every Gemini model takes images
            "anthropic": name.startswith("claude"),
            "openai": _vision_by_name(name),
        }.get(provider, False)
        facts = ModelFacts(vision=family, forced_tools=provider in ("openai", "anthropic", "google"))
    if not hosted:
        return replace(facts, forced_tools=False, price=None)
    return facts


def _vision_by_name(model: str) -> bool:
    """OpenAI's model families that take images (gpt-3.5 and the first gpt-4 do not)."""
    return _OPENAI_VISION.match(model.lower()) is not None


_OPENAI_VISION = re.compile(r"(chatgpt-4o|gpt-4o|gpt-4\.1|gpt-[5-9]|o[1-9](?!-mini)|o4-mini)")


def facts_for(
    provider: str, model: str, *, hosted: bool, overrides: Mapping[str, object] | None, where: str
) -> ModelFacts:
    """Known facts, then the ``llm: models:`` entry for ``provider/model`` or ``model``."""
    facts = known_facts(provider, model, hosted=hosted)
    if not overrides:
        return facts
    if not isinstance(overrides, Mapping):
        raise ConfigurationError(f"{where}: expected a mapping of model name to facts")
    for key in (f"{provider}/{model}", model):
        entry = overrides.get(key)
        if entry is None:
            continue
        if not isinstance(entry, Mapping):
            raise ConfigurationError(f"{where}.{key}: expected a mapping ({', '.join(FACT_KEYS)})")
        return facts.merged(entry, f"{where}.{key}")
    return facts


def check_overrides(overrides: object, where: str) -> tuple[str, str] | None:
    """The first problem of an ``llm: models:`` mapping as (model key, message), or None."""
    if not isinstance(overrides, Mapping):
        return "", f"{where}: expected a mapping of model name to {', '.join(FACT_KEYS)}"
    for key, entry in overrides.items():
        if not isinstance(entry, Mapping):
            return str(key), f"{where}.{key}: expected a mapping ({', '.join(FACT_KEYS)})"
        try:
            ModelFacts().merged(entry, f"{where}.{key}")
        except ConfigurationError as exc:
            return str(key), str(exc)
    return None
