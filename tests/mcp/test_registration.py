"""Tools of MCP servers are registered under their advertised names, shaped and filtered by ``_meta``.

As upstream (docs/upstream.md, MCP servers): filter order supportedDrivers -> supportedPlatforms ->
requiresHost (dropped in on-device agent mode), platform names in any case, malformed values counted
as absent; ``trailblaze/toolset`` pushes a tool into a toolset; ``surfaceToLlm`` / ``isRecordable`` shape the
descriptor; ``requiresContext`` is kept as metadata only.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import threading
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import RegistryError, UnknownToolError, UnsupportedToolError
from pytest_trailblaze.core.tooling.registry import recorded_calls
from pytest_trailblaze.mcp.launch import SCRIPTING
from pytest_trailblaze.mcp.server_tools import McpTool, skip_reason
from pytest_trailblaze.mcp.toolsets import McpToolsets
from pytest_trailblaze.session.registries import SessionRegistries, ToolCatalog
from pytest_trailblaze.tools import builtin_tools
from pytest_trailblaze.workspace import WorkspaceLoader, toolbox

PY_FUNCTIONAL = {
    "pyfx_echo",
    "pyfx_context",
    "pyfx_env",
    "pyfx_args",
    "pyfx_count",
    "pyfx_countValue",
    "pyfx_fail",
    "pyfx_failWithoutText",
    "pyfx_imageThenText",
    "pyfx_structured",
    "pyfx_sleep",
    "pyfx_stderr",
    "pyfx_crash",
    "pyfx_remember",
}
#: ``_meta`` tools of py_server.py registered in a web / playwright-native / host session.
PY_META_WEB_HOST = {
    "pyfx_anyDriver",
    "pyfx_playwrightDriver",
    "pyfx_webLower",
    "pyfx_webUpper",
    "pyfx_hostOnly",
    "pyfx_notHostOnly",
    "pyfx_badDrivers",
    "pyfx_badDriverItems",
    "pyfx_badPlatforms",
    "pyfx_badHost",
    "pyfx_badSurface",
    "pyfx_badRecordable",
    "pyfx_badToolset",
    "pyfx_supportHours",
    "pyfx_otherToolset",
    "pyfx_hidden",
    "pyfx_unrecorded",
    "pyfx_needsContext",
}
TS_WEB = {
    "tsfx_echo",
    "tsfx_context",
    "tsfx_env",
    "tsfx_fail",
    "tsfx_throw",
    "tsfx_structured",
    "tsfx_webOnly",
    "tsfx_supportTool",
    "tsfx_remember",
}

#: Bun preloads our `@trailblaze/scripting` for TypeScript servers (`trailblaze.client(extra)`).
PRELOAD = str(SCRIPTING / "bun-preload.mjs")


# -- names ------------------------------------------------------------------------------------------
def test_python_server_tools_register_under_their_advertised_names(py_tools, fx) -> None:
    assert set(py_tools) == PY_FUNCTIONAL | PY_META_WEB_HOST
    registry = fx.registry_of(list(py_tools.values()))
    assert set(registry.names()) >= PY_FUNCTIONAL
    assert all(isinstance(registry.get(name), McpTool) for name in py_tools)

    assert fx.run_tool(registry, "pyfx_echo", {"message": "hello"}).message == "hello"
    # the descriptor names the server and its command line (what collision messages show)
    source = registry.get("pyfx_echo").descriptor.source
    assert source == f"mcp:py_server ({sys.executable} {fx.PY_SERVER})"
    assert registry.get("pyfx_echo").descriptor.description == "Return the message."


def test_typescript_server_on_node_and_tsx_registers_its_tools(ts_node_tools, fx) -> None:
    assert set(ts_node_tools) == TS_WEB  # tsfx_iosOnly is filtered out on web
    server = ts_node_tools["tsfx_echo"].server
    assert server.launch.argv == (str(fx.NODE_BIN / "tsx"), str(fx.TS_SERVER))
    registry = fx.registry_of(list(ts_node_tools.values()))
    assert fx.run_tool(registry, "tsfx_echo", {"message": "from node"}).message == "from node"
    env = _json(fx.run_tool(registry, "tsfx_env").message)
    assert env["runtime"] == "node"


def test_typescript_server_on_bun_registers_its_tools(ts_bun_tools, fx) -> None:
    assert set(ts_bun_tools) == TS_WEB
    server = ts_bun_tools["tsfx_echo"].server
    assert server.launch.argv == (str(fx.NODE_BIN / "bun"), "run", "--preload", PRELOAD, str(fx.TS_SERVER))
    registry = fx.registry_of(list(ts_bun_tools.values()))
    assert fx.run_tool(registry, "tsfx_echo", {"message": "from bun"}).message == "from bun"
    env = _json(fx.run_tool(registry, "tsfx_env").message)
    assert env["runtime"] == "bun"


def test_typescript_toolset_and_requires_context_meta(ts_node_tools) -> None:
    support = ts_node_tools["tsfx_supportTool"]
    assert support.descriptor.toolset == "tsfx_support"
    assert support.requires_context is True
    assert ts_node_tools["tsfx_echo"].descriptor.toolset is None
    assert ts_node_tools["tsfx_echo"].requires_context is False


# -- _meta filters, through tools_for with real servers ---------------------------------------------
@pytest.fixture(scope="module")
def scoped(shared_toolsets: McpToolsets, fx):
    """py_server.py's registered tools per (device, agent mode), one server per session scope."""
    cache: dict[tuple[str, str], dict] = {}

    def tools(device: str, agent_mode: str) -> dict:
        key = (device, agent_mode)
        if key not in cache:  # tools_for starts a scope once (see test_starting_a_scope_twice...)
            info = {"web": fx.WEB, "android": fx.ANDROID}[device]
            server = fx.script("py_server.py")
            cache[key] = fx.start_tools(
                shared_toolsets, ("filters", *key), server, device=info, agent_mode=agent_mode
            )
        return cache[key]

    return tools


