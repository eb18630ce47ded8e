"""YAML as upstream reads it: core-schema scalars, source text for string parameters, a nesting
limit checked while composing, unknown tags as located errors, the ``{{ENV}}`` pass on parsed values.
"""

from __future__ import annotations

import copy
import json
import math
import pickle
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import Problem, ToolArgumentError, TrailLoadError
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.tooling.tooldef import bind_source_text, tool
from pytest_trailblaze.core.trail import yamlcore
from pytest_trailblaze.core.trail.parse import load_trail, parse_trail
from pytest_trailblaze.core.trail.yamlcore import MAX_NESTING, YamlFloat, YamlInt
from pytest_trailblaze.core.trail.yamlsource import load_value
from pytest_trailblaze.workspace import WorkspaceLoader

PATH = "t.trail.yaml"


def value_of(scalar: str) -> Any:
    data, problems = load_value(f"x: {scalar}\n", "v.yaml")
    assert problems == []
    return data["x"]


def problems_of(text: str) -> list[Problem]:
    with pytest.raises(TrailLoadError) as info:
        parse_trail(textwrap.dedent(text).lstrip("\n"), PATH)
    return info.value.problems


def call_args(text: str) -> dict[str, Any]:
    trail = parse_trail(textwrap.dedent(text).lstrip("\n"), PATH)
    return dict(trail.steps[0].calls()[0].args)


# -- the core schema ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("8:00", "8:00"),  # YAML 1.1: 480 (sexagesimal)
        ("1:30:00", "1:30:00"),
        ("yes", "yes"),  # YAML 1.1: True
        ("No", "No"),
        ("on", "on"),
        ("OFF", "OFF"),
        ("y", "y"),
        ("0b101", "0b101"),  # YAML 1.1: 5
        ("1_000", "1_000"),  # YAML 1.1: 1000
        ("2024-01-31", "2024-01-31"),  # YAML 1.1: a date
        ("tRUE", "tRUE"),
        ("0x", "0x"),
        ("=", "="),
    ],
)
def test_words_that_yaml_1_1_read_as_values_are_text(written: str, expected: str) -> None:
    assert value_of(written) == expected
    assert isinstance(value_of(written), str)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("false", False),
        ("False", False),
        ("FALSE", False),
        ("null", None),
        ("Null", None),
        ("NULL", None),
        ("~", None),
        ("", None),
    ],
)
def test_booleans_and_null_have_three_spellings(written: str, expected: Any) -> None:
    assert value_of(written) is expected


@pytest.mark.parametrize(
    ("written", "number", "kind"),
    [
        ("017", 17, YamlInt),  # YAML 1.1: octal 15
        ("-42", -42, YamlInt),
        ("+7", 7, YamlInt),
        ("0o17", 15, YamlInt),
        ("0x1F", 31, YamlInt),
        ("1.10", 1.1, YamlFloat),
        ("1e3", 1000.0, YamlFloat),
        ("-.5", -0.5, YamlFloat),
        ("1.", 1.0, YamlFloat),
        (".inf", math.inf, YamlFloat),
        ("-.Inf", -math.inf, YamlFloat),
        ("+.INF", math.inf, YamlFloat),
    ],
)
def test_numbers_keep_the_text_they_were_written_as(written: str, number: float, kind: type) -> None:
    value = value_of(written)
    assert type(value) is kind
    assert value == number
    assert str(value) == written and f"{value}" == written


def test_nan_is_a_float() -> None:
    value = value_of(".NaN")
    assert isinstance(value, float) and math.isnan(value) and str(value) == ".NaN"


def test_yaml_numbers_serialize_copy_and_pickle_as_numbers() -> None:
    number, decimal = value_of("017"), value_of("1.10")
    assert json.dumps([number, decimal]) == "[17, 1.1]"
    assert copy.deepcopy(number).source == "017"
    assert pickle.loads(pickle.dumps(decimal)).source == "1.10"
    assert repr(number) == "17" and hash(number) == hash(17)


def test_quoted_scalars_are_always_text() -> None:
    assert value_of("'017'") == "017"
    assert value_of('"true"') == "true"


