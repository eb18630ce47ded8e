"""How a server's answer becomes a result, and arguments checked before any call.

The first text content is the message; ``isError`` fails the step with that text (or says there
was none); an SDK error for an unknown tool is a failure too; structured content is kept; a call
whose arguments do not match the advertised JSON Schema never reaches the server.
"""

from __future__ import annotations

import pytest

from pytest_trailblaze.core.errors import FatalToolError, ToolArgumentError, ToolFailure


@pytest.fixture(scope="module")
def raw_tools(shared_toolsets, fx) -> dict:
    """The dependency-free server, which answers an unknown tool with a JSON-RPC error."""
    server = fx.command(str(fx.RAW_SERVER), "normal", label="res")
    return fx.start_tools(shared_toolsets, "results-raw", server)


def test_the_first_text_content_is_the_message(py_tools, fx) -> None:
    registry = fx.registry_of(list(py_tools.values()))
    result = fx.run_tool(registry, "pyfx_imageThenText")
    assert result.success is True
    assert result.message == "first text"


@pytest.mark.parametrize(
    ("tools", "tool", "args", "message"),
    [
        ("py_tools", "pyfx_fail", {"message": "the cart is empty"}, "the cart is empty"),
        ("ts_node_tools", "tsfx_fail", {"message": "flag is off"}, "flag is off"),
        ("ts_node_tools", "tsfx_throw", {"message": "handler threw"}, "handler threw"),
        ("ts_bun_tools", "tsfx_fail", {"message": "bun says no"}, "bun says no"),
    ],
)
def test_is_error_is_a_tool_failure_with_its_text(request, fx, tools, tool, args, message) -> None:
    registry = fx.registry_of(list(request.getfixturevalue(tools).values()))
    with pytest.raises(ToolFailure) as info:
        fx.run_tool(registry, tool, args)
    assert message in str(info.value)
    assert info.value.tool == tool
    assert not isinstance(info.value, FatalToolError)


def test_is_error_without_text_content_still_fails_and_says_so(py_tools, fx) -> None:
    registry = fx.registry_of(list(py_tools.values()))
    with pytest.raises(ToolFailure, match="isError=true with no text content"):
        fx.run_tool(registry, "pyfx_failWithoutText")


def test_an_sdk_error_for_an_unknown_tool_is_a_failure_and_the_server_lives_on(raw_tools, fx) -> None:
    server = raw_tools["raw_echo"].server
    with pytest.raises(ToolFailure) as info:
        server.call("raw_noSuchTool", {})
    assert "Unknown tool: raw_noSuchTool" in str(info.value)
    assert not isinstance(info.value, FatalToolError)
    assert server.broken is None
    assert server.call("raw_echo", {"message": "still here"}).message == "still here"


@pytest.mark.parametrize("tools", ["py_tools", "ts_node_tools"])
def test_an_unknown_tool_of_an_sdk_server_is_a_failure(request, tools) -> None:
    server = next(iter(request.getfixturevalue(tools).values())).server
    with pytest.raises(ToolFailure) as info:
        server.call("noSuchTool", {})
    assert "noSuchTool" in str(info.value)
    assert not isinstance(info.value, FatalToolError)
    assert server.broken is None


@pytest.mark.parametrize(
    ("tools", "tool"), [("py_tools", "pyfx_structured"), ("ts_node_tools", "tsfx_structured")]
)
def test_structured_content_is_kept_in_the_result_data(request, fx, tools, tool) -> None:
    registry = fx.registry_of(list(request.getfixturevalue(tools).values()))
    result = fx.run_tool(registry, tool, {"count": 21})
    assert result.data == {"count": 21, "double": 42}
    assert result.message  # the text content is still the message


def test_no_structured_content_leaves_the_data_empty(ts_node_tools, fx) -> None:
    registry = fx.registry_of(list(ts_node_tools.values()))
    assert fx.run_tool(registry, "tsfx_echo", {"message": "x"}).data is None


@pytest.mark.parametrize(
    ("args", "names"),
    [
        ({}, ["'step'", "required"]),
        ({"step": "two"}, ["'step'", "'two' is not of type 'integer'"]),
        ({"step": 1.5}, ["'step'", "integer"]),
    ],
    ids=["missing", "wrong-type", "float-for-int"],
)
def test_arguments_are_checked_against_the_schema_before_the_call(py_tools, fx, args, names) -> None:
    registry = fx.registry_of(list(py_tools.values()))
    before = fx.run_tool(registry, "pyfx_countValue").message

    with pytest.raises(ToolArgumentError) as info:
        fx.run_tool(registry, "pyfx_count", args)

    text = str(info.value)
    assert "pyfx_count" in text
    for name in names:
        assert name in text, text
    assert fx.run_tool(registry, "pyfx_countValue").message == before  # the server never saw the call


def test_a_wrong_type_for_a_typescript_tool_is_caught_before_the_call(ts_node_tools, fx) -> None:
    registry = fx.registry_of(list(ts_node_tools.values()))
    with pytest.raises(ToolArgumentError, match=r"tsfx_structured.*'count'.*integer"):
        fx.run_tool(registry, "tsfx_structured", {"count": "7"})
    with pytest.raises(ToolArgumentError, match=r"tsfx_echo.*missing required argument 'message'"):
        fx.run_tool(registry, "tsfx_echo", {})
