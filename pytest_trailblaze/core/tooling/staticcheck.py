"""Static checks of recorded tool calls: everything about a call that is known before a device starts.

Collection (the pytest plugin) and ``trailblaze check`` share these checks, so both judge a call
the same way. A call is taken as ``ToolRegistry.execute`` takes it: annotation arguments
stripped, the tool looked up for the platform, the arguments validated by the tool's own
``validate`` (the dispatch path). Two things are never judged, because only the run knows them:

- a value holding a ``{{token}}``: its type and content come from memory or args at dispatch;
- a name the scope cannot list (``CallScope.unknown``): a tool of an MCP server nobody started.

Composed tools (``tools:`` in a ``*.tool.yaml``) are followed to every depth with the arguments of
the call that reaches them, so an unknown tool or a bad value three levels down is found too,
located where it is written and naming the trail call that reaches it.
"""

from __future__ import annotations

import errno
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeGuard

from pydantic import ValidationError

from ..docs import docs_page
from ..errors import Problem, SourceSpan, ToolArgumentError, ToolError, UnknownToolError, first_line
from ..jsondata import JsonValue
from ..trail.devices import platform_of
from ..trail.model import ANY_DEVICE, Step, ToolCall, Trail
from ..trail.tokens import args_references, strings_in
from ..trail.yamlsource import did_you_mean
from .arguments import ArgumentIssue, non_finite, pydantic_issues
from .composition import Composed, expand
from .registry import ANNOTATION_ARGS, MAX_DEPTH, ToolRegistry
from .tooldef import Tool, bind_tool_arguments

UnknownPolicy = Literal["error", "warn", "ignore"]


@dataclass(frozen=True)
class CallScope:
    """What calls of one trail on one platform are checked against.

    ``unknown`` says what a name the registry does not hold is: an ``error``; a ``warn``ing that
    it could not be checked (``unverified`` says why and how to check it); or ``ignore``d (it may
    be a tool that only a running server advertises).
    """

    registry: ToolRegistry
    declared_args: frozenset[str] = frozenset()
    unknown: UnknownPolicy = "error"
    unverified: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Site:
    """Where a call sits: the step it belongs to, and the composed tools that lead to it."""

    label: str
    origin: SourceSpan | None = None
    via: tuple[str, ...] = ()

    def inside(self, tool: str, call: ToolCall) -> Site:
        return Site(f"composed tool '{tool}'", self.origin or call.span, (*self.via, tool))

    def reached(self) -> str:
        if not self.via:
            return ""
        return f"it runs inside {' -> '.join(repr(v) for v in self.via)}, called at {self.origin}"


def trail_problems(trail: Trail, scopes: Mapping[str, CallScope]) -> list[Problem]:
    """Every static problem of a trail's calls on the given platforms, each once."""
    problems: list[Problem] = []
    for platform, scope in scopes.items():
        for site, call in recorded_calls(trail, platform):
            problems += call_problems(call, scope, site)
    declared = frozenset(trail.config.args)
    for site, call in recorded_calls(trail, None):
        problems += undeclared_args(call, declared, site)
    return sorted(unique(problems), key=Problem.sort_key)


def unique(problems: list[Problem]) -> list[Problem]:
    """One problem per place and message: a composed tool's mistake is found from each caller
    (the first caller is kept in ``why``)."""
    seen: dict[tuple[object, str], Problem] = {}
    for problem in problems:
        seen.setdefault((problem.span, problem.what), problem)
    return list(seen.values())


def recorded_calls(trail: Trail, platform: str | None) -> Iterator[tuple[Site, ToolCall]]:
    """The calls recorded for ``platform`` (every call when None), with the step they belong to."""
    steps: list[tuple[str, Step | None]] = [("the trailhead", trail.trailhead)]
    steps += [(f"step {n} ({_quote(s.text)})", s) for n, s in enumerate(trail.steps, start=1)]
    for label, step in steps:
        if step is None or not step.recording:
            continue
        for key, calls in step.recording.items():
            if platform is None or key == ANY_DEVICE or platform_of(key) == platform:
                yield from ((Site(label), call) for call in calls)


def _quote(text: str) -> str:
    line = " ".join(text.split())
    return f'"{line[:40]}…"' if len(line) > 40 else f'"{line}"'


