"""What both trail formats share: tool calls and their arguments, step texts, kinds, retries.

The unified grammar (``loader``), the legacy v1 grammar (``v1format``) and the tool-file reader
(``workspace.toolfile``) all read tool calls through this one class, so a call means the same
thing wherever it is written.
"""

from __future__ import annotations

from yaml.nodes import MappingNode, Node, ScalarNode

from .model import Step, StepKind, ToolCall
from .naming import RESERVED_NAMES, WIRE_RE
from .tokens import malformed_arg_tokens
from .yamlsource import Source, is_null, kind_of


class StepGrammar:
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

    def step_kind(self, mapping: Node, parts: dict[str, Node]) -> StepKind | None:
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

    def check_recordable(
        self, step_node: Node, recordable: bool, recording: dict[str, tuple[ToolCall, ...]] | None
    ) -> None:
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
