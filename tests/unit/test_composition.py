"""YAML-defined tools (``tools:`` mode): parameters into a list of tool calls (docs/guides/tools.md,
A YAML composition).

Two levels: ``expand()`` on its own, and a real ``CompositeTool`` built by ``WorkspaceLoader`` from a
workspace in ``tmp_path`` and run through an in-process registry with fake tools.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import FatalToolError, SourceSpan, ToolArgumentError, ToolFailure
from pytest_trailblaze.core.tooling.composition import DROP, expand, parameter_of, render, substitute
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry, recorded_calls
from pytest_trailblaze.core.tooling.tooldef import Tool, ToolDescriptor, ToolResult, tool
from pytest_trailblaze.core.trail.model import ArgDecl, ToolCall
from pytest_trailblaze.workspace import Workspace, WorkspaceLoader
from pytest_trailblaze.workspace.file_tools import CompositeTool

SPAN = SourceSpan("t.tool.yaml", 1, 1)


def call(name: str, args: dict[str, Any]) -> ToolCall:
    return ToolCall(name, args, SPAN)


# -- expand() ------------------------------------------------------------------------------------


def test_a_whole_value_token_keeps_the_native_type() -> None:
    params = {"n": 3, "on": True, "off": False, "items": [1, "a"], "opts": {"k": [1]}, "ratio": 0.5}
    calls = (
        call(
            "rec",
            {
                "n": "{{params.n}}",
                "on": "{{params.on}}",
                "off": "{{params.off}}",
                "items": "{{params.items}}",
                "opts": "{{params.opts}}",
                "ratio": "{{ params.ratio }}",
            },
        ),
    )
    assert expand(calls, params, params) == [("rec", params)]


def test_an_embedded_token_splices_text() -> None:
    params = {"n": 3, "on": True, "off": False, "items": [1, "a"], "opts": {"k": 1}, "who": "ann"}
    text = "n={{params.n}} on={{on}} off={{params.off}} items={{items}} opts={{opts}} who={{ who }}"
    [(name, args)] = expand((call("rec", {"t": text}),), params, params)
    assert name == "rec"
    assert args == {"t": 'n=3 on=true off=false items=[1,"a"] opts={"k":1} who=ann'}


def test_render_of_each_kind() -> None:
    assert render(True) == "true"
    assert render(False) == "false"
    assert render(7) == "7"
    assert render(None) == "None"
    assert render({"a": [1, 2]}) == '{"a":[1,2]}'


def test_both_token_spellings_and_both_forms_name_a_parameter() -> None:
    params = {"x": 5}
    assert substitute("${params.x}", params, {"x"}) == 5
    assert substitute("${x}", params, {"x"}) == 5
    assert substitute("{{x}}", params, {"x"}) == 5
    assert substitute("{{params.x}}", params, {"x"}) == 5


def test_parameter_of_tells_parameters_from_memory_and_args() -> None:
    assert parameter_of("params.x", set()) == "x"
    assert parameter_of("x", {"x"}) == "x"
    assert parameter_of("x", {"y"}) is None
    assert parameter_of("memory.x", {"x"}) is None
    assert parameter_of("args.x", {"x"}) is None


def test_a_bare_token_for_an_undeclared_name_is_left_for_memory() -> None:
    [(_, args)] = expand((call("rec", {"a": "{{user}}", "b": "hi {{user}}"}),), {"x": 1}, {"x"})
    assert args == {"a": "{{user}}", "b": "hi {{user}}"}


def test_memory_and_args_tokens_are_left_for_dispatch() -> None:
    args = {"a": "{{memory.user}}", "b": "{{args.env}}", "c": "${user}", "d": "{{params.x}}/{{args.env}}"}
    [(_, got)] = expand((call("rec", args),), {"x": "p"}, {"x"})
    assert got == {"a": "{{memory.user}}", "b": "{{args.env}}", "c": "${user}", "d": "p/{{args.env}}"}


def test_an_omitted_parameter_drops_the_key_that_holds_it() -> None:
    args = {"whole": "{{params.opt}}", "text": "value {{opt}}", "kept": "{{params.x}}", "plain": "p"}
    [(_, got)] = expand((call("rec", args),), {"x": 1}, {"x", "opt"})
    assert got == {"kept": 1, "plain": "p"}


def test_an_omitted_parameter_drops_its_list_item_only() -> None:
    args = {"list": ["a", "{{params.opt}}", "b {{opt}}", "{{params.x}}"], "nested": [{"k": "{{opt}}"}]}
    [(_, got)] = expand((call("rec", args),), {"x": 2}, {"x", "opt"})
    assert got == {"list": ["a", 2], "nested": [{}]}


def test_substitute_leaves_other_values_alone() -> None:
    assert substitute(3, {}, ()) == 3
    assert substitute(None, {}, ()) is None
    assert substitute("no tokens", {}, ()) == "no tokens"
    assert substitute("{{params.gone}}", {}, ()) is DROP


def test_expand_keeps_the_order_and_names_of_calls() -> None:
    calls = (call("first", {}), call("second", {"v": "{{x}}"}), call("first", {"v": "{{x}}!"}))
    assert expand(calls, {"x": "go"}, {"x"}) == [
        ("first", {}),
        ("second", {"v": "go"}),
        ("first", {"v": "go!"}),
    ]


def test_expand_does_not_change_the_definition() -> None:
    args = {"list": ["{{params.x}}"], "m": {"k": "{{x}}"}}
    calls = (call("rec", args),)
    expand(calls, {"x": 1}, {"x"})
    assert args == {"list": ["{{params.x}}"], "m": {"k": "{{x}}"}}


# -- a workspace with composite tools ------------------------------------------------------------


class Recorder(Tool):
    """A fake tool that keeps the (interpolated) arguments it received, or fails on demand."""

    def __init__(self, name: str, *, fail: type[Exception] | None = None, recordable: bool = True) -> None:
        self.descriptor = ToolDescriptor(name, f"fake {name}", "test", is_recordable=recordable)
        self.calls: list[dict[str, Any]] = []
        self.fail = fail

    def invoke(self, ctx: Any, validated: Any) -> ToolResult:
        self.calls.append(dict(validated))
        if self.fail is not None:
            raise self.fail(f"{self.name} broke")
        return ToolResult(message=f"{self.name} ok")


def make_workspace(root: Path, tools: dict[str, str]) -> Path:
    """``root/trails/config`` with one trailmap ``shop`` holding ``tools`` (file stem -> YAML)."""
    config = root / "trails" / "config"
    tools_dir = config / "trailmaps" / "shop" / "tools"
    tools_dir.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [shop]\n")
    (config / "trailmaps" / "shop" / "trailmap.yaml").write_text("id: shop\n")
    for stem, text in tools.items():
        (tools_dir / f"{stem}.tool.yaml").write_text(textwrap.dedent(text).lstrip("\n"))
    return config


def load(root: Path, tools: dict[str, str]) -> Workspace:
    return WorkspaceLoader().load(make_workspace(root, tools))


class Session:
    def __init__(self, ws: Workspace, *fakes: Tool) -> None:
        assert ws.errors == [], "\n".join(p.format() for p in ws.errors)
        self.registry = ToolRegistry(platform="web", driver_key="playwright-native")
        self.registry.register_all([*fakes, *ws.tools])
        self.memory = Memory()
        self.ctx = ToolContext(self.registry, self.memory, DeviceInfo("web", "playwright-native", 1280, 800))

    def run(self, name: str, args: dict[str, Any] | None = None) -> ToolResult:
        return self.registry.execute(name, args or {}, self.ctx)


TYPED = """
id: shop_fill
description: Fill the form.
parameters:
  - name: count
    type: integer
  - name: enabled
    type: boolean
    required: false
  - name: tags
    type: array
    required: false
  - name: extra
    type: object
    required: false
  - name: label
    type: string
    default: hello
  - name: note
    type: string
    required: false
