"""The one filter between a run's secrets and everything that leaves the process.

Secrets are recognised by value: whatever path a secret took (``--trailblaze-secret``, an
environment variable read by ``{{NAME}}``, a tool server's echo, a user's exception), any text
holding it is masked where it leaves, so the filter needs no knowledge of where text came from.

Three shapes of the same filter:

- ``text`` / ``value``: every occurrence becomes ``********`` (messages, reports, logs, files);
- ``name``: every occurrence becomes ``secret-<hash>`` (node ids, file and folder names). The hash
  is of the secret's *name* (the KEY of ``KEY=VALUE``), never of its value: the same on every run
  and every machine, unchanged when the value rotates, and no oracle for guessing a weak secret;
- ``stream``: a writable text stream that masks what passes through it, holding back a tail that
  may be the start of a secret split across two writes.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TextIO
from urllib.parse import quote, quote_plus

MASK = "********"
#: How pytest marks the middle it cut out of a long repr.
CUT = "..."
#: The shortest piece of a cut secret that is masked (see ``_mask_cuts``).
MIN_PIECE = 3


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

    def holds(self, value: Any) -> bool:
        """True when a string anywhere inside ``value`` holds a secret (or a piece cut by ``...``)."""
        if isinstance(value, str):
            return _mask_text(self.values, value) != value
        if isinstance(value, Mapping):
            return any(self.holds(k) or self.holds(v) for k, v in value.items())
        if isinstance(value, (list, tuple)):
            return any(self.holds(v) for v in value)
        return False

    def text(self, text: str) -> str:
        return _mask_text(self.values, text) if self.values else text

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like ``value`` with every string masked; other objects are kept."""
        return _mask(self.values, value) if self.values else value

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
    ``p&quot;w``): a secret with a quote or a space reaches files and messages in those forms too."""
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

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def mask_with(secrets: Iterable[str], value: Any) -> Any:
    """A copy of ``value`` with every occurrence of any secret replaced by ``********``.

    Occurrences are found in the original text and overlapping ones merged, so a secret inside
    another, or two secrets sharing characters, are hidden completely whatever their order.
    """
    return Masker({str(n): secret for n, secret in enumerate(secrets)}).value(value)


def _mask(secrets: list[str], value: Any) -> Any:
    if isinstance(value, str):
        return _mask_text(secrets, value)
    if isinstance(value, dict):
        return {_mask(secrets, k): _mask(secrets, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(secrets, v) for v in value]
    if isinstance(value, tuple):
        return tuple(_mask(secrets, v) for v in value)
    return value


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
        before = _longest_piece(secrets, lambda s, n, left=left: left.endswith(s[:n]))
        after = _longest_piece(secrets, lambda s, n, right=right: right.startswith(s[-n:]))
        if before:
            pieces[i] = pieces[i][:-before] + MASK
        if after:
            pieces[i + 1] = MASK + pieces[i + 1][after:]
    return CUT.join(pieces)


def _longest_piece(secrets: list[str], found: Callable[[str, int], bool]) -> int:
    """The size of the longest proper piece (``MIN_PIECE`` or more) of a secret that ``found``."""
    sizes = (n for secret in secrets for n in range(MIN_PIECE, len(secret)) if found(secret, n))
    return max(sizes, default=0)


def _prefix_tail(secrets: list[str], text: str, limit: int) -> int:
    """Length of the longest end of ``text`` (at most ``limit``) that begins some secret."""
    longest = 0
    for secret in secrets:
        for size in range(min(len(secret) - 1, limit), longest, -1):
            if text.endswith(secret[:size]):
                longest = size
                break
    return longest
