"""The one filter between a run's secrets and everything that leaves the process.

Secrets are recognised by value: whatever path a secret took (``--trailblaze-secret``, an
environment variable read by ``{{NAME}}``, a tool server's echo, a user's exception), any text
holding it is masked where it leaves, so the filter needs no knowledge of where text came from.

Three shapes of the same filter:

- ``text`` / ``value``: every occurrence becomes ``********`` (messages, reports, logs, files).
  ``value`` rewrites the strings of a structure and never its keys; a ``Shape`` names the fields
  that are structure too (a report's ``outcome``, a record's ``kind``), which stay as they are, so
  even a one-letter secret cannot break what readers parse;
- ``name``: every occurrence becomes ``secret-<hash>`` (node ids, file and folder names). The hash
  is of the secret's *name* (the KEY of ``KEY=VALUE``), never of its value: the same on every run
  and every machine, unchanged when the value rotates, and no oracle for guessing a weak secret;
- ``stream``: a writable text stream that masks what passes through it, holding back a tail that
  may be the start of a secret split across two writes.

A secret is found in every form it is written in: as given, JSON- URL- and HTML-escaped, and for
a multi-line secret each of its lines and its lines joined by a space (a page's text, a one-line
message and an accessibility snapshot write a textarea's value that way), each of those escaped
too. ``visible`` is the filter's companion at the same doors: control characters from trail text
are shown as ``\x1b`` instead of reaching a terminal, which would obey them.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO, TypeVar, Union, cast
from urllib.parse import quote, quote_plus

MASK = "********"
#: How pytest marks the middle it cut out of a long repr.
CUT = "..."
#: The shortest piece of a cut secret that is masked (see ``_mask_cuts``), and the shortest line of
#: a multi-line secret masked on its own: a shorter one is ordinary text everywhere.
MIN_PIECE = 3
#: Secrets this short mask ordinary text wherever they occur; the run warns about them.
SHORT_SECRET = 2
#: Fields of a structure that are never masked: ``KEEP``; ``PAIRS`` for a list of ``(name, value)``
#: pairs whose names are structure (pytest's ``user_properties`` and ``sections``); or the shape of
#: the value under the key (a list's shape applies to each of its items).
KEEP = True
PAIRS = "pairs"
Shape = Mapping[str, Union[bool, str, "Shape"]]
#: The type of a value the masking functions copy: the copy has the same type.
V = TypeVar("V")


class Masker:
    """Masks the secrets it was given (name -> value) in text, values, names and streams."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        names: dict[str, str] = {}
        #: The secrets as given, before ``written_forms`` (for filters that add forms of their own).
        self.secrets = [value for _, value in sorted((secrets or {}).items()) if value]
        for key, value in sorted((secrets or {}).items()):
            if value:
                for form in written_forms(value):
                    names.setdefault(form, key)
        self._names = names
        #: Longest first, so a secret inside another is hidden by the longer one.
        self.values = sorted(names, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self.values)

    def holds(self, value: object) -> bool:
        """True when a string value anywhere inside ``value`` holds a secret (or a piece cut by ``...``)."""
        if isinstance(value, str):
            return _mask_text(self.values, value) != value
        if isinstance(value, Mapping):
            return any(self.holds(v) for v in value.values())
        if isinstance(value, (list, tuple)):
            return any(self.holds(v) for v in value)
        return False

    def text(self, text: str) -> str:
        return _mask_text(self.values, text) if self.values else text

    def value(self, value: V, shape: Shape | None = None) -> V:
        """A copy of a JSON-like ``value`` with every string value masked; keys, other objects and
        the fields ``shape`` names stay as they are."""
        return rewrite(value, self.text, shape) if self.values else value

    def short_secrets(self) -> list[str]:
        """Names of the secrets so short (one or two characters) that masking them hides ordinary text."""
        return sorted({self._names[v] for v in self.secrets if len(v) <= SHORT_SECRET})

    def name(self, text: str) -> str:
        """``text`` fit for a file name or node id: each secret becomes ``secret-<hash of its name>``."""
        for secret in self.values:
            if secret in text:
                text = text.replace(secret, name_token(self._names[secret]))
        return text

    def stream(self, file: TextIO) -> MaskingStream:
        return MaskingStream(file, self)

    def split_tail(self, text: str) -> tuple[str, str]:
        """``text`` masked, minus a tail that may be the beginning of a secret (returned apart)."""
        last_end = max((end for _, end in _spans(self.values, text)), default=0)
        hold = _prefix_tail(self.values, text, len(text) - last_end)
        cut = len(text) - hold
        return self.text(text[:cut]), text[cut:]


