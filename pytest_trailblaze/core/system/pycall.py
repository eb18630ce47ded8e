"""Python callables named in YAML (``module:attr`` or ``path/to/file.py:attr``), and how scripts run.

A script is a function ``(params, ctx)``. It may call other tools through ``ctx.execute`` (which
returns ``{"type": "Success" | "Error", "message": ...}``) and returns a message, a
``{"type": ..., "message": ...}`` result, or raises to fail.

Trails and tool files may come from strangers (a pull request, a shared repository), so the code
they name is contained: a file path, and the file a dotted module name is found in on
``sys.path``, must stay inside the workspace root (``CodeRoots``) unless the user allows code
outside it. An installed package or the standard library is outside: ``class: antigravity:x``
would open a web browser, ``class: venv.__main__:x`` would create virtualenvs, just by being
imported. ``locate`` answers where the code is without running any of it (the top-level module
is found, never imported), so collection and ``trailblaze check`` judge a path before anything
is imported.

Code that is run (an import, a tool) may end the process its own way: ``SystemExit`` and a
``KeyboardInterrupt`` it raises itself become failures at its file (``foreign.py``); a real Ctrl-C
still stops the run.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from .foreign import foreign_code

ALLOW_OUTSIDE_OPTION = "--trailblaze-allow-outside-code"


class ImportFailure(Exception):
    """A ``module:attr`` reference that cannot be imported; the message says why."""


class OutsideRoot(ImportFailure):
    """A reference to Python code outside the workspace root, refused unless allowed: a file, or
    the installed module (``module``) a dotted name is found as."""

    def __init__(self, spec: str, path: Path, roots: tuple[Path, ...], module: str | None = None) -> None:
        shown = " or ".join(str(r) for r in roots)
        super().__init__(f"{spec} names {path}, which is outside the workspace root {shown}")
        self.path = path
        self.roots = roots
        self.module = module

    @property
    def why(self) -> str:
        inside = " or ".join(str(r) for r in self.roots)
        names = f"module {self.module}, installed at {self.path}" if self.module else str(self.path)
        return (
            f"it names {names}; code named by trails and tool files runs only from inside {inside} "
            "(an installed package or the standard library included: importing one runs its code)"
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
        if not self.holds(resolved):
            raise OutsideRoot(spec, resolved, self.roots)

    def check_module(self, spec: str, module: str, locations: list[Path]) -> None:
        """Raise ``OutsideRoot`` when a module found on ``sys.path`` (its file or package folders;
        none for a built-in one) lies outside every root."""
        if self.allow_outside:
            return
        outside = [p for p in locations if not self.holds(p.resolve())]
        if outside or not locations:
            where = outside[0].resolve() if outside else Path(f"<built-in module {module}>")
            raise OutsideRoot(spec, where, self.roots, module=module)

    def holds(self, resolved: Path) -> bool:
        return any(resolved.is_relative_to(root.resolve()) for root in self.roots)


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
        top = module_part.split(".")[0]
        found = _found_at(top)
        if found is not None:
            if code is not None:
                code.check_module(spec, top, found)
            return None
    path = _file_for(module_part, base_dir)
    if code is not None:
        code.check(spec, path)
    if not path.is_file():
        raise ImportFailure(f"no module {module_part} on sys.path and no file {path}")
    return path


def _found_at(top: str) -> list[Path] | None:
    """Where a top-level module loaded or found on ``sys.path`` lies: its file, or its package's
    folders (an empty list for a built-in or frozen module); None when there is no such module.
    Finding a top-level module runs none of its code."""
    loaded = sys.modules.get(top)
    try:
        found = getattr(loaded, "__spec__", None) if loaded is not None else importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if found is None:
        file = getattr(loaded, "__file__", None)
        return [Path(file)] if file else ([] if loaded else None)
    folders = [Path(p) for p in (found.submodule_search_locations or ())]
    if folders:
        return folders
    return [Path(found.origin)] if found.origin and found.has_location else []


def _file_for(module_part: str, base_dir: Path) -> Path:
    relative = module_part if looks_like_file(module_part) else module_part.replace(".", "/") + ".py"
    return (base_dir / relative).resolve()


def resolve_callable(spec: str, base_dir: Path, code: CodeRoots | None = None) -> Any:
    """``module:attr`` from ``sys.path``, or ``path/to/file.py:attr`` relative to ``base_dir``.

    Whatever the attribute is, untyped: each caller checks what it needs of it (a function, a class).
    """
    module_part, attr = split_spec(spec)
    path = locate(spec, base_dir, code)
    module = _load_file(path) if path is not None else _import(module_part, spec, base_dir, code)
    target: object = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ImportFailure(f"{module_part} has no attribute {attr!r}")
        target = getattr(target, part)
    return target


def _import(name: str, spec: str, base_dir: Path, code: CodeRoots | None) -> ModuleType:
    """A module from ``sys.path``; a missing submodule falls back to a file beside ``base_dir``."""
    try:
        with foreign_code():
            return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name.split(".")[0] and exc.name != name:
            raise ImportFailure(f"importing {name} failed: {exc}") from None
    except Exception as exc:  # the module itself is broken (or ended the process its way); say how
        raise ImportFailure(f"importing {name} failed: {type(exc).__name__}: {exc}") from None
    path = _file_for(name, base_dir)
    if code is not None:
        code.check(spec, path)
    if not path.is_file():
        raise ImportFailure(f"no module {name} on sys.path and no file {path}")
    return _load_file(path)


def _load_file(path: Path) -> ModuleType:
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
        with foreign_code():
            spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise ImportFailure(f"importing {path.name} failed: {type(exc).__name__}: {exc}") from None
    return module


def outside_root_fix() -> str:
    """How to fix an ``OutsideRoot`` problem, for pytest and the ``trailblaze`` command alike."""
    return (
        f"move the file inside the workspace root; if you trust the code, pass {ALLOW_OUTSIDE_OPTION} "
        "(pytest) or --allow-outside-code (trailblaze check / toolbox)"
    )