def test_explicit_core_tags_are_read() -> None:
    assert value_of("!!str 017") == "017"
    assert value_of('!!int "12"') == 12
    assert value_of("!!float 3") == 3.0


# -- source text at the dispatch boundary ---------------------------------------------------------
@tool("probe_text")
def probe_text(ctx: Any, text: str, count: int = 0, ratio: float = 0.0, label: str | int = "") -> str:
    """Echo what the tool received, with its types."""
    return json.dumps([text, type(text).__name__, count, ratio, label, type(label).__name__])


def dispatch(name: str, args: dict[str, Any], *tools: Any) -> Any:
    registry = ToolRegistry(platform="web")
    registry.register_all(tools or [probe_text])
    ctx = ToolContext(registry, Memory(), DeviceInfo("web", "playwright-native", 1280, 800))
    return registry.execute(name, args, ctx)


@pytest.mark.parametrize("written", ["017", "1.10", "8:00", "0x1F", "1e3", ".inf", "true", "TRUE"])
def test_a_string_parameter_gets_the_text_as_written(written: str) -> None:
    args = call_args(
        f"trail:\n  - step: s\n    recording:\n      web:\n        - probe_text: {{text: {written}}}\n"
    )
    expected = "true" if written == "TRUE" else written  # booleans: their YAML spelling, lower case
    assert json.loads(dispatch("probe_text", args).message)[:2] == [expected, "str"]


def test_typed_parameters_keep_their_types() -> None:
    args = call_args(
        "trail:\n  - step: s\n    recording:\n      web:\n"
        "        - probe_text: {text: a, count: 017, ratio: 1.10, label: 017}\n"
    )
    assert json.loads(dispatch("probe_text", args).message)[2:] == [17, 1.1, 17, "int"]


def test_a_call_without_yaml_numbers_runs_without_building_the_tools_json_schema() -> None:
    @tool("probe_schema_built")
    def probe(ctx: Any, text: str, tags: dict[str, str] | None = None) -> str:
        """Echo what the tool received."""
        return json.dumps([text, tags])

    args = call_args(
        "trail:\n  - step: s\n    recording:\n      web:\n"
        "        - probe_schema_built: {text: hello, tags: {a: b}}\n"
    )
    assert json.loads(dispatch("probe_schema_built", args, probe).message) == ["hello", {"a": "b"}]
    assert "parameters" not in vars(probe.descriptor)  # the cached schema was never asked for
    number = call_args(
        "trail:\n  - step: s\n    recording:\n      web:\n"
        "        - probe_schema_built: {text: hi, tags: {a: 017}}\n"
    )
    assert json.loads(dispatch("probe_schema_built", number, probe).message) == ["hi", {"a": "017"}]
    assert "parameters" in vars(probe.descriptor)


def test_python_values_are_not_rewritten() -> None:
    with pytest.raises(ToolArgumentError):
        dispatch("probe_text", {"text": ["a list"]})
    assert json.loads(dispatch("probe_text", {"text": 15}).message)[:2] == ["15", "str"]


SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "either": {"type": ["string", "integer"]},
        "count": {"type": "integer"},
        "any": {},
        "choice": {"enum": ["017", "018"]},
        "entities": {"type": "array", "items": {"$ref": "#/$defs/Entity"}},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}]},
        "tags": {"type": "object", "additionalProperties": {"type": "string"}},
        "nested": {"anyOf": [{"$ref": "#/$defs/Entity"}, {"type": "null"}]},
    },
    "$defs": {"Entity": {"type": "object", "properties": {"name": {"type": "string"}, "size": {}}}},
}


def test_bind_source_text_follows_the_schema_at_every_depth() -> None:
    n, f = YamlInt(17, "017"), YamlFloat(1.1, "1.10")
    args = {
        "text": n,
        "maybe": f,
        "either": n,
        "count": n,
        "any": n,
        "choice": n,
        "entities": [{"name": n, "size": n}],
        "pair": [f, f],
        "tags": {"a": True, "b": n},
        "nested": {"name": f},
        "unknown": n,
    }
    bound = bind_source_text(SCHEMA, args)
    assert bound == {
        "text": "017",
        "maybe": "1.10",
        "either": 17,  # the parameter takes the number too
        "count": 17,
        "any": 17,
        "choice": "017",
        "entities": [{"name": "017", "size": 17}],
        "pair": ["1.10", 1.1],
        "tags": {"a": "true", "b": "017"},
        "nested": {"name": "1.10"},
        "unknown": 17,
    }
    assert type(bound["count"]) is YamlInt


