"""Scripted tools (decision "Synchronous Tool Execution"): Python callables that call other tools.

A script is ``fn(params, ctx)``; ``ctx.execute(name, params)`` re-enters the one dispatcher and
returns ``{"type": "Success" | "Error", "message": ...}``. Scripts come from ``script:`` tool files
(``path.py:function`` or ``module:function``) or from the framework ``script`` tool.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import (
    FatalToolError,
    ToolArgumentError,
    ToolFailure,
    UnknownToolError,
)
from pytest_trailblaze.core.system.pycall import ImportFailure, resolve_callable
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import MAX_DEPTH, ToolRegistry, recorded_calls
from pytest_trailblaze.core.tooling.scripts import run_script
from pytest_trailblaze.core.tooling.tooldef import Tool, tool
from pytest_trailblaze.tools.script import script as script_tool
from pytest_trailblaze.workspace import Workspace, WorkspaceLoader
from pytest_trailblaze.workspace.file_tools import ScriptTool

# -- primitives the scripts call ------------------------------------------------------------------

CALLS: list[tuple[str, dict[str, Any]]] = []


@pytest.fixture(autouse=True)
def _clear_calls() -> None:
    CALLS.clear()


@tool("tapText")
def tap_text(ctx: ToolContext, text: str) -> str:
    """A primitive that succeeds."""
    CALLS.append(("tapText", {"text": text}))
    return f"tapped {text}"


@tool("remember")
def remember(ctx: ToolContext, key: str, value: str) -> str:
    """A primitive that writes memory."""
    CALLS.append(("remember", {"key": key, "value": value}))
    ctx.memory.set(key, value)
    return f"{key}={value}"


@tool("failing")
def failing(ctx: ToolContext, why: str = "nope") -> None:
    """A primitive that fails recoverably."""
    raise ToolFailure(f"failing: {why}")


@tool("broken")
def broken(ctx: ToolContext) -> None:
    """A primitive whose machinery broke."""
    raise FatalToolError("the device went away")


@tool("viaRun")
def via_run(ctx: ToolContext, name: str, params: dict[str, Any]) -> str:
    """A Python tool that calls another tool (e.g. a script) through ``ctx.run``."""
    return ctx.run(name, params).message


PRIMITIVES: tuple[Tool, ...] = (tap_text, remember, failing, broken, via_run)

SCRIPTS = """
from pytest_trailblaze.core.errors import ToolFailure


def ok(params, ctx):
    result = ctx.execute("tapText", {"text": params["label"]})
    return f"{result['type']}: {result['message']}"


def recoverable(params, ctx):
    return {"results": [ctx.execute("failing", {"why": "x"}), ctx.execute("nosuchTool", {}),
                        ctx.execute("tapText", {}), ctx.execute("tapText", {"text": "after"})]}


def fatal(params, ctx):
    ctx.execute("broken", {})
    return "not reached"


def error_object(params, ctx):
    return {"type": "Error", "message": "the cart is not empty"}


def error_object_without_message(params, ctx):
    return {"type": "Error"}


def success_object(params, ctx):
    return {"type": "Success", "message": "all good"}


def returns_text(params, ctx):
    return "plain text"


def returns_none(params, ctx):
    return None


def asserts(params, ctx):
    assert params["count"] == 0, f"expected an empty cart, found {params['count']}"


def asserts_silently(params, ctx):
    assert False


def raises_tool_failure(params, ctx):
    raise ToolFailure("explicit failure")


def outer(params, ctx):
    ctx.execute("tapText", {"text": "outer-1"})
    inner = ctx.execute("viaRun", {"name": "shop_inner", "params": {"label": "deep"}})
    ctx.execute("tapText", {"text": "outer-2"})
    return "outer saw: " + inner["message"]


def inner(params, ctx):
    ctx.execute("remember", {"key": "innerKey", "value": params["label"]})
    return ctx.execute("tapText", {"text": "{{innerKey}}"})["message"]


def reads_memory(params, ctx):
    ctx.execute("shop_inner", {"label": "v1"})
    first = ctx.memory.get("innerKey")
    ctx.execute("remember", {"key": "innerKey", "value": "v2"})
    again = ctx.execute("tapText", {"text": "{{innerKey}}"})
    return f"{first} then {again['message']}"


