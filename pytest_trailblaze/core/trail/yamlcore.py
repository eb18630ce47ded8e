"""YAML as upstream reads it: the YAML 1.2 core schema, a nesting limit, and no tags beyond it.

PyYAML resolves plain scalars by YAML 1.1 rules (``8:00`` is 480, ``017`` is 15, ``no`` is
False). Upstream decodes with a YAML 1.2 reader, so ``CoreLoader`` keeps PyYAML's C parser and
composer (libyaml when present) but replaces the implicit resolvers with the core schema's:
``null``/``~``, ``true``/``false`` (three spellings each), base-10 / ``0o`` / ``0x`` integers and
decimal floats with ``.inf`` / ``.nan``. Everything else is a string.

Numbers remember the text they were written as (``YamlInt`` / ``YamlFloat``): a number bound to
a string parameter, or spliced into text, is the author's text (``1.10``, not ``1.1``).

The composer recurses once per nesting level, in C, so a 25,000-deep ``[[[...`` would crash the
process. Both composers tell the loader before each node how deep they are (``yaml_compat``), so
composition stops at ``MAX_NESTING`` before any deeper recursion. If a PyYAML version ever stops
doing so, the depth is measured from the (iterative) event stream before composing instead.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..jsondata import JsonValue
from .yaml_compat import ComposerDepth, composer_reports_depth, without_implicit_resolvers

#: Collections nested deeper than this are refused (real trails nest fewer than 15 levels).
MAX_NESTING = 128

_P = "tag:yaml.org,2002:"
TAG_STR, TAG_NULL, TAG_BOOL = _P + "str", _P + "null", _P + "bool"
TAG_INT, TAG_FLOAT, TAG_MERGE = _P + "int", _P + "float", _P + "merge"
TAG_MAP, TAG_SEQ = _P + "map", _P + "seq"

_NULL = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL = re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")
_INT = re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")
_FLOAT = re.compile(
    r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
)
_MERGE = re.compile(r"<<\Z")
#: What each core tag accepts, for explicit tags like ``!!int 12``.
_SCALAR_FORMS = {TAG_NULL: _NULL, TAG_BOOL: _BOOL, TAG_INT: _INT, TAG_FLOAT: _FLOAT, TAG_MERGE: _MERGE}
_TAG_WORDS = {TAG_NULL: "null", TAG_BOOL: "a boolean", TAG_INT: "an integer", TAG_FLOAT: "a number"}


class YamlInt(int):
    """An integer read from YAML; ``str()`` is the text it was written as (``017``, ``0x1F``)."""

    source: str

    def __new__(cls, value: int, source: str) -> YamlInt:
        made = super().__new__(cls, value)
        made.source = source
        return made

    def __str__(self) -> str:
        return self.source

    def __reduce__(self) -> tuple[type[YamlInt], tuple[int, str]]:
        return (YamlInt, (int(self), self.source))


class YamlFloat(float):
    """A float read from YAML; ``str()`` is the text it was written as (``1.10``, ``.inf``)."""

    source: str

    def __new__(cls, value: float, source: str) -> YamlFloat:
        made = super().__new__(cls, value)
        made.source = source
        return made

    def __str__(self) -> str:
        return self.source

    def __reduce__(self) -> tuple[type[YamlFloat], tuple[float, str]]:
        return (YamlFloat, (float(self), self.source))


def source_text(value: bool | int | float) -> str:
    """A scalar as text: the written form of a YAML number, ``true``/``false`` for booleans."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def plain_values(value: JsonValue) -> JsonValue:
    """``value`` with YAML numbers turned into plain ``int`` / ``float`` at any depth (for values
    that must serialize as themselves, like a parameter's default in a JSON Schema)."""
    if isinstance(value, YamlInt):
        return int(value)
    if isinstance(value, YamlFloat):
        return float(value)
    if isinstance(value, dict):
        return {k: plain_values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_values(v) for v in value]
    return value


class Mark(Protocol):
    """Where a YAML node or event starts, 0-based (PyYAML's Python and C parsers each have a class)."""

    line: int
    column: int


class NestingTooDeep(yaml.YAMLError):
    """Composition stopped: a collection at ``mark`` holds values nested deeper than ``MAX_NESTING``."""

    def __init__(self, mark: Mark | None) -> None:
        super().__init__(f"nesting deeper than {MAX_NESTING} levels")
        self.mark = mark


if TYPE_CHECKING:
    _Base = yaml.SafeLoader  # the C loader's interface is the same
