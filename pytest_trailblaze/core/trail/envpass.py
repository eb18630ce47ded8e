"""The load-time ``{{ENV_VAR}}`` / ``{{CWD}}`` pass, applied to parsed values.

Upstream substitutes environment values into the file's text before parsing. Splicing text
into YAML lets a value add structure: an environment value ``ok" }`` plus a new line and
``- script: ...`` would become a step of its own. Here the file is parsed first and the pass
runs over the string scalars of the node tree, so a value can only ever become (part of) the
one value that named it, and every node keeps its line and column.

An unquoted whole value ``pages: {{PAGES}}`` parses as a flow mapping nested in a flow mapping;
that shape, naming a variable that is set, is replaced by one plain scalar of the variable's
value, read by the core schema as upstream's text pass would read it (``3`` is a number).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .yamlcore import TAG_STR, plain_tag

_TEMPLATE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Values:
    """The environment as the pass sees it: deferred names and unset names have no value."""

    def __init__(self, env: Mapping[str, str] | None) -> None:
        self.env = os.environ if env is None else env
        listed = self.env.get("TRAILBLAZE_DEFERRED_VARIABLES", "")
        self.deferred = {v.strip() for v in listed.split(",") if v.strip()}

    def get(self, name: str) -> str | None:
        if name in self.deferred:
            return None
        if name in self.env:
            return self.env[name]
        return str(Path.cwd()) if name == "CWD" else None

    def substitute(self, match: re.Match[str]) -> str:
        value = self.get(match.group(1))
        return match.group(0) if value is None else value


def expand_template(text: str, env: Mapping[str, str] | None = None) -> str:
    """One string with ``{{NAME}}`` replaced by the environment variable NAME (or the cwd for CWD).

    Names listed in ``TRAILBLAZE_DEFERRED_VARIABLES`` and names that are not set stay literal
    for memory interpolation at dispatch time; dotted tokens (``{{args.x}}``) never match.
    """
    if "{{" not in text:
        return text
    return _TEMPLATE.sub(_Values(env).substitute, text)


def expand_templates(root: Node, env: Mapping[str, str] | None = None) -> Node:
    """The node tree with the pass applied to every string scalar (keys too); returns the root."""
    values = _Values(env)
    seen: set[int] = set()
    pending: list[Node] = [root]
    while pending:
        node = pending.pop()
        if id(node) in seen:  # an anchored node is substituted once, however often it is aliased
            continue
        seen.add(id(node))
        if isinstance(node, ScalarNode):
            if node.tag == TAG_STR and "{{" in node.value:
                node.value = _TEMPLATE.sub(values.substitute, node.value)
        elif isinstance(node, SequenceNode):
            node.value = [_whole_value(item, values, seen) for item in node.value]
            pending.extend(node.value)
        elif isinstance(node, MappingNode):
            node.value = [(key, _whole_value(value, values, seen)) for key, value in node.value]
            pending.extend(n for pair in node.value for n in pair)
    return _whole_value(root, values, seen)


def _whole_value(node: Node, values: _Values, seen: set[int]) -> Node:
    """``{{NAME}}`` written unquoted (a one-key flow mapping inside another) becomes a scalar.

    The new scalar is marked seen: its value is the variable's, never substituted again.
    """
    name = _token_name(node)
    value = None if name is None else values.get(name)
    if value is None:
        return node
    made = ScalarNode(plain_tag(value), value, node.start_mark, node.end_mark, style=None)
    seen.add(id(made))
    return made


def _token_name(node: Node) -> str | None:
    if not (isinstance(node, MappingNode) and node.flow_style and len(node.value) == 1):
        return None
    inner, outer_value = node.value[0]
    if not (isinstance(inner, MappingNode) and inner.flow_style and len(inner.value) == 1):
        return None
    key, inner_value = inner.value[0]
    plain = isinstance(key, ScalarNode) and not key.style and key.tag == TAG_STR
    if not (plain and _empty(inner_value) and _empty(outer_value)):
        return None
    return key.value if _NAME.fullmatch(key.value) else None


def _empty(node: Node) -> bool:
    """The implicit null after a key with no value (``{key}``), not a written ``''``."""
    return isinstance(node, ScalarNode) and node.value == "" and not node.style