@pytest.mark.parametrize(
    ("device", "agent_mode", "tool", "registered"),
    [
        # supportedDrivers: a match in any case, no match, empty = all
        ("web", "host", "pyfx_playwrightDriver", True),  # ["Playwright-Native"] vs playwright-native
        ("web", "host", "pyfx_androidDriver", False),
        ("android", "host", "pyfx_androidDriver", True),
        ("android", "host", "pyfx_playwrightDriver", False),
        ("web", "host", "pyfx_anyDriver", True),
        # supportedPlatforms: `web` and `WEB` alike
        ("web", "host", "pyfx_webLower", True),
        ("web", "host", "pyfx_webUpper", True),
        ("web", "host", "pyfx_androidOnly", False),
        ("android", "host", "pyfx_androidOnly", True),
        ("android", "host", "pyfx_webLower", False),
        ("android", "host", "pyfx_webUpper", False),
        # requiresHost: kept for a host agent, dropped on-device
        ("web", "host", "pyfx_hostOnly", True),
        ("web", "on-device", "pyfx_hostOnly", False),
        ("web", "on-device", "pyfx_notHostOnly", True),
        ("web", "on-device", "pyfx_echo", True),
        # malformed values count as absent (honoured, each would drop the tool here)
        ("web", "host", "pyfx_badDrivers", True),  # a string, not a list
        ("web", "host", "pyfx_badDriverItems", True),  # a list of numbers
        ("web", "host", "pyfx_badPlatforms", True),  # a string, not a list
        ("web", "on-device", "pyfx_badHost", True),  # "true", not a bool
    ],
)
def test_meta_filters_decide_registration(scoped, device, agent_mode, tool, registered) -> None:
    assert (tool in scoped(device, agent_mode)) is registered