else:
    _Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@without_implicit_resolvers
class CoreLoader(ComposerDepth, _Base):
    """The C-speed safe loader with core-schema resolvers and a depth limit while composing."""

    def node_entered(self, parent: Node | None) -> None:
        if self.depth > MAX_NESTING + 1:
            raise NestingTooDeep(parent.start_mark if parent is not None else None)


for _tag, _regexp, _first in (
    (TAG_NULL, _NULL, ["~", "n", "N", ""]),
    (TAG_BOOL, _BOOL, list("tTfF")),
    (TAG_INT, _INT, list("-+0123456789")),
    (TAG_FLOAT, _FLOAT, list("-+0123456789.")),
    (TAG_MERGE, _MERGE, ["<"]),
):
    CoreLoader.add_implicit_resolver(_tag, _regexp, _first)


@functools.cache
def _hook_counts_depth() -> bool:
    """Whether this PyYAML's composer tells ``CoreLoader`` how deep it is, for every node."""
    return composer_reports_depth(CoreLoader)


def compose(text: str) -> Node | None:
    """The node tree of one YAML document; raises ``yaml.YAMLError`` (``NestingTooDeep`` too)."""
    if not _hook_counts_depth():
        _check_depth_by_events(text)
    loader = CoreLoader(text)
    try:
        node: Node | None = loader.get_single_node()
        return node
    finally:
        loader.dispose()


def _check_depth_by_events(text: str) -> None:
    """The nesting limit from the event stream, which the parser produces without recursion."""
    open_marks: list[Mark | None] = []  # start marks of the collections enclosing the next event
    for event in yaml.parse(text, Loader=CoreLoader):
        if isinstance(event, yaml.CollectionEndEvent):
            open_marks.pop()
            continue
        if isinstance(event, (yaml.ScalarEvent, yaml.CollectionStartEvent)) and len(open_marks) > MAX_NESTING:
            raise NestingTooDeep(open_marks[-1])
        if isinstance(event, yaml.CollectionStartEvent):
            open_marks.append(event.start_mark)


def plain_tag(text: str) -> str:
    """The tag the core schema gives ``text`` written as a plain scalar."""
    for tag, form in ((TAG_NULL, _NULL), (TAG_BOOL, _BOOL), (TAG_INT, _INT), (TAG_FLOAT, _FLOAT)):
        if form.match(text):
            return tag
    return TAG_STR


def scalar(node: ScalarNode) -> JsonValue:
    """The value of a scalar node with a core tag (checked by ``tag_problems`` first)."""
    tag = node.tag
    text: str = node.value  # a scalar node's value is its text
    if tag == TAG_STR:
        return text
    if tag == TAG_NULL:
        return None
    if tag == TAG_BOOL:
        return text[0] in "tT"
    if tag == TAG_INT:
        return YamlInt(_core_int(text), text)
    if tag == TAG_FLOAT:
        return YamlFloat(_core_float(text), text)
    return text


def _core_int(text: str) -> int:
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _core_float(text: str) -> float:
    bare = text.lstrip("+-").lower()
    if bare == ".inf":
        return -math.inf if text.startswith("-") else math.inf
    if bare == ".nan":
        return math.nan
    return float(text)


def tag_problems(root: Node) -> Iterator[tuple[Node, str]]:
    """``(node, message)`` for every tag outside the core schema, and core tags on wrong values."""
    seen: set[int] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        message = _tag_problem(node)
        if message:
            yield node, message
        if isinstance(node, SequenceNode):
            pending.extend(reversed(node.value))
        elif isinstance(node, MappingNode):
            pending.extend(n for pair in reversed(node.value) for n in reversed(pair))


def _tag_problem(node: Node) -> str | None:
    tag = node.tag
    if isinstance(node, ScalarNode):
        if tag == TAG_STR:
            return None
        form = _SCALAR_FORMS.get(tag)
        if form is None:
            return f"unknown YAML tag {shown_tag(tag)}"
        if not form.match(node.value):
            return f"`{shown_tag(tag)} {node.value}` is not {_TAG_WORDS.get(tag, 'a merge key')}"
        return None
    expected = TAG_SEQ if isinstance(node, SequenceNode) else TAG_MAP
    return None if tag == expected else f"unknown YAML tag {shown_tag(tag)}"


def shown_tag(tag: str) -> str:
    """A tag as an author writes it: ``!!binary`` for ``tag:yaml.org,2002:binary``."""
    return "!!" + tag[len(_P) :] if tag.startswith(_P) else tag
