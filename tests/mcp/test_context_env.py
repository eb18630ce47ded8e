"""What a server sees: the ``_trailblazeContext`` of each call, its environment, folder and paths.

The spawn environment and the per-call context (docs/guides/mcp.md): memory without secrets, the device with a
lowercase platform, tool arguments memory-interpolated before the call; the parent environment
inherited plus the ``TRAILBLAZE_*`` contract; cwd = the script's folder (or ``cwd:``); relative
paths resolved against the declaring file's folder.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import InvalidSignature

from pytest_trailblaze.core.errors import ToolServerError
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.mcp import trailblaze_context
from pytest_trailblaze.mcp.sdk_context import TrailblazeContext

WEB_DEVICE = {"platform": "web", "widthPixels": 1280, "heightPixels": 800, "driverType": "playwright-native"}


def _memory() -> Memory:
    memory = Memory()
    memory.set("user", "ada")
    memory.set("count", 3)
    memory.set("password", "hunter2-secret", secret=True)
    memory.seed({"token": "tok-secret"}, secret=True)
    return memory


# -- _trailblazeContext --------------------------------------------------------------------------------
def test_python_server_reads_the_context_with_trailblaze_context(py_tools, fx) -> None:
    registry = fx.registry_of(list(py_tools.values()))
    seen = json.loads(fx.run_tool(registry, "pyfx_context", memory=_memory()).message)

    assert seen["raw"] == {"memory": {"user": "ada", "count": "3"}, "device": WEB_DEVICE}
    assert seen["parsed"] == {
        "memory": {"user": "ada", "count": "3"},
        "device": {
            "platform": "web",
            "width_pixels": 1280,
            "height_pixels": 800,
            "driver_type": "playwright-native",
        },
    }


@pytest.mark.parametrize("runtime", ["node", "bun"])
def test_typescript_server_receives_the_context_in_its_handler_args(request, fx, runtime: str) -> None:
    tools = request.getfixturevalue(f"ts_{runtime}_tools")
    registry = fx.registry_of(list(tools.values()))
    seen = json.loads(fx.run_tool(registry, "tsfx_context", memory=_memory()).message)
    assert seen == {"memory": {"user": "ada", "count": "3"}, "device": WEB_DEVICE}


def test_secrets_never_reach_a_server(py_tools, ts_node_tools, fx) -> None:
    memory = _memory()
    for tools, name in ((py_tools, "pyfx_context"), (ts_node_tools, "tsfx_context")):
        registry = fx.registry_of(list(tools.values()))
        message = fx.run_tool(registry, name, memory=memory).message
        assert "hunter2-secret" not in message and "tok-secret" not in message
        assert "password" not in message and "token" not in message


def test_the_device_platform_is_lowercase_for_a_non_web_device(shared_toolsets, fx) -> None:
    tools = fx.start_tools(shared_toolsets, "ctx-android", fx.script("py_server.py"), device=fx.ANDROID)
    registry = fx.registry_of(list(tools.values()), device=fx.ANDROID)
    seen = json.loads(fx.run_tool(registry, "pyfx_context", device=fx.ANDROID).message)
    assert seen["raw"]["device"] == {
        "platform": "android",
        "widthPixels": 1080,
        "heightPixels": 2400,
        "driverType": "android-ondevice-accessibility",
    }
    env = json.loads(fx.run_tool(registry, "pyfx_env", device=fx.ANDROID).message)["env"]
    assert env["TRAILBLAZE_DEVICE_PLATFORM"] == "ANDROID"


def test_tool_arguments_are_memory_interpolated_before_the_call(py_tools, ts_node_tools, fx) -> None:
    memory = _memory()
    registry = fx.registry_of(list(py_tools.values()))
    result = fx.run_tool(registry, "pyfx_args", {"text": "hi {{user}}", "count": 2}, memory=memory)
    args = json.loads(result.message)
    assert args == {"text": "hi ada", "count": 2}
    assert fx.run_tool(registry, "pyfx_echo", {"message": "${user}!"}, memory=memory).message == "ada!"

    ts_registry = fx.registry_of(list(ts_node_tools.values()))
    assert fx.run_tool(ts_registry, "tsfx_echo", {"message": "{{user}}"}, memory=memory).message == "ada"


def test_a_call_without_the_context_reads_as_none(py_tools) -> None:
    """The server API straight (no registry): no ``_trailblazeContext`` -> trailblaze_context is None."""
    result = py_tools["pyfx_context"].server.call("pyfx_context", {})
    assert json.loads(result.message) == {"raw": None, "parsed": None}


# -- MCPServer and `_trailblazeContext` (issue item 9) ----------------------------------------------------
def test_mcpserver_rejects_a_trailblazeContext_parameter() -> None:
    """The SDK refuses parameters starting with `_`: a Python server cannot declare the context."""
    server = MCPServer("rejects")

    def whoAmI(_trailblazeContext: dict | None = None) -> str:
        return "never registered"

    with pytest.raises(InvalidSignature, match="_trailblazeContext"):
        server.tool()(whoAmI)


def test_trailblaze_context_reads_the_sdk_context_instead() -> None:
    """The supported way: take the SDK's Context and hand it to trailblaze_context (in-process here,
    over stdio in test_python_server_reads_the_context_with_trailblaze_context)."""
    import anyio

    server = MCPServer("supported")
    seen: list[TrailblazeContext | None] = []

    @server.tool()
    def whoAmI(ctx: Context) -> str:
        seen.append(trailblaze_context(ctx))
        return "ok"

    arguments = {"_trailblazeContext": {"memory": {"user": "ada"}, "device": WEB_DEVICE}}

    async def call() -> None:
        from mcp import Client

        async with Client(server) as client:
            result = await client.call_tool("whoAmI", arguments)
            assert not result.is_error, result

    anyio.run(call)
    [context] = seen
    assert context is not None
    assert dict(context.memory) == {"user": "ada"}
    assert (context.device.platform, context.device.width_pixels) == ("web", 1280)
    assert trailblaze_context({"other": 1}) is None  # a mapping of raw arguments works too


# -- the environment ----------------------------------------------------------------------------------
def _env(tools: dict, fx, name: str = "pyfx_env") -> dict:
    registry = fx.registry_of(list(tools.values()))
    return json.loads(fx.run_tool(registry, name).message)


@pytest.mark.parametrize("server", ["py", "ts_node", "ts_bun"])
def test_the_spawn_environment_of_a_script_server(request, fx, server: str) -> None:
    tools = request.getfixturevalue(f"{server}_tools")
    seen = _env(tools, fx, "pyfx_env" if server == "py" else "tsfx_env")
    env = seen["env"]
    script = fx.PY_SERVER if server == "py" else fx.TS_SERVER

    assert env["TRAILBLAZE_DEVICE_PLATFORM"] == "WEB"
    assert env["TRAILBLAZE_DEVICE_DRIVER"] == "playwright-native"
    assert (env["TRAILBLAZE_DEVICE_WIDTH_PX"], env["TRAILBLAZE_DEVICE_HEIGHT_PX"]) == ("1280", "800")
    assert env["TRAILBLAZE_SESSION_ID"].strip()
    assert env["TRAILBLAZE_TOOLSET_FILE"] == str(script)
    assert Path(env["TRAILBLAZE_TOOLSET_FILE"]).is_absolute()
    assert env[fx.PARENT_SENTINEL[0]] == fx.PARENT_SENTINEL[1]  # the parent environment is inherited
    assert seen["cwd"] == str(fx.SERVERS)


def test_servers_of_one_session_scope_share_its_session_id(shared_toolsets, py_tools, fx) -> None:
    servers = (fx.script("py_server.py"), fx.script("raw_server.py"))
    both = fx.start_tools(shared_toolsets, "two-servers", *servers)
    assert {"raw_echo", "raw_env", "pyfx_env"} <= set(both)
    python_sees = _env(both, fx)["env"]
    raw_sees = _env(both, fx, "raw_env")
    assert raw_sees["TRAILBLAZE_SESSION_ID"] == python_sees["TRAILBLAZE_SESSION_ID"]
    assert raw_sees["TRAILBLAZE_TOOLSET_FILE"] == str(fx.RAW_SERVER)
    # another scope, another session
    assert python_sees["TRAILBLAZE_SESSION_ID"] != _env(py_tools, fx)["env"]["TRAILBLAZE_SESSION_ID"]


def test_a_command_entry_gets_its_env_and_cwd(tmp_path, toolsets, fx) -> None:
    declared = tmp_path / "decl" / "trailmap.yaml"
    (tmp_path / "decl" / "work").mkdir(parents=True)
    shutil.copy(fx.PY_SERVER, tmp_path / "decl" / "server.py")
    spec = fx.py_command(
        "./server.py", label="env", env={"MCPFX_FROM_ENTRY": "entry value", "MCPFX_SECOND": "2"}, cwd="work"
    )
    tools = fx.start_tools(toolsets(), "cmd", target=fx.make_target(spec, source=declared))

    seen = _env(tools, fx)
    assert seen["env"]["MCPFX_FROM_ENTRY"] == "entry value"
    assert seen["env"]["MCPFX_SECOND"] == "2"
    assert seen["env"][fx.PARENT_SENTINEL[0]] == fx.PARENT_SENTINEL[1]
    assert seen["env"]["TRAILBLAZE_DEVICE_PLATFORM"] == "WEB"
    assert seen["cwd"] == str((tmp_path / "decl" / "work").resolve())
    # "./server.py" was resolved against the declaring file's folder, not the test's cwd
    assert seen["argv"][0] == str((tmp_path / "decl" / "server.py").resolve())
    assert Path(seen["env"]["TRAILBLAZE_TOOLSET_FILE"]).is_absolute()


def test_a_command_entry_without_cwd_runs_in_the_declaring_folder(tmp_path, toolsets, fx) -> None:
    declared = tmp_path / "decl" / "trailmap.yaml"
    declared.parent.mkdir()
    spec = fx.command(str(fx.RAW_SERVER), "normal", label="cwd")
    tools = fx.start_tools(toolsets(), "cmd", target=fx.make_target(spec, source=declared))
    assert set(tools) == {"raw_echo", "raw_env"}
    pid = _pid_of(fx.sentinel("cwd"), fx)
    assert Path(f"/proc/{pid}/cwd").readlink() == declared.parent.resolve()


def test_a_relative_script_resolves_against_the_declaring_file(tmp_path, toolsets, fx, monkeypatch) -> None:
    declared = tmp_path / "a" / "config" / "trailmap.yaml"
    declared.parent.mkdir(parents=True)
    (tmp_path / "a" / "srv").mkdir()
    shutil.copy(fx.PY_SERVER, tmp_path / "a" / "srv" / "server.py")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the test's cwd plays no part

    tools = fx.start_tools(
        toolsets(), "rel", target=fx.make_target(fx.script("../srv/server.py"), source=declared)
    )
    seen = _env(tools, fx)
    script = (tmp_path / "a" / "srv" / "server.py").resolve()
    assert seen["env"]["TRAILBLAZE_TOOLSET_FILE"] == str(script)
    assert seen["cwd"] == str(script.parent)
    assert seen["argv"][0] == str(script)


def test_a_script_entry_with_cwd_runs_there(tmp_path, toolsets, fx) -> None:
    declared = tmp_path / "trailmap.yaml"
    (tmp_path / "there").mkdir()
    tools = fx.start_tools(
        toolsets(), "cwd", target=fx.make_target(fx.script(str(fx.PY_SERVER), cwd="there"), source=declared)
    )
    seen = _env(tools, fx)
    assert seen["cwd"] == str((tmp_path / "there").resolve())
    assert seen["env"]["TRAILBLAZE_TOOLSET_FILE"] == str(fx.PY_SERVER)


def test_a_relative_script_that_is_not_there_names_the_resolved_path(tmp_path, toolsets, fx) -> None:
    declared = tmp_path / "config" / "trailmap.yaml"
    target = fx.make_target(fx.script("../servers/missing.py"), source=declared)
    with pytest.raises(ToolServerError) as info:
        toolsets().tools_for("missing", target, fx.WEB, "host")
    assert str((tmp_path / "servers" / "missing.py").resolve()) in str(info.value)
    assert str(declared) in str(info.value)


def _pid_of(marker: str, fx) -> int:
    [pid] = [p for p, args in fx.matching(marker).items() if "raw_server.py" in args]
    return pid
