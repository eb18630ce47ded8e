"""Writing agent-made recordings back into trail files, every other byte unchanged.

The loader finds the step (its span); the file's node tree gives the byte range of the step's
``recording:`` slot for the device; only that range is replaced, or new lines are inserted after
the step's last line. Comments, quoting, key order, blank lines and other classifiers' slots are
never re-emitted, so they cannot change. Written values are emitted in a form every YAML reader
reads back the same (strings always double-quoted), and the result is parsed again and compared
with what was meant before the file is replaced. Files are written atomically (temp + rename)
under a lock on their folder, so xdist workers recording two platforms of one file both land.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias, TypeGuard

import yaml
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from ..errors import TrailLoadError
from ..jsondata import JsonValue
from ..system.locks import folder_lock
from .legacy import is_unified_text
from .lineage import resolve
from .model import ANY_DEVICE, Step, Trail
from .parse import classifier_from_filename, parse_trail

Call = tuple[str, Mapping[str, JsonValue]]
#: What ``block`` writes: a mapping, or a list or tuple of items.
_Collection: TypeAlias = Mapping[object, object] | list[object] | tuple[object, ...]
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*$")
_RESERVED = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


@dataclass(frozen=True, slots=True)
class SlotUpdate:
    """The calls the agent made for one step: ``number`` 0 is the trailhead, 1.. the steps."""

    number: int
    text: str
    calls: tuple[Call, ...]
    #: (tool name, comment): calls of these tools get the comment on their line, e.g. to say
    #: that a model decides them at every run.
    comments: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class _Edit:
    start: int
    end: int
    text: str


# -- emitting values -----------------------------------------------------------------------------------
def flow(value: object) -> str:
    """A value in flow style; strings are JSON strings, which YAML reads as double-quoted scalars."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    return json.dumps(str(value), ensure_ascii=False)


def _key(key: object) -> str:
    text = str(key)
    return text if _PLAIN_KEY.match(text) and text.lower() not in _RESERVED else json.dumps(text)


def block(value: _Collection, indent: int) -> list[str]:
    """Block-style lines (each indented by ``indent``) of a non-empty mapping or list."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if _nested(item):
                lines += [f"{pad}{_key(key)}:", *block(item, indent + 2)]
            else:
                lines.append(f"{pad}{_key(key)}: {flow(item)}")
        return lines
    for item in value:
        if _nested(item):
            inner = block(item, indent + 2)
            lines += [f"{pad}- {inner[0].lstrip()}", *inner[1:]]
        else:
            lines.append(f"{pad}- {flow(item)}")
    return lines


def _nested(value: object) -> TypeGuard[_Collection]:
    """A non-empty mapping or list: written as block lines (``block``), not in flow style."""
    return isinstance(value, (Mapping, list, tuple)) and bool(value)


# -- finding the slot ----------------------------------------------------------------------------------
def _node_at(root: Node, line: int, col: int, *, key: bool = False) -> Node | None:
    """The mapping (or, with ``key``, the mapping key) that starts at 1-based ``line:col``."""
    stack = [root]
    while stack:
        node = stack.pop()
        mark = node.start_mark
        if isinstance(node, MappingNode):
            pairs: list[tuple[Node, Node]] = node.value
            for k, v in pairs:
                if key and k.start_mark.line + 1 == line and k.start_mark.column + 1 == col:
                    return v
                stack += [k, v]
            if not key and mark.line + 1 == line and mark.column + 1 == col:
                return node
        elif isinstance(node, SequenceNode):
            stack += node.value
    return None


def _entry(mapping: MappingNode, key: str) -> tuple[Node, Node] | None:
    for k, v in mapping.value:
        if isinstance(k, ScalarNode) and k.value == key:
            return k, v
    return None


def _content_end(text: str, node: Node) -> int:
    """Where the node's last character is, followed to the end of its line (a comment included)."""
    while isinstance(node, (MappingNode, SequenceNode)) and not node.flow_style and node.value:
        last = node.value[-1]
        node = last[1] if isinstance(node, MappingNode) else last
    end = node.end_mark.index
    while end > 0 and text[end - 1] in "\r\n":
        end -= 1
    newline = text.find("\n", end)
    end = len(text) if newline < 0 else newline
    return end - 1 if end > 0 and text[end - 1] == "\r" else end