def recurse(params, ctx):
    return ctx.execute("shop_recurse", {})


def echo(params, ctx):
    return repr(sorted(params.items()))
"""

TOOL_FILES = {
    "shop_ok": ("ok", "  - name: label\n    type: string\n"),
    "shop_recoverable": ("recoverable", ""),
    "shop_fatal": ("fatal", ""),
    "shop_errorObject": ("error_object", ""),
    "shop_errorObjectBare": ("error_object_without_message", ""),
    "shop_successObject": ("success_object", ""),
    "shop_returnsText": ("returns_text", ""),
    "shop_returnsNone": ("returns_none", ""),
    "shop_asserts": ("asserts", "  - name: count\n    type: integer\n"),
    "shop_assertsSilently": ("asserts_silently", ""),
    "shop_raisesToolFailure": ("raises_tool_failure", ""),
    "shop_outer": ("outer", ""),
    "shop_inner": ("inner", "  - name: label\n    type: string\n"),
    "shop_readsMemory": ("reads_memory", ""),
    "shop_recurse": ("recurse", ""),
    "shop_echo": (
        "echo",
        "  - name: a\n    type: integer\n  - name: b\n    type: string\n    default: dflt\n"
        "  - name: c\n    type: boolean\n    required: false\n",
    ),
}


def make_workspace(root: Path, spec: str = "scripts.py") -> Path:
    """A workspace whose tools all point at functions of one Python file beside them."""
    config = root / "trails" / "config"
    tools_dir = config / "trailmaps" / "shop" / "tools"
    tools_dir.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [shop]\n")
    (config / "trailmaps" / "shop" / "trailmap.yaml").write_text("id: shop\n")
    (tools_dir / "scripts.py").write_text(SCRIPTS)
    for name, (function, params) in TOOL_FILES.items():
        text = f"id: {name}\ndescription: Script {function}.\nparameters:{' []' if not params else ''}\n"
        (tools_dir / f"{name}.tool.yaml").write_text(text + params + f"script: {spec}:{function}\n")
    return config


class Session:
    def __init__(self, ws: Workspace) -> None:
        assert ws.problems == [], "\n".join(p.format() for p in ws.problems)
        self.registry = ToolRegistry(platform="web", driver_key="playwright-native")
        self.registry.register_all([*PRIMITIVES, script_tool, *ws.tools])
        self.memory = Memory()
        self.ctx = ToolContext(self.registry, self.memory, DeviceInfo("web", "playwright-native", 1280, 800))

    def run(self, name: str, args: dict[str, Any] | None = None) -> str:
        return self.registry.execute(name, args or {}, self.ctx).message

    def recorded(self) -> list[tuple[str, dict[str, Any]]]:
        return [(e.name, dict(e.args)) for e in recorded_calls(self.ctx.tool_log)]


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session(WorkspaceLoader().load(make_workspace(tmp_path)))


# -- loading -----------------------------------------------------------------------------------


def test_script_files_build_script_tools_that_are_never_recordable(session: Session) -> None:
    built = session.registry.get("shop_ok")
    assert isinstance(built, ScriptTool)
    assert built.descriptor.source == "script:shop_ok.tool.yaml"
    assert built.descriptor.is_recordable is False
    assert built.descriptor.description == "Script ok."


def test_module_function_form_resolves_beside_the_tool_file(tmp_path: Path) -> None:
    s = Session(WorkspaceLoader().load(make_workspace(tmp_path, spec="scripts")))
    assert s.run("shop_ok", {"label": "Buy"}) == "Success: tapped Buy"


def test_module_function_form_resolves_from_sys_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An installed module (outside the workspace) needs the opt-in: importing it runs its code."""
    module = f"shop_scripts_{abs(hash(str(tmp_path))):x}"
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / f"{module}.py").write_text(SCRIPTS)
    monkeypatch.syspath_prepend(str(lib))
    try:
        refused = WorkspaceLoader().load(make_workspace(tmp_path / "ws", spec=module))
        assert any(f"`script: {module}:echo` is outside the workspace root" in p.what for p in refused.errors)
        s = Session(
            WorkspaceLoader(allow_outside_code=True).load(make_workspace(tmp_path / "ws2", spec=module))
        )
        assert s.registry.get("shop_ok").function.__module__ == module  # type: ignore[attr-defined]
        assert "tapped Buy" in s.run("shop_ok", {"label": "Buy"})
    finally:
        sys.modules.pop(module, None)


