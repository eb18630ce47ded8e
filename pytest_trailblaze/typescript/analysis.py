"""A trailmap's TypeScript tools read by the TypeScript compiler (``assets/analyze.mjs``), cached.

The analyzer parses and type-checks the files in a Node (or Bun) subprocess; it never runs them.
Its answer is cached by what it depends on (the files' contents, the compiler's version, our
typings, the tools ``ctx.tools`` can call), in a user cache folder, so a warm collection does no
TypeScript work at all. Cache files are written whole and renamed into place, so parallel
workers (``-n``) may share the folder.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import first_line
from ..core.jsondata import JsonObject, JsonValue
from . import ASSETS
from .runtime import TypeScript

ANALYZER = ASSETS / "analyze.mjs"
ANALYSIS_TIMEOUT_S = 120.0


def cache_root() -> Path:
    """``TRAILBLAZE_CACHE_DIR``, else the user's cache folder (``XDG_CACHE_HOME`` or ~/.cache)."""
    chosen = os.environ.get("TRAILBLAZE_CACHE_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "pytest-trailblaze"


@functools.cache
def assets_digest() -> str:
    """What the analysis depends on in this package: the analyzer and the typings it checks against."""
    digest = hashlib.sha256()
    for path in sorted([ANALYZER, *(ASSETS / "scripting").glob("*.d.ts")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class TypedExport:
    """A ``trailblaze.tool(...)`` export, as the analyzer read it."""

    name: str
    file: Path
    line: int
    col: int
    spec: Mapping[str, JsonValue]
    spec_problems: tuple[tuple[int, int, str], ...]
    description: str
    input_schema: Mapping[str, JsonValue]
    result_schema: Mapping[str, JsonValue] | None


@dataclass(frozen=True)
class Diagnostic:
    """A syntax or type error the compiler found."""

    file: Path
    line: int
    col: int
    code: int
    message: str


@dataclass
class Analysis:
    """What the compiler found in a folder of tools."""

    typed: dict[str, list[TypedExport]] = field(default_factory=dict)
    #: Plain exported functions, by name (legacy ``(args, ctx, client)`` tools have a sidecar).
    functions: dict[str, list[Path]] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    from_cache: bool = False
    #: Why the analysis could not run (then everything else is empty).
    failure: str | None = None


def analyze(
    tools_dir: Path,
    files: list[Path],
    *,
    typescript: TypeScript,
    node: str,
    tool_map: Callable[[], tuple[str, str]],
    map_key: str,
    typecheck: str = "tools",
    depends_on: Iterable[Path] = (),
) -> Analysis:
    """The analysis of ``files`` (inside ``tools_dir``), from the cache when nothing changed.

    ``depends_on``: other files whose change must invalidate the cache (the helpers tools import).
    ``tool_map`` builds the typings of the tools ``ctx.tools`` may call (declarations, then the
    ``TrailblazeToolMap`` members), only on a cache miss: it is not free; ``map_key`` stands for
    them in the cache key.
    """
    contents = {f: f.read_bytes() for f in dict.fromkeys([*files, *depends_on])}
    key = _cache_key(tools_dir, contents, typescript, map_key, typecheck)
    path = cache_root() / "ts-analysis" / key[:2] / f"{key}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return _from_answer(raw, tools_dir, from_cache=True)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:  # the compiler loads while the typings of the callable tools are built
        process = subprocess.Popen(
            [node, str(ANALYZER), str(typescript.module)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tools_dir,
        )
    except OSError as exc:
        return Analysis(failure=f"the TypeScript analyzer could not run: {first_line(exc)}")
    try:
        declarations, members = tool_map()
        request = {
            "sdk": str(ASSETS / "scripting"),
            "files": [str(f) for f in files],
            "toolTypes": declarations,
            "toolMap": members,
            "typecheck": typecheck,
        }
        stdout, stderr = process.communicate(json.dumps(request), timeout=ANALYSIS_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Analysis(failure=f"the TypeScript analyzer did not finish within {ANALYSIS_TIMEOUT_S:g} s")
    finally:
        if process.poll() is None:  # timed out, interrupted, or the typings failed: never left behind
            process.kill()
            process.communicate()
    if process.returncode != 0:
        tail = "\n".join(stderr.strip().splitlines()[-8:])
        return Analysis(failure=f"the TypeScript analyzer failed (exit {process.returncode}):\n{tail}")
    raw = _relative(json.loads(stdout), tools_dir)
    _store(path, raw)
    return _from_answer(raw, tools_dir, from_cache=False)


def _cache_key(
    tools_dir: Path, contents: Mapping[Path, bytes], typescript: TypeScript, map_key: str, typecheck: str
) -> str:
    digest = hashlib.sha256()
    parts = {
        "assets": assets_digest(),
        "typescript": [typescript.version, str(typescript.package)],
        "map": map_key,
        "typecheck": typecheck,
        "files": {
            f.relative_to(tools_dir).as_posix(): hashlib.sha256(data).hexdigest()
            for f, data in contents.items()
        },
    }
    digest.update(json.dumps(parts, sort_keys=True).encode())
    return digest.hexdigest()


def _relative(raw: dict[str, Any], tools_dir: Path) -> dict[str, Any]:
    """File names relative to the tools folder: a copied workspace finds its analysis again."""

    def rel(name: str) -> str:
        try:
            return Path(name).relative_to(tools_dir).as_posix()
        except ValueError:
            return name

    raw["files"] = {rel(k): v for k, v in raw["files"].items()}
    for d in raw["diagnostics"]:
        d["file"] = rel(d["file"])
    return raw


def _store(path: Path, raw: JsonObject) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(raw), encoding="utf-8")
        partial.replace(path)
    except OSError:
        return  # a cache that cannot be written only costs the next run its speed


def _from_answer(raw: dict[str, Any], tools_dir: Path, *, from_cache: bool) -> Analysis:
    analysis = Analysis(from_cache=from_cache)
    for name, facts in raw["files"].items():
        file = tools_dir / name
        for export in facts["exports"]:
            tool = export.get("tool")
            if tool is None:
                analysis.functions.setdefault(export["name"], []).append(file)
                continue
            analysis.typed.setdefault(tool["name"], []).append(
                TypedExport(
                    name=tool["name"],
                    file=file,
                    line=tool["line"],
                    col=tool["col"],
                    spec=tool["spec"],
                    spec_problems=tuple((p["line"], p["col"], p["message"]) for p in tool["specProblems"]),
                    description=tool["description"],
                    input_schema=tool["inputSchema"],
                    result_schema=tool.get("resultSchema"),
                )
            )
    analysis.diagnostics = [
        Diagnostic(tools_dir / d["file"], d["line"], d["col"], d["code"], d["message"])
        for d in raw["diagnostics"]
    ]
    return analysis
