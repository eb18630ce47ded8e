"""Every workspace file of the upstream corpus loads: trailmaps, toolsets, tool and trailhead files.

Skipped when the corpus (``../shared/corpus`` or ``TRAILBLAZE_CORPUS``) is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import upstream_root

from pytest_trailblaze.core.errors import Problem
from pytest_trailblaze.tools import builtin_tools
from pytest_trailblaze.workspace import WorkspaceLoader, build_tools, load_file
from pytest_trailblaze.workspace.file_tools import UnavailableTool
from pytest_trailblaze.workspace.model import Workspace

_COLLECT_ROOT = upstream_root()


def _files(*patterns: str) -> list[str]:
    """Paths relative to ``upstream/`` (the test ids); empty when the corpus is absent."""
    if _COLLECT_ROOT is None:
        return []
    found = {
        p.relative_to(_COLLECT_ROOT).as_posix() for pattern in patterns for p in _COLLECT_ROOT.glob(pattern)
    }
    return sorted(found)


TRAILMAPS = _files("**/trailmap.yaml")
TOOLSETS = _files("**/toolsets/*.yaml")
TOOL_FILES = _files("**/*.tool.yaml", "**/*.trailhead.yaml")
WORKSPACES = _files("**/trails/config/trailblaze.yaml")
BUILTIN_NAMES = frozenset(t.name for t in builtin_tools())
MISSING_TRAILMAP_WORKSPACE = "examples/ios-sample-app/trails/config/trailblaze.yaml"
PLAYWRIGHT_WORKSPACE = "examples/playwright-native/trails/config/trailblaze.yaml"


def errors(problems: list[Problem]) -> list[str]:
    return [p.format() for p in problems if p.severity == "error"]


def test_the_corpus_has_workspace_files(corpus_dir: Path) -> None:
    assert MISSING_TRAILMAP_WORKSPACE in WORKSPACES
    assert len(TRAILMAPS) >= 10
    assert len(TOOLSETS) >= 10
    assert len(TOOL_FILES) >= 100
    assert len(WORKSPACES) >= 5


@pytest.mark.parametrize("rel", TRAILMAPS)
def test_trailmap_loads(corpus_dir: Path, rel: str) -> None:
    manifest, problems = load_file(corpus_dir / "upstream" / rel, "trailmap")
    assert errors(problems) == []
    assert manifest is not None
    assert manifest.id


@pytest.mark.parametrize("rel", TOOLSETS)
def test_toolset_loads(corpus_dir: Path, rel: str) -> None:
    toolset, problems = load_file(corpus_dir / "upstream" / rel, "toolset")
    assert errors(problems) == []
    assert toolset is not None
    assert toolset.id


@pytest.mark.parametrize("rel", TOOL_FILES)
def test_tool_file_loads(corpus_dir: Path, rel: str) -> None:
    definition, problems = load_file(corpus_dir / "upstream" / rel, "tool")
    assert errors(problems) == []
    assert definition is not None
    assert definition.mode in {"class", "tools", "metadata", "declared"}


def _class_tool(corpus_dir: Path, name: str) -> tuple[object, list[Problem]]:
    rel = next(r for r in TOOL_FILES if r.endswith(f"/{name}.tool.yaml"))
    definition, problems = load_file(corpus_dir / "upstream" / rel, "tool")
    assert errors(problems) == []
    assert definition is not None and definition.mode == "class"
    assert (definition.config.class_ or "").startswith("xyz.block.trailblaze.")
    ws = Workspace(None)
    ws.tool_defs[definition.name] = definition
    tools, build_problems = build_tools(ws, BUILTIN_NAMES)
    return (tools[0] if tools else None), build_problems


def test_a_kotlin_class_the_plugin_has_resolves_to_the_built_in(corpus_dir: Path) -> None:
    assert "web_click" in BUILTIN_NAMES
    built, problems = _class_tool(corpus_dir, "web_click")
    assert problems == []
    assert built is None, "the built-in web_click serves the upstream file"


def test_a_kotlin_class_the_plugin_lacks_is_unavailable(corpus_dir: Path) -> None:
    assert "tap" not in BUILTIN_NAMES
    built, problems = _class_tool(corpus_dir, "tap")
    assert problems == []
    assert isinstance(built, UnavailableTool)
    assert built.unavailable is not None
    assert "is an upstream Kotlin class pytest-trailblaze does not have" in built.unavailable
    assert "tap.tool.yaml" in built.unavailable


@pytest.mark.parametrize("rel", WORKSPACES)
def test_workspace_loads(corpus_dir: Path, rel: str) -> None:
    ws = WorkspaceLoader(builtin_names=BUILTIN_NAMES).load((corpus_dir / "upstream" / rel).parent)
    found = errors(ws.problems)
    if rel == MISSING_TRAILMAP_WORKSPACE:
        # upstream lists a trailmap this example does not ship
        assert len(ws.errors) == 1, found
        [problem] = ws.errors
        assert (problem.span.line, problem.span.col) == (9, 5)
        assert problem.what == (
            "trailmap 'iossampleapp' is listed but trailmaps/iossampleapp/trailmap.yaml does not exist"
        )
    else:
        assert found == []
        # The corpus keeps upstream's trailmap manifests but not every tool file they list: each
        # listed name whose .ts (or whose descriptor's script) the copy lacks is a problem at its
        # line, for the trails of that target on that platform (and for `trailblaze check`).
        for problem in [p for listed in ws.unlisted.values() for _, p in listed]:
            assert problem.span is not None, problem.format()
            if problem.what.startswith("script ./"):  # a descriptor whose script the copy lacks
                assert not (Path(problem.span.path).parent / problem.what.split()[1]).exists()
                continue
            assert "but no file of trailmap" in problem.what, problem.format()
            name = problem.what.split("'")[1]
            assert not list((Path(problem.span.path).parent / "tools").glob(f"{name}.*")), problem.format()
        if rel == PLAYWRIGHT_WORKSPACE:
            assert ws.unlisted == {}