def test_a_missing_script_function_fails_at_the_first_call(tmp_path: Path) -> None:
    """A script's facts are in its YAML: loading never imports it, so a bad attribute shows at the call."""
    config = make_workspace(tmp_path)
    path = config / "trailmaps/shop/tools/shop_ok.tool.yaml"
    path.write_text(path.read_text().replace("scripts.py:ok", "scripts.py:okk"))
    s = Session(WorkspaceLoader().load(config))
    with pytest.raises(ToolFailure) as info:
        s.run("shop_ok", {"label": "Buy"})
    assert str(info.value) == (
        f"tool 'shop_ok' (defined at {path}:1:5): cannot load `script:`: scripts.py has no attribute 'okk'\n"
        "  fix: check the module path (module:attribute or path/to/file.py:attribute)"
    )


def test_a_script_naming_something_not_callable_fails_at_the_first_call(tmp_path: Path) -> None:
    config = make_workspace(tmp_path)
    (config / "trailmaps/shop/tools/scripts.py").write_text(SCRIPTS + "\nNOT_A_FUNCTION = 3\n")
    path = config / "trailmaps/shop/tools/shop_ok.tool.yaml"
    path.write_text(path.read_text().replace("scripts.py:ok", "scripts.py:NOT_A_FUNCTION"))
    s = Session(WorkspaceLoader().load(config))
    with pytest.raises(ToolFailure) as info:
        s.run("shop_ok", {"label": "Buy"})
    assert "cannot load `script:`: scripts.py:NOT_A_FUNCTION is not callable" in str(info.value)


def test_a_missing_script_file_is_a_load_problem(tmp_path: Path) -> None:
    config = make_workspace(tmp_path)
    path = config / "trailmaps/shop/tools/shop_ok.tool.yaml"
    path.write_text(path.read_text().replace("scripts.py:ok", "gone.py:ok"))
    [problem] = WorkspaceLoader().load(config).problems
    assert str(problem.span) == f"{path}:1:5"
    gone = path.parent.resolve() / "gone.py"
    reason = f"no module gone.py on sys.path and no file {gone}"
    assert problem.what == f"tool 'shop_ok': cannot load `script:`: {reason}"


# -- ctx.execute ---------------------------------------------------------------------------------


def test_execute_returns_a_success_object(session: Session) -> None:
    assert session.run("shop_ok", {"label": "Buy"}) == "Success: tapped Buy"
    assert CALLS == [("tapText", {"text": "Buy"})]


def test_execute_returns_recoverable_failures_as_error_objects(session: Session) -> None:
    result = session.registry.execute("shop_recoverable", {}, session.ctx)
    failing_, unknown, bad_args, after = result.data["results"]
    assert failing_ == {"type": "Error", "message": "failing: x"}
    assert unknown["type"] == "Error"
    assert unknown["message"].startswith("unknown tool 'nosuchTool'")
    assert bad_args == {
        "type": "Error",
        "message": "invalid arguments for 'tapText': missing required argument 'text'",
    }
    assert after == {"type": "Success", "message": "tapped after"}
    assert [(e.name, e.success) for e in session.ctx.tool_log] == [
        ("shop_recoverable", True),
        ("failing", False),
        ("nosuchTool", False),
        ("tapText", False),
        ("tapText", True),
    ]


