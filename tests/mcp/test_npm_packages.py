"""Servers shipped as npm packages run from where npm installed them (real packages from package.json).

A ``script:`` inside ``node_modules/<package>/`` has its dependencies hoisted to the ``node_modules``
it sits in, not next to its own package.json: they are looked up as Node looks them up, up the
folders. A ``node_modules/.bin`` link (no suffix) runs as the file it points to. A project whose
dependencies are installed nowhere still asks for ``npm ci``, naming what is missing.
"""

from __future__ import annotations

import json
import shutil

import pytest

from pytest_trailblaze.core.errors import ConfigurationError
from pytest_trailblaze.mcp.launch import resolve_server

#: From tests/mcp/servers/ (where hand-built targets are declared) to the repository's node_modules.
NODE_MODULES = "../../../node_modules"
MEMORY_SERVER = f"{NODE_MODULES}/@modelcontextprotocol/server-memory/dist/index.js"


def test_a_script_inside_an_installed_package_runs(tmp_path, monkeypatch, toolsets, fx) -> None:
    monkeypatch.setenv("MEMORY_FILE_PATH", str(tmp_path / "graph.jsonl"))  # not inside node_modules
    tools = fx.start_tools(toolsets(), "npm-memory", fx.script(MEMORY_SERVER))
    assert {"create_entities", "read_graph", "search_nodes"} <= set(tools)
    registry = fx.registry_of(list(tools.values()))

    entity = {"name": "ada", "entityType": "person", "observations": ["replays trails"]}
    fx.run_tool(registry, "create_entities", {"entities": [entity]})
    graph = json.loads(fx.run_tool(registry, "read_graph").message)
    assert [e["name"] for e in graph["entities"]] == ["ada"]
    assert (
        tools["read_graph"]
        .server.launch.argv[-1]
        .endswith("node_modules/@modelcontextprotocol/server-memory/dist/index.js")
    )


def test_a_bin_link_runs_as_the_file_it_points_to(toolsets, fx) -> None:
    tools = fx.start_tools(
        toolsets(), "npm-everything", fx.script(f"{NODE_MODULES}/.bin/mcp-server-everything")
    )
    registry = fx.registry_of(list(tools.values()))
    assert fx.run_tool(registry, "echo", {"message": "hello"}).message == "Echo: hello"


def test_dependencies_hoisted_to_a_parent_node_modules_are_found(tmp_path, fx) -> None:
    """A workspace package (tools/) whose dependencies npm hoisted to the root's node_modules."""
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "zod").symlink_to(fx.REPO / "node_modules" / "zod")
    tools = tmp_path / "packages" / "tools"
    tools.mkdir(parents=True)
    (tools / "package.json").write_text('{"type": "module", "dependencies": {"zod": "4"}}\n')
    shutil.copy(fx.TS_SERVER, tools / "server.ts")
    with fx.path_set(fx.with_bun()):
        launch = resolve_server(fx.script("packages/tools/server.ts"), tmp_path / "trailmap.yaml")
    assert launch.argv[-1] == str(tools / "server.ts")


def test_a_dependency_installed_nowhere_asks_for_npm_ci_and_names_it(tmp_path, fx) -> None:
    (tmp_path / "node_modules" / "zod").mkdir(parents=True)  # one of two is there
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "package.json").write_text('{"dependencies": {"zod": "4", "@scope/missing-dep": "1"}}\n')
    shutil.copy(fx.TS_SERVER, tools / "server.ts")
    with pytest.raises(ConfigurationError) as info:
        resolve_server(fx.script("tools/server.ts"), tmp_path / "trailmap.yaml")
    text = str(info.value)
    assert f"{tools / 'package.json'} needs @scope/missing-dep, installed in no node_modules folder" in text
    assert f"fix: run `npm ci` (or `npm install`) in {tools}" in text
