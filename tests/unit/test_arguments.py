"""Argument issues in one shape, with paths a trail author reads (``entities[0].entityType``)."""

from __future__ import annotations

import math

import pytest
from jsonschema import Draft202012Validator

from pytest_trailblaze.core.tooling.arguments import dotted, is_finite, non_finite, schema_issues
from pytest_trailblaze.core.tooling.staticcheck import check_arguments
from pytest_trailblaze.tools import builtin_tools
from pytest_trailblaze.workspace.file_tools import finite_number

ENTITIES = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "entityType": {"type": "string"}},
                "required": ["name", "entityType"],
                "additionalProperties": False,
            },
        },
        "limit": {"type": "number"},
    },
    "required": ["entities"],
    "additionalProperties": False,
    "patternProperties": {"^x-": {}},
}


def messages(args: dict) -> list[str]:
    return [issue.message for issue in schema_issues(Draft202012Validator(ENTITIES), args)]


def test_paths_read_like_the_yaml_they_point_into() -> None:
    assert dotted(("entities", 0, "entityType")) == "entities[0].entityType"
    assert dotted(("matrix", 1, 2)) == "matrix[1][2]"
    assert dotted(("url",)) == "url"


def test_json_schema_errors_name_nested_paths() -> None:
    found = messages({"entities": [{"name": "a", "entityTyp": "p"}, {"name": 5, "entityType": "t"}]})

    assert found == [
        "entities[0].entityType is required",
        "unknown key 'entities[0].entityTyp' (did you mean 'entityType'?); accepted: name, entityType",
        "argument 'entities[1].name': 5 is not of type 'string'",
    ]


def test_top_level_problems_read_like_those_of_python_tools() -> None:
    assert messages({"entites": [], "x-trace": 1}) == [
        "missing required argument 'entities'",
        "unknown argument 'entites' (did you mean 'entities'?); accepted: entities, limit",
    ]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_issues_wherever_they_are(bad: float) -> None:
    args = {"entities": [{"name": "a", "entityType": "p"}], "limit": bad, "deep": {"list": [1, bad]}}

    found = [(issue.path, issue.kind) for issue in non_finite(args)]

    assert found == [(("limit",), "value"), (("deep", "list", 1), "value")]
    assert not is_finite(args) and is_finite({"limit": 1e300, "n": [1, 2.5]})
    assert "argument 'limit': must be a finite number" in messages({"entities": [], "limit": bad})[0]


@pytest.mark.parametrize(("given", "expected"), [(3, 3), ("3", 3), (2.5, 2.5), (" -1.5 ", -1.5), (0, 0)])
def test_a_yaml_tool_number_keeps_ints_and_reads_text(given: object, expected: object) -> None:
    value = finite_number(given)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("bad", [math.nan, math.inf, "nan", "-inf", "lots", True, None])
def test_a_yaml_tool_number_refuses_nan_infinity_and_non_numbers(bad: object) -> None:
    with pytest.raises(ValueError, match="finite number"):
        finite_number(bad)


@pytest.mark.parametrize("bad", [math.nan, math.inf, [1, math.nan]])
def test_an_unknown_argument_is_named_as_unknown_whatever_its_value(bad: object) -> None:
    """``wait: {seconds: .nan}`` is a misspelt argument first: "must be finite" would hide that."""
    wait = next(t for t in builtin_tools() if t.descriptor.name == "wait")

    issues, _ = check_arguments(wait, {"seconds": bad})
    assert [(i.path, i.kind) for i in issues] == [(("seconds",), "unknown")]

    issues, _ = check_arguments(wait, {"timeToWaitInSeconds": math.nan})
    assert [i.message for i in issues] == [
        "argument 'timeToWaitInSeconds': must be a finite number (NaN and infinity are not allowed) (got nan)"
    ]
