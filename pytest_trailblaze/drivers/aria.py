"""Reading Playwright ARIA snapshots: element ids ``eN`` (U§4.9) and ARIA descriptors (U§4.8).

Recorded web trails carry refs such as ``e11`` that were ids in the recorder's compact element
list. To honour them at replay we number a fresh snapshot of the current page exactly as the
recorder did: walk the lines in order and give the next id to every "LLM-relevant" line. This
module is pure text processing so the numbering can be tested without a browser.
"""

from __future__ import annotations

import json
import re
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


@dataclass(frozen=True, slots=True)
class AriaElement:
    """A numbered element and how to find it again.

    ``name`` is the accessible name, or the element's text when the snapshot showed text
    content instead of a name (``- paragraph: Current value: 0``; then ``from_text`` is set).
    ``nth`` is the element's position among the elements the matching locator will return:
    same role and name, same role and text, or, for unnamed elements, every element of the role.
    """

    ref: str
    role: str
    name: str | None
    nth: int
    from_text: bool = False

    @property
    def descriptor(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else self.role


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            return text[1:-1]
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    return text


def parse_line(line: str) -> tuple[str, str | None, bool] | None:
    """``(role, name, from_text)`` of a snapshot line; None for property lines and noise."""
    quoted = _YAML_QUOTED.match(line)
    if quoted:  # Playwright single-quotes a line whose name holds ': ' (YAML would misread it)
        line = quoted.group(1) + quoted.group(2).replace("''", "'") + (quoted.group(3) or "")
    match = _LINE.match(line)
    if match is None or match.group("role") == "text":
        return None
    role = match.group("role")
    if match.group("name") is not None:
        return role, _unquote(match.group("name")), False
    text = _unquote(match.group("text") or "")
    return (role, text, True) if text else (role, None, False)


def is_relevant(role: str, name: str | None) -> bool:
    """Whether the recorder gave this line an id."""
    if role not in KNOWN_ROLES:
        return False  # unknown words such as ``text`` count as generic
    if role in INTERACTIVE_ROLES:
        return True
    return bool(name) and role not in NON_ELEMENT_ROLES


def number_elements(snapshot: str) -> dict[str, AriaElement]:
    """Map ``e1, e2, ...`` to elements, in document order, as the recorder numbered them."""
    elements: dict[str, AriaElement] = {}
    seen: dict[tuple[str, str | None, bool], int] = {}
    for line in snapshot.splitlines():
        parsed = parse_line(line)
        if parsed is None:
            continue
        role, name, from_text = parsed
        # Unnamed elements are found by role alone, so they count among every element of the role.
        keys = [(role, None, False)] if name is None else [(role, name, from_text), (role, None, False)]
        nth = seen.get(keys[0], 0)
        for key in keys:
            seen[key] = seen.get(key, 0) + 1
        if is_relevant(role, name):
            ref = f"e{len(elements) + 1}"
            elements[ref] = AriaElement(ref, role, name, nth, from_text)
    return elements


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
    """Split a ref into role and name; trailing ``[attrs]`` are ignored (U§4.8)."""
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


def literal_name(pattern: str) -> str:
    """A recorded ``ariaNameRegex`` as the literal name it was generated from (U§4.8)."""
    text = pattern
    quoted = re.fullmatch(r"\\Q(.*?)\\E", text, re.DOTALL)
    if quoted:
        return quoted.group(1)
    if text.startswith("^"):
        text = text[1:]
    if text.endswith("$") and not text.endswith("\\$"):
        text = text[:-1]
    return text