def test_a_filtered_tool_is_unknown_to_the_session(scoped, fx) -> None:
    tools = scoped("web", "on-device")
    registry = fx.registry_of(list(tools.values()), agent_mode="on-device")
    with pytest.raises(UnknownToolError, match="unknown tool 'pyfx_hostOnly'"):
        fx.run_tool(registry, "pyfx_hostOnly")
    assert fx.run_tool(registry, "pyfx_notHostOnly").message == "pyfx_notHostOnly ran"


def test_a_requires_host_tool_registered_for_a_host_session_is_refused_on_device(py_tools, fx) -> None:
    """The descriptor keeps requiresHost: the registry refuses the tool in an on-device registry."""
    assert py_tools["pyfx_hostOnly"].descriptor.requires_host is True
    assert py_tools["pyfx_badHost"].descriptor.requires_host is False
    registry = fx.registry_of([py_tools["pyfx_hostOnly"]], agent_mode="on-device")
    with pytest.raises(UnsupportedToolError, match="needs a host"):
        fx.run_tool(registry, "pyfx_hostOnly")


@pytest.mark.parametrize(
    ("meta", "kwargs", "dropped_by"),
    [
        ({"trailblaze/supportedDrivers": ["PLAYWRIGHT-NATIVE"]}, {}, None),
        ({"trailblaze/supportedDrivers": ["appium"]}, {}, "supportedDrivers"),
        ({"trailblaze/supportedDrivers": []}, {}, None),
        ({"trailblaze/supportedPlatforms": ["Web"]}, {}, None),
        ({"trailblaze/supportedPlatforms": ["ios"]}, {}, "supportedPlatforms"),
        ({"trailblaze/supportedPlatforms": "ios"}, {}, None),
        ({"trailblaze/supportedPlatforms": None}, {}, None),
        ({"trailblaze/requiresHost": True}, {"agent_mode": "on-device"}, "requiresHost"),
        ({"trailblaze/requiresHost": 1}, {"agent_mode": "on-device"}, None),
        # order: drivers first, then platforms, then requiresHost
        (
            {
                "trailblaze/supportedDrivers": ["appium"],
                "trailblaze/supportedPlatforms": ["ios"],
                "trailblaze/requiresHost": True,
            },
            {"agent_mode": "on-device"},
            "supportedDrivers",
        ),
        (
            {"trailblaze/supportedPlatforms": ["ios"], "trailblaze/requiresHost": True},
            {"agent_mode": "on-device"},
            "supportedPlatforms",
        ),
    ],
)
def test_skip_reason_order_and_malformed_values(meta, kwargs, dropped_by) -> None:
    args = {"platform": "web", "driver_key": "playwright-native", "agent_mode": "host", **kwargs}
    reason = skip_reason(meta, **args)
    if dropped_by is None:
        assert reason is None
    else:
        assert reason is not None
        assert reason.startswith(dropped_by), reason


# -- descriptor shaping ------------------------------------------------------------------------------
def test_meta_shapes_the_descriptors(py_tools) -> None:
    d = {name: tool.descriptor for name, tool in py_tools.items()}
    assert d["pyfx_supportHours"].toolset == "pyfx_support"
    assert d["pyfx_badToolset"].toolset is None  # 42 is not a toolset name
    assert d["pyfx_echo"].toolset is None
    assert (d["pyfx_hidden"].surface_to_llm, d["pyfx_hidden"].is_recordable) == (False, True)
    assert (d["pyfx_unrecorded"].surface_to_llm, d["pyfx_unrecorded"].is_recordable) == (True, False)
    assert d["pyfx_badSurface"].surface_to_llm is True  # "false" is not a bool
    assert d["pyfx_badRecordable"].is_recordable is True  # 0 is not a bool
    assert (d["pyfx_echo"].surface_to_llm, d["pyfx_echo"].is_recordable) == (True, True)


def test_requires_context_is_kept_as_metadata_only(py_tools, fx) -> None:
    tool = py_tools["pyfx_needsContext"]
    assert tool.requires_context is True
    assert tool.meta["trailblaze/requiresContext"] is True
    assert py_tools["pyfx_echo"].requires_context is False
    registry = fx.registry_of([tool])
    assert fx.run_tool(registry, "pyfx_needsContext").message == "pyfx_needsContext ran"


