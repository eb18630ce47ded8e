"""The ``config:`` block of a trail and its ``args`` declarations (docs/upstream.md, Trail files)."""

from __future__ import annotations

import re
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..errors import SourceSpan
from ..jsondata import JsonValue
from .devices import DRIVER_TYPES, KNOWN_CLASSIFIERS, classifier_problem, driver_type
from .model import ANY_DEVICE, ArgDecl, ArgType, TrailConfig
from .yamlsource import (
    TAG_BOOL,
    TAG_FLOAT,
    TAG_INT,
    TAG_STR,
    Source,
    did_you_mean,
    is_null,
    kind_of,
    scalar_value,
)

UNIFIED_CONFIG_KEYS = (
    "id",
    "target",
    "title",
    "description",
    "priority",
    "devices",
    "skip",
    "tags",
    "context",
    "memory",
    "metadata",
    "args",
)
V1_CONFIG_KEYS = (
    "id",
    "target",
    "title",
    "description",
    "priority",
    "driver",
    "skip",
    "tags",
    "context",
    "memory",
    "metadata",
    "args",
    "platform",
    "source",
)
_TEXT_KEYS = ("id", "target", "title", "description", "priority", "context", "driver", "platform")
ARG_TYPES: tuple[ArgType, ...] = ("string", "integer", "number", "boolean", "array", "object")
_ARG_TYPE_NAMED: dict[str, ArgType] = {name: name for name in ARG_TYPES}
_ARG_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
_ARG_KEYS = ("type", "description", "default", "required")


def read_config(src: Source, node: Node, *, v1: bool) -> TrailConfig:
    """Validate a ``config:`` mapping; problems go to ``src``, a best-effort config is returned."""
    if is_null(node):
        return TrailConfig()
    mapping = src.mapping(node, "config", fix="write `config:` then indented `id: ...`, `target: ...` lines")
    if mapping is None:
        return TrailConfig()
    allowed = V1_CONFIG_KEYS if v1 else UNIFIED_CONFIG_KEYS
    fields: dict[str, Any] = {}  # TrailConfig's keyword arguments, each of its own type
    source: dict[str, str] = {}
    driver_node: Node = mapping
    spans = {}
    for key, key_node, value in src.entries(mapping):
        spans[key] = src.span(value)
        if key not in allowed:
            src.unknown_key(key_node, key, "config", allowed)
        elif key in _TEXT_KEYS:
            fields[key] = None if is_null(value) else src.text(value, f"config.{key}")
            driver_node = value if key == "driver" else driver_node
        elif key == "devices":
            fields["devices"] = _read_devices(src, value)
        elif key == "skip":
            fields["skip"] = _read_skip(src, value, v1=v1)
        elif key == "tags":
            fields["tags"] = _read_tags(src, value)
        elif key in ("memory", "metadata"):
            fields[key] = _read_text_map(src, value, f"config.{key}")
        elif key == "args":
            fields["args"] = _read_args(src, value)
        elif key == "source":
            source = _read_source(src, value)
    if source:
        fields["metadata"] = {**fields.get("metadata", {}), **source}
    if v1 and fields.get("driver"):
        _check_driver(src, driver_node, fields["driver"])
    return TrailConfig(**{k: v for k, v in fields.items() if v is not None}, spans=spans)


_SOURCE_BRIDGE = {"type": "source", "reason": "sourceReason"}


def _read_source(src: Source, node: Node) -> dict[str, str]:
    """v1 ``source: {type, reason}`` becomes the metadata bridge keys ``source``/``sourceReason``, as
    upstream keeps them."""
    if is_null(node):
        return {}
    mapping = src.mapping(node, "config.source", fix="write `source: {type: HANDWRITTEN, reason: ...}`")
    if mapping is None:
        return {}
    bridged: dict[str, str] = {}
    for key, key_node, value in src.entries(mapping):
        if key not in _SOURCE_BRIDGE:
            src.unknown_key(key_node, key, "config.source", tuple(_SOURCE_BRIDGE))
            continue
        text = None if is_null(value) else src.text(value, f"config.source.{key}")
        if text is not None:
            bridged[_SOURCE_BRIDGE[key]] = text
    return bridged