tools:
  - rec:
      count: "{{params.count}}"
      enabled: "{{enabled}}"
      tags: "{{params.tags}}"
      extra: "{{extra}}"
      text: "count={{count}} enabled={{params.enabled}}"
      label: "{{params.label}}"
      note: "{{note}}"
      list: [first, "{{params.note}}", "{{params.enabled}}", last]
"""


def test_a_composite_tool_is_built_from_the_file(tmp_path: Path) -> None:
    ws = load(tmp_path, {"shop_fill": TYPED})
    assert ws.problems == []
    [built] = ws.tools
    assert isinstance(built, CompositeTool)
    d = built.descriptor
    assert (d.name, d.description, d.source, d.is_recordable) == (
        "shop_fill",
        "Fill the form.",
        "yaml:shop_fill.tool.yaml",
        True,
    )
    schema = d.parameters
    assert schema["required"] == ["count"]
    assert set(schema["properties"]) == {"count", "enabled", "tags", "extra", "label", "note"}


def test_whole_value_tokens_keep_native_types_and_embedded_tokens_splice_text(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_fill": TYPED}), rec)
    s.run("shop_fill", {"count": 3, "enabled": True, "tags": ["a", 1], "extra": {"k": [1]}, "note": "n"})
    assert rec.calls == [
        {
            "count": 3,
            "enabled": True,
            "tags": ["a", 1],
            "extra": {"k": [1]},
            "text": "count=3 enabled=true",
            "label": "hello",
            "note": "n",
            "list": ["first", "n", True, "last"],
        }
    ]


def test_omitted_optional_parameters_drop_keys_and_list_items_and_defaults_apply(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_fill": TYPED}), rec)
    s.run("shop_fill", {"count": 1})
    # `text` embeds the omitted `enabled`: the whole key goes, as upstream drops the enclosing key.
    assert rec.calls == [{"count": 1, "label": "hello", "list": ["first", "last"]}]


def test_explicit_null_is_treated_as_omitted(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_fill": TYPED}), rec)
    s.run("shop_fill", {"count": 1, "enabled": None, "label": None, "note": None})
    assert rec.calls == [{"count": 1, "label": "hello", "list": ["first", "last"]}]


def test_a_given_value_overrides_the_default(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_fill": TYPED}), rec)
    s.run("shop_fill", {"count": 1, "label": "bye", "enabled": False})
    assert rec.calls[0]["label"] == "bye"
    assert rec.calls[0]["enabled"] is False
    assert rec.calls[0]["text"] == "count=1 enabled=false"


def test_missing_required_parameter_names_it_and_the_tool(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_fill": TYPED}), rec)
    with pytest.raises(ToolArgumentError) as info:
        s.run("shop_fill", {"label": "x"})
    assert str(info.value) == "invalid arguments for 'shop_fill': missing required argument 'count'"
    assert info.value.tool == "shop_fill"
    assert rec.calls == []


def test_explicit_null_for_a_required_parameter_is_missing(tmp_path: Path) -> None:
    s = Session(load(tmp_path, {"shop_fill": TYPED}), Recorder("rec"))
    with pytest.raises(ToolArgumentError, match="missing required argument 'count'"):
        s.run("shop_fill", {"count": None})


def test_an_unknown_argument_is_an_error_with_did_you_mean(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_fill": TYPED}), rec)
    with pytest.raises(ToolArgumentError) as info:
        s.run("shop_fill", {"count": 1, "enabeld": True})
    assert str(info.value) == (
        "invalid arguments for 'shop_fill': unknown argument 'enabeld' (did you mean 'enabled'?); "
        "accepted: count, enabled, tags, extra, label, note"
    )
    assert rec.calls == []


def test_a_value_of_the_wrong_type_is_an_argument_error(tmp_path: Path) -> None:
    s = Session(load(tmp_path, {"shop_fill": TYPED}), Recorder("rec"))
    with pytest.raises(ToolArgumentError, match=r"argument 'count': .*integer.* \(got 'many'\)"):
        s.run("shop_fill", {"count": "many"})


SHADOW = """
id: shop_greet
description: Greet someone.
parameters:
  - name: user
    type: string
    required: false
  - name: greeting
    type: string
    default: hi
