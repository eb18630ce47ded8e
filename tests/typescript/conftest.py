"""Helpers of the TypeScript-tool tests: real Bun, Node + tsx and TypeScript from the repository's
node_modules, workspaces written into temporary folders, and an analysis cache of the test's own.

Every host these tests start is a real subprocess started through the plugin's own machinery;
the ``TRAILBLAZE_TS_MARK`` variable they inherit lets ``ps`` find any that outlived its test.
"""

from __future__ import annotations

import os
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox import matching

from pytest_trailblaze.mcp import launch
from pytest_trailblaze.typescript import runtime

REPO = Path(__file__).resolve().parents[2]
NODE_BIN = REPO / "node_modules" / ".bin"
CORPUS_TRAILMAP = Path("upstream/examples/playwright-native/trails/config")
#: Unique to this pytest run, in the environment of every host the tests start.
MARK = f"tsfx-{uuid.uuid4().hex[:12]}"


def forget_runtimes() -> None:
    runtime.forget()
    launch.find_bun.cache_clear()
    launch.find_tsx.cache_clear()


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Bun, tsx and typescript from the repository on PATH; an analysis cache of the test's own."""
    monkeypatch.setenv("PATH", os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")]))
    monkeypatch.setenv("TRAILBLAZE_CACHE_DIR", str(tmp_path_factory.mktemp("ts-cache")))
    monkeypatch.setenv("TRAILBLAZE_TS_MARK", MARK)
    forget_runtimes()
    yield
    forget_runtimes()


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text, dedented) under ``root``; returns ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


def trailmap(tools: list[str], *, trailmap_id: str = "shop", extra: str = "") -> str:
    listed = "".join(f"\n    - {name}" for name in tools) or " []"
    return (
        f"id: {trailmap_id}\ntarget:\n  display_name: Shop\n  tools:{listed}\n"
        f"  platforms:\n    web:\n      tool_sets: [web_core, web_verification, memory]\n{extra}"
    )


def left_running() -> dict[int, str]:
    """Processes of this run still alive (hosts inherit ``TRAILBLAZE_TS_MARK``)."""
    found = {}
    for pid, args in matching("host.mjs").items():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        if MARK.encode() in environ:
            found[pid] = args
    return found


class Helpers:
    REPO = REPO
    NODE_BIN = NODE_BIN
    CORPUS_TRAILMAP = CORPUS_TRAILMAP
    MARK = MARK
    write_tree = staticmethod(write_tree)
    trailmap = staticmethod(trailmap)
    left_running = staticmethod(left_running)
    forget_runtimes = staticmethod(forget_runtimes)


@pytest.fixture(scope="session")
def ts() -> type[Helpers]:
    """Shared helpers and paths of the TypeScript-tool tests."""
    return Helpers
