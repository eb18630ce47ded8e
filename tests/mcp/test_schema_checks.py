"""Arguments of MCP calls are checked against the server's advertised ``inputSchema`` before the
call, with paths into nested values, on a real third-party server (``@modelcontextprotocol/server-memory``
from npm, pinned in package.json: ``create_entities`` takes ``entities: [{name, entityType, observations}]``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import ToolArgumentError
from pytest_trailblaze.workspace.schema import McpServerSpec

MEMORY_SERVER = (
    Path(__file__).resolve().parents[2] / "node_modules/@modelcontextprotocol/server-memory/dist/index.js"
)


@pytest.fixture
def memory_registry(tmp_path: Path, toolsets, fx):
    graph = tmp_path / "graph.jsonl"
    spec = McpServerSpec(command="node", args=[str(MEMORY_SERVER)], env={"MEMORY_FILE_PATH": str(graph)})
    tools = fx.start_tools(toolsets(), "schema-memory", spec)
    return fx.registry_of(list(tools.values()))


def test_a_nested_missing_field_names_its_path_and_the_server_is_not_called(memory_registry, fx) -> None:
    entities = [
        {"name": "ada", "entityType": "person", "observations": []},
        {"name": "bob", "observations": []},
    ]

    with pytest.raises(ToolArgumentError) as info:
        fx.run_tool(memory_registry, "create_entities", {"entities": entities})

    assert str(info.value) == "invalid arguments for 'create_entities': entities[1].entityType is required"
    assert json.loads(fx.run_tool(memory_registry, "read_graph").message)["entities"] == []


def test_nan_and_infinity_never_reach_the_wire(memory_registry, fx) -> None:
    """JSON has no NaN: the client would fail inside its serializer ("Out of range float values")."""
    entity = {"name": "ada", "entityType": "person", "observations": []}

    with pytest.raises(ToolArgumentError) as info:
        fx.run_tool(memory_registry, "create_entities", {"entities": [entity], "weight": float("inf")})
    with pytest.raises(ToolArgumentError, match=r"entities\[0\]\.score.*finite number.*nan"):
        fx.run_tool(memory_registry, "create_entities", {"entities": [{**entity, "score": float("nan")}]})

    assert "argument 'weight': must be a finite number" in str(info.value)
    assert json.loads(fx.run_tool(memory_registry, "read_graph").message)["entities"] == []
