"""The token grammar shared by the loader (static checks) and memory (interpolation).

Two spellings mean the same thing: ``{{name}}`` and ``${name}``. A token body is a memory key
(``x`` or ``memory.x``) or an args path (``args.x.sub``). Args paths are dotted names only;
anything else after ``args.`` (``{{args.x + 1}}``) is malformed and always an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

TOKEN = re.compile(r"\$\{([^}]+)\}|\{\{([^}]+)\}\}")
ARGS_PATH = re.compile(r"^args(\.[A-Za-z0-9_]+)+$")


def body(match: re.Match[str]) -> str:
    """The stripped text inside a token match."""
    return (match.group(1) if match.group(1) is not None else match.group(2)).strip()


def is_args_body(text: str) -> bool:
    return text.startswith("args.")


def strings_in(value: object) -> Iterator[str]:
    """Every string scalar inside a JSON-like value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def malformed_arg_tokens(value: object) -> list[str]:
    """Tokens that start with ``args.`` but are not a dotted path."""
    bad = []
    for text in strings_in(value):
        if "args." not in text:
            continue
        for match in TOKEN.finditer(text):
            inner = body(match)
            if is_args_body(inner) and not ARGS_PATH.match(inner):
                bad.append(match.group(0))
    return bad


def args_references(value: object) -> list[str]:
    """Names of the args referenced by well-formed ``{{args.x...}}`` tokens."""
    names = []
    for text in strings_in(value):
        for match in TOKEN.finditer(text):
            inner = body(match)
            if ARGS_PATH.match(inner):
                names.append(inner.split(".")[1])
    return names