#: What URLs leave unescaped: the WHATWG query, path and fragment sets (a browser's URL, a trace's
#: request) and Python's ``quote`` (everything escaped but ``/``, and everything but letters).
_URL_SAFE = (
    "!$&()*+,-./:;=?@[\\]^_`{|}~",
    "!$&'()*+,-./:;=@[\\]^_|~",
    "!#$&'()*+,-./:;=?@[\\]^_{|}~",
    "/",
    "",
)


def written_forms(secret: str) -> list[str]:
    """``secret`` as written, and as JSON, URLs and HTML/XML write it (``p\\"w``, ``p%22w``,
    ``p&quot;w``): a secret with a quote or a space reaches files and messages in those forms too.

    A multi-line secret also reaches them line by line (a message quoting its first line) and as
    one line (a page's text, an accessibility snapshot: lines joined by a space, runs of white
    space folded), each in every escaped form; a line shorter than ``MIN_PIECE`` is ordinary text.
    """
    lines = [line for line in re.split(r"\r\n|\r|\n", secret) if len(line.strip()) >= MIN_PIECE]
    if len(lines) < 2 and "\n" not in secret and "\r" not in secret:
        return _escaped_forms(secret)
    joined = [" ".join(secret.splitlines()), " ".join(secret.split()), "".join(secret.splitlines())]
    forms = [form for whole in (secret, *joined) for form in _escaped_forms(whole)]
    forms += [form for line in lines for form in _escaped_forms(line)]
    forms += [form for line in lines for form in _escaped_forms(line.strip())]
    return list(dict.fromkeys(f for f in forms if f))


def _escaped_forms(secret: str) -> list[str]:
    forms = [secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]]
    forms += [quote(secret, safe=safe) for safe in _URL_SAFE] + [quote_plus(secret, safe="")]
    forms += [
        html.escape(secret),
        html.escape(secret, quote=False),
        html.escape(secret).replace("&#x27;", "&#39;"),
    ]
    return list(dict.fromkeys(forms))


def name_token(key: str) -> str:
    """What stands for the secret named ``key`` inside a name: stable, and free of its value."""
    import hashlib  # on first use: every process imports this module, few name a secret

    return "secret-" + hashlib.sha256(f"trailblaze-secret:{key}".encode()).hexdigest()[:8]


class MaskingStream:
    """A text stream that masks on write; everything else is the wrapped stream's."""

    def __init__(self, file: TextIO, masker: Masker) -> None:
        self.wrapped = file
        self.masker = masker
        self._held = ""

    def write(self, text: str) -> int:
        shown, self._held = self.masker.split_tail(self._held + text)
        if shown:
            self.wrapped.write(shown)
        return len(text)

    def release(self) -> None:
        """Write what was held back (the run is over: nothing more can complete a secret)."""
        held, self._held = self._held, ""
        if held:
            self.wrapped.write(self.masker.text(held))
        self.wrapped.flush()

    def close(self) -> None:
        self.release()
        self.wrapped.close()

    def __getattr__(self, name: str) -> Any:  # the wrapped stream's attribute, of its own type
        return getattr(self.wrapped, name)


def mask_with(secrets: Iterable[str], value: V) -> V:
    """A copy of ``value`` with every occurrence of any secret replaced by ``********``.

    Occurrences are found in the original text and overlapping ones merged, so a secret inside
    another, or two secrets sharing characters, are hidden completely whatever their order.
    """
    return Masker({str(n): secret for n, secret in enumerate(secrets)}).value(value)


def rewrite(value: V, change: Callable[[str], str], shape: Shape | None = None) -> V:
    """A copy of a JSON-like ``value`` with ``change`` applied to every string value: never to a
    key, nor to a field ``shape`` marks ``KEEP`` (structure that readers parse). The copy has the
    shape of ``value``: a dict stays a dict of the same keys, a list a list, a string a string."""
    if isinstance(value, str):
        return cast(V, change(value))
    if isinstance(value, dict):
        if not shape:
            return cast(V, {k: rewrite(v, change) for k, v in value.items()})
        kept: dict[object, object] = {}
        for key, item in value.items():
            inner = shape.get(key)
            if inner is KEEP:
                kept[key] = item
            elif inner == PAIRS and isinstance(item, (list, tuple)):
                kept[key] = [_pair(pair, change) for pair in item]
            else:
                kept[key] = rewrite(item, change, inner if isinstance(inner, Mapping) else None)
        return cast(V, kept)
    if isinstance(value, list):
        return cast(V, [rewrite(v, change, shape) for v in value])
    if isinstance(value, tuple):
        return cast(V, tuple(rewrite(v, change, shape) for v in value))
    return value


