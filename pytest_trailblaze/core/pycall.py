"""Python callables named in YAML (``module:attr`` or ``path/to/file.py:attr``), and how scripts run.

A script is a function ``(params, ctx)``. It may call other tools through ``ctx.execute`` (which
returns ``{"type": "Success" | "Error", "message": ...}``) and returns a message, a
``{"type": ..., "message": ...}`` result, or raises to fail.

Trails and tool files may come from strangers (a pull request, a shared repository), so the code
they name is contained: a file path must stay inside the workspace root (``CodeRoots``) unless the
user allows code outside it; a dotted module name is imported from ``sys.path``, where installed
packages live. ``locate`` answers where the code is without running any of it, so collection and
``trailblaze check`` can judge a path before anything is imported.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import itertools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ToolError, ToolFailure
from .tooldef import ToolResult

ALLOW_OUTSIDE_OPTION = "--trailblaze-allow-outside-code"


class ImportFailure(Exception):
    """A ``module:attr`` reference that cannot be imported; the message says why."""


class OutsideRoot(ImportFailure):
    """A reference to a Python file outside the workspace root, refused unless allowed."""

    def __init__(self, spec: str, path: Path, roots: tuple[Path, ...]) -> None:
        shown = " or ".join(str(r) for r in roots)
        super().__init__(f"{spec} names {path}, which is outside the workspace root {shown}")
        self.path = path
        self.roots = roots

    @property
    def why(self) -> str:
        inside = " or ".join(str(r) for r in self.roots)
        return (
            f"it names {self.path}; code named by trails and tool files runs only from inside "
            f"{inside} (or installed packages)"
        )


@dataclass(frozen=True)
class CodeRoots:
    """Where Python files named by trails and tool files may be: inside one of ``roots``.

    ``allow_outside`` (``--trailblaze-allow-outside-code``) lifts the limit for a user who
    trusts the files.
    """

    roots: tuple[Path, ...]
    allow_outside: bool = False

    def check(self, spec: str, path: Path) -> None:
        """Raise ``OutsideRoot`` when ``path`` (resolved, symlinks followed) leaves every root."""
        if self.allow_outside:
            return
        resolved = path.resolve()
        if not any(resolved.is_relative_to(root.resolve()) for root in self.roots):
            raise OutsideRoot(spec, resolved, self.roots)


def split_spec(spec: str) -> tuple[str, str]:
    """``module:attr`` (or ``file.py:attr``) into its two parts; anything else is an ImportFailure."""
    module_part, sep, attr = spec.rpartition(":")
    if not sep or not module_part or not attr:
        raise ImportFailure(f"{spec!r} is not of the form module:attribute")
    return module_part, attr


def looks_like_file(module_part: str) -> bool:
    return module_part.endswith(".py") or "/" in module_part


def locate(spec: str, base_dir: Path, code: CodeRoots | None = None) -> Path | None:
    """Where the code of ``spec`` is, found without running any of it.

    Returns the Python file to load for a file path (or a module name found only beside
    ``base_dir``), None for a module importable from ``sys.path``. Raises ``ImportFailure`` when
    nothing is there and ``OutsideRoot`` when the file leaves ``code``'s roots.
    """
    module_part, _ = split_spec(spec)
    if not looks_like_file(module_part):
        if not all(part.isidentifier() for part in module_part.split(".")):
            raise ImportFailure(f"{module_part!r} is not a module name (write module.sub or path/to/file.py)")
        if _importable(module_part.split(".")[0]):
            return None
    path = _file_for(module_part, base_dir)
    if code is not None:
        code.check(spec, path)
    if not path.is_file():
        raise ImportFailure(f"no module {module_part} on sys.path and no file {path}")
    return path


def _importable(top: str) -> bool:
    """Whether a top-level module is loaded or can be found on ``sys.path`` (nothing is executed)."""
    if top in sys.modules:
        return True
    try:
        return importlib.util.find_spec(top) is not None
    except (ImportError, ValueError):
        return False


def _file_for(module_part: str, base_dir: Path) -> Path:
    relative = module_part if looks_like_file(module_part) else module_part.replace(".", "/") + ".py"
    return (base_dir / relative).resolve()


def resolve_callable(spec: str, base_dir: Path, code: CodeRoots | None = None) -> Any:
    """``module:attr`` from ``sys.path``, or ``path/to/file.py:attr`` relative to ``base_dir``."""
    module_part, attr = split_spec(spec)
    path = locate(spec, base_dir, code)
    module = _load_file(path) if path is not None else _import(module_part, spec, base_dir, code)
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ImportFailure(f"{module_part} has no attribute {attr!r}")
        target = getattr(target, part)
    return target


def _import(name: str, spec: str, base_dir: Path, code: CodeRoots | None) -> Any:
    """A module from ``sys.path``; a missing submodule falls back to a file beside ``base_dir``."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name.split(".")[0] and exc.name != name:
            raise ImportFailure(f"importing {name} failed: {exc}") from None
    except Exception as exc:  # the module itself is broken; say how
        raise ImportFailure(f"importing {name} failed: {type(exc).__name__}: {exc}") from None
    path = _file_for(name, base_dir)
    if code is not None:
        code.check(spec, path)
    if not path.is_file():
        raise ImportFailure(f"no module {name} on sys.path and no file {path}")
    return _load_file(path)


def _load_file(path: Path) -> Any:
    module_name = f"trailblaze_tools.{path.stem}"
    for number in itertools.count(2):
        loaded = sys.modules.get(module_name)
        if loaded is None:
            break
        if getattr(loaded, "__file__", None) == str(path):
            return loaded
        module_name = f"trailblaze_tools.{path.stem}{number}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportFailure(f"{path} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ImportFailure(f"importing {path.name} failed: {type(exc).__name__}: {exc}") from None
    return module


def run_script(function: Callable[..., Any], params: dict[str, Any], ctx: Any, name: str) -> ToolResult:
    """Call a script and turn what it returns (or raises) into a tool result."""
    try:
        outcome = function(params, ctx)
    except ToolError:
        raise
    except AssertionError as exc:
        raise ToolFailure(str(exc) or f"{name} failed", tool=name) from exc
    if isinstance(outcome, dict) and outcome.get("type") == "Error":
        raise ToolFailure(str(outcome.get("message") or f"{name} failed"), tool=name)
    if isinstance(outcome, dict) and outcome.get("type") == "Success":
        return ToolResult(message=str(outcome.get("message") or ""))
    return ToolResult.of(outcome)


def outside_root_fix() -> str:
    """How to fix an ``OutsideRoot`` problem, for pytest and the ``trailblaze`` command alike."""
    return (
        f"move the file inside the workspace root; if you trust the code, pass {ALLOW_OUTSIDE_OPTION} "
        "(pytest) or --allow-outside-code (trailblaze check / toolbox)"
    )
