"""Trail memory: seeded values, secrets, bound args, interpolation and masking
(docs/upstream.md, Tokens and memory).

Interpolation happens once, right before a tool is dispatched, over string scalars only, in a
single pass (a value that itself contains a token is not expanded again). Unknown tokens stay
literal so a typo shows up in the typed text instead of silently becoming empty. A string that
is exactly one ``{{args.x}}`` token takes the arg's native type. Secrets are masked in every
string a human or a report will see.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypeVar, overload

from ..errors import ConfigurationError, Problem
from ..jsondata import JsonValue
from ..masking import MASK as MASK  # re-exported: tools and the registry read it here
from ..masking import Masker
from ..masking import mask_with as mask_with
from ..trail.model import ArgDecl
from ..trail.tokens import ARGS_PATH, TOKEN, args_references, body, is_args_body
from ..trail.yamlsource import did_you_mean

#: The longest text an arg may grow to through ``{{args...}}`` references, checked from the sizes
#: before anything expands: args that each repeat the one before them ten times would otherwise
#: grow past any memory (ten levels: ten billion characters).
MAX_EXPANDED_CHARS = 1_000_000
#: The longest text one interpolation may produce at run time (memory values may be large: a
#: page's HTML, a JSON document); past it, repetition is at work, not data.
MAX_INTERPOLATED_CHARS = 64 * 1024 * 1024

V = TypeVar("V")


class ExpansionTooBig(ConfigurationError):
    """A value whose tokens expand past ``MAX_EXPANDED_CHARS``."""


class Memory:
    """The values one trail run reads and writes."""

    def __init__(self, *, blank_unknown: bool = False) -> None:
        self._values: dict[str, str] = {}
        self._secret_keys: set[str] = set()
        self._args: dict[str, JsonValue] = {}
        self._blank_unknown = blank_unknown
        self.unresolved: set[str] = set()
        #: The filter of the secrets as they are now; built on first use, dropped when one changes.
        self._masker: Masker | None = None

    # -- values -------------------------------------------------------------------------------
    def set(self, key: str, value: object, *, secret: bool = False) -> None:
        """Store ``value`` (as text, like upstream) under ``key``; secrets stay secret for the run."""
        self._values[key] = value if isinstance(value, str) else _as_text(value)
        if secret:
            self._secret_keys.add(key)
        if key in self._secret_keys:
            self._masker = None

    def get(self, key: str, default: str | None = None) -> str | None:
        return self._values.get(key, default)

    def delete(self, key: str) -> None:
        self._values.pop(key, None)
        if key in self._secret_keys:
            self._masker = None

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def is_secret(self, key: str) -> bool:
        return key in self._secret_keys

    def secret_keys(self) -> list[str]:
        """The names of the secrets that hold a value (names only: values never leave)."""
        return sorted(k for k in self._secret_keys if k in self._values)

    def snapshot(self) -> dict[str, str]:
        """Every value, secrets included; for tools that need them, never for display."""
        return dict(self._values)

    def public(self) -> dict[str, str]:
        """Values that may leave the process (tool servers, reports): secrets left out."""
        return {k: v for k, v in self._values.items() if k not in self._secret_keys}

    def seed(self, values: Mapping[str, object], *, secret: bool = False) -> None:
        for key, value in values.items():
            self.set(key, value, secret=secret)

    # -- args ---------------------------------------------------------------------------------
    @property
    def args(self) -> Mapping[str, JsonValue]:
        """Bound trail args; immutable for the run."""
        return MappingProxyType(self._args)

    def bind_args(self, decls: Mapping[str, ArgDecl], provided: Mapping[str, JsonValue]) -> None:
        """Bind provided values to declarations, then resolve tokens in string values.

        A string arg, provided or default, may reference memory (``{{memory.email}}``) and other
        args (as upstream's seeding does); those are resolved
        in dependency order, always as text (a string arg stays a string). Args caught in a
        reference cycle, or depending on one, keep those args tokens literally.
        """
        values = bind_args(decls, provided)
        self._args = values
        pending = {
            name
            for name, value in values.items()
            if isinstance(value, str) and ("{{" in value or "${" in value)
        }
        while pending:
            ready = [
                name
                for name in values
                if name in pending and not pending & set(args_references(values[name]))
            ]
            if not ready:
                break
            for name in ready:
                text = values[name]
                if isinstance(text, str):  # pending names text args only
                    values[name] = self._substitute(text, self._replace)
                pending.discard(name)

        def keep_cyclic(match: re.Match[str]) -> str:
            inner = body(match)
            if ARGS_PATH.match(inner) and inner.split(".")[1] in pending:
                self.unresolved.add(match.group(0))
                return match.group(0)
            return self._replace(match)

        for name in pending:
            text = values[name]
            if isinstance(text, str):
                values[name] = self._substitute(text, keep_cyclic)

    # -- interpolation ------------------------------------------------------------------------
    @overload
    def interpolate(self, value: dict[str, JsonValue]) -> dict[str, JsonValue]: ...

    @overload
    def interpolate(self, value: JsonValue) -> JsonValue: ...

    def interpolate(self, value: JsonValue) -> JsonValue:
        """Resolve tokens inside every string of a JSON-like value."""
        if isinstance(value, str):
            return self._interpolate_text(value) if ("{{" in value or "${" in value) else value
        if isinstance(value, dict):
            return {k: self.interpolate(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.interpolate(v) for v in value]
        return value

    def _interpolate_text(self, text: str) -> JsonValue:
        whole = TOKEN.fullmatch(text)
        if whole is not None and is_args_body(body(whole)):
            found, value = self._lookup_arg(body(whole))
            if found:
                # A copy, so whoever receives a list or object cannot change the bound args.
                return copy.deepcopy(value) if isinstance(value, (dict, list)) else value
        return self._substitute(text, self._replace)

    def _substitute(self, text: str, replace: Callable[[re.Match[str]], str]) -> str:
        """``text`` with its tokens replaced, refused as soon as it would pass ``MAX_INTERPOLATED_CHARS``."""
        size = [len(text)]

        def counted(match: re.Match[str]) -> str:
            value = replace(match)
            size[0] += len(value) - len(match.group(0))
            if size[0] > MAX_INTERPOLATED_CHARS:
                raise ExpansionTooBig(
                    f"a value with {{{{...}}}} tokens expands to more than {MAX_INTERPOLATED_CHARS:,} "
                    f"characters (at {match.group(0)})"
                )
            return value

        return TOKEN.sub(counted, text)

    def _replace(self, match: re.Match[str]) -> str:
        inner = body(match)
        if is_args_body(inner):
            found, value = self._lookup_arg(inner)
            if found:
                return value if isinstance(value, str) else _as_text(value)
        else:
            found, value = self._lookup_memory(inner)
            if found:
                return value
        self.unresolved.add(match.group(0))
        return "" if self._blank_unknown and not is_args_body(inner) else match.group(0)

    def _lookup_memory(self, key: str) -> tuple[bool, str]:
        stripped = key[len("memory.") :] if key.startswith("memory.") else key
        for candidate in (stripped, key):
            if candidate in self._values:
                return True, self._values[candidate]
        return False, ""

    def _lookup_arg(self, path: str) -> tuple[bool, JsonValue]:
        if not ARGS_PATH.match(path):
            raise ConfigurationError(
                f"malformed args token '{{{{{path}}}}}': "
                "args tokens are dotted paths like {{args.user.email}}"
            )
        parts = path.split(".")[1:]
        if parts[0] not in self._args:
            return False, None
        value = self._args[parts[0]]
        for part in parts[1:]:
            if isinstance(value, dict) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                return False, None
        return True, value

    # -- masking ------------------------------------------------------------------------------
    @property
    def masker(self) -> Masker:
        """The masking filter of this memory's secrets (see ``masking``), kept until a secret changes:
        each secret stands for a dozen written forms, and every tool call masks several values."""
        if self._masker is None:
            self._masker = Masker({k: self._values[k] for k in self._secret_keys if k in self._values})
        return self._masker

    def secret_values(self) -> list[str]:
        """Secret values, longest first so overlapping secrets mask completely."""
        return self.masker.values

    def mask(self, value: V) -> V:
        """A copy of ``value`` with every secret value replaced by ``********``."""
        if not self._secret_keys:  # the common case, on every tool call: no filter to build
            return value
        return self.masker.value(value)


def _as_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    return "" if value is None else str(value)


# -- args binding ---------------------------------------------------------------------------
def bind_args(decls: Mapping[str, ArgDecl], provided: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Typed values for every declared arg; unknown, missing or mistyped values are errors."""
    problems = []
    for name in provided:
        if name not in decls:
            hint = did_you_mean(name, decls)
            known = ", ".join(decls) or "none"
            problems.append(f"unknown arg '{name}' (declared: {known}){'; ' + hint if hint else ''}")
    bound: dict[str, JsonValue] = {}
    for name, decl in decls.items():
        if name in provided:
            try:
                bound[name] = coerce_arg(decl, provided[name])
            except ValueError as exc:
                problems.append(
                    f"{decl.span}: arg '{name}': {exc}; pass --trailblaze-arg {name}=<{decl.type}>"
                )
        elif decl.required:
            problems.append(
                f"{decl.span}: missing required arg '{name}' ({decl.type}); "
                f"pass --trailblaze-arg {name}=<value> or put it in --trailblaze-args-file"
            )
        else:
            bound[name] = decl.default
    problems += [p.format() for p in expansion_problems(decls, bound)]
    if problems:
        raise ConfigurationError("\n".join(problems))
    return bound


def expansion_problems(decls: Mapping[str, ArgDecl], values: Mapping[str, JsonValue]) -> list[Problem]:
    """Args whose ``{{args.x}}`` references would expand past ``MAX_EXPANDED_CHARS``, found from the
    sizes alone (nothing is expanded): each arg's size is its own text plus, per reference, the size
    of the arg it names. Memory tokens count as written (their values come at run time, where the
    expansion is bounded too); args in a reference cycle stay literal, as binding leaves them."""
    sizes: dict[str, int] = {}
    visiting: set[str] = set()

    def size(name: str) -> int:
        if name in sizes:
            return sizes[name]
        value = values.get(name)
        if not isinstance(value, str) or name in visiting:
            return len(_as_text(value)) if value is not None else 0
        visiting.add(name)
        total = len(value)
        for match in TOKEN.finditer(value):
            inner = body(match)
            if ARGS_PATH.match(inner) and inner.split(".")[1] in values:
                total += size(inner.split(".")[1]) - len(match.group(0))
        visiting.discard(name)
        sizes[name] = total
        return total

    problems = []
    for name, decl in decls.items():
        if name in values and size(name) > MAX_EXPANDED_CHARS:
            problems.append(
                Problem(
                    decl.span,
                    f"arg '{name}' expands to {size(name):,} characters through {{{{args...}}}} references",
                    why=f"a value may grow to at most {MAX_EXPANDED_CHARS:,} characters: args that repeat "
                    "other args multiply at every level",
                    fix="give the arg its text directly instead of repeating other args in it",
                )
            )
    return problems


def coerce_arg(decl: ArgDecl, value: JsonValue) -> JsonValue:
    """Coerce a provided value by the declared type; CLI values arrive as text."""
    if value is None:
        raise ValueError("args never hold null; give a value")
    kind = decl.type
    if kind == "string":
        return value if isinstance(value, str) else _as_text(value)
    if kind == "boolean":
        return _coerce_bool(value)
    if kind in ("integer", "number"):
        return _coerce_number(value, integer=kind == "integer")
    expected = list if kind == "array" else dict
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"expects a JSON {kind}, got {value!r}") from exc
    if not isinstance(value, expected):
        raise ValueError(f"expects an {kind}, got {type(value).__name__}")
    return value


def _coerce_bool(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ValueError(f"expects true or false, got {value!r}")


_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


def _coerce_number(value: object, *, integer: bool) -> int | float:
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool):
        raise ValueError(f"expects {kind}, got {value!r}")
    if isinstance(value, int) or (isinstance(value, float) and not integer):
        return _finite(value)
    if isinstance(value, str):
        text = value.strip()
        if integer:
            # Plain decimal digits only: Python's int() would also take '1_000' and non-ASCII digits.
            if _INTEGER_TEXT.fullmatch(text):
                return int(text)
        else:
            try:
                return _finite(float(text))
            except ValueError:
                pass
    raise ValueError(f"expects {kind}, got {value!r}")


def _finite(value: int | float) -> int | float:
    """NaN and infinity cannot travel as JSON to a tool or a server, so an arg never holds them."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"expects a number (finite), got {value!r}")
    return value
