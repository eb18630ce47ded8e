"""``*.tool.yaml`` files: one of ``class:`` / ``tools:`` / ``script:`` (docs/upstream.md,
Workspaces and tool files).

Read statically: a ``class:`` / ``script:`` reference is located (never imported) so a Python
file outside the workspace root is a problem at its own line before anything runs.
"""

from __future__ import annotations

from pathlib import Path

from yaml.nodes import Node

from ..core.errors import Problem
from ..core.system.pycall import CodeRoots, ImportFailure, OutsideRoot, locate, outside_root_fix
from ..core.trail.stepgrammar import StepGrammar
from ..core.trail.tokens import TOKEN, body, strings_in
from ..core.trail.yamlsource import Source, did_you_mean
from .model import ToolDef
from .schema import ToolFile, node_at, validate


def read_tool_definition(
    src: Source, node: Node, path: Path, trailmap: str | None, code: CodeRoots | None = None
) -> ToolDef | None:
    """A ``*.tool.yaml``: exactly one of class / tools / script, with the fields each mode needs.

    With ``code``, a ``class:`` / ``script:`` Python file outside the workspace root is a problem
    at its line; nothing is imported here.
    """
    config = validate(src, node, ToolFile, path.name)
    if config is None:
        return None
    span = src.span(node_at(node, ["id"])[0])
    modes = config.bodies()
    if len(modes) > 1:
        src.problem(
            node,
            f"tool '{config.id}' has {' and '.join(modes)}; a tool has exactly one of class / tools / script",
            fix="keep one body and move the rest into another tool",
        )
        return None
    definition = ToolDef(config, path, span, trailmap)
    if not modes:
        if config.shortcut is None and config.trailhead is None:
            src.problems.append(
                Problem(
                    span,
                    f"tool '{config.id}' declares no implementation; calls to it will fail",
                    why="a tool file needs `class:`, `tools:` or `script:` to run",
                    fix="add `tools:` with the calls it makes, or `class: module:function`",
                    severity="warning",
                )
            )
        return definition
    if not _mode_fields_ok(src, node, config, modes[0]):
        return None
    if code is not None and not _code_inside(src, node, modes[0], path, code):
        return None
    if modes[0] == "tools":
        calls = StepGrammar(src).tool_list(node_at(node, ["tools"])[0], f"the `tools:` of '{config.id}'")
        definition.expansion = calls or ()
        _check_parameter_tokens(src, definition)
    return definition


def _code_inside(src: Source, node: Node, mode: str, path: Path, code: CodeRoots) -> bool:
    """A ``class:`` / ``script:`` reference must not leave the workspace root (checked statically)."""
    if mode not in ("class", "script"):
        return True
    value = node_at(node, ["class" if mode == "class" else "script"])[0]
    spec = str(value.value)
    if ":" not in spec:
        return True  # an upstream Kotlin class name, served by a built-in or unavailable
    try:
        locate(spec, path.parent, code)
    except OutsideRoot as exc:
        src.problem(
            value,
            f"`{mode}: {spec}` is outside the workspace root",
            why=exc.why,
            fix=outside_root_fix(),
        )
        return False
    except ImportFailure:
        return True  # a missing module or file is reported with the tool (see build_tools)
    return True


def _mode_fields_ok(src: Source, node: Node, config: ToolFile, mode: str) -> bool:
    if mode == "class":
        extra = [f for f in ("description", "parameters") if getattr(config, f) is not None]
        if extra:
            src.problem(
                node_at(node, [extra[0]])[1] or node,
                f"`{extra[0]}:` is not allowed with `class:`",
                why="a class-backed tool takes its description and parameters from the code",
                fix=f"remove `{extra[0]}:` (put it in the function's docstring / signature)",
            )
            return False
        return True
    missing = [f for f in ("description", "parameters") if getattr(config, f) is None]
    if missing:
        src.problem(
            node,
            f"tool '{config.id}' needs `{missing[0]}:` with `{mode}:`",
            fix="use `parameters: []` for a tool without parameters"
            if missing[0] == "parameters"
            else "describe what the tool does in one or two sentences",
        )
        return False
    return True


def _check_parameter_tokens(src: Source, definition: ToolDef) -> None:
    """``{{params.x}}`` must name a declared parameter; other prefixes than memory/args are errors."""
    declared = {p.name for p in definition.config.parameters or []}
    for call in definition.expansion:
        for text in strings_in(call.args):
            for match in TOKEN.finditer(text):
                inner = body(match)
                prefix, _, rest = inner.partition(".")
                if prefix == "params" and rest not in declared:
                    hint = did_you_mean(rest, declared)
                    src.problems.append(
                        Problem(
                            call.span,
                            f"'{definition.name}' uses unknown parameter '{rest}'",
                            why=f"declared parameters: {', '.join(sorted(declared)) or 'none'}",
                            fix=hint or f"declare '{rest}' under `parameters:`",
                        )
                    )
                elif rest and prefix not in ("params", "memory", "args"):
                    src.problems.append(
                        Problem(
                            call.span,
                            f"unsupported token '{match.group(0)}' in '{definition.name}'",
                            why="tool definitions take {{params.x}}, memory {{x}} and {{args.x}} tokens",
                            fix="pass the value in as a parameter",
                        )
                    )