def test_error_messages_returned_to_scripts_are_masked(session: Session) -> None:
    session.memory.set("password", "hunter2", secret=True)

    def leak(params: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return {"got": ctx.execute("failing", {"why": "{{password}}"})}

    got = run_script(leak, {}, session.ctx, "leak").data["got"]
    assert got == {"type": "Error", "message": "failing: ********"}


def test_a_fatal_error_raises_through_execute_and_the_script(session: Session) -> None:
    with pytest.raises(FatalToolError, match=r"^the device went away$") as info:
        session.run("shop_fatal")
    assert info.value.tool == "broken"
    assert [(e.name, e.success) for e in session.ctx.tool_log] == [("shop_fatal", False), ("broken", False)]


# -- results -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("shop_errorObject", {}, "the cart is not empty"),
        ("shop_errorObjectBare", {}, "shop_errorObjectBare failed"),
        ("shop_asserts", {"count": 2}, "expected an empty cart, found 2"),
        ("shop_assertsSilently", {}, "shop_assertsSilently failed"),
        ("shop_raisesToolFailure", {}, "explicit failure"),
    ],
)
def test_a_script_fails_its_tool(session: Session, name: str, args: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolFailure) as info:
        session.run(name, args)
    assert str(info.value) == message
    assert info.value.tool == name
    [entry] = session.ctx.tool_log
    assert (entry.name, entry.success, entry.message) == (name, False, message)


@pytest.mark.parametrize(
    ("name", "message"),
    [("shop_successObject", "all good"), ("shop_returnsText", "plain text"), ("shop_returnsNone", "")],
)
def test_what_a_successful_script_returns_becomes_the_message(
    session: Session, name: str, message: str
) -> None:
    assert session.run(name) == message


def test_a_passing_assertion_passes(session: Session) -> None:
    assert session.run("shop_asserts", {"count": 0}) == ""


def test_a_script_receives_validated_parameters_with_defaults(session: Session) -> None:
    assert session.run("shop_echo", {"a": "7"}) == "[('a', 7), ('b', 'dflt')]"
    assert session.run("shop_echo", {"a": 1, "b": "x", "c": True}) == "[('a', 1), ('b', 'x'), ('c', True)]"
    with pytest.raises(
        ToolArgumentError, match=r"^invalid arguments for 'shop_echo': missing required argument 'a'$"
    ):
        session.run("shop_echo", {})


# -- nesting, recording, memory --------------------------------------------------------------------


def test_script_tool_script_tool_nesting(session: Session) -> None:
    message = session.run("shop_outer")
    assert message == "outer saw: tapped deep"
    assert CALLS == [
        ("tapText", {"text": "outer-1"}),
        ("remember", {"key": "innerKey", "value": "deep"}),
        ("tapText", {"text": "deep"}),
        ("tapText", {"text": "outer-2"}),
    ]
    log = session.ctx.tool_log
    assert [(e.name, e.parent, e.depth, e.is_recordable) for e in log] == [
        ("shop_outer", None, 0, False),
        ("tapText", 0, 1, True),
        ("viaRun", 0, 1, True),
        ("shop_inner", 2, 2, False),
        ("remember", 3, 3, True),
        ("tapText", 3, 3, True),
        ("tapText", 0, 1, True),
    ]


def test_a_script_is_recorded_as_the_primitives_it_ran_in_order(session: Session) -> None:
    session.run("shop_inner", {"label": "v"})
    session.run("tapText", {"text": "between"})
    session.run("shop_ok", {"label": "last"})
    assert session.recorded() == [
        ("remember", {"key": "innerKey", "value": "v"}),
        ("tapText", {"text": "v"}),
        ("tapText", {"text": "between"}),
        ("tapText", {"text": "last"}),
    ]


def test_nested_scripts_record_their_primitives_in_order(tmp_path: Path) -> None:
    ws = WorkspaceLoader().load(make_workspace(tmp_path))
    s = Session(ws)
    # viaRun is a recordable Python tool: it is recorded itself, its inner script is not.
    s.run("shop_outer")
    assert s.recorded() == [
        ("tapText", {"text": "outer-1"}),
        ("viaRun", {"name": "shop_inner", "params": {"label": "deep"}}),
        ("tapText", {"text": "outer-2"}),
    ]


def test_a_script_calling_a_script_records_only_primitives(session: Session) -> None:
    session.run("shop_readsMemory")
    assert session.recorded() == [
        ("remember", {"key": "innerKey", "value": "v1"}),
        ("tapText", {"text": "v1"}),
        ("remember", {"key": "innerKey", "value": "v2"}),
        ("tapText", {"text": "v2"}),
    ]