def _pair(pair: object, change: Callable[[str], str]) -> object:
    if isinstance(pair, (list, tuple)) and pair:
        return type(pair)([pair[0], *(rewrite(v, change) for v in pair[1:])])
    return rewrite(pair, change)


#: C0 and C1 control characters (tab and newline excepted) and the bidirectional overrides that
#: reorder what a reader sees.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def visible(text: str) -> str:
    """``text`` with control characters written as escapes (``\x1b``, ``\r``, ``\u202e``), so that
    trail text cannot clear a terminal, hide a line or reorder what a CI log shows."""
    if not _CONTROLS.search(text):
        return text
    return _CONTROLS.sub(_escape_control, text)


def _escape_control(match: re.Match[str]) -> str:
    char = match.group(0)
    named = {"\r": "\\r", "\x00": "\\0"}.get(char)
    if named:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def has_controls(value: object) -> bool:
    """Whether a string value anywhere in ``value`` holds a character ``visible`` would rewrite.

    Asked of every trail report, which is nearly always clean: walked with a list, not by
    recursion (a call and a generator per value cost more than the search).
    """
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _CONTROLS.search(item):
                return True
        elif isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return False


def _spans(secrets: list[str], text: str) -> list[tuple[int, int]]:
    spans = []
    for secret in secrets:
        start = text.find(secret)
        while start != -1:
            spans.append((start, start + len(secret)))
            start = text.find(secret, start + 1)
    return sorted(spans)


def _mask_text(secrets: list[str], text: str) -> str:
    spans = _spans(secrets, text)
    if not spans:
        return _mask_cuts(secrets, text) if CUT in text else text
    parts, pos, end = [], 0, -1
    for start, stop in spans:
        if start < end:
            end = max(end, stop)
            continue
        if end >= 0:
            parts.append(MASK)
            pos = end
        parts.append(text[pos:start])
        end = stop
    parts.append(MASK)
    parts.append(text[end:])
    masked = "".join(parts)
    return _mask_cuts(secrets, masked) if CUT in masked else masked


def _mask_cuts(secrets: list[str], text: str) -> str:
    """Mask the pieces of a secret that a shortened repr left around its ``...``.

    pytest shows long values as ``start...end`` (``saferepr``); a secret the cut went through
    survives as a prefix before the dots and a suffix after them. Pieces shorter than
    ``MIN_PIECE`` stay, or every ellipsis in ordinary text would lose a letter.
    """
    pieces = text.split(CUT)
    for i in range(len(pieces) - 1):
        left, right = pieces[i], pieces[i + 1]
        before = _longest_piece(secrets, _ends_with_head(left))
        after = _longest_piece(secrets, _starts_with_tail(right))
        if before:
            pieces[i] = pieces[i][:-before] + MASK
        if after:
            pieces[i + 1] = MASK + pieces[i + 1][after:]
    return CUT.join(pieces)


def _longest_piece(secrets: list[str], found: Callable[[str, int], bool]) -> int:
    """The size of the longest proper piece (``MIN_PIECE`` or more) of a secret that ``found``."""
    sizes = (n for secret in secrets for n in range(MIN_PIECE, len(secret)) if found(secret, n))
    return max(sizes, default=0)


def _ends_with_head(text: str) -> Callable[[str, int], bool]:
    """Whether ``text`` ends with the first ``n`` characters of a secret."""
    return lambda secret, n: text.endswith(secret[:n])


def _starts_with_tail(text: str) -> Callable[[str, int], bool]:
    """Whether ``text`` starts with the last ``n`` characters of a secret."""
    return lambda secret, n: text.startswith(secret[-n:])


def _prefix_tail(secrets: list[str], text: str, limit: int) -> int:
    """Length of the longest end of ``text`` (at most ``limit``) that begins some secret."""
    longest = 0
    for secret in secrets:
        for size in range(min(len(secret) - 1, limit), longest, -1):
            if text.endswith(secret[:size]):
                longest = size
                break
    return longest