def _check_driver(src: Source, near: Node, name: str) -> None:
    if driver_type(name) is None:
        names = [d.name for d in DRIVER_TYPES]
        src.problem(
            near,
            f"unknown driver '{name}'",
            why=f"known drivers: {', '.join(names)}",
            fix=did_you_mean(name.upper(), names) or "use one of the known driver names",
        )


def classifier_entries(
    src: Source, node: Node, what: str, fix: str = "write `<classifier>: <value>` lines, like `web: ...`"
) -> list[tuple[str, Node, Node]]:
    """``(classifier, key node, value)`` of a map keyed by device classifiers; bad keys are problems."""
    mapping = src.mapping(node, what, fix=fix)
    if mapping is None:
        return []
    good = []
    for key, key_node, value in src.entries(mapping):
        if check_classifier(src, key_node, key):
            good.append((key, key_node, value))
    return good


def check_classifier(src: Source, key_node: Node, key: str) -> bool:
    """Report a malformed device classifier key; True when the key is usable."""
    why = classifier_problem(key)
    if why is None:
        return True
    hint = did_you_mean(key, KNOWN_CLASSIFIERS)
    src.problem(key_node, f"unknown device classifier '{key}'", why=why, fix=hint or "use e.g. 'web'")
    return False


def _read_devices(src: Source, node: Node) -> dict[str, str]:
    pins: dict[str, str] = {}
    for key, _, value in classifier_entries(src, node, "config.devices"):
        name = src.text(value, f"the driver for '{key}'")
        if name is None:
            continue
        kind = driver_type(name)
        if kind is None:
            _check_driver(src, value, name)
            continue
        pins[key] = kind.name
    return pins


def _read_skip(src: Source, node: Node, *, v1: bool) -> dict[str, str]:
    if v1 and isinstance(node, ScalarNode):
        return {ANY_DEVICE: str(node.value or "")}
    skips: dict[str, str] = {}
    for key, _, value in classifier_entries(src, node, "config.skip"):
        reason = "" if is_null(value) else src.text(value, f"the skip reason for '{key}'")
        if reason is not None:
            skips[key] = reason
    return skips


def _read_tags(src: Source, node: Node) -> tuple[str, ...]:
    seq = src.sequence(node, "config.tags", fix="write `tags: [smoke, checkout]`")
    if seq is None:
        return ()
    tags = (src.text(item, "a tag") for item in seq.value)
    return tuple(t for t in tags if t)


def _read_text_map(src: Source, node: Node, what: str) -> dict[str, str]:
    if is_null(node):
        return {}
    mapping = src.mapping(node, what)
    if mapping is None:
        return {}
    out: dict[str, str] = {}
    for key, _, value in src.entries(mapping):
        text = src.text(value, f"{what}.{key}")
        if text is not None:
            out[key] = text
    return out


def _read_args(src: Source, node: Node) -> dict[str, ArgDecl]:
    mapping = src.mapping(node, "config.args", fix="write `args: {name: string}` or a full declaration")
    if mapping is None:
        return {}
    decls: dict[str, ArgDecl] = {}
    for name, key_node, value in src.entries(mapping):
        if not _ARG_NAME.match(name):
            src.problem(
                key_node,
                f"invalid arg name '{name}'",
                why="arg names are identifiers: a letter or '_' then letters, digits or '_'",
                fix="rename it, e.g. 'user_name'",
            )
            continue
        decl = _read_arg(src, name, key_node, value)
        if decl is not None:
            decls[name] = decl
    return decls


def _read_arg(src: Source, name: str, key_node: Node, node: Node) -> ArgDecl | None:
    span = src.span(key_node)
    if isinstance(node, ScalarNode) and not is_null(node):
        arg_type = _arg_type(src, node, str(node.value))
        return ArgDecl(name, arg_type, span) if arg_type else None
    fix = "write `type: string` (and optional keys)"
    mapping = src.mapping(node, f"the declaration of arg '{name}'", fix=fix)
    if mapping is None:
        return None
    entries = src.known_entries(mapping, _ARG_KEYS, f"the declaration of arg '{name}'")
    arg_type = _arg_type(src, entries["type"], str(entries["type"].value)) if "type" in entries else "string"
    if arg_type is None:
        return None
    return _arg_with_default(src, name, span, arg_type, entries, mapping)


