"""Static checks of trail files, without a device: the engine of ``trailblaze check``.

A trail is checked per platform it records for: its file must load, every recorded tool must
exist and run on that platform, arguments must match the tool's schema (values that carry
``{{tokens}}`` are only known at run time, so their type is not judged), and every
``{{args.x}}`` a trail uses must be declared in its ``config.args``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .core.devices import platform_of
from .core.errors import Problem, ToolError, TrailLoadError
from .core.loader import load_trail
from .core.model import ANY_DEVICE, Step, ToolCall, Trail
from .core.registry import ANNOTATION_ARGS, ToolRegistry
from .core.tokens import args_references, strings_in
from .core.tooldef import PythonTool, explain

DEFAULT_PATTERNS = ("*.trail.yaml", "trail.yaml")


@dataclass
class CheckReport:
    """What a check found, file by file."""

    files: int = 0
    trails: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


def trail_files(paths: Iterable[Path], patterns: tuple[str, ...] = DEFAULT_PATTERNS) -> Iterator[Path]:
    """Trail files under ``paths`` (files are taken as given), sorted, never ``trailblaze.yaml``."""
    for path in paths:
        if path.is_file():
            yield path
            continue
        found = {p for pattern in patterns for p in path.rglob(pattern) if p.name != "trailblaze.yaml"}
        yield from sorted(f for f in found if not any(p.startswith(".") for p in f.relative_to(path).parts))


def check_paths(paths: Iterable[Path], registry_for: Any) -> CheckReport:
    """Check every trail file under ``paths``; ``registry_for(platform)`` gives a tool registry."""
    report = CheckReport()
    for path in trail_files(paths):
        report.files += 1
        try:
            trail = load_trail(path)
        except TrailLoadError as exc:
            report.problems.extend(exc.problems)
            continue
        report.trails += 1
        report.problems.extend(check_trail(trail, registry_for))
    return report


def check_trail(trail: Trail, registry_for: Any) -> list[Problem]:
    problems = _undeclared_args(trail)
    platforms = trail.platforms() or ("web",)
    for platform in platforms:
        registry = registry_for(platform)
        for step in _steps(trail):
            for call in _calls_for(step, platform):
                problems.extend(check_call(call, registry, platform))
    return problems


def _steps(trail: Trail) -> list[Step]:
    return [s for s in (trail.trailhead, *trail.steps) if s is not None]


def _calls_for(step: Step, platform: str) -> list[ToolCall]:
    if not step.recording:
        return []
    return [
        call
        for key, calls in step.recording.items()
        if key == ANY_DEVICE or platform_of(key) == platform
        for call in calls
    ]


def check_call(call: ToolCall, registry: ToolRegistry, platform: str) -> list[Problem]:
    """Problems of one recorded call for ``platform``."""
    try:
        tool = registry.check(call.name)
    except ToolError as exc:
        lines = str(exc).splitlines()
        why = next((line.split("why: ", 1)[1] for line in lines if "why: " in line), "")
        fix = next((line.split("fix: ", 1)[1] for line in lines if "fix: " in line), "")
        return [Problem(call.span, f"{lines[0]} (on {platform})", why, fix)]
    if not isinstance(tool, PythonTool):
        return []
    args = {k: v for k, v in call.args.items() if k not in ANNOTATION_ARGS}
    try:
        tool.model.model_validate(args)
    except ValidationError as exc:
        return _argument_problems(call, exc, tool)
    return []


def _argument_problems(call: ToolCall, exc: ValidationError, tool: PythonTool) -> list[Problem]:
    problems = []
    for error in exc.errors():
        if any("{{" in text or "${" in text for text in strings_in(error.get("input"))):
            continue  # known only at run time, after interpolation
        single = ValidationError.from_exception_data(exc.title, [error])  # type: ignore[list-item]
        span = call.arg_spans.get(str(error["loc"][0]), call.span) if error["loc"] else call.span
        problems.append(Problem(span, explain(single, call.name, tool.model), fix=_argument_fix(error, tool)))
    return problems


def _argument_fix(error: Any, tool: PythonTool) -> str:
    fields = ", ".join(tool.model.model_fields) or "none"
    if error["type"] in ("missing", "extra_forbidden"):
        return f"'{tool.name}' takes: {fields}"
    return "give the argument a value of the expected type"


def _undeclared_args(trail: Trail) -> list[Problem]:
    declared = trail.config.args
    problems = []
    for step in _steps(trail):
        for call in step.calls():
            for name in args_references(call.args):
                if name not in declared:
                    problems.append(
                        Problem(
                            call.span,
                            f"'{call.name}' uses {{{{args.{name}}}}}, which the trail does not declare",
                            fix=f"declare it under config.args, e.g. `{name}: string`",
                        )
                    )
    return problems


def display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
