"""Trail YAML text to a ``Trail`` (U§1.2-1.10), reporting every problem of a file at once.

The root decides the format: a list is legacy v1, a mapping is unified. Both grammars are
checked strictly (unknown keys are problems) because a silently dropped key in a test is a
test that does not test what its author thinks.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .devices import classifier_problem
from .envpass import expand_template as expand_template  # re-exported: the per-string pass
from .envpass import expand_templates
from .errors import Problem, TrailLoadError
from .model import ANY_DEVICE, Step, ToolCall, Trail, TrailConfig
from .naming import RESERVED_NAMES, WIRE_RE
from .pycall import CodeRoots, ImportFailure, OutsideRoot, locate, outside_root_fix
from .tokens import malformed_arg_tokens
from .trailconfig import classifier_entries, read_config
from .yamlsource import Source, did_you_mean, is_null, kind_of

ROOT_KEYS = ("config", "trailhead", "trail")
STEP_KEYS = ("step", "verify", "recording", "recordable", "maxRetries")
TRAILHEAD_KEYS = ("step", "recording", "maxRetries")
V1_ITEM_KEYS = ("config", "prompts", "tools", "trailhead")
V1_STEP_KEYS = ("step", "verify", "recordable", "recording", "maxRetries")
#: Which files are trails unless the user says otherwise (never ``trailblaze.yaml``).
TRAIL_FILE_PATTERNS = ("*.trail.yaml", "trail.yaml")
DEFAULT_TRAILHEAD_TEXT = "Reach the trailhead starting state"


def load_trail(path: str | os.PathLike[str], *, display_path: str | None = None) -> Trail:
    """Read, template and parse a trail file; raises ``TrailLoadError`` listing all problems."""
    shown = display_path or str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fix = "check that the file exists, is readable and is saved as UTF-8"
        raise TrailLoadError([Problem(None, f"{shown}: cannot read the trail file: {exc}", fix=fix)]) from exc
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

    With ``env``, the ``{{ENV_VAR}}`` pass (U§1.12) runs over the parsed values, never the text.
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
        trail = _V1(src, file_classifier).read(root)
    elif root is not None:
        src.problem(
            root,
            f"a trail must be a mapping (unified format) or a list (legacy v1), not {kind_of(root)}",
            fix="start the file with `config:` and `trail:` keys",
        )
    if src.problems or trail is None:
        raise TrailLoadError(src.problems)
    return trail


class _Grammar:
    """What both formats share: tool calls, step texts, retries."""

    def __init__(self, src: Source) -> None:
        self.src = src

    def tool_call(self, node: Node) -> ToolCall | None:
        src = self.src
        if isinstance(node, ScalarNode) and not is_null(node):
            name = str(node.value)
            src.problem(
                node,
                f"tool call '{name}' must be a single-key map",
                why="each tool call is written `- toolName: {arguments}`",
                fix=f"write `- {name}: {{}}`",
            )
            return None
        mapping = src.mapping(node, "a tool call", fix="write `- toolName: {arguments}`")
        if mapping is None:
            return None
        if len(mapping.value) != 1:
            names = ", ".join(str(k.value) for k, _ in mapping.value) or "none"
            src.problem(
                mapping,
                f"a tool call must have exactly one key, the tool name; found {len(mapping.value)}: {names}",
                fix="indent the arguments under the tool name: `- toolName:` then `    arg: value`",
            )
            return None
        key_node, args_node = mapping.value[0]
        name = str(key_node.value)
        if not self._check_tool_name(key_node, name):
            return None
        return self._call_args(name, key_node, args_node)

    def _check_tool_name(self, key_node: Node, name: str) -> bool:
        if name in RESERVED_NAMES:
            self.src.problem(
                key_node,
                f"'{name}' cannot be a tool name",
                why="config, prompts, tools and trailhead are reserved trail keywords",
                fix="check the indentation: this block is nested one level too deep",
            )
            return False
        if not WIRE_RE.match(name):
            self.src.problem(
                key_node,
                f"'{name}' is not a valid tool name",
                why="tool names are 1 to 64 letters, digits, '_' or '-'",
                fix="use the tool's registered name, like `web_click`",
            )
            return False
        return True

    def _call_args(self, name: str, key_node: Node, args_node: Node) -> ToolCall | None:
        src = self.src
        span = src.span(key_node)
        if is_null(args_node):
            return ToolCall(name, {}, span)
        if not isinstance(args_node, MappingNode):
            src.problem(
                args_node,
                f"the arguments of '{name}' must be a mapping, not {kind_of(args_node)}",
                why="scalar shorthand such as `- tool: value` is not part of the trail format",
                fix=f"write `- {name}: {{argName: value}}` (or `{{}}` for no arguments)",
            )
            return None
        args, spans = {}, {}
        for arg, arg_key, value in src.entries(args_node):
            args[arg] = src.value(value)
            spans[arg] = src.span(arg_key)
            for token in malformed_arg_tokens(args[arg]):
                src.problem(
                    value,
                    f"malformed args token '{token}' in '{name}.{arg}'",
                    why="args tokens are dotted paths only, like {{args.user.email}}",
                    fix="compute the value elsewhere (a tool or an arg) and reference it by path",
                )
        return ToolCall(name, args, span, spans)

    def tool_list(self, node: Node, what: str) -> tuple[ToolCall, ...] | None:
        seq = self.src.sequence(node, what, fix="write one `- toolName: {arguments}` per line, or `[]`")
        if seq is None:
            return None
        calls = [self.tool_call(item) for item in seq.value]
        return tuple(c for c in calls if c is not None)

    def step_text(self, node: Node, key: str) -> str:
        text = self.src.text(node, f"`{key}:`")
        if text is not None and not text.strip():
            self.src.problem(node, f"`{key}:` is empty", fix="describe the step in plain words")
        return text or ""

    def build_step(self, mapping: Node, parts: dict[str, Node]) -> Step | None:
        """A step from its validated parts; the format's own ``_recording`` reads the recording."""
        kind = self.step_kind(mapping, parts)
        if kind is None:
            return None
        recording = self._recording(parts["recording"]) if "recording" in parts else None
        recordable = self.recordable(parts["recordable"]) if "recordable" in parts else True
        self.check_recordable(mapping, recordable, recording)
        retries = self.max_retries(parts["maxRetries"]) if "maxRetries" in parts else None
        text = self.step_text(parts[kind], kind)
        return Step(kind, text, self.src.span(mapping), recording, recordable, retries)

    def _recording(self, node: Node) -> dict[str, tuple[ToolCall, ...]] | None:
        raise NotImplementedError

    def step_kind(self, mapping: Node, parts: dict[str, Node]) -> str | None:
        has_step, has_verify = "step" in parts, "verify" in parts
        if has_step and has_verify:
            self.src.problem(mapping, "a step has both `step:` and `verify:`", fix="split it into two steps")
            return None
        if not (has_step or has_verify):
            self.src.problem(
                mapping,
                "a step needs `step:` or `verify:` with its text",
                why="every step states in plain words what it does; recordings alone are not steps",
                fix="add `step: <what this step does>`",
            )
            return None
        return "step" if has_step else "verify"

    def max_retries(self, node: Node) -> int | None:
        value = self.src.value(node)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
        self.src.problem(
            node, "`maxRetries:` must be a whole number of 0 or more", fix="write e.g. `maxRetries: 2`"
        )
        return None

    def recordable(self, node: Node) -> bool:
        value = self.src.value(node)
        if isinstance(value, bool):
            return value
        self.src.problem(
            node,
            "`recordable:` must be true or false",
            fix="write `recordable: false` (unquoted) or remove it",
        )
        return True

    def check_recordable(self, step_node: Node, recordable: bool, recording: dict | None) -> None:
        if recordable or not recording:
            return
        filled = [k for k, calls in recording.items() if calls]
        if filled:
            self.src.problem(
                step_node,
                f"`recordable: false` conflicts with the recording for '{filled[0]}'",
                why="a non-recordable step always runs through the agent; its recording would never replay",
                fix="remove the recording, or remove `recordable: false`",
            )


