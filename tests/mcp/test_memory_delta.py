"""Memory writes on a tool result (upstream's ``_meta.trailblaze.memoryDelta`` / ``memoryDeletions``,
also spelled flat as ``trailblaze/memoryDelta``) reach the trail's memory for later calls.

Only a successful result writes; sets apply before deletions; entries that are not strings are
skipped one by one (and noted in the server's log); a secret key stays secret when a server writes it.
"""

from __future__ import annotations

import json

import pytest

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.core.tooling.memory import Memory


def _registry(fx, tools: dict):
    return fx.registry_of(list(tools.values()))


@pytest.mark.parametrize("flat", [False, True], ids=["nested-envelope", "flat-keys"])
def test_a_delta_sets_memory_that_later_calls_read(py_tools, fx, flat) -> None:
    registry, memory = _registry(fx, py_tools), Memory()
    result = fx.run_tool(
        registry, "pyfx_remember", {"values": {"orderId": "A-17"}, "flat": flat}, memory=memory
    )

    assert result.message == "remembered orderId"
    assert memory.get("orderId") == "A-17"
    assert fx.run_tool(registry, "pyfx_echo", {"message": "order {{orderId}}"}, memory=memory).message == (
        "order A-17"
    )
    seen = json.loads(fx.run_tool(registry, "pyfx_context", memory=memory).message)
    assert seen["raw"]["memory"] == {"orderId": "A-17"}


def test_the_typescript_sdk_envelope_sets_and_deletes(ts_node_tools, fx) -> None:
    registry, memory = _registry(fx, ts_node_tools), Memory()
    memory.seed({"stale": "old", "kept": "yes"})
    fx.run_tool(
        registry, "tsfx_remember", {"values": {"session": "s-1"}, "deletions": ["stale"]}, memory=memory
    )
    assert memory.snapshot() == {"kept": "yes", "session": "s-1"}


def test_sets_apply_before_deletions_so_a_key_in_both_ends_deleted(py_tools, fx) -> None:
    registry, memory = _registry(fx, py_tools), Memory()
    args = {"values": {"both": "x", "other": "y"}, "deletions": ["both"]}
    fx.run_tool(registry, "pyfx_remember", args, memory=memory)
    assert memory.snapshot() == {"other": "y"}


def test_an_error_result_writes_nothing(py_tools, fx) -> None:
    registry, memory = _registry(fx, py_tools), Memory()
    memory.set("kept", "before")
    with pytest.raises(ToolFailure, match="failed, but wrote"):
        args = {"values": {"kept": "after", "new": "x"}, "deletions": ["kept"], "fail": True}
        fx.run_tool(registry, "pyfx_remember", args, memory=memory)
    assert memory.snapshot() == {"kept": "before"}


def test_entries_that_are_not_strings_are_skipped_one_by_one_and_noted(py_tools, fx) -> None:
    registry, memory = _registry(fx, py_tools), Memory()
    memory.seed({"gone": "1", "stays": "2"})
    args = {"values": {"count": 3, "name": "ada", "nested": {"a": 1}}, "deletions": [7, "gone"]}
    fx.run_tool(registry, "pyfx_remember", args, memory=memory)

    assert memory.snapshot() == {"stays": "2", "name": "ada"}
    log = py_tools["pyfx_remember"].server.connection.log_path.read_text()
    assert "[pyfx_remember] ignored memoryDelta entry 'count': not a string (int)" in log
    assert "[pyfx_remember] ignored memoryDelta entry 'nested': not a string (dict)" in log
    assert "[pyfx_remember] ignored memoryDeletions entry 7: not a string" in log


def test_a_secret_key_written_by_a_server_stays_secret(py_tools, fx) -> None:
    registry, memory = _registry(fx, py_tools), Memory()
    memory.set("token", "seeded-secret", secret=True)
    fx.run_tool(registry, "pyfx_remember", {"values": {"token": "rotated-secret-77"}}, memory=memory)

    assert memory.get("token") == "rotated-secret-77"
    assert memory.is_secret("token")
    assert memory.mask("sent rotated-secret-77") == "sent ********"
    seen = json.loads(fx.run_tool(registry, "pyfx_context", memory=memory).message)
    assert "token" not in seen["raw"]["memory"]  # servers never get secret values

    # deleting and writing it again does not make it public either
    fx.run_tool(registry, "pyfx_remember", {"values": {}, "deletions": ["token"]}, memory=memory)
    fx.run_tool(registry, "pyfx_remember", {"values": {"token": "third"}}, memory=memory)
    assert memory.is_secret("token") and "token" not in memory.public()
