"""The toolsets and tool files of a workspace: found in trailmaps or listed in ``trailblaze.yaml``
(inline, or ``{ref: path}``), checked for their names, kept unique across the workspace."""

from __future__ import annotations

import os
from pathlib import Path

from yaml.nodes import MappingNode, Node, SequenceNode

from ..core.system.files import inside
from ..core.trail.naming import check_tool_name
from ..core.trail.yamlsource import Source, is_null
from .load_steps import CONFIG_FILE, LoadSteps
from .model import ToolDef
from .schema import ToolsetConfig, node_at, validate
from .toolfile import read_tool_definition


class EntrySteps(LoadSteps):
    """Adding toolsets and tool files to the workspace being loaded."""

    def add_toolset(self, path: Path, node: Node | None = None, src: Source | None = None) -> None:
        if node is None or src is None:
            src, node = self.read(path)
        toolset = validate(src, node, ToolsetConfig, "toolset") if node is not None else None
        self.keep(src)
        if toolset is not None:
            self.ws.toolsets[toolset.id] = toolset

    def add_tool_file(
        self, path: Path, trailmap: str | None = None, node: Node | None = None, src: Source | None = None
    ) -> None:
        if node is None or src is None:
            src, node = self.read(path)
        definition = read_tool_definition(src, node, path, trailmap, self.code) if node is not None else None
        self.keep(src)
        if definition is None:
            return
        self.check_tool_name(definition)
        self.add_unique(
            self.ws.tool_defs,
            definition.name,
            definition,
            f"tool '{definition.name}' is defined twice",
            "tool names are global: rename one",
        )

    def check_tool_name(self, definition: ToolDef) -> None:
        if definition.mode == "class" and ":" not in (definition.config.class_ or ""):
            return  # an upstream framework class: its name is upstream's, not the author's
        for finding in check_tool_name(definition.name):
            warn = finding.severity != "error" and not self.loader.strict
            self.problem(definition.span, finding.what, finding.fix, finding.why, warn=warn)

    def add_workspace_entries(self) -> None:
        """Inline or ``{ref: path}`` toolsets and tools listed in ``trailblaze.yaml``.

        A key that is not a list was already reported by the schema; it contributes nothing.
        """
        if self.config_node is None:
            return
        src, node = self.config_node
        for key, add in (("toolsets", self.add_toolset), ("tools", self.add_tool_file)):
            entries, _ = node_at(node, [key])
            if entries is node or not isinstance(entries, SequenceNode):
                continue
            for entry in entries.value:
                ref = _ref(entry)
                target = None if ref is None else self.dir / ref
                if target is None:
                    add(self.dir / CONFIG_FILE, node=entry, src=Source(src.path))
                elif not inside(target, self.root):
                    self.problem(
                        src.span(entry),
                        f"`ref: {ref}` leaves the workspace",
                        why=f"it resolves to {os.path.realpath(target)}, outside the workspace root "
                        f"{self.root}",
                        fix="keep referenced files inside the workspace",
                    )
                elif target.exists():
                    add(target.resolve())
                else:
                    self.problem(src.span(entry), f"`ref: {ref}` does not exist", fix="fix the path")


def _ref(entry: Node) -> str | None:
    if isinstance(entry, MappingNode) and len(entry.value) == 1 and entry.value[0][0].value == "ref":
        value = entry.value[0][1]
        return None if is_null(value) else str(value.value)
    return None