# -- YAML-composed tools --------------------------------------------------------------------------
def test_a_composed_tool_passes_the_text_as_written(tmp_path: Path) -> None:
    config = tmp_path / "trails" / "config"
    tools = config / "trailmaps" / "shop" / "tools"
    tools.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [shop]\n")
    (config / "trailmaps" / "shop" / "trailmap.yaml").write_text("id: shop\n")
    (tools / "shop_check.tool.yaml").write_text(
        "id: shop_check\ndescription: d\nparameters:\n  - {name: t, type: string}\n"
        "  - {name: n, type: number, default: 2.50}\ntools:\n"
        '  - probe_text: {text: "{{params.t}}", label: "at {{t}} and {{n}}"}\n'
        "  - probe_text: {text: 017, ratio: 1.10}\n"
    )
    ws = WorkspaceLoader().load(config)
    assert ws.problems == []
    seen: list[str] = []

    @tool("probe_text")
    def recording_probe(ctx: Any, text: str, ratio: float = 0.0, label: str = "") -> str:
        """Record the text arguments."""
        seen.append(f"{text}|{label}")
        return "ok"

    args = call_args("trail:\n  - step: s\n    recording:\n      web:\n        - shop_check: {t: 9.30}\n")
    dispatch("shop_check", args, recording_probe, *ws.tools)
    assert seen == ["9.30|at 9.30 and 2.5", "017|"]


# -- the {{ENV}} pass runs over parsed values -------------------------------------------------------
INJECTED = 'ok" }\n  - script: { function: "marker.py:mark" }\n  - step: "x'


def test_an_environment_value_cannot_add_a_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_INJECT", INJECTED)
    path = tmp_path / "t.trail.yaml"
    path.write_text('trail:\n  - step: "Log in as {{TB_INJECT}}"\n')
    trail = load_trail(path)
    assert len(trail.steps) == 1
    assert trail.steps[0].text == f"Log in as {INJECTED}"
    assert trail.steps[0].calls() == ()


def test_environment_values_keep_positions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_LONG", "x\n" * 50)
    path = tmp_path / "t.trail.yaml"
    path.write_text('trail:\n  - step: "{{TB_LONG}}"\n  - step: second\n    recording: {web: [{wait: {}}]}\n')
    trail = load_trail(path)
    assert trail.steps[1].span.line == 3
    assert trail.steps[1].calls()[0].span.line == 4


def test_an_unquoted_whole_value_token_is_read_like_a_plain_scalar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TB_PAGES", "017")
    monkeypatch.setenv("TB_WORD", "a: [b]")
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        "trail:\n  - step: s\n    recording:\n      web:\n        - t: {n: {{TB_PAGES}}, w: {{TB_WORD}}}\n"
    )
    args = dict(load_trail(path).steps[0].calls()[0].args)
    assert args == {"n": 17, "w": "a: [b]"}
    assert str(args["n"]) == "017"


def test_an_environment_value_is_substituted_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_A", "{{TB_B}}")
    monkeypatch.setenv("TB_B", "deep")
    path = tmp_path / "t.trail.yaml"
    path.write_text(
        'trail:\n  - step: "{{TB_A}}"\n    recording: {web: [{t: {x: &v "{{TB_A}}", y: *v, z: {{TB_A}}}}]}\n'
    )
    trail = load_trail(path)
    assert trail.steps[0].text == "{{TB_B}}"
    assert dict(trail.steps[0].calls()[0].args) == {"x": "{{TB_B}}", "y": "{{TB_B}}", "z": "{{TB_B}}"}