def test_memory_set_in_a_nested_call_is_visible_after_re_entry(session: Session) -> None:
    assert session.run("shop_readsMemory") == "v1 then tapped v2"
    assert session.memory.get("innerKey") == "v2"


def test_a_failed_primitive_is_not_recorded(session: Session) -> None:
    session.registry.execute("shop_recoverable", {}, session.ctx)
    assert session.recorded() == [("tapText", {"text": "after"})]


def test_a_script_calling_itself_stops_at_depth_17(session: Session) -> None:
    with pytest.raises(FatalToolError) as info:
        session.run("shop_recurse")
    message = str(info.value)
    assert MAX_DEPTH == 16
    head, _, fix = message.partition("\n")
    assert head.startswith("tool calls nested deeper than 16 levels: shop_recurse -> shop_recurse -> ")
    chain = head.split(": ", 1)[1].split(" -> ")
    assert set(chain) == {"shop_recurse"}
    # the recorded (top-level) call, the 16 nested calls allowed, and the one refused
    assert len(chain) == MAX_DEPTH + 2
    assert fix == "  fix: a tool probably calls itself; break the cycle"
    log = session.ctx.tool_log
    assert max(e.depth for e in log) == MAX_DEPTH
    assert len(log) == MAX_DEPTH + 1
    assert all(e.success is False for e in log)


# -- the framework `script` tool --------------------------------------------------------------------


@pytest.fixture
def trail_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "trails"
    folder.mkdir()
    (folder / "helpers.py").write_text(SCRIPTS)
    return folder


def framework_session(tmp_path: Path, trail_dir: Path) -> Session:
    s = Session(WorkspaceLoader().load(make_workspace(tmp_path / "ws")))
    s.ctx.trail_path = str(trail_dir / "cart.trail.yaml")
    return s