# -- building edits ------------------------------------------------------------------------------------
def _set_key(text: str, mapping: MappingNode, key: str, value: object, nl: str) -> _Edit:
    """Set ``key`` of ``mapping`` to ``value``, touching only that entry's bytes (or none at all)."""
    found = _entry(mapping, key)
    if mapping.flow_style:
        return _set_flow_key(text, mapping, key, value, found)
    if found is not None:
        node = found[1]
        if isinstance(node, ScalarNode) or (isinstance(node, CollectionNode) and node.flow_style):
            return _Edit(node.start_mark.index, node.end_mark.index, flow(value))
        if not _nested(value):
            return _Edit(node.start_mark.index, _content_end(text, node), flow(value))
        lines = block(value, node.start_mark.column)
        return _Edit(
            node.start_mark.index, _content_end(text, node), nl.join([lines[0].lstrip(), *lines[1:]])
        )
    indent = mapping.start_mark.column
    if _nested(value):
        lines = [" " * indent + f"{_key(key)}:", *block(value, indent + 2)]
    else:
        lines = [" " * indent + f"{_key(key)}: {flow(value)}"]
    at = _content_end(text, mapping.value[-1][1])
    return _Edit(at, at, nl + nl.join(lines))


def _set_flow_key(
    text: str, mapping: MappingNode, key: str, value: object, found: tuple[Node, Node] | None
) -> _Edit:
    if found is not None:
        return _Edit(found[1].start_mark.index, found[1].end_mark.index, flow(value))
    close = mapping.end_mark.index - 1
    at = close
    while at > mapping.start_mark.index + 1 and text[at - 1] in " \t":
        at -= 1
    separator = ", " if mapping.value else ""
    return _Edit(at, at, f"{separator}{_key(key)}: {flow(value)}")


def _slot_edit(text: str, trail: Trail, root: Node, update: SlotUpdate, classifier: str, nl: str) -> _Edit:
    """The edit that puts the update's calls into the step's slot for ``classifier``, with the
    update's comments on the lines that start its calls."""
    edit = _bare_slot_edit(text, trail, root, update, classifier, nl)
    if not update.comments:
        return edit
    notes = dict(update.comments)
    lines = edit.text.split(nl)
    for index, line in enumerate(lines):
        found = _CALL_LINE.match(line)
        if found and found.group(1) in notes:
            lines[index] = f"{line}  # {' '.join(notes[found.group(1)].split())}"
    return _Edit(edit.start, edit.end, nl.join(lines))


_CALL_LINE = re.compile(r"^\s*-\s+([A-Za-z_][\w.-]*):(?:\s*\{\})?\s*$")


def _bare_slot_edit(
    text: str, trail: Trail, root: Node, update: SlotUpdate, classifier: str, nl: str
) -> _Edit:
    step = trail.trailhead if update.number == 0 else trail.steps[update.number - 1]
    assert step is not None
    calls = [{name: dict(args)} for name, args in update.calls]
    if trail.format == "v1":
        return _v1_edit(text, root, step, calls, nl)
    mapping = _node_at(root, step.span.line, step.span.col)
    if not isinstance(mapping, MappingNode):
        raise _Skip(f"the step at {step.span} is not a mapping in the file")
    value: object = (calls[0] if calls else {}) if step.kind == "trailhead" else calls
    found = _entry(mapping, "recording")
    if found is None:
        return _set_key(text, mapping, "recording", {classifier: value}, nl)
    if not isinstance(found[1], MappingNode):
        raise _Skip(f"the `recording:` of the step at {step.span} is not a mapping")
    return _set_key(text, found[1], classifier, value, nl)


def _v1_edit(
    text: str, root: Node, step: Step, calls: list[dict[str, dict[str, JsonValue]]], nl: str
) -> _Edit:
    """v1: a prompt step's ``recording: {tools: [...]}``; a trailhead's own ``tools:``."""
    if step.kind == "trailhead":
        mapping = _node_at(root, step.span.line, step.span.col, key=True)
        if not isinstance(mapping, MappingNode):
            raise _Skip(f"the trailhead at {step.span} is a bare tool name")
        return _set_key(text, mapping, "tools", calls, nl)
    mapping = _node_at(root, step.span.line, step.span.col)
    if not isinstance(mapping, MappingNode):
        raise _Skip(f"the step at {step.span} is not a mapping in the file")
    found = _entry(mapping, "recording")
    if found is None or not isinstance(found[1], MappingNode):
        return _set_key(text, mapping, "recording", {"tools": calls}, nl)
    return _set_key(text, found[1], "tools", calls, nl)


class _Skip(Exception):
    """An update that cannot be written; its message becomes a note."""