# -- nesting --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "[" * 25_000 + "]" * 25_000,
        "{a: " * 25_000 + "1" + "}" * 25_000,
        "trail:\n  - step: x\n    recording:\n      web:\n        - t: {a: "
        + "[" * 20_000
        + "]" * 20_000
        + "}\n",
        "".join(" " * i + "a:\n" for i in range(2_000)),
        "- " * 5_000 + "x\n",
    ],
    ids=["flow-list", "flow-map", "in-arguments", "block-maps", "compact-lists"],
)
def test_deep_nesting_is_a_located_problem(text: str) -> None:
    [problem] = problems_of(text)
    assert problem.what == f"nesting deeper than {MAX_NESTING}"
    assert problem.span is not None and problem.span.path == PATH
    assert "flatten" in problem.fix


def test_nesting_at_the_limit_is_fine() -> None:
    value, problems = load_value("[" * MAX_NESTING + "1" + "]" * MAX_NESTING, "v.yaml")
    assert problems == [] and value is not None
    _, problems = load_value("[" * (MAX_NESTING + 1) + "1" + "]" * (MAX_NESTING + 1), "v.yaml")
    assert [(p.what, p.span.col) for p in problems] == [
        (f"nesting deeper than {MAX_NESTING}", MAX_NESTING + 1)
    ]


def test_aliases_cannot_nest_values_deeper_than_the_limit() -> None:
    lines = ["a0: &a0 [1]"] + [f"a{i}: &a{i} [*a{i - 1}]" for i in range(1, 300)]
    text = "\n".join(lines) + "\n"
    _, problems = load_value(text, "v.yaml")
    assert [p.what for p in problems] == [f"nesting deeper than {MAX_NESTING}"]


def test_the_limit_holds_when_the_composer_hook_is_not_called(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another PyYAML may not call ``descend_resolver``: the depth then comes from the event stream."""
    monkeypatch.setattr(yamlcore, "_hook_counts_depth", lambda: False)
    monkeypatch.setattr(yamlcore.CoreLoader, "descend_resolver", lambda self, parent, index: None)
    [problem] = problems_of("[" * 25_000 + "]" * 25_000)
    assert (problem.what, problem.span.line, problem.span.col) == (
        f"nesting deeper than {MAX_NESTING}",
        1,
        129,
    )
    assert call_args("trail:\n  - step: s\n    recording:\n      web:\n        - t: {a: [[1]]}\n") == {
        "a": [[1]]
    }


def test_this_pyyaml_counts_depth_in_the_composer() -> None:
    assert yamlcore._hook_counts_depth()


# -- tags -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("!!python/name:os.system ''", "!!python/name:os.system"),
        ("!!python/object/apply:os.system [echo hi]", "!!python/object/apply:os.system"),
        ("!!binary aGVsbG8=", "!!binary"),
        ("!!timestamp 2024-01-01", "!!timestamp"),
        ("!!set {a, b}", "!!set"),
        ("!foo bar", "!foo"),
        ("!<tag:example.com,2024:x> y", "tag:example.com,2024:x"),
    ],
)
def test_an_unknown_tag_is_a_located_problem(value: str, shown: str) -> None:
    [problem] = problems_of(f"trail:\n  - step: s\n    recording:\n      web:\n        - t: {{a: {value}}}\n")
    assert problem.what == f"unknown YAML tag {shown}"
    assert (problem.span.line, problem.span.col) == (5, 18)
    assert problem.fix == "remove the tag (or quote the value to keep it as text)"


def test_every_unknown_tag_is_reported() -> None:
    found = problems_of("config: !x {}\ntrail: !!omap\n  - step: !y s\n")
    assert [(p.what, p.span.line) for p in found] == [
        ("unknown YAML tag !x", 1),
        ("unknown YAML tag !!omap", 2),
        ("unknown YAML tag !y", 3),
    ]


@pytest.mark.parametrize(
    ("value", "what"),
    [("!!int abc", "`!!int abc` is not an integer"), ("!!bool yes", "`!!bool yes` is not a boolean")],
)
def test_a_core_tag_on_a_value_it_does_not_describe_is_a_problem(value: str, what: str) -> None:
    [problem] = problems_of(f"trail:\n  - step: {value}\n")
    assert problem.what == what


def test_text_with_an_exclamation_mark_is_fine() -> None:
    assert call_args('trail:\n  - step: "Hi!"\n    recording: {web: [{t: {a: Wow!, b: "!x"}}]}\n') == {
        "a": "Wow!",
        "b": "!x",
    }