class _Unified(_Grammar):
    """The unified format: ``config`` / ``trailhead`` / ``trail`` (U§1.4-1.6)."""

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


class _V1(_Grammar):
    """Legacy v1: a list of single-key items ``config`` / ``trailhead`` / ``prompts`` / ``tools``."""

    def __init__(self, src: Source, file_classifier: str | None) -> None:
        super().__init__(src)
        self.device_key = file_classifier or ANY_DEVICE

    def read(self, root: SequenceNode) -> Trail | None:
        src = self.src
        config, trailhead, steps = TrailConfig(), None, []
        seen_steps = False
        for position, item in enumerate(root.value):
            entry = self._item(item)
            if entry is None:
                continue
            key, key_node, value = entry
            if key == "config":
                if position != 0:
                    fix = "move it to the top of the file"
                    src.problem(key_node, "`- config:` must be the first item", fix=fix)
                config = read_config(src, value, v1=True)
            elif key == "trailhead":
                if trailhead is not None or seen_steps:
                    src.problem(
                        key_node,
                        "only one `- trailhead:` is allowed, before any prompts or tools",
                        fix="keep a single trailhead right after `- config:`",
                    )
                trailhead = self._trailhead(key_node, value)
            else:
                seen_steps = True
                steps.extend(self._prompts(value) if key == "prompts" else self._tools_item(key_node, value))
        if config.skip.get(ANY_DEVICE) is not None and self.device_key != ANY_DEVICE:
            config = _rekey_skip(config, self.device_key)
        return Trail(src.path, "v1", config, tuple(steps), trailhead, src.span(root))

    def _item(self, item: Node) -> tuple[str, Node, Node] | None:
        src = self.src
        if not isinstance(item, MappingNode) or len(item.value) != 1:
            fix = "write `- config:`, `- trailhead:`, `- prompts:` or `- tools:` items"
            src.problem(item, "each item of a v1 trail is a single-key map", fix=fix)
            return None
        key_node, value = item.value[0]
        key = str(key_node.value)
        if key == "maestro":
            src.problem(
                key_node,
                "`- maestro:` blocks are not supported",
                why="Maestro flows are not Trailblaze tool calls and cannot replay through the tool registry",
                fix="record the flow as Trailblaze tool calls in a `- tools:` item",
            )
            return None
        if key not in V1_ITEM_KEYS:
            hint = did_you_mean(key, V1_ITEM_KEYS) or f"rename or remove '{key}'"
            src.problem(
                key_node, f"unknown v1 item '{key}'", why=f"v1 items are: {', '.join(V1_ITEM_KEYS)}", fix=hint
            )
            return None
        return key, key_node, value

    def _prompts(self, node: Node) -> list[Step]:
        seq = self.src.sequence(node, "`- prompts:`", fix="write `- prompts:` then `    - step: ...` items")
        if seq is None:
            return []
        steps = [self._step(item) for item in seq.value]
        return [s for s in steps if s is not None]

    def _step(self, node: Node) -> Step | None:
        src = self.src
        mapping = src.mapping(node, "a prompt step", fix="write `- step: <what to do>` items")
        if mapping is None:
            return None
        return self.build_step(mapping, src.known_entries(mapping, V1_STEP_KEYS, "a v1 step"))

    def _recording(self, node: Node) -> dict[str, tuple[ToolCall, ...]] | None:
        src = self.src
        mapping = src.mapping(node, "a v1 `recording:`", fix="write `recording:` then `  tools: [...]`")
        if mapping is None:
            return None
        entries = src.known_entries(mapping, ("tools",), "a v1 recording")
        if "tools" not in entries:
            fix = "write `recording:` then `  tools: [...]`; `recording: {tools: []}` is a no-op"
            src.problem(mapping, "a v1 `recording:` needs a `tools:` list", fix=fix)
            return None
        calls = self.tool_list(entries["tools"], "`recording.tools`")
        return None if calls is None else {self.device_key: calls}

    def _tools_item(self, key_node: Node, node: Node) -> list[Step]:
        calls = self.tool_list(node, "`- tools:`")
        if calls is None:
            return []
        return [Step("tools", "Run the listed tools", self.src.span(key_node), {self.device_key: calls})]

    def _trailhead(self, key_node: Node, node: Node) -> Step | None:
        src = self.src
        span = src.span(key_node)
        if isinstance(node, ScalarNode) and not is_null(node):
            name = str(node.value)
            if not self._check_tool_name(node, name):
                return None
            call = ToolCall(name, {}, src.span(node))
            return Step("trailhead", DEFAULT_TRAILHEAD_TEXT, span, {self.device_key: (call,)})
        mapping = src.mapping(node, "`- trailhead:`", fix="write a tool name, or `step:` and/or `tools:`")
        if mapping is None:
            return None
        parts = src.known_entries(mapping, ("step", "tools", "maxRetries"), "a v1 trailhead")
        if "step" not in parts and "tools" not in parts:
            fix = "add `step: <the starting state>` and/or `tools:` with `- launchApp: {...}` items"
            src.problem(mapping, "a v1 trailhead needs `step:` or `tools:`", fix=fix)
            return None
        text = self.step_text(parts["step"], "step") if "step" in parts else DEFAULT_TRAILHEAD_TEXT
        calls = self.tool_list(parts["tools"], "the trailhead `tools:`") if "tools" in parts else None
        recording = {self.device_key: calls} if calls is not None else None
        retries = self.max_retries(parts["maxRetries"]) if "maxRetries" in parts else None
        return Step("trailhead", text, span, recording, True, retries)


def _rekey_skip(config: TrailConfig, device_key: str) -> TrailConfig:
    """A v1 per-device file's scalar ``skip:`` applies to that file's device."""
    return replace(config, skip={device_key: config.skip[ANY_DEVICE]})