# -- merging and saving --------------------------------------------------------------------------------
def merge_recordings(
    text: str,
    path: str,
    classifier: str,
    chain: Sequence[str],
    updates: Sequence[SlotUpdate],
    env: Mapping[str, str] | None = None,
) -> tuple[str, list[str]]:
    """``text`` with each update written into its step's slot, and a note per update not written.

    Step texts are compared as the run read them (after the ``{{ENV}}`` pass with ``env``);
    everything written is compared as written.
    """
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    body = text[len(bom) :]
    try:
        trail = parse_trail(body, path, file_classifier=classifier_from_filename(path))
    except TrailLoadError as exc:
        return text, [f"{path}: not written: the file does not load any more ({exc.problems[0].format()})"]
    notes: list[str] = []
    as_run = (
        parse_trail(body, path, file_classifier=classifier_from_filename(path), env=env) if env else trail
    )
    usable = [u for u in updates if _usable(as_run, u, chain, notes, path)]
    if not usable:
        return text, notes
    root = yaml.compose(body, Loader=yaml.SafeLoader)
    if root is None:  # no document: no steps to update
        return text, notes
    nl = "\r\n" if "\r\n" in body else "\n"
    edits = []
    for update in usable:
        try:
            edits.append((update, _slot_edit(body, trail, root, update, classifier, nl)))
        except _Skip as exc:
            notes.append(f"{path}: step {update.number} not written: {exc}")
    merged = body
    for _, edit in sorted(edits, key=lambda pair: pair[1].start, reverse=True):
        merged = merged[: edit.start] + edit.text + merged[edit.end :]
    problem = _check(merged, path, classifier, [u for u, _ in edits])
    if problem:
        return text, [*notes, f"{path}: not written: {problem}"]
    return bom + merged, notes


def _usable(trail: Trail, update: SlotUpdate, chain: Sequence[str], notes: list[str], path: str) -> bool:
    if not 0 <= update.number <= len(trail.steps) or (update.number == 0 and trail.trailhead is None):
        notes.append(f"{path}: step {update.number} not written: the file has no such step any more")
        return False
    step = trail.trailhead if update.number == 0 else trail.steps[update.number - 1]
    assert step is not None
    why = ""
    if step.text != update.text:
        why = f"its text changed since the run ({step.text!r})"
    elif not step.recordable:
        why = "it is `recordable: false`"
    elif step.kind == "trailhead" and len(update.calls) > 1:
        why = f"a trailhead recording holds one tool call and the agent made {len(update.calls)}"
    elif trail.format == "v1":
        why = _v1_reason(path, chain)
    if why:
        notes.append(f"{path}: step {update.number} not written: {why}")
    return not why


def _v1_reason(path: str, chain: Sequence[str]) -> str:
    """Legacy v1 files hold one device's recordings when named for it (``web.trail.yaml``); any
    other v1 file's recordings apply to every device, so one device's calls never go there."""
    file_key = classifier_from_filename(path)
    if file_key is None:
        return (
            "a legacy v1 file's recordings apply to every device; name the file for the device "
            f"({chain[0] if chain else 'web'}.trail.yaml) or move it to the unified format"
        )
    return "" if file_key in chain else f"this legacy file records '{file_key}', not this device"


def _check(text: str, path: str, classifier: str, updates: Sequence[SlotUpdate]) -> str | None:
    """Parse the result again: it must load and hold exactly the calls meant for each slot."""
    try:
        trail = parse_trail(text, path, file_classifier=classifier_from_filename(path))
    except TrailLoadError as exc:
        return f"the edited file would not load ({exc.problems[0].format()})"
    key = classifier if trail.format == "unified" else (classifier_from_filename(path) or ANY_DEVICE)
    for update in updates:
        step = trail.trailhead if update.number == 0 else trail.steps[update.number - 1]
        hit = resolve(step.recording or {}, (key,)) if step is not None else None
        got = [(c.name, dict(c.args)) for c in hit[1]] if hit else None
        if got != [(name, dict(args)) for name, args in update.calls]:
            return f"step {update.number} would read back as {got!r}"
    return None


def save_recordings(
    path: Path,
    display: str,
    classifier: str,
    chain: Sequence[str],
    updates: Sequence[SlotUpdate],
    env: Mapping[str, str] | None = None,
    *,
    source: Path | None = None,
) -> tuple[bool, list[str]]:
    """Write the updates into the file under a lock, atomically; (written, notes).

    ``source``: the file ``path`` starts as when it does not exist yet (a v1 definition whose
    device gets its own ``<classifier>.trail.yaml``, ``legacy.recording_file``): its config,
    steps, comments and other recordings are kept, the device's calls added. Whether ``path``
    exists is decided under the lock, so two workers recording one device never both create it.
    """
    with folder_lock(path.parent):
        origin = source if source is not None and not path.exists() else path
        with origin.open(encoding="utf-8", newline="") as handle:
            text = handle.read()
        if source is not None and origin != source and is_unified_text(text):
            return False, [f"{display}: not written: it is a unified trail of its own, not a device file"]
        merged, notes = merge_recordings(text, display, classifier, chain, updates, env)
        if merged == text:
            return False, notes
        _replace(path, merged, like=origin)
    return True, notes


def _replace(path: Path, text: str, *, like: Path) -> None:
    """Write beside the file, then rename over it: readers see the old or the new file, whole.
    The file gets the permissions of ``like`` (itself, or the file a new one is made from)."""
    mode = stat.S_IMODE(like.stat().st_mode)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        Path(temp).chmod(mode)
        Path(temp).replace(path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