def call_problems(call: ToolCall, scope: CallScope, site: Site) -> list[Problem]:
    """Problems of one call on the scope's platform, and of every call it expands into."""
    try:
        tool = scope.registry.check(call.name)
    except UnknownToolError as exc:
        return _unknown(call, scope, exc, site)
    except ToolError as exc:  # exists, but not for this platform, or not implemented here
        fix = f"use a tool of {scope.registry.platform} (`trailblaze toolbox --platform "
        fix += f"{scope.registry.platform} --all` lists them)"
        return [Problem(call.span, f"{first_line(exc)} ({site.label})", why=site.reached(), fix=fix)]
    args = {k: v for k, v in call.args.items() if k not in ANNOTATION_ARGS}
    issues, validated = check_arguments(tool, args)
    problems = [_argument_problem(call, tool, issue, site) for issue in issues]
    if is_composed(tool):
        if not isinstance(validated, Mapping):  # invalid (None): what was written, minus what is reported
            wrong = {issue.argument for issue in issues}
            validated = {
                **tool.parameter_defaults,
                **{k: v for k, v in args.items() if k not in wrong and v is not None},
            }
        problems += _composed(tool, call, validated, scope, site)
    return problems


def _unknown(call: ToolCall, scope: CallScope, exc: UnknownToolError, site: Site) -> list[Problem]:
    if scope.unknown == "ignore":
        return []
    platform = scope.registry.platform
    if scope.unknown == "warn":
        why, fix = scope.unverified
        what = f"tool '{call.name}' not checked (on {platform}, {site.label})"
        return [Problem(call.span, what, why=why, fix=fix, severity="warning")]
    lines = str(exc).splitlines()
    why = next((line.split("why: ", 1)[1] for line in lines if "why: " in line), "")
    fix = next((line.split("fix: ", 1)[1] for line in lines if "fix: " in line), "")
    reached = site.reached()
    return [Problem(call.span, f"{lines[0]} in {site.label}", "; ".join(filter(None, (why, reached))), fix)]


def check_arguments(tool: Tool, args: Mapping[str, JsonValue]) -> tuple[list[ArgumentIssue], object]:
    """The issues of ``args`` that are known now, and the validated arguments (None when invalid;
    otherwise in the tool's own form, as ``Tool.validate`` gives them).

    Validation is the tool's own ``validate``, as at dispatch; issues about values that carry a
    token are dropped (the run decides them), and NaN or infinity is an issue for every tool.
    """
    args = bind_tool_arguments(tool, args)  # as ToolRegistry.execute does before validate
    own = list(non_finite(args))
    try:
        validated = tool.validate(args)
    except ToolArgumentError as exc:
        found, validated = issues_of(tool, args, exc), None
    else:
        found = []
    named = {i.path for i in found if i.kind != "value"}  # an unknown argument is that, whatever its value
    own = [i for i in own if not any(i.path[: len(n)] == n for n in named)]
    said = {issue.path for issue in own}
    return own + [i for i in found if i.path not in said and not runtime_only(i)], validated


def issues_of(tool: Tool, args: Mapping[str, JsonValue], exc: ToolArgumentError) -> list[ArgumentIssue]:
    """The structured issues behind a ``ToolArgumentError`` raised by ``tool.validate``.

    Pydantic-backed tools raise it while handling the ``ValidationError`` (its ``__context__``);
    tools that validate otherwise (MCP: JSON Schema) list theirs with ``argument_issues``.
    """
    cause = exc.__context__
    if isinstance(cause, ValidationError):
        return pydantic_issues(cause, accepted(tool))
    listed = getattr(tool, "argument_issues", None)
    if callable(listed):
        return list(listed(args))
    message = str(exc).split(": ", 1)[-1]
    return [ArgumentIssue((), "value", message, dict(args))]


def accepted(tool: Tool) -> list[str]:
    """The names of a tool's top-level arguments."""
    model = getattr(tool, "model", None)
    if model is not None:
        return list(model.model_fields)
    properties = tool.descriptor.parameters.get("properties", {})
    return list(properties) if isinstance(properties, Mapping) else []


_COMPOSED: dict[type, bool] = {}


def is_composed(tool: Tool) -> TypeGuard[Composed]:
    """``isinstance(tool, Composed)``, remembered per class: a protocol check is slow, and
    collection asks it for every recorded call."""
    kind = type(tool)
    known = _COMPOSED.get(kind)
    if known is None:
        known = _COMPOSED[kind] = isinstance(tool, Composed)
    return known


def runtime_only(issue: ArgumentIssue) -> bool:
    """A value issue about a value with a token: the token's value decides it at dispatch."""
    if issue.kind != "value":
        return False
    return any("{{" in text or "${" in text for text in strings_in(issue.value))