tools:
  - rec:
      whole: "{{user}}"
      text: "{{greeting}} {{user}}"
      fromMemory: "{{memory.user}}"
      other: "{{city}}"
      otherText: "in {{memory.city}}"
      arg: "{{args.env}}"
      argText: "env={{args.env}}"
"""


def test_parameters_shadow_memory_and_memory_and_args_tokens_resolve_at_dispatch(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_greet": SHADOW}), rec)
    s.memory.set("user", "memory-user")
    s.memory.set("greeting", "memory-greeting")
    s.memory.set("city", "Oslo")
    s.memory.bind_args({"env": ArgDecl("env", "string", SPAN)}, {"env": "prod"})
    s.run("shop_greet", {"user": "ann"})
    assert rec.calls == [
        {
            "whole": "ann",
            "text": "hi ann",
            "fromMemory": "memory-user",
            "other": "Oslo",
            "otherText": "in Oslo",
            "arg": "prod",
            "argText": "env=prod",
        }
    ]


def test_an_omitted_parameter_does_not_fall_back_to_memory(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_greet": SHADOW}), rec)
    s.memory.set("user", "memory-user")
    s.memory.set("city", "Oslo")
    s.memory.bind_args({"env": ArgDecl("env", "string", SPAN)}, {"env": "prod"})
    s.run("shop_greet")
    # `whole` and `text` named the parameter `user`: dropped, never filled from memory.
    assert rec.calls == [
        {
            "fromMemory": "memory-user",
            "other": "Oslo",
            "otherText": "in Oslo",
            "arg": "prod",
            "argText": "env=prod",
        }
    ]


def test_memory_written_by_an_expanded_call_is_read_by_the_next(tmp_path: Path) -> None:
    @tool("remember")
    def remember(ctx: ToolContext, key: str, value: str) -> str:
        ctx.memory.set(key, value)
        return f"{key}={value}"

    rec = Recorder("rec")
    text = """
    id: shop_chain
    description: Remember then use.
    parameters:
      - name: value
        type: string
    tools:
      - remember: { key: total, value: "{{params.value}}" }
      - rec: { seen: "{{total}}", again: "total is {{memory.total}}" }
    """
    s = Session(load(tmp_path, {"shop_chain": text}), rec, remember)
    s.run("shop_chain", {"value": "42"})
    assert rec.calls == [{"seen": "42", "again": "total is 42"}]


# -- load-time checks of tokens ----------------------------------------------------------------


def test_an_undeclared_params_token_is_a_problem_at_the_call(tmp_path: Path) -> None:
    text = """
    id: shop_bad
    description: Bad.
    parameters:
      - name: count
        type: integer
    tools:
      - rec: { a: 1 }
      - rec: { n: "{{params.cuont}}" }
    """
    ws = load(tmp_path, {"shop_bad": text})
    [problem] = ws.problems
    path = tmp_path / "trails/config/trailmaps/shop/tools/shop_bad.tool.yaml"
    assert str(problem.span) == f"{path}:8:5"
    assert problem.severity == "error"
    assert problem.what == "'shop_bad' uses unknown parameter 'cuont'"
    assert problem.why == "declared parameters: count"
    assert problem.fix == "did you mean 'count'?"


def test_an_undeclared_params_token_without_close_match(tmp_path: Path) -> None:
    text = """
    id: shop_bad
    description: Bad.
    parameters: []
    tools:
      - rec: { n: "x {{params.nope}}" }
    """
    [problem] = load(tmp_path, {"shop_bad": text}).problems
    assert str(problem.span).endswith("shop_bad.tool.yaml:5:5")
    assert problem.what == "'shop_bad' uses unknown parameter 'nope'"
    assert problem.why == "declared parameters: none"
    assert problem.fix == "declare 'nope' under `parameters:`"


def test_a_device_token_is_a_problem_at_the_call(tmp_path: Path) -> None:
    text = """
    id: shop_bad
    description: Bad.
    parameters: []
    tools:
      - rec:
          w: "{{device.width}}"
    """
    [problem] = load(tmp_path, {"shop_bad": text}).problems
    assert str(problem.span).endswith("shop_bad.tool.yaml:5:5")
    assert problem.severity == "error"
    assert problem.what == "unsupported token '{{device.width}}' in 'shop_bad'"
    assert problem.fix == "pass the value in as a parameter"


def test_memory_and_args_tokens_pass_the_load_time_check(tmp_path: Path) -> None:
    text = """
    id: shop_ok
    description: Fine.
    parameters: []
    tools:
      - rec: { a: "{{user}}", b: "{{memory.user}}", c: "{{args.env}}", d: "${args.user.email}" }
    """
    assert load(tmp_path, {"shop_ok": text}).problems == []


# -- running the expansion: order, failures, log --------------------------------------------------

THREE = """
id: shop_three
description: Three calls.
parameters:
  - name: v
    type: string
