"""Trail YAML text to a ``Trail`` (docs/guides/trails.md), reporting every problem of a file at once.

The root decides the format: a list is legacy v1, a mapping is unified. Both grammars are
checked strictly (unknown keys are problems) because a silently dropped key in a test is a
test that does not test what its author thinks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..errors import Problem, TrailLoadError
from ..system.files import DEFAULT_MAX_BYTES, FileRefused, Roots, read_source
from ..system.pycall import CodeRoots, ImportFailure, OutsideRoot, locate, outside_root_fix
from .devices import classifier_problem
from .envpass import expand_template as expand_template  # re-exported: the per-string pass
from .envpass import expand_templates
from .model import Step, ToolCall, Trail, TrailConfig
from .stepgrammar import StepGrammar
from .trailconfig import classifier_entries, read_config
from .v1format import V1Grammar
from .yamlsource import Source, is_null, kind_of

ROOT_KEYS = ("config", "trailhead", "trail")
STEP_KEYS = ("step", "verify", "recording", "recordable", "maxRetries")
TRAILHEAD_KEYS = ("step", "recording", "maxRetries")


def load_trail(
    path: str | os.PathLike[str],
    *,
    display_path: str | None = None,
    limit: int = DEFAULT_MAX_BYTES,
    root: Roots | None = None,
) -> Trail:
    """Read, template and parse a trail file; raises ``TrailLoadError`` listing all problems.

    Only a regular file of at most ``limit`` bytes is read, and, given a ``root``, only one that
    lies inside it (links followed): see ``files.read_source``.
    """
    shown = display_path or str(path)
    try:
        text = read_source(Path(path), limit=limit, root=root)
    except FileRefused as exc:
        raise TrailLoadError([exc.problem(shown)]) from None
    return parse_trail(text, shown, file_classifier=classifier_from_filename(shown), env=os.environ)


def script_problems(trail: Trail, base_dir: Path, code: CodeRoots) -> list[Problem]:
    """``- script: {function: ...}`` calls whose file leaves ``code``'s roots (located, not imported).

    A value with tokens is only known at run time, where the ``script`` tool checks it again.
    """
    problems = []
    for step in (trail.trailhead, *trail.steps):
        for call in step.calls() if step is not None else ():
            function = call.args.get("function") if call.name == "script" else None
            if not isinstance(function, str) or "{{" in function or "${" in function:
                continue
            try:
                locate(function, base_dir, code)
            except OutsideRoot as exc:
                problems.append(
                    Problem(
                        call.arg_spans.get("function", call.span),
                        f"`script` function {function} is outside the workspace root",
                        why=exc.why,
                        fix=outside_root_fix(),
                    )
                )
            except ImportFailure:
                continue  # a missing file is reported when the step runs, like any failing tool
    return problems


def classifier_from_filename(path: str) -> str | None:
    """``android-phone.trail.yaml`` names the device of a legacy per-device recording."""
    name = Path(path).name
    if not name.endswith(".trail.yaml"):
        return None
    stem = name[: -len(".trail.yaml")]
    return stem if classifier_problem(stem) is None else None


def parse_trail(
    text: str, path: str, *, file_classifier: str | None = None, env: Mapping[str, str] | None = None
) -> Trail:
    """Parse trail text; ``path`` is used in spans and messages.

    With ``env``, the ``{{ENV_VAR}}`` pass (``envpass.py``) runs over the parsed values, never the text.
    """
    src = Source(path)
    root = src.compose(text)
    if root is not None and env is not None and "{{" in text:
        root = expand_templates(root, env)
    trail: Trail | None = None
    if root is None and not src.problems:
        src.problem(None, "the trail file is empty", fix="add a `trail:` list of steps")
    elif isinstance(root, MappingNode):
        trail = _Unified(src).read(root)
    elif isinstance(root, SequenceNode):
        trail = V1Grammar(src, file_classifier).read(root)
    elif root is not None:
        src.problem(
            root,
            f"a trail must be a mapping (unified format) or a list (legacy v1), not {kind_of(root)}",
            fix="start the file with `config:` and `trail:` keys",
        )
    if src.problems or trail is None:
        raise TrailLoadError(src.problems)
    return trail


class _Unified(StepGrammar):
    """The unified format: ``config`` / ``trailhead`` / ``trail``."""

    def read(self, root: MappingNode) -> Trail | None:
        src = self.src
        parts = src.known_entries(root, ROOT_KEYS, "a trail file")
        config = read_config(src, parts["config"], v1=False) if "config" in parts else TrailConfig()
        trailhead = self._trailhead(parts["trailhead"]) if "trailhead" in parts else None
        steps = self._steps(root, parts)
        return Trail(src.path, "unified", config, steps, trailhead, src.span(root))

    def _steps(self, root: Node, parts: dict[str, Node]) -> tuple[Step, ...]:
        src = self.src
        if "trail" not in parts:
            if "trailhead" in parts:
                fix = "add `trail:` with at least one step"
                src.problem(root, "a trailhead without `trail:` steps", fix=fix)
            elif "config" not in parts:
                src.problem(root, "missing `trail:`", fix="add `trail:` with a list of `- step: ...` items")
            return ()
        seq = src.sequence(parts["trail"], "`trail:`", fix="write `trail:` then `  - step: ...` items")
        if seq is None:
            return ()
        if not seq.value:
            src.problem(seq, "`trail:` has no steps", fix="add at least one `- step: ...`")
        steps = [self._step(node) for node in seq.value]
        return tuple(s for s in steps if s is not None)

    def _step(self, node: Node) -> Step | None:
        src = self.src
        fix = "write `- step: <what to do>` with an optional `recording:`"
        mapping = src.mapping(node, "a step", fix=fix)
        if mapping is None:
            return None
        parts: dict[str, Node] = {}
        for key, key_node, value in src.entries(mapping):
            if key in STEP_KEYS:
                parts[key] = value
            elif check_classifier_quietly(key):
                src.problem(
                    key_node,
                    f"unexpected step-level key '{key}'",
                    why="device recordings live under the step's `recording:` map",
                    fix=f"move it: `recording:` then `  {key}: [...]`",
                )
            else:
                src.unknown_key(key_node, key, "a step", STEP_KEYS)
        return self.build_step(mapping, parts)

    def _recording(self, node: Node) -> dict[str, tuple[ToolCall, ...]] | None:
        fix = "map device classifiers to tool lists: `web: [...]`"
        recording: dict[str, tuple[ToolCall, ...]] = {}
        for key, _, value in classifier_entries(self.src, node, "`recording:`", fix):
            calls = self.tool_list(value, f"the recording for '{key}'")
            if calls is not None:
                recording[key] = calls
        return recording

    def _trailhead(self, node: Node) -> Step | None:
        src = self.src
        if isinstance(node, ScalarNode) and not is_null(node):
            src.problem(
                node,
                "a trailhead shorthand string is only valid in legacy v1 files",
                fix="write `trailhead:` with `step:` and `recording: {<classifier>: {tool: {...}}}`",
            )
            return None
        mapping = src.mapping(node, "`trailhead:`", fix="write `step:` and an optional `recording:` under it")
        if mapping is None:
            return None
        parts: dict[str, Node] = {}
        for key, key_node, value in src.entries(mapping):
            if key in TRAILHEAD_KEYS:
                parts[key] = value
            elif key == "verify":
                fix = "use `step:` to describe the start state"
                src.problem(key_node, "a trailhead cannot be `verify:`", fix=fix)
            else:
                src.unknown_key(key_node, key, "a trailhead", TRAILHEAD_KEYS)
        if "step" not in parts:
            fix = "add `step: <the starting state>`"
            src.problem(mapping, "a trailhead needs `step:` with its text", fix=fix)
            return None
        text = self.step_text(parts["step"], "step")
        recording = self._trailhead_recording(parts["recording"]) if "recording" in parts else None
        retries = self.max_retries(parts["maxRetries"]) if "maxRetries" in parts else None
        return Step("trailhead", text, src.span(mapping), recording, True, retries)

    def _trailhead_recording(self, node: Node) -> dict[str, tuple[ToolCall, ...]] | None:
        src = self.src
        fix = "map device classifiers to one tool call each: `web: {toolName: {...}}`"
        recording: dict[str, tuple[ToolCall, ...]] = {}
        for key, _, value in classifier_entries(src, node, "the trailhead `recording:`", fix):
            if isinstance(value, SequenceNode):
                src.problem(
                    value,
                    f"the trailhead recording for '{key}' must be one tool call map, not a list",
                    fix=f"write `{key}: {{toolName: {{...}}}}`",
                )
            elif isinstance(value, MappingNode) and len(value.value) > 1:
                src.problem(
                    value,
                    f"the trailhead recording for '{key}' holds {len(value.value)} tool calls; "
                    "it may hold at most one",
                    fix="move the other calls into the first step of the trail",
                )
            elif is_null(value) or (isinstance(value, MappingNode) and not value.value):
                recording[key] = ()
            else:
                call = self.tool_call(value)
                if call is not None:
                    recording[key] = (call,)
        return recording


def check_classifier_quietly(key: str) -> bool:
    """True when ``key`` looks like a device classifier (for a better 'misplaced key' hint)."""
    return classifier_problem(key) is None