def test_is_recordable_false_keeps_a_call_out_of_the_recording(py_tools, fx) -> None:
    registry = fx.registry_of(list(py_tools.values()))
    ctx = fx.context_of(registry)
    ctx.run("pyfx_echo", {"message": "kept"})
    ctx.run("pyfx_unrecorded")
    ctx.run("pyfx_hidden")
    assert [e.name for e in ctx.tool_log] == ["pyfx_echo", "pyfx_unrecorded", "pyfx_hidden"]
    assert [e.name for e in recorded_calls(ctx.tool_log)] == ["pyfx_echo", "pyfx_hidden"]


# -- toolsets and the workspace toolbox ----------------------------------------------------------------
def _workspace(base: Path, fx, tool_sets: list[str]) -> Path:
    """A workspace whose target runs the fixture server, copied inside it (scripts stay inside)."""
    root = base / "trails" / "config"
    fx.write(root, "trailblaze.yaml", "targets: [fx]\n")
    fx.write(root, "trailmaps/fx/py_server.py", fx.PY_SERVER.read_text())
    fx.write(
        root,
        "trailmaps/fx/trailmap.yaml",
        f"""
        id: fx
        target:
          display_name: Fixture
          mcp_servers:
            - script: py_server.py
          platforms:
            web:
              tool_sets: {tool_sets}
        """,
    )
    return root


@pytest.mark.parametrize("enabled", [True, False], ids=["toolset-enabled", "toolset-not-enabled"])
def test_a_pushed_toolset_is_offered_when_the_target_enables_it(tmp_path, fx, toolsets, enabled) -> None:
    sets = ["memory", "pyfx_support"] if enabled else ["memory"]
    config = _workspace(tmp_path, fx, sets)
    ws = WorkspaceLoader(builtin_names=(t.name for t in builtin_tools())).load(config)
    assert ws.errors == []
    target = ws.targets["fx"]
    sessions = SessionRegistries(ToolCatalog(), fx.HOOKS, toolsets())

    registry = sessions.get(workspace=ws, target=target, device=fx.WEB, agent_mode="host")

    assert "pyfx_supportHours" in registry and "pyfx_otherToolset" in registry  # replay may call both
    offered = {d.name for d in toolbox(ws, target, registry)}
    assert ("pyfx_supportHours" in offered) is enabled
    assert "pyfx_otherToolset" not in offered  # its toolset is never enabled
    assert "pyfx_echo" in offered  # no toolset: offered with the target's tools
    assert "pyfx_hidden" not in offered  # surfaceToLlm false
    assert "pyfx_hidden" in {d.name for d in toolbox(ws, target, registry, show_hidden=True)}
    assert "dumpMemory" in offered  # the `memory` toolset


def test_starting_a_scope_twice_reuses_its_servers(toolsets, fx) -> None:
    """tools_for says it starts a scope's servers once: a second call must not spawn another server,
    and close() must stop everything in bounded time (the test unblocks a hung close itself)."""
    marker = fx.sentinel("twice")
    target = fx.make_target(fx.py_command("./py_server.py", label="twice"))
    ts = toolsets()
    first = ts.tools_for("scope", target, fx.WEB, "host")
    second = ts.tools_for("scope", target, fx.WEB, "host")
    problems = []
    running = fx.matching(marker)
    if second[0].server is not first[0].server or len(running) != 1:
        problems.append(f"a second tools_for of the scope started another server: {sorted(running.values())}")

    loop = ts.portal._loop()  # kept to unblock a hung close() below
    closer = threading.Thread(target=ts.close, daemon=True)
    closer.start()
    closer.join(timeout=8)  # a Python server that exits on stdin EOF stops in well under a second
    if closer.is_alive():
        problems.append("close() did not return within 8 s")
    left = fx.wait_gone(marker, timeout=1)
    if left:
        problems.append(f"close() left servers of the scope running: {sorted(left.values())}")
    if closer.is_alive():  # clean up what the product lost track of, so that close() can end
        for server in {id(t[0].server): t[0].server for t in (first, second)}.values():
            asyncio.run_coroutine_threadsafe(server.connection.stop(), loop).result(timeout=5)
        closer.join(timeout=15)
    fx.kill_matching(marker)
    assert not problems, "\n".join(problems)