tools:
  - first: { v: "{{v}}" }
  - second: { v: "{{v}}" }
  - third: { v: "{{v}}" }
"""


def test_expanded_calls_run_in_order(tmp_path: Path) -> None:
    order: list[str] = []

    class Ordered(Recorder):
        def invoke(self, ctx: Any, validated: Any) -> ToolResult:
            order.append(self.name)
            return super().invoke(ctx, validated)

    s = Session(load(tmp_path, {"shop_three": THREE}), Ordered("first"), Ordered("second"), Ordered("third"))
    result = s.run("shop_three", {"v": "x"})
    assert order == ["first", "second", "third"]
    assert result.message == "shop_three: ran 3 tool call(s)"


def test_the_first_failure_stops_the_expansion_and_names_the_call(tmp_path: Path) -> None:
    first, second, third = Recorder("first"), Recorder("second", fail=ToolFailure), Recorder("third")
    s = Session(load(tmp_path, {"shop_three": THREE}), first, second, third)
    with pytest.raises(ToolFailure) as info:
        s.run("shop_three", {"v": "x"})
    assert str(info.value) == "call 2 of 3 (second) failed: second broke"
    assert info.value.tool == "shop_three"
    assert (len(first.calls), len(second.calls), len(third.calls)) == (1, 1, 0)
    assert [(e.name, e.success) for e in s.ctx.tool_log] == [
        ("shop_three", False),
        ("first", True),
        ("second", False),
    ]
    assert recorded_calls(s.ctx.tool_log) == []


def test_an_unknown_tool_in_the_expansion_fails_naming_the_call(tmp_path: Path) -> None:
    s = Session(load(tmp_path, {"shop_three": THREE}), Recorder("first"), Recorder("third"))
    with pytest.raises(ToolFailure) as info:
        s.run("shop_three", {"v": "x"})
    assert str(info.value).startswith("call 2 of 3 (second) failed: unknown tool 'second'")


def test_a_fatal_error_in_the_expansion_raises_through(tmp_path: Path) -> None:
    s = Session(
        load(tmp_path, {"shop_three": THREE}), Recorder("first", fail=FatalToolError), Recorder("second")
    )
    with pytest.raises(FatalToolError, match=r"^first broke$"):
        s.run("shop_three", {"v": "x"})


def test_the_log_has_the_composite_first_and_its_calls_as_children(tmp_path: Path) -> None:
    s = Session(
        load(tmp_path, {"shop_three": THREE}), Recorder("first"), Recorder("second"), Recorder("third")
    )
    s.run("shop_three", {"v": "x"})
    log = s.ctx.tool_log
    assert [(e.name, e.parent, e.depth, e.success) for e in log] == [
        ("shop_three", None, 0, True),
        ("first", 0, 1, True),
        ("second", 0, 1, True),
        ("third", 0, 1, True),
    ]
    assert log[0].args == {"v": "x"}
    assert log[1].args == {"v": "x"}
    assert recorded_calls(log) == [log[0]]


def test_a_composite_of_composites_records_only_the_outer_call(tmp_path: Path) -> None:
    outer = """
    id: shop_outer
    description: Calls a composite twice.
    parameters: []
    tools:
      - shop_three: { v: a }
      - shop_three: { v: b }
    """
    s = Session(
        load(tmp_path, {"shop_three": THREE, "shop_outer": outer}),
        Recorder("first"),
        Recorder("second"),
        Recorder("third"),
    )
    s.run("shop_outer")
    s.run("first", {"v": "alone"})
    log = s.ctx.tool_log
    assert [(e.name, e.parent) for e in log] == [
        ("shop_outer", None),
        ("shop_three", 0),
        ("first", 1),
        ("second", 1),
        ("third", 1),
        ("shop_three", 0),
        ("first", 5),
        ("second", 5),
        ("third", 5),
        ("first", None),
    ]
    assert [(e.name, dict(e.args)) for e in recorded_calls(log)] == [
        ("shop_outer", {}),
        ("first", {"v": "alone"}),
    ]


def test_a_non_recordable_composite_is_recorded_as_its_calls(tmp_path: Path) -> None:
    text = THREE.replace("description: Three calls.", "description: Three calls.\nis_recordable: false")
    s = Session(
        load(tmp_path, {"shop_three": text}), Recorder("first"), Recorder("second"), Recorder("third")
    )
    s.run("shop_three", {"v": "x"})
    assert [e.name for e in recorded_calls(s.ctx.tool_log)] == ["first", "second", "third"]


def test_the_expansion_of_the_example_workspace(tmp_path: Path) -> None:
    """``sampleApp_web_openSection``: embedded and whole tokens, and an omitted optional `check`."""
    config = Path(__file__).resolve().parents[2] / "examples" / "trails" / "config"
    ws = WorkspaceLoader().load(config)
    assert ws.errors == []
    navigate, visible, value = (
        Recorder("web_navigate"),
        Recorder("web_verifyElementVisible"),
        Recorder("web_verifyValue"),
    )
    registry = ToolRegistry(platform="web", driver_key="playwright-native")
    registry.register_all([navigate, visible, value, *(t for t in ws.tools if isinstance(t, CompositeTool))])
    memory = Memory()
    memory.set("baseUrl", "http://127.0.0.1:9")
    ctx = ToolContext(registry, memory, DeviceInfo("web", "playwright-native", 1280, 800))
    registry.execute("sampleApp_web_openSection", {"section": "about", "expected": "About"}, ctx)
    assert navigate.calls == [{"url": "http://127.0.0.1:9/index.html#about"}]
    assert visible.calls == [{"ref": "css=#section-about"}]
    assert value.calls == [{"ref": "css=#section-about", "expected": "About"}]


NUMBER = """
id: shop_zoom
description: Zoom.
parameters:
  - name: factor
    type: number
tools:
  - rec: { factor: "{{factor}}", text: "x{{factor}}" }
"""


def test_a_number_parameter_keeps_integers_whole(tmp_path: Path) -> None:
    rec = Recorder("rec")
    s = Session(load(tmp_path, {"shop_zoom": NUMBER}), rec)
    s.run("shop_zoom", {"factor": 3})
    s.run("shop_zoom", {"factor": 2.5})
    assert rec.calls == [{"factor": 3, "text": "x3"}, {"factor": 2.5, "text": "x2.5"}]
    assert type(rec.calls[0]["factor"]) is int
    assert s.registry.get("shop_zoom").descriptor.parameters["properties"]["factor"]["type"] == "number"


def test_a_malformed_args_token_in_a_definition_is_a_load_problem(tmp_path: Path) -> None:
    text = """
    id: shop_bad
    description: Bad.
    parameters: []
    tools:
      - rec: { n: "{{args.count + 1}}" }
    """
    [problem] = load(tmp_path, {"shop_bad": text}).problems
    assert str(problem.span).endswith("shop_bad.tool.yaml:5:15")
    assert problem.what == "malformed args token '{{args.count + 1}}' in 'rec.n'"
    assert problem.fix
