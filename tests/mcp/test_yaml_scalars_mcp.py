"""An MCP tool's string arguments get the text the author wrote, by its advertised inputSchema.

``py_server.py`` echoes the raw JSON arguments it receives, so what crossed the wire is visible.
"""

from __future__ import annotations

import json
from typing import Any

from pytest_trailblaze.core.trail.parse import parse_trail


def recorded(call: str) -> tuple[str, dict[str, Any]]:
    text = f"trail:\n  - step: s\n    recording:\n      web:\n        - {call}\n"
    [found] = parse_trail(text, "t.trail.yaml").steps[0].calls()
    return found.name, dict(found.args)


def test_string_parameters_receive_the_text_as_written(py_tools: dict[str, Any], fx: Any) -> None:
    registry = fx.registry_of(list(py_tools.values()))
    name, args = recorded("pyfx_args: {text: 017, count: 017}")
    received = json.loads(fx.run_tool(registry, name, args).message)
    assert received == {"text": "017", "count": 17}


def test_times_and_decimals_reach_the_server_unchanged(py_tools: dict[str, Any], fx: Any) -> None:
    registry = fx.registry_of(list(py_tools.values()))
    for written in ("8:00", "1.10", "0x1F", "true"):
        name, args = recorded(f"pyfx_echo: {{message: {written}}}")
        assert fx.run_tool(registry, name, args).message == written