def test_the_script_tool_runs_a_function_beside_the_trail(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    message = s.run("script", {"function": "helpers.py:ok", "params": {"label": "Pay"}})
    assert message == "Success: tapped Pay"
    assert s.recorded() == [("tapText", {"text": "Pay"})]
    assert [(e.name, e.is_recordable) for e in s.ctx.tool_log] == [("script", False), ("tapText", True)]


def test_the_script_tool_module_form_and_nested_scripts(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    assert s.run("script", {"function": "helpers:reads_memory"}) == "v1 then tapped v2"
    assert [name for name, _ in s.recorded()] == ["remember", "tapText", "remember", "tapText"]


def test_the_script_tool_without_params(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    assert s.run("script", {"function": "helpers.py:returns_text"}) == "plain text"


@pytest.mark.parametrize(
    ("function", "message"),
    [
        ("helpers.py:error_object", "the cart is not empty"),
        ("helpers.py:asserts_silently", "script failed"),
    ],
)
def test_the_script_tool_fails_like_a_script_file(
    tmp_path: Path, trail_dir: Path, function: str, message: str
) -> None:
    s = framework_session(tmp_path, trail_dir)
    with pytest.raises(ToolFailure) as info:
        s.run("script", {"function": function})
    assert str(info.value) == message


def test_the_script_tool_lets_fatal_errors_through(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    with pytest.raises(FatalToolError, match="the device went away"):
        s.run("script", {"function": "helpers.py:fatal"})


def test_the_script_tool_rejects_inline_source(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    with pytest.raises(ToolFailure) as info:
        s.run("script", {"source": "trailblaze.execute('tap', {})"})
    assert str(info.value) == (
        "inline script `source:` is not supported: name a Python function instead, "
        "e.g. `script: {function: 'helpers.py:reset_cart', params: {...}}`"
    )


def test_the_script_tool_needs_a_function(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    with pytest.raises(
        ToolFailure, match=r"^script needs `function: module:attr` \(or `path/to/file.py:attr`\)$"
    ):
        s.run("script", {})


def test_the_script_tool_says_why_a_function_cannot_load(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    with pytest.raises(ToolFailure) as info:
        s.run("script", {"function": "helpers.py:nothing"})
    assert str(info.value) == "cannot load helpers.py:nothing: helpers.py has no attribute 'nothing'"
    with pytest.raises(ToolFailure) as info:
        s.run("script", {"function": "missing.py:fn"})
    assert str(info.value) == (
        f"cannot load missing.py:fn: no module missing.py on sys.path and no file {trail_dir / 'missing.py'}"
    )


def test_the_script_tool_rejects_unknown_arguments(tmp_path: Path, trail_dir: Path) -> None:
    s = framework_session(tmp_path, trail_dir)
    with pytest.raises(
        ToolArgumentError, match="unknown argument 'fucntion' \\(did you mean 'function'\\?\\)"
    ):
        s.run("script", {"fucntion": "helpers.py:ok"})


def test_the_script_tool_is_hidden_and_not_recordable() -> None:
    d = script_tool.descriptor
    assert (d.surface_to_llm, d.is_recordable, d.toolset, d.source) == (False, False, "meta", "builtin")


# -- resolve_callable -----------------------------------------------------------------------------


def test_resolve_callable_forms(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(
        "class Box:\n    @staticmethod\n    def fn():\n        return 1\n"
    )
    (tmp_path / "top.py").write_text("def fn():\n    return 2\n")
    assert resolve_callable("pkg/mod.py:Box.fn", tmp_path)() == 1
    assert resolve_callable("top.py:fn", tmp_path)() == 2
    assert resolve_callable(f"{tmp_path / 'top.py'}:fn", Path("/nonexistent"))() == 2
    assert resolve_callable("textwrap:dedent", tmp_path) is textwrap.dedent


@pytest.mark.parametrize("spec", ["nocolon", ":fn", "mod:"])
def test_resolve_callable_needs_module_and_attribute(tmp_path: Path, spec: str) -> None:
    with pytest.raises(ImportFailure) as info:
        resolve_callable(spec, tmp_path)
    assert str(info.value) == f"{spec!r} is not of the form module:attribute"


def test_resolve_callable_reports_a_broken_module(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("import definitely_not_a_module_xyz\n")
    with pytest.raises(ImportFailure) as info:
        resolve_callable("bad.py:fn", tmp_path)
    assert str(info.value) == (
        "importing bad.py failed: ModuleNotFoundError: No module named 'definitely_not_a_module_xyz'"
    )
    (tmp_path / "syntax.py").write_text("def fn(:\n")
    with pytest.raises(ImportFailure, match=r"^importing syntax.py failed: SyntaxError: "):
        resolve_callable("syntax.py:fn", tmp_path)


def test_resolve_callable_reports_a_module_that_fails_to_import(tmp_path: Path) -> None:
    with pytest.raises(ImportFailure) as info:
        resolve_callable("json.nope_xyz:fn", tmp_path)
    assert str(info.value) == (
        f"no module json.nope_xyz on sys.path and no file {tmp_path / 'json' / 'nope_xyz.py'}"
    )


def test_run_script_does_not_swallow_unknown_tool_errors(session: Session) -> None:
    def direct(params: dict[str, Any], ctx: ToolContext) -> None:
        ctx.run("nosuchTool", {})

    with pytest.raises(UnknownToolError):
        run_script(direct, {}, session.ctx, "direct")


def test_a_malformed_args_token_from_a_script_comes_back_as_an_error_object(session: Session) -> None:
    """Known bug (core/registry.py): ``ToolRegistry.execute`` interpolates memory before its ``try``.

    A malformed ``{{args...}}`` token sent by a script raises ``ConfigurationError`` straight out of
    the dispatcher: ``ctx.execute`` cannot return it as an Error object, the call is not logged and
    observers never see it, and the runner (which catches ``ToolError``) gets a raw exception.
    """

    def sends_bad_token(params: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return {"got": ctx.execute("tapText", {"text": "{{args.count + 1}}"})}

    got = run_script(sends_bad_token, {}, session.ctx, "sends_bad_token").data["got"]
    assert got["type"] == "Error"
    assert "malformed args token '{{args.count + 1}}'" in got["message"]
    assert [(e.name, e.success) for e in session.ctx.tool_log] == [("tapText", False)]
