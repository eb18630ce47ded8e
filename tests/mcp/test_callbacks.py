"""MCP servers we run call the trail's tools back over their own stdio (``trailblaze/callTool``):
a Python server through ``pytest_trailblaze.mcp.call_tool``, a TypeScript server on the official SDK
through our ``@trailblaze/scripting``. A callback without the session's secret, with a wrong one, or
for a call that is not running is refused and noted in the server's log."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import recorded_calls


@pytest.fixture(scope="module")
def callback_tools(shared_toolsets, fx) -> dict[str, Any]:
    py = fx.start_tools(shared_toolsets, "cb-py", fx.script("callback_server.py"))
    bun = fx.start_tools(shared_toolsets, "cb-ts-bun", fx.script("callback_server.ts"), path=fx.with_bun())
    node = fx.start_tools(
        shared_toolsets, "cb-ts-node", fx.script("callback_server.ts"), path=fx.without_bun()
    )
    return {"py": py, "bun": bun, "node": node}


@pytest.mark.parametrize("server", ["py", "bun", "node"])
def test_a_server_tool_calls_a_trail_tool_through_the_registry(callback_tools, fx, server: str) -> None:
    tools = callback_tools[server]
    name = "cbpy_call" if server == "py" else "cbts_call"
    registry = fx.registry_of(list(tools.values()))
    ctx = fx.context_of(registry)
    result = registry.execute(
        name, {"name": "assertEquals", "arguments": {"actual": "a", "expected": "a"}}, ctx
    )
    assert json.loads(result.message) == {"ok": "'a' equals 'a'"}
    assert [(e.name, e.depth, e.parent) for e in ctx.tool_log] == [(name, 0, None), ("assertEquals", 1, 0)]
    assert [e.name for e in recorded_calls(ctx.tool_log)] == [name]


@pytest.mark.parametrize("server", ["py", "bun", "node"])
def test_an_inner_failure_comes_back_as_the_inner_message(callback_tools, fx, server: str) -> None:
    name = "cbpy_call" if server == "py" else "cbts_call"
    registry = fx.registry_of(list(callback_tools[server].values()))
    said = json.loads(
        fx.run_tool(
            registry, name, {"name": "assertEquals", "arguments": {"actual": "a", "expected": "b"}}
        ).message
    )
    assert said["failed"] == "expected 'b' but got 'a'"


def test_a_typescript_server_writes_memory_back_with_its_result(callback_tools, fx) -> None:
    registry = fx.registry_of(list(callback_tools["bun"].values()))
    memory = Memory()
    fx.run_tool(
        registry,
        "cbts_call",
        {"name": "assertEquals", "arguments": {"actual": "1", "expected": "1"}},
        memory=memory,
    )
    assert memory.get("cbtsCalled") == "assertEquals"


@pytest.mark.parametrize(
    ("how", "why"),
    [
        ("no-secret", "callback refused: it does not carry this session's secret"),
        ("wrong-secret", "callback refused: it does not carry this session's secret"),
        ("stale-call", "callback refused: it names no call in progress"),
    ],
)
def test_a_callback_without_the_secret_or_a_live_call_is_refused(
    callback_tools, fx, how: str, why: str
) -> None:
    tools = callback_tools["py"]
    registry = fx.registry_of(list(tools.values()))
    ctx = fx.context_of(registry)
    said = registry.execute("cbpy_forge", {"how": how}, ctx).message
    assert said.startswith("refused: ") and why in said
    assert [e.name for e in ctx.tool_log] == ["cbpy_forge"], "nothing ran"
    log = tools["cbpy_forge"].server.connection.log_path.read_text()
    assert f"[trailblaze/callTool] {why}" in log
