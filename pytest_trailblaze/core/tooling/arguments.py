"""Argument problems in one shape, whoever found them: pydantic (Python and YAML-defined tools)
or JSON Schema (MCP tools), with paths written the way a trail author reads them
(``entities[0].entityType``, not ``'entityType' is a required property``).

The shape keeps the offending value, so static checks can tell a real mistake from a value that
is only known at run time (a ``{{token}}``), and the kind, so a missing or unknown argument is
never excused by a token elsewhere in the call.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import ValidationError

from ..trail.yamlsource import did_you_mean

IssueKind = Literal["missing", "unknown", "value"]
Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class ArgumentIssue:
    """One thing wrong with a call's arguments; ``message`` is a complete phrase."""

    path: Path
    kind: IssueKind
    message: str
    value: object = field(default=None, compare=False)  # may be a dict: not part of the hash

    @property
    def argument(self) -> str | None:
        """The top-level argument the issue is about (where the call's source points)."""
        return self.path[0] if self.path and isinstance(self.path[0], str) else None


def dotted(path: Sequence[str | int]) -> str:
    """``('entities', 0, 'entityType')`` -> ``entities[0].entityType``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def missing(path: Path) -> ArgumentIssue:
    where = dotted(path)
    text = f"missing required argument '{where}'" if len(path) == 1 else f"{where} is required"
    return ArgumentIssue(path, "missing", text)


def unknown(path: Path, accepted: Sequence[str]) -> ArgumentIssue:
    name = str(path[-1])
    hint = did_you_mean(name, accepted)
    where = f"argument '{dotted(path)}'" if len(path) == 1 else f"key '{dotted(path)}'"
    listed = ", ".join(accepted) or "none"
    return ArgumentIssue(
        path, "unknown", f"unknown {where}{' (' + hint + ')' if hint else ''}; accepted: {listed}"
    )


def wrong(path: Path, what: str, value: object, *, quote: bool = True) -> ArgumentIssue:
    """A value of the wrong type or range; ``quote`` adds the value when ``what`` does not show it."""
    where = f"argument '{dotted(path)}'" if path else "arguments"
    shown = f" (got {value!r})" if quote else ""
    return ArgumentIssue(path, "value", f"{where}: {what}{shown}", value)


def non_finite(value: object, path: Path = ()) -> Iterator[ArgumentIssue]:
    """NaN and infinities anywhere in a value: JSON has no spelling for them, and no wait or
    timeout means anything with them."""
    if isinstance(value, float) and not math.isfinite(value):
        yield wrong(path, "must be a finite number (NaN and infinity are not allowed)", value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from non_finite(item, (*path, str(key)))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from non_finite(item, (*path, index))


def is_finite(value: object) -> bool:
    """No NaN or infinity anywhere in ``value``."""
    return next(non_finite(value), None) is None


# -- pydantic --------------------------------------------------------------------------------------
def pydantic_issues(exc: ValidationError, accepted: Sequence[str]) -> list[ArgumentIssue]:
    """The errors of a model validation; ``accepted`` are the model's top-level fields."""
    issues = []
    for error in exc.errors():
        path = tuple(error["loc"])
        kind = error["type"]
        if kind == "missing":
            issues.append(missing(path))
        elif kind == "extra_forbidden":
            issues.append(unknown(path, accepted if len(path) == 1 else ()))
        else:
            issues.append(wrong(path, error["msg"], error.get("input")))
    return issues


# -- JSON Schema ------------------------------------------------------------------------------------
class SchemaError(Protocol):
    """What is read here of a ``jsonschema`` validation error."""

    @property
    def path(self) -> Iterable[str | int]:
        """Where in the instance: keys and list indexes."""

    @property
    def instance(self) -> object: ...

    @property
    def validator(self) -> str:
        """The keyword that failed (``required``, ``type``...)."""

    @property
    def validator_value(self) -> object: ...

    @property
    def message(self) -> str: ...

    @property
    def schema(self) -> object: ...


class SchemaValidator(Protocol):
    """What is used here of a ``jsonschema`` validator (``Draft202012Validator``)."""

    def iter_errors(self, instance: object) -> Iterable[SchemaError]: ...

    def is_valid(self, instance: object) -> bool: ...


def schema_issues(validator: SchemaValidator, args: Mapping[str, object]) -> list[ArgumentIssue]:
    """Everything a ``jsonschema`` validator finds in ``args``, non-finite numbers first."""
    issues = list(non_finite(args))
    for error in sorted(validator.iter_errors(dict(args)), key=lambda e: [str(p) for p in e.path]):
        issues.extend(_from_schema_error(error))
    return list(dict.fromkeys(issues))


def _from_schema_error(error: SchemaError) -> list[ArgumentIssue]:
    path: Path = tuple(error.path)
    instance = error.instance
    found: list[ArgumentIssue] = []
    if error.validator == "required" and isinstance(instance, Mapping):
        required = error.validator_value  # the keyword's list of names
        names = (
            [p for p in required if isinstance(p, str | int) and error.message.startswith(f"{p!r} ")]
            if isinstance(required, list)
            else []
        )
        found = [missing((*path, name)) for name in names]
    elif error.validator == "additionalProperties" and isinstance(instance, Mapping):
        found = [unknown((*path, str(k)), _declared(error.schema)) for k in _extras(error.schema, instance)]
    elif error.validator == "type" and isinstance(instance, float) and not math.isfinite(instance):
        return []  # already said by non_finite(), in plainer words
    return found or [wrong(path, error.message, instance, quote=False)]


def _declared(schema: object) -> list[str]:
    return list(schema.get("properties", {})) if isinstance(schema, Mapping) else []


def _extras(schema: object, instance: Mapping[str, object]) -> list[str]:
    """The keys ``additionalProperties: false`` refused: neither declared nor matching a pattern."""
    patterns = list(schema.get("patternProperties", {})) if isinstance(schema, Mapping) else []
    declared = _declared(schema)
    return [k for k in instance if k not in declared and not any(re.search(p, k) for p in patterns)]