def _arg_type(src: Source, node: Node, text: str) -> ArgType | None:
    known = _ARG_TYPE_NAMED.get(text) if isinstance(node, ScalarNode) else None
    if known is not None:
        return known
    hint = did_you_mean(text, ARG_TYPES) if isinstance(node, ScalarNode) else ""
    scalar = isinstance(node, ScalarNode)
    src.problem(
        node,
        f"unknown arg type {text!r}" if scalar else f"an arg type must be text, not {kind_of(node)}",
        why=f"arg types are: {', '.join(ARG_TYPES)}",
        fix=hint or "use one of the arg types",
    )
    return None


def _arg_with_default(
    src: Source, name: str, span: SourceSpan, arg_type: ArgType, entries: dict[str, Node], decl: MappingNode
) -> ArgDecl | None:
    required_node = entries.get("required")
    required = None
    if required_node is not None:
        if not isinstance(required_node, ScalarNode) or required_node.tag != TAG_BOOL:
            src.problem(
                required_node,
                f"'required' of arg '{name}' must be true or false",
                fix="write `required: true` or `required: false` (unquoted)",
            )
            return None
        required = scalar_value(required_node)  # YAML 1.2: only true/false (any case form)
    description = ""
    if not is_null(entries.get("description")):
        text = src.text(entries["description"], f"the description of arg '{name}'")
        if text is None:
            return None
        description = text
    if "default" not in entries:
        if required is False:
            src.problem(
                required_node,
                f"arg '{name}' is optional but has no default",
                why="an arg is optional exactly when it has a `default:`",
                fix=f"add `default: ...` to '{name}' or remove `required: false`",
            )
            return None
        return ArgDecl(name, arg_type, span, description, required=True)
    default_node = entries["default"]
    if required is True:
        src.problem(
            required_node,
            f"arg '{name}' is required but has a default",
            why="an arg with a `default:` is optional, so `required: true` contradicts it",
            fix="remove `required: true` or the default",
        )
        return None
    default = _default_value(src, name, arg_type, default_node)
    if default is None:
        return None
    return ArgDecl(name, arg_type, span, description, required=False, default=default)


def _default_value(src: Source, name: str, arg_type: str, node: Node) -> JsonValue:
    """The typed default; string defaults keep their written text (``'007'`` stays ``"007"``)."""
    if is_null(node):
        why, fix = "args never hold null", "give a value, or remove `default:` to make the arg required"
        src.problem(node, f"the default of arg '{name}' is null", why=why, fix=fix)
        return None
    expected = {
        "string": (ScalarNode, None),
        "integer": (ScalarNode, (TAG_INT,)),
        "number": (ScalarNode, (TAG_INT, TAG_FLOAT)),
        "boolean": (ScalarNode, (TAG_BOOL,)),
        "array": (SequenceNode, None),
        "object": (MappingNode, None),
    }[arg_type]
    node_type, tags = expected
    ok = isinstance(node, node_type) and (tags is None or node.tag in tags or _quoted_literal(node, arg_type))
    if not ok:
        src.problem(
            node,
            f"the default of arg '{name}' is {kind_of(node)}, but the arg is declared {arg_type}",
            fix=f"change the default or declare `type: {_type_for(node)}`",
        )
        return None
    if arg_type == "string":
        return str(node.value)
    value = src.value(node)
    if isinstance(value, str):
        return _coerce_quoted(value, arg_type)
    return value


def _quoted_literal(node: Node, arg_type: str) -> bool:
    """A quoted ``'3'`` is a fine integer default, like upstream's coercion by declared type."""
    if node.tag != TAG_STR:
        return False
    try:
        _coerce_quoted(str(node.value), arg_type)
    except ValueError:
        return False
    return True


def _coerce_quoted(text: str, arg_type: str) -> int | float | bool:
    if arg_type == "integer":
        return int(text.strip())
    if arg_type == "number":
        return float(text.strip())
    if arg_type == "boolean" and text.strip().lower() in ("true", "false"):
        return text.strip().lower() == "true"
    raise ValueError(text)


def _type_for(node: Node) -> str:
    if isinstance(node, SequenceNode):
        return "array"
    if isinstance(node, MappingNode):
        return "object"
    return {TAG_INT: "integer", TAG_FLOAT: "number", TAG_BOOL: "boolean"}.get(node.tag, "string")
