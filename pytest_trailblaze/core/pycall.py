"""Python callables named in YAML (``module:attr`` or ``path/to/file.py:attr``), and how scripts run.

A script is a function ``(params, ctx)``. It may call other tools through ``ctx.execute`` (which
returns ``{"type": "Success" | "Error", "message": ...}``) and returns a message, a
``{"type": ..., "message": ...}`` result, or raises to fail.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import ToolError, ToolFailure
from .tooldef import ToolResult


class ImportFailure(Exception):
    """A ``module:attr`` reference that cannot be imported; the message says why."""


def resolve_callable(spec: str, base_dir: Path) -> Any:
    """``module:attr`` from ``sys.path``, or ``path/to/file.py:attr`` relative to ``base_dir``."""
    module_part, sep, attr = spec.rpartition(":")
    if not sep or not module_part or not attr:
        raise ImportFailure(f"{spec!r} is not of the form module:attribute")
    module = _load_module(module_part, base_dir)
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ImportFailure(f"{module_part} has no attribute {attr!r}")
        target = getattr(target, part)
    return target


def _load_module(name: str, base_dir: Path) -> Any:
    looks_like_file = name.endswith(".py") or "/" in name
    if not looks_like_file:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name.split(".")[0] and exc.name != name:
                raise ImportFailure(f"importing {name} failed: {exc}") from None
        except Exception as exc:  # the module itself is broken; say how
            raise ImportFailure(f"importing {name} failed: {type(exc).__name__}: {exc}") from None
    path = (base_dir / (name if looks_like_file else name.replace(".", "/") + ".py")).resolve()
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
