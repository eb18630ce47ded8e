"""Reading Playwright ARIA snapshots: element ids ``eN`` and ARIA descriptors (docs/upstream.md).

Recorded web trails carry refs such as ``e11`` that were ids in the recorder's compact element
list. To honour them at replay we number a fresh snapshot of the current page exactly as the
recorder did: walk the lines in order and give the next id to every "LLM-relevant" line.

Finding a numbered element again by its role and text is not reliable: a name that comes from
CSS generated content (``::before``/``::after``, e.g. TodoMVC's ``- checkbox: ✔``) is in the
snapshot but in no text a locator can match. So the default snapshot is aligned with Playwright's
own ``mode="ai"`` snapshot of the same page, whose ``[ref=eN]`` marks the very element of each
line; a numbered element then resolves through ``aria-ref=`` (element identity), and only lines
the AI snapshot gives no ref (hidden options, zero-size boxes) fall back to role and name. This
module is pure text processing so numbering and alignment can be tested without a browser.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass

INTERACTIVE_ROLES = frozenset(
    """
    button link textbox combobox searchbox checkbox radio switch tab menuitem option slider
    spinbutton
    """.split()
)
CONTENT_ROLES = frozenset(
    "heading img alert dialog status progressbar meter tooltip cell columnheader rowheader".split()
)
NON_ELEMENT_ROLES = frozenset({"generic", "none", "presentation"})
KNOWN_ROLES = frozenset(
    """
    alert alertdialog application article banner blockquote button caption cell checkbox code
    columnheader combobox complementary contentinfo definition deletion dialog directory document
    emphasis feed figure form generic grid gridcell group heading img insertion link list listbox
    listitem log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter
    navigation none note option paragraph presentation progressbar radio radiogroup region row
    rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong
    subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip
    tree treegrid treeitem
    """.split()
)

_LINE = re.compile(
    r"""^\s*-\s(?P<role>[A-Za-z][\w-]*)
        (?:\s+(?P<name>"(?:[^"\\]|\\.)*"))?
        (?P<attrs>(?:\s*\[[^\]]*\])*)
        \s*(?::\s*(?P<text>.*))?$""",
    re.VERBOSE,
)
_YAML_QUOTED = re.compile(r"^(\s*-\s)'((?:[^']|'')*)'(:.*)?$")
_ELEMENT_ID = re.compile(r"^\[?(e\d+)\]?$")
_DESCRIPTOR = re.compile(r'^(?P<role>[a-z][a-z-]*)\s+"(?P<name>.*)"$', re.DOTALL)
_TRAILING_ATTRS = re.compile(r"(\s*\[[^\]]*\])+\s*$")
_REF_ATTR = re.compile(r"\[ref=([^\]\s]+)\]")


@dataclass(frozen=True, slots=True)
class AriaElement:
    """A numbered element and how to find it again.

    ``name`` is the accessible name, or the element's text when the snapshot showed text
    content instead of a name (``- paragraph: Current value: 0``; then ``from_text`` is set).
    ``nth`` is the element's position among the elements the matching locator will return:
    same role and name, same role and text, or, for unnamed elements, every element of the role.
    ``aria_ref`` is Playwright's own ref of the same element in an AI snapshot taken alongside
    (``aria-ref=<aria_ref>`` locates exactly that element), when that snapshot gave it one.
    """

    ref: str
    role: str
    name: str | None
    nth: int
    from_text: bool = False
    aria_ref: str | None = None

    @property
    def descriptor(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else self.role


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return str(json.loads(text))
        except json.JSONDecodeError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def parse_line(line: str) -> tuple[str, str | None, bool] | None:
    """``(role, name, from_text)`` of a snapshot line; None for property lines and noise."""
    parsed = _parse(line)
    return None if parsed is None else parsed[:3]


def _parse(line: str) -> tuple[str, str | None, bool, str] | None:
    """``(role, name, from_text, attrs)``: ``attrs`` is the ``[...]`` text after the name."""
    quoted = _YAML_QUOTED.match(line)
    if quoted:  # Playwright single-quotes a line whose name holds ': ' (YAML would misread it)
        line = quoted.group(1) + quoted.group(2).replace("''", "'") + (quoted.group(3) or "")
    match = _LINE.match(line)
    if match is None or match.group("role") == "text":
        return None
    role, attrs = match.group("role"), match.group("attrs") or ""
    if match.group("name") is not None:
        return role, _unquote(match.group("name")), False, attrs
    text = _unquote(match.group("text") or "")
    return (role, text, True, attrs) if text else (role, None, False, attrs)


def is_relevant(role: str, name: str | None) -> bool:
    """Whether the recorder gave this line an id."""
    if role not in KNOWN_ROLES:
        return False  # unknown words such as ``text`` count as generic
    if role in INTERACTIVE_ROLES:
        return True
    return bool(name) and role not in NON_ELEMENT_ROLES


def number_elements(snapshot: str, ai_snapshot: str | None = None) -> dict[str, AriaElement]:
    """Map ``e1, e2, ...`` to elements, in document order, as the recorder numbered them.

    With ``ai_snapshot`` (Playwright's ``mode="ai"`` snapshot of the same page) each element also
    gets the ``aria_ref`` of its line there, when it has one.
    """
    lines = list(_element_lines(snapshot))
    aria_refs = align_refs(lines, list(_element_lines(ai_snapshot))) if ai_snapshot else {}
    elements: dict[str, AriaElement] = {}
    seen: dict[tuple[str, str | None, bool], int] = {}
    for index, (role, name, from_text, _) in enumerate(lines):
        # Unnamed elements are found by role alone, so they count among every element of the role.
        keys = [(role, None, False)] if name is None else [(role, name, from_text), (role, None, False)]
        nth = seen.get(keys[0], 0)
        for key in keys:
            seen[key] = seen.get(key, 0) + 1
        if is_relevant(role, name):
            ref = f"e{len(elements) + 1}"
            elements[ref] = AriaElement(ref, role, name, nth, from_text, aria_refs.get(index))
    return elements


_Line = tuple[str, "str | None", bool, "str | None"]


def _element_lines(snapshot: str) -> Iterator[_Line]:
    """``(role, name, from_text, aria_ref)`` of each element line; frames' content is skipped.

    An AI snapshot inlines each ``<iframe>``'s content under its line (refs ``f1e2``...); the
    default snapshot does not, and eN numbering never reaches into frames.
    """
    frame_indent: int | None = None
    for line in snapshot.splitlines():
        indent = len(line) - len(line.lstrip())
        if frame_indent is not None and indent > frame_indent:
            continue
        frame_indent = None
        parsed = _parse(line)
        if parsed is None:
            continue
        role, name, from_text, attrs = parsed
        if role == "iframe":
            frame_indent = indent
        found = _REF_ATTR.search(attrs)
        yield role, name, from_text, found.group(1) if found else None


def align_refs(lines: Sequence[_Line], ai_lines: Sequence[_Line]) -> dict[int, str]:
    """Index of a default-snapshot line -> Playwright ref of the same element in the AI snapshot.

    Both snapshots walk the same DOM in document order. The AI one adds ``generic`` wrappers and
    elements that are visible but hidden from assistive technology (always without a name there),
    drops nameless images, and omits a name that its printed children repeat. Lines that occur
    exactly once in each snapshot anchor the alignment (the longest run of anchors in the same
    order, as patience diff does); between anchors, lines pair up in order where role and name
    are compatible. Linear in practice, so a page of thousands of elements costs milliseconds.
    """
    mine = [i for i, line in enumerate(lines) if line[0] not in NON_ELEMENT_ROLES]
    theirs = [line for line in ai_lines if line[0] not in NON_ELEMENT_ROLES]
    anchors = _anchors([lines[i][:3] for i in mine], [line[:3] for line in theirs])
    pairs: list[tuple[int, _Line]] = []
    start_a = start_b = 0
    for a, b in [*anchors, (len(mine), len(theirs))]:  # the last stop closes the final gap
        pairs += _pair_gap(mine[start_a:a], theirs[start_b:b], lines)
        if a < len(mine):
            pairs.append((mine[a], theirs[b]))
        start_a, start_b = a + 1, b + 1
    return {index: line[3] for index, line in pairs if line[3] and not line[3].startswith("f")}


def _anchors(mine: Sequence[Hashable], theirs: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Positions of keys unique on both sides, the longest subsequence kept in the same order."""
    once_mine = _unique_positions(mine)
    once_theirs = _unique_positions(theirs)
    common = sorted((a, once_theirs[key]) for key, a in once_mine.items() if key in once_theirs)
    # Longest increasing subsequence of the AI positions (patience sorting), kept as a chain.
    tails: list[int] = []
    tail_items: list[int] = []
    previous: list[int] = [-1] * len(common)
    for item, (_, b) in enumerate(common):
        slot = bisect.bisect_left(tails, b)
        previous[item] = tail_items[slot - 1] if slot else -1
        if slot == len(tails):
            tails.append(b)
            tail_items.append(item)
        else:
            tails[slot], tail_items[slot] = b, item
    chain, item = [], tail_items[-1] if tail_items else -1
    while item >= 0:
        chain.append(common[item])
        item = previous[item]
    return chain[::-1]


def _unique_positions(keys: Sequence[Hashable]) -> dict[Hashable, int]:
    seen: dict[Hashable, int] = {}
    repeated: set[Hashable] = set()
    for position, key in enumerate(keys):
        if key in seen:
            repeated.add(key)
        seen[key] = position
    return {key: position for key, position in seen.items() if key not in repeated}


#: How many same-role AI lines one default line may skip to find its match.
MAX_SKIP = 200


def _pair_gap(
    indexes: Sequence[int], candidates: Sequence[_Line], lines: Sequence[_Line]
) -> list[tuple[int, _Line]]:
    """Pair the unmatched lines between two anchors, in order, where role and name allow it."""
    by_role: dict[str, list[int]] = {}
    for position, candidate in enumerate(candidates):
        by_role.setdefault(candidate[0], []).append(position)
    pairs: list[tuple[int, _Line]] = []
    next_free = 0
    for index in indexes:
        positions = by_role.get(lines[index][0], [])
        first = bisect.bisect_left(positions, next_free)
        for position in positions[first : first + MAX_SKIP]:
            if _compatible(lines[index], candidates[position]):
                pairs.append((index, candidates[position]))
                next_free = position + 1
                break
    return pairs


def _compatible(line: _Line, ai_line: _Line) -> bool:
    """Whether an AI-snapshot line can be the same element as a default-snapshot line.

    A named element matches the same name, or no name and no text (the AI snapshot dropped a
    name that its children print). An element hidden from assistive technology has no name in
    the AI snapshot and is absent from the default one, so a name never matches a nameless line
    that shows text.
    """
    role, name, from_text, _ = line
    ai_role, ai_name, ai_from_text, _ = ai_line
    if role != ai_role:
        return False
    if name is not None and not from_text:
        return (ai_name == name and not ai_from_text) or ai_name is None
    return ai_name is None or ai_from_text


def element_id(ref: str) -> str | None:
    """``e12`` for refs written ``e12`` or ``[e12]``; None for anything else."""
    match = _ELEMENT_ID.match(ref.strip())
    return match.group(1) if match else None


@dataclass(frozen=True, slots=True)
class Descriptor:
    """An ARIA descriptor written in a ref: ``button "Submit"``, ``navigation``, ``link Home``."""

    role: str | None
    name: str | None
    quoted: bool
    text: str


def parse_descriptor(ref: str) -> Descriptor:
    """Split a ref into role and name; trailing ``[attrs]`` are ignored."""
    text = _TRAILING_ATTRS.sub("", ref.strip()).strip()
    match = _DESCRIPTOR.match(text)
    if match:
        return Descriptor(_known(match.group("role")), match.group("name"), True, text)
    if re.fullmatch(r"[a-z][a-z-]*", text):
        return Descriptor(_known(text), None, False, text)
    role, _, rest = text.partition(" ")
    rest = rest.strip()
    if len(rest) >= 2 and rest[0] == rest[-1] == "'":
        rest = rest[1:-1]
    return Descriptor(_known(role.lower()), rest or None, False, text)


def _known(role: str) -> str:
    return role if role in KNOWN_ROLES else "generic"


def literal_pattern(text: str) -> str:
    """A pattern matching ``text`` exactly: as written, or ``\\Q...\\E`` when it holds regex syntax
    (the inverse of ``literal_name``)."""
    return rf"\Q{text}\E" if any(ch in text for ch in _META) else text


_META = frozenset(".^$*+?()[]{}|\\")


def literal_name(pattern: str) -> str:
    """A recorded ``ariaNameRegex`` as the literal name it was generated from."""
    text = pattern
    quoted = re.fullmatch(r"\\Q(.*?)\\E", text, re.DOTALL)
    if quoted:
        return quoted.group(1)
    if text.startswith("^"):
        text = text[1:]
    if text.endswith("$") and not text.endswith("\\$"):
        text = text[:-1]
    return text
