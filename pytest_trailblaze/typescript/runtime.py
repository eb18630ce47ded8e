"""Finding the JavaScript runtimes and the TypeScript compiler for a trailmap's tools.

A program is looked up in ``node_modules/.bin`` of the tools' folder and every folder above it,
then of the current folder and those above it, then on ``PATH``: a project that pins bun, tsx or
typescript in its ``package.json`` gets its own versions, a machine-wide install works too.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import ConfigurationError

NO_RUNTIME = (
    "no runtime for TypeScript tools: neither bun nor node with tsx was found\n"
    "  fix: install bun (https://bun.sh), or Node.js with tsx (`npm install --save-dev tsx`); "
    "pytest-trailblaze looks in node_modules/.bin beside the tools and above them, then on PATH"
)
NO_BUN_FOR_TESTS = (
    "bun is needed to run the tools' *.test.ts (they import `bun:test`)\n"
    "  fix: install bun (https://bun.sh, or `npm install --save-dev bun`), or pass --no-tool-tests"
)
NO_TYPESCRIPT = (
    "the TypeScript compiler was not found, so the types of the .ts tools cannot be read: their "
    "arguments are not checked and they have no description\n"
    "  fix: `npm install --save-dev typescript` beside your trails (or anywhere above them), and node"
)


def _folders(starts: Iterable[Path]) -> Iterator[Path]:
    seen: set[Path] = set()
    for start in starts:
        for folder in (start, *start.parents):
            if folder not in seen:
                seen.add(folder)
                yield folder


@functools.cache
def find_program(name: str, starts: tuple[Path, ...]) -> str | None:
    """``name`` from ``node_modules/.bin`` at or above ``starts`` (then the cwd), else from PATH."""
    for folder in _folders((*starts, Path.cwd())):
        candidate = folder / "node_modules" / ".bin" / name
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


@dataclass(frozen=True)
class TypeScript:
    """An installed ``typescript`` package: where its compiler module is, and its version."""

    package: Path
    version: str

    @property
    def module(self) -> Path:
        return self.package / "lib" / "typescript.js"


@functools.cache
def find_typescript(starts: tuple[Path, ...]) -> TypeScript | None:
    """The ``typescript`` package in ``node_modules`` at or above ``starts`` (or the cwd), else the
    one a ``tsc`` on PATH belongs to. Versions 5 and 6 carry the compiler API this plugin uses."""
    candidates = [folder / "node_modules" / "typescript" for folder in _folders((*starts, Path.cwd()))]
    tsc = shutil.which("tsc")
    if tsc:
        candidates.append(Path(os.path.realpath(tsc)).parent.parent)
    for package in candidates:
        found = _typescript_at(package)
        if found is not None:
            return found
    return None


def _typescript_at(package: Path) -> TypeScript | None:
    try:
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = TypeScript(package.resolve(), str(manifest.get("version", "")))
    return found if found.module.is_file() else None


@dataclass(frozen=True)
class Runtime:
    """How to run JavaScript for one folder of tools: ``bun``, else ``node`` + ``tsx``."""

    kind: str  # "bun" or "tsx"
    program: str

    def argv(self, script: Path) -> tuple[str, ...]:
        """Run ``script`` (one of ours: the host or a preload) with ``@trailblaze/scripting`` resolvable."""
        from . import ASSETS

        if self.kind == "bun":
            return (self.program, "--no-install", "--preload", str(ASSETS / "bun-preload.mjs"), str(script))
        return (self.program, str(script))

    def environment(self) -> dict[str, str]:
        from . import ASSETS

        return {} if self.kind == "bun" else {"TSX_TSCONFIG_PATH": str(ASSETS / "tsx-tsconfig.json")}


def find_runtime(starts: tuple[Path, ...]) -> Runtime:
    """bun when there is one, else node + tsx; a ``ConfigurationError`` naming what to install."""
    bun = find_program("bun", starts)
    if bun:
        return Runtime("bun", bun)
    tsx = find_program("tsx", starts)
    if tsx and shutil.which("node"):
        return Runtime("tsx", tsx)
    raise ConfigurationError(NO_RUNTIME)


def find_node(starts: tuple[Path, ...]) -> str | None:
    """A program that runs plain JavaScript modules (the analyzer): node, else bun."""
    return shutil.which("node") or find_program("bun", starts)


def forget() -> None:
    """Look again (tests change PATH between runs)."""
    find_program.cache_clear()
    find_typescript.cache_clear()
