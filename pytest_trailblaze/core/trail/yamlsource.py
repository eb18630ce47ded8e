"""YAML text to position-carrying nodes, and the helpers every file grammar walks them with.

PyYAML's composer (the C one when libyaml is present) gives a node tree where each node knows
its start mark; we validate that tree directly instead of constructing Python objects first,
so every problem can name ``file:line:col``. Scalars follow the YAML 1.2 core schema
(``yamlcore``); only null, booleans, numbers and strings are ever built, and any other tag is a
problem of its own.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import overload

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..errors import Problem, SourceSpan
from ..jsondata import JsonObject, JsonValue
from . import yamlcore
from .yamlcore import MAX_NESTING, TAG_BOOL, TAG_FLOAT, TAG_INT, TAG_MERGE, TAG_NULL, TAG_STR, Mark

__all__ = [
    "TAG_BOOL",
    "TAG_FLOAT",
    "TAG_INT",
    "TAG_MERGE",
    "TAG_NULL",
    "TAG_STR",
    "Source",
    "did_you_mean",
    "is_null",
    "kind_of",
    "load_value",
    "scalar_value",
]
NESTING_FIX = "flatten the structure: move deep parts into their own values or files"
_MAX_VALUES = 100_000
_MAX_MERGES = 32
#: Entries ``<<:`` merge keys may bring in, and values aliases may repeat, in one whole file. Each
#: is counted while it is built, so a fan-out (ten aliases per level, eight levels) stops at the
#: limit in a fraction of a second instead of building a hundred million pairs first.
_FILE_BUDGET = 500_000


class _TooBig(Exception):
    """Internal: alias expansion passed ``_MAX_VALUES`` (or the file's budget)."""


class _TooManyMerged(Exception):
    """Internal: ``<<:`` merges brought in more entries than the file's budget allows."""


class _Recursive(Exception):
    """Internal: a recursive alias was reported; unwind to ``value``."""


class _TooDeep(Exception):
    """Internal: aliases nest values deeper than ``MAX_NESTING``; unwind to ``value``."""


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A ``did you mean 'x'?`` hint, or an empty string when nothing is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else ""


def kind_of(node: Node | None) -> str:
    """A reader's name for a node's type, for messages like 'must be a list, not a mapping'."""
    if node is None:
        return "nothing"
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if node.tag == TAG_NULL:
        return "null"
    return {TAG_BOOL: "a boolean", TAG_INT: "a number", TAG_FLOAT: "a number"}.get(node.tag, "a string")


@dataclass
class Source:
    """One file being read: its display path and the problems found so far."""

    path: str
    problems: list[Problem] = field(default_factory=list)
    #: What merges and alias repeats may still build in this file (``_FILE_BUDGET``).
    _merges_left: int = field(default=_FILE_BUDGET, repr=False)
    _repeats_left: int = field(default=_FILE_BUDGET, repr=False)
    _built: set[int] = field(default_factory=set, repr=False)

    def span(self, node: Node) -> SourceSpan:
        mark = node.start_mark
        return SourceSpan(self.path, mark.line + 1, mark.column + 1)

    def problem(self, node: Node | None, what: str, why: str = "", fix: str = "") -> None:
        span = self.span(node) if node is not None else SourceSpan(self.path, 1, 1)
        found = Problem(span, what, why, fix)
        if found not in self.problems:  # a node reached through several aliases: report it once
            self.problems.append(found)

    def compose(self, text: str) -> Node | None:
        """Parse ``text`` into a node tree; a syntax error, too deep a nesting or a tag outside
        the core schema becomes a problem (and no tree, so nothing half-read is validated)."""
        try:
            root = yamlcore.compose(text)
        except yamlcore.NestingTooDeep as exc:
            self.nesting_problem(exc.mark)
            return None
        except yaml.YAMLError as exc:
            self._syntax_problem(exc)
            return None
        if root is not None and "!" in text and not self._tags_ok(root):
            return None
        return root

    def _syntax_problem(self, exc: yaml.YAMLError) -> None:
        if not isinstance(exc, yaml.MarkedYAMLError):
            fix = "save the file as plain UTF-8 YAML text"
            self.problems.append(Problem(SourceSpan(self.path, 1, 1), f"malformed YAML: {exc}", fix=fix))
            return
        mark = exc.problem_mark or exc.context_mark
        span = SourceSpan(self.path, mark.line + 1, mark.column + 1) if mark else None
        what = f"malformed YAML: {exc.problem or exc.context}"
        if exc.context and exc.problem:
            what += f" ({exc.context})"
        self.problems.append(
            Problem(span, what, fix="check the indentation and quoting on and above this line")
        )

    def _tags_ok(self, root: Node) -> bool:
        """Report every tag outside the core schema (``!!python/...``, ``!!binary``, ``!custom``)."""
        found = False
        for node, message in yamlcore.tag_problems(root):
            found = True
            self.problem(
                node,
                message,
                why="trail files hold only text, numbers, booleans, null, lists and mappings",
                fix="remove the tag (or quote the value to keep it as text)",
            )
        return not found

    def nesting_problem(self, mark: Mark | None) -> None:
        span = SourceSpan(self.path, mark.line + 1, mark.column + 1) if mark else SourceSpan(self.path, 1, 1)
        why = "no trail nests that deep; the limit keeps a hostile file from crashing the run"
        self.problems.append(Problem(span, f"nesting deeper than {MAX_NESTING}", why, NESTING_FIX))

    def entries(self, node: MappingNode) -> Iterator[tuple[str, Node, Node]]:
        """``(key, key_node, value_node)`` of a mapping; duplicate or non-string keys are problems.

        ``<<: *anchor`` merge keys are resolved as YAML defines them: the mapping's own keys
        override merged ones, and among merged mappings the first listed wins.
        """
        own = [(k, v) for k, v in node.value if k.tag != TAG_MERGE]
        merged: dict[str, tuple[Node, Node]] = {}
        if len(own) != len(node.value):
            own_keys = {str(k.value) for k, _ in own if isinstance(k, ScalarNode)}
            try:
                pairs = self._merged_pairs(node, set())
            except _TooManyMerged:
                pairs = []
                self.problem(
                    node,
                    f"`<<:` merge keys in this file bring in more than {_FILE_BUDGET:,} entries",
                    why="merging aliases of mappings that merge aliases multiplies the entries at every "
                    "level; the limit keeps a hostile file from exhausting memory",
                    fix="write the mapping out, or merge each shared mapping once",
                )
            for key_node, value_node in pairs:
                key = str(key_node.value)
                if isinstance(key_node, ScalarNode) and key not in own_keys:
                    merged.pop(key, None)
                    merged[key] = (key_node, value_node)
        for key, (key_node, value_node) in merged.items():
            yield key, key_node, value_node
        seen: set[str] = set()
        for key_node, value_node in own:
            if not isinstance(key_node, ScalarNode):
                self.problem(
                    key_node,
                    f"a key must be a plain word, not {kind_of(key_node)}",
                    fix="write a plain word before the `:`",
                )
                continue
            key = str(key_node.value)
            if key in seen:
                fix = "remove one of them (the first one is used)"
                self.problem(key_node, f"duplicate key '{key}'", fix=fix)
                continue
            seen.add(key)
            yield key, key_node, value_node

    def _merged_pairs(self, node: MappingNode, active: set[int]) -> list[tuple[Node, Node]]:
        """The pairs ``<<:`` brings into ``node``, lowest precedence first; the node is not modified."""
        active = active | {id(node)}
        pairs: list[tuple[Node, Node]] = []
        for key_node, value_node in node.value:
            if key_node.tag != TAG_MERGE:
                continue
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for source in reversed(sources):
                if not isinstance(source, MappingNode) or id(source) in active or len(active) > _MAX_MERGES:
                    self.problem(
                        source,
                        "a `<<:` merge key must name a mapping that does not contain it",
                        fix="merge an `*alias` of a mapping anchored elsewhere, like `<<: *defaults`",
                    )
                    continue
                pairs.extend(self._merged_pairs(source, active))
                self._merges_left -= len(source.value)
                if self._merges_left < 0:
                    raise _TooManyMerged
                pairs.extend((k, v) for k, v in source.value if k.tag != TAG_MERGE)
        return pairs

    @overload
    def value(self, node: MappingNode) -> JsonObject | None: ...

    @overload
    def value(self, node: Node) -> JsonValue: ...

    def value(self, node: Node) -> JsonValue:
        """The plain Python value of a node: dict, list, str, int, float or bool (None for null).

        Aliases are followed, but an alias that refers to its own anchor and an alias fan-out
        that expands to more than ``_MAX_VALUES`` values are problems, never a hang.
        """
        try:
            return self._build(node, set(), [0])
        except _Recursive:
            return None
        except _TooDeep as exc:
            self.nesting_problem(exc.args[0].start_mark)
            return None
        except _TooBig as exc:
            what = exc.args[0] if exc.args else f"this value expands to more than {_MAX_VALUES} values"
            self.problem(
                node,
                f"{what} through YAML aliases" if not exc.args else what,
                fix="write the value out instead of nesting `*alias` references",
            )
            return None

    def _build(self, node: Node, active: set[int], count: list[int]) -> JsonValue:
        count[0] += 1
        if count[0] > _MAX_VALUES:
            raise _TooBig
        if id(node) in self._built:  # reached again through an alias
            self._repeats_left -= 1
            if self._repeats_left < 0:
                raise _TooBig(f"aliases in this file repeat more than {_FILE_BUDGET:,} values")
        else:
            self._built.add(id(node))
        if isinstance(node, ScalarNode):
            return scalar_value(node)
        if len(active) >= MAX_NESTING:  # aliases can nest values far deeper than the text does
            raise _TooDeep(node)
        if id(node) in active:
            self.problem(
                node,
                "a YAML alias refers to the value that contains it (a recursive anchor)",
                fix="replace the `*alias` with a copy of the value it should hold",
            )
            raise _Recursive
        active.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return {key: self._build(v, active, count) for key, _, v in self.entries(node)}
            return [self._build(item, active, count) for item in node.value]
        finally:
            active.discard(id(node))

    def text(self, node: Node, what: str, fix: str = "") -> str | None:
        """A scalar as text (numbers and booleans keep their written form); None if not a scalar."""
        if isinstance(node, ScalarNode) and node.tag != TAG_NULL:
            return str(node.value)
        fix = fix or 'write a plain or quoted string on the same line, like `key: "some text"`'
        self.problem(node, f"{what} must be text, not {kind_of(node)}", fix=fix)
        return None

    def mapping(self, node: Node, what: str, fix: str = "") -> MappingNode | None:
        if isinstance(node, MappingNode):
            return node
        fix = fix or "write `key: value` lines indented under it, or `{}` for none"
        self.problem(node, f"{what} must be a mapping, not {kind_of(node)}", fix=fix)
        return None

    def sequence(self, node: Node, what: str, fix: str = "") -> SequenceNode | None:
        if isinstance(node, SequenceNode):
            return node
        fix = fix or "write one `- item` per line, or `[]` for none"
        self.problem(node, f"{what} must be a list, not {kind_of(node)}", fix=fix)
        return None

    def known_entries(self, node: MappingNode, allowed: tuple[str, ...], where: str) -> dict[str, Node]:
        """The values of a mapping's ``allowed`` keys; any other key is an unknown-key problem."""
        known: dict[str, Node] = {}
        for key, key_node, value in self.entries(node):
            if key in allowed:
                known[key] = value
            else:
                self.unknown_key(key_node, key, where, allowed)
        return known

    def unknown_key(self, key_node: Node, key: str, where: str, allowed: tuple[str, ...]) -> None:
        hint = did_you_mean(key, allowed)
        self.problem(
            key_node,
            f"unknown key '{key}' in {where}",
            why=f"{where} allows only: {', '.join(allowed)}",
            fix=hint or f"remove '{key}'",
        )


def load_value(text: str, path: str) -> tuple[JsonValue, list[Problem]]:
    """A whole YAML document as plain values, read like every other file (core schema, nesting
    limit, no tags beyond it), and the problems met; for files without a grammar of their own."""
    src = Source(path)
    root = src.compose(text)
    value = None if root is None else src.value(root)
    return value, src.problems


def scalar_value(node: ScalarNode) -> JsonValue:
    """Build a scalar by the core schema: null, bool, ``YamlInt``, ``YamlFloat`` or str."""
    return yamlcore.scalar(node)


def is_null(node: Node | None) -> bool:
    return node is None or (isinstance(node, ScalarNode) and node.tag == TAG_NULL)