def _argument_problem(call: ToolCall, tool: Tool, issue: ArgumentIssue, site: Site) -> Problem:
    span = call.arg_spans.get(issue.argument or "", call.span)
    if issue.kind == "value":
        fix = "give the argument a value of the expected type and range"
    else:
        fix = f"'{tool.name}' takes: {', '.join(accepted(tool)) or 'no arguments'}"
    return Problem(span, f"invalid arguments for '{tool.name}': {issue.message}", why=site.reached(), fix=fix)


def _composed(
    tool: Composed, call: ToolCall, params: Mapping[str, JsonValue], scope: CallScope, site: Site
) -> list[Problem]:
    """The calls a composed tool makes with ``params``, checked like recorded ones."""
    name = call.name
    if name in site.via:
        cycle = " -> ".join((*site.via, name))
        what = f"composed tool '{name}' calls itself ({cycle})"
        return [Problem(call.span, what, why=site.reached(), fix="remove the call that closes the cycle")]
    if len(site.via) >= MAX_DEPTH:
        return []  # the cycle check above stops loops; this bounds pathological depth
    inner_site = site.inside(name, call)
    problems = []
    expanded = expand(tool.calls, params, tool.parameter_names)
    for written, (inner_name, inner_args) in zip(tool.calls, expanded, strict=True):
        inner = ToolCall(inner_name, inner_args, written.span, written.arg_spans)
        problems += call_problems(inner, scope, inner_site)
        problems += undeclared_args(inner, scope.declared_args, inner_site)
    return problems


def undeclared_args(call: ToolCall, declared: frozenset[str], site: Site) -> list[Problem]:
    """``{{args.x}}`` tokens naming args the trail does not declare (they would stay literal)."""
    return [
        Problem(
            call.span,
            f"'{call.name}' uses {{{{args.{name}}}}}, which the trail does not declare",
            why=site.reached(),
            fix=f"declare it under config.args, e.g. `{name}: string`",
        )
        for name in dict.fromkeys(args_references(call.args))
        if name not in declared
    ]


def definition_problems(tool: Composed, name: str, registry: ToolRegistry, *, names: bool) -> list[Problem]:
    """Problems of a composed tool's calls as written, whoever calls it: unknown names (when the
    registry lists every tool, ``names``) and arguments wrong whatever the parameters are.
    Platform support is judged where a trail calls the tool."""
    problems = []
    for call in tool.calls:
        if call.name not in registry:
            if names:
                what = f"unknown tool '{call.name}' in composed tool '{name}'"
                why = f"no built-in, workspace or server tool has that name ({len(registry)} tools known)"
                problems.append(Problem(call.span, what, why=why, fix=_spelling(call.name, registry)))
            continue
        inner = registry.get(call.name)
        issues, _ = check_arguments(inner, {k: v for k, v in call.args.items() if k not in ANNOTATION_ARGS})
        problems += [_argument_problem(call, inner, issue, Site("")) for issue in issues]
    return problems


def _spelling(name: str, registry: ToolRegistry) -> str:
    hint = did_you_mean(name, registry.names())
    return hint or f"check the spelling, or register the tool (see {docs_page('guides/tools/')})"


def path_problem(path: Path, pattern: str, *, shown: str | None = None) -> Problem | None:
    """Why a path named like a trail file (``pattern``) is not one: a broken link or a link that
    loops, a folder, a pipe, socket or device.

    pytest's directory walk passes over all of these in silence; a trail that silently does not
    run is worse than an error that names the path. ``shown`` is the path as the user should read it.
    """
    name = shown or str(path)
    span = SourceSpan(name, 1, 1)
    why = f"names matching '{pattern}' are trail files"
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if not path.is_symlink():
            return None  # a file that vanished: nothing to say about what is not there
        if exc.errno == errno.ELOOP:
            return Problem(
                span,
                "a symbolic link that loops (it leads back to itself)",
                why=f"{why}; a link cycle has no file at its end",
                fix="replace the link with the trail file it should point to, or delete it",
            )
        return Problem(
            span,
            f"broken symbolic link to '{path.readlink()}'",
            why=f"{why}; the file this link points to does not exist",
            fix="point the link at an existing trail file, or delete the link",
        )
    if stat.S_ISDIR(mode):
        return Problem(
            span,
            "a folder named like a trail file",
            why=f"{why}; pytest does not collect what this folder holds",
            fix=f"rename the folder (e.g. '{path.name.split('.')[0]}'), or move its trail files out of it",
        )
    if not stat.S_ISREG(mode):
        kind = "a socket" if stat.S_ISSOCK(mode) else "a device"
        kind = "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else kind
        return Problem(
            span,
            f"{kind} named like a trail file",
            why=f"{why}, and only regular files are read: a pipe or device could keep a run waiting forever",
            fix="replace it with a regular trail file, or remove it",
        )
    return None
