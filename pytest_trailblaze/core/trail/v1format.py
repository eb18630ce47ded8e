"""The legacy v1 trail format: a list of single-key items ``config`` / ``trailhead`` /
``prompts`` / ``tools``. A file named for a device (``android-phone.trail.yaml``) holds that
device's recording; otherwise its recordings apply to any device.
"""

from __future__ import annotations

from dataclasses import replace

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .model import ANY_DEVICE, Step, ToolCall, Trail, TrailConfig
from .stepgrammar import StepGrammar
from .trailconfig import read_config
from .yamlsource import Source, did_you_mean, is_null

V1_ITEM_KEYS = ("config", "prompts", "tools", "trailhead")
V1_STEP_KEYS = ("step", "verify", "recordable", "recording", "maxRetries")
DEFAULT_TRAILHEAD_TEXT = "Reach the trailhead starting state"


class V1Grammar(StepGrammar):
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
