"""``as_json``: what a tool returned, as data a JSON wire carries (MCP callback replies)."""

from __future__ import annotations

import json
from pathlib import Path

from pytest_trailblaze.core.jsondata import as_json


def test_json_values_stay_as_they_are() -> None:
    value = {"a": [1, 2.5, True, None, "x"], "b": {"c": []}}
    assert as_json(value) == value


def test_tuples_become_lists_and_keys_text() -> None:
    assert as_json({1: (1, 2)}) == {"1": [1, 2]}


class _Live:
    def __str__(self) -> str:
        return "a live object"


def test_a_live_object_becomes_its_text_and_the_whole_serialises() -> None:
    shaped = as_json({"path": Path("/tmp/x"), "items": [_Live()]})
    assert shaped == {"path": "/tmp/x", "items": ["a live object"]}
    assert json.loads(json.dumps(shaped)) == shaped