def _json(text: str):
    import json

    return json.loads(text)


# -- collisions ----------------------------------------------------------------------------------------
def test_a_server_advertising_a_builtin_name_is_a_registry_error_naming_both(toolsets, fx) -> None:
    spec = fx.py_command("./py_server.py", "--with-wait", label="wait", name="waiter")
    target = fx.make_target(spec)
    sessions = SessionRegistries(ToolCatalog(), fx.HOOKS, toolsets())

    with pytest.raises(RegistryError) as info:
        sessions.get(workspace=None, target=target, device=fx.WEB, agent_mode="host")

    text = str(info.value)
    command_line = f"{shutil.which('env')} {sys.executable} {fx.PY_SERVER} --with-wait {fx.sentinel('wait')}"
    assert f"tool name collision: 'wait' is defined by mcp:waiter ({command_line})" in text
    assert "and by builtin" in text
    # the scope keeps failing the same way, without another server
    running = fx.matching(fx.sentinel("wait"))
    with pytest.raises(RegistryError) as again:
        sessions.get(workspace=None, target=target, device=fx.WEB, agent_mode="host")
    assert str(again.value) == text
    assert fx.matching(fx.sentinel("wait")) == running


def test_a_server_tool_named_like_a_workspace_tool_is_a_registry_error_naming_both(tmp_path, toolsets, fx):
    root = tmp_path / "trails" / "config"
    fx.write(root, "trailblaze.yaml", "targets: [fx]\n")
    args = f'[{sys.executable}, {fx.PY_SERVER}, "--also=fx_greet", "{fx.sentinel("ws")}"]'
    entry = f"command: env\n      args: {args}"
    fx.write(
        root,
        "trailmaps/fx/trailmap.yaml",
        f"id: fx\ntarget:\n  display_name: Fixture\n  mcp_servers:\n    - {entry}\n      name: greeter\n",
    )
    fx.write(
        root,
        "trailmaps/fx/tools/fx_greet.tool.yaml",
        "id: fx_greet\ndescription: Greet.\nparameters: []\ntools:\n  - dumpMemory: {}\n",
    )
    ws = WorkspaceLoader(builtin_names=(t.name for t in builtin_tools())).load(root)
    assert ws.errors == []
    sessions = SessionRegistries(ToolCatalog(), fx.HOOKS, toolsets())

    with pytest.raises(RegistryError) as info:
        sessions.get(workspace=ws, target=ws.targets["fx"], device=fx.WEB, agent_mode="host")

    text = str(info.value)
    assert "tool name collision: 'fx_greet'" in text
    assert f"mcp:greeter ({shutil.which('env')} {sys.executable} {fx.PY_SERVER} --also=fx_greet" in text
    assert "yaml:fx_greet.tool.yaml" in text


def test_two_servers_advertising_the_same_name_collide(toolsets, fx) -> None:
    target = fx.make_target(fx.script("py_server.py"), fx.script("py_server.py", name="second"))
    sessions = SessionRegistries(ToolCatalog(), fx.HOOKS, toolsets())
    with pytest.raises(RegistryError) as info:
        sessions.get(workspace=None, target=target, device=fx.WEB, agent_mode="host")
    text = str(info.value)
    assert "tool name collision: 'pyfx_" in text
    assert f"mcp:second ({sys.executable} {fx.PY_SERVER})" in text
    assert f"mcp:py_server ({sys.executable} {fx.PY_SERVER})" in text
