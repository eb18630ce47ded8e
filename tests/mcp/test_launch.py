"""How a server entry becomes a command line, and the errors when it cannot.

``.py`` runs on this Python; ``.ts`` on bun when it is on PATH, else node + tsx (node_modules/.bin
above the script, or PATH), else "No compatible TypeScript runtime found on PATH. Install bun or
Node with tsx."; a package.json without node_modules asks for ``npm ci``; a missing script or
command names what was looked for.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import ConfigurationError, ToolServerError
from pytest_trailblaze.mcp.launch import NO_TS_RUNTIME, SCRIPTING, resolve_server
from pytest_trailblaze.workspace.servers import mcp_script_roots

EXACT = "No compatible TypeScript runtime found on PATH. Install bun or Node with tsx."

#: Bun preloads our `@trailblaze/scripting` for TypeScript servers (`trailblaze.client(extra)`).
PRELOAD = str(SCRIPTING / "bun-preload.mjs")


def test_the_missing_runtime_message_is_the_documented_one() -> None:
    assert NO_TS_RUNTIME == EXACT


def test_a_typescript_script_without_bun_node_or_tsx_on_path(fx) -> None:
    with fx.path_set(fx.path_without("bun", "node", "tsx")), pytest.raises(ConfigurationError) as info:
        resolve_server(fx.script("ts_server.ts"), fx.DECLARED)
    assert str(info.value) == EXACT


def test_a_typescript_script_with_node_but_no_tsx_anywhere(tmp_path, fx) -> None:
    """Outside any node_modules tree, node alone cannot run TypeScript."""
    shutil.copy(fx.TS_SERVER, tmp_path / "server.ts")
    declared = tmp_path / "trailmap.yaml"
    assert shutil.which("node"), "node is on PATH in this environment"
    with fx.path_set(fx.path_without("bun", "tsx")), pytest.raises(ConfigurationError) as info:
        resolve_server(fx.script("server.ts"), declared)
    assert str(info.value) == EXACT


def test_the_missing_runtime_reaches_the_session_as_a_server_error(toolsets, fx) -> None:
    target = fx.make_target(fx.script("ts_server.ts"))
    with fx.path_set(fx.path_without("bun", "node", "tsx")), pytest.raises(ToolServerError) as info:
        toolsets().tools_for("no-runtime", target, fx.WEB, "host")
    assert EXACT in str(info.value)
    assert "fx" in str(info.value) and str(fx.DECLARED) in str(info.value)  # the target and its file


def test_bun_is_preferred_when_it_is_on_path(fx) -> None:
    with fx.path_set(fx.with_bun()):
        launch = resolve_server(fx.script("ts_server.ts"), fx.DECLARED)
    assert launch.argv == (str(fx.NODE_BIN / "bun"), "run", "--preload", PRELOAD, str(fx.TS_SERVER))
    assert launch.cwd == fx.SERVERS
    assert launch.toolset_file == fx.TS_SERVER


def test_tsx_from_node_modules_above_the_script_without_bun(fx) -> None:
    with fx.path_set(fx.without_bun()):
        launch = resolve_server(fx.script("ts_server.ts"), fx.DECLARED)
    assert launch.argv == (str(fx.NODE_BIN / "tsx"), str(fx.TS_SERVER))


def test_a_python_script_runs_on_this_python(fx) -> None:
    launch = resolve_server(fx.script("py_server.py"), fx.DECLARED)
    assert launch.argv == (sys.executable, str(fx.PY_SERVER))
    assert (launch.name, launch.cwd) == ("py_server", fx.SERVERS)


def test_a_missing_script_names_the_path_it_looked_for(fx) -> None:
    with pytest.raises(ConfigurationError) as info:
        resolve_server(fx.script("no_such_server.py"), fx.DECLARED)
    text = str(info.value)
    assert str(fx.SERVERS / "no_such_server.py") in text
    assert str(fx.DECLARED) in text
    assert "not found" in text


def test_a_missing_command_names_it(fx) -> None:
    spec = fx.command("x")
    missing = spec.model_copy(update={"command": "mcpfx-no-such-command"})
    with pytest.raises(ConfigurationError, match="'mcpfx-no-such-command' is not on PATH"):
        resolve_server(missing, fx.DECLARED)
    relative = spec.model_copy(update={"command": "./bin/no-such-server"})
    with pytest.raises(ConfigurationError) as info:
        resolve_server(relative, fx.DECLARED)
    assert str(fx.SERVERS / "bin" / "no-such-server") in str(info.value)


def test_a_typescript_script_under_a_package_json_without_node_modules(tmp_path, fx) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "package.json").write_text('{"type": "module", "dependencies": {"zod": "4"}}\n')
    shutil.copy(fx.TS_SERVER, tools / "server.ts")
    for path in (fx.with_bun(), fx.without_bun()):  # whichever runtime would run it
        with fx.path_set(path), pytest.raises(ConfigurationError) as info:
            resolve_server(fx.script("tools/server.ts"), tmp_path / "trailmap.yaml")
        text = str(info.value)
        assert "npm ci" in text and "npm install" in text
        assert str(tools / "package.json") in text
        assert str(tools / "server.ts") in text


def test_a_server_exiting_during_start_up_reports_its_code_and_stderr(tmp_path, toolsets, fx) -> None:
    broken = tmp_path / "broken_server.py"
    broken.write_text("import sys\nsys.stderr.write('cannot start: no config\\n')\nsys.exit(3)\n")
    target = fx.make_target(fx.script(str(broken)))
    with pytest.raises(ToolServerError) as info:
        toolsets().tools_for("broken", target, fx.WEB, "host")
    text = str(info.value)
    assert "MCP server broken_server exited with code 3 during start-up" in text
    assert "cannot start: no config" in text
    assert str(broken) in text


def test_a_command_entry_naming_a_virtualenv_python_runs_in_that_virtualenv(tmp_path, toolsets, fx) -> None:
    """`command: <venv>/bin/python` must run that interpreter (with the venv's packages), not the
    base interpreter the venv's symlink points to."""
    venv_python = Path(sys.executable)
    if not venv_python.is_symlink():
        pytest.skip("this interpreter is not a virtualenv symlink")
    spec = fx.McpServerSpec(command=str(venv_python), args=[str(fx.PY_SERVER), fx.sentinel("venv")])
    failure = None
    try:
        tools = fx.start_tools(toolsets(), "venv", spec)
    except ToolServerError as exc:  # py_server.py imports `mcp`, only installed in the venv
        failure = str(exc)
    assert failure is None, f"the server did not start on {venv_python}:\n{failure}"
    registry = fx.registry_of(list(tools.values()))
    seen = json.loads(fx.run_tool(registry, "pyfx_env").message)
    assert seen["argv"][0] == str(fx.PY_SERVER)
    assert resolve_server(spec, fx.DECLARED).argv[0] == str(venv_python)


def test_a_loaded_targets_script_outside_its_roots_is_refused_before_anything_starts(tmp_path, fx) -> None:
    """A workspace's target carries where its scripts may lie; launching checks it again (the loader
    reported it at its line), so ``trailblaze check`` going on after that error starts nothing."""
    root = tmp_path / "project"
    shutil.copy(fx.PY_SERVER, tmp_path / "server.py")
    (root / "node_modules" / "pkg").mkdir(parents=True)
    shutil.copy(fx.PY_SERVER, root / "node_modules" / "pkg" / "server.py")
    declared = root / "trails" / "config" / "trailmap.yaml"
    roots = mcp_script_roots(root)

    with pytest.raises(ConfigurationError) as info:
        resolve_server(fx.script("../../../server.py"), declared, roots)
    assert f"{declared}: MCP server `script: ../../../server.py` is outside the workspace root" in str(
        info.value
    )
    assert f"why: it resolves to {tmp_path / 'server.py'}" in str(info.value)

    inside = resolve_server(fx.script("../../node_modules/pkg/server.py"), declared, roots)
    assert inside.argv[-1] == str(root / "node_modules" / "pkg" / "server.py")
    allowed = resolve_server(fx.script("../../../server.py"), declared, mcp_script_roots(root, True))
    assert allowed.argv[-1] == str(tmp_path / "server.py")
