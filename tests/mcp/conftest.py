"""Helpers of the MCP tests: fixture servers, targets declaring them, toolsets, process inspection.

Every server these tests start is a real subprocess (``servers/``): a Python ``MCPServer``, a
TypeScript ``McpServer`` (node + tsx, or bun) and a dependency-free JSON-RPC server for the
misbehaving cases. Servers started through a ``command:`` entry carry a ``--sentinel=`` argument
unique to this test run, so ``ps`` can tell whether any of them outlived its test.
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sandbox import matching, processes, write

from pytest_trailblaze.core.errors import SourceSpan
from pytest_trailblaze.core.masking import Masker
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.tooling.tooldef import Tool, ToolResult
from pytest_trailblaze.mcp import launch
from pytest_trailblaze.mcp.toolsets import McpToolsets
from pytest_trailblaze.workspace.model import Target
from pytest_trailblaze.workspace.schema import McpServerSpec

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
REPO = HERE.parents[1]
NODE_BIN = REPO / "node_modules" / ".bin"
#: The file that "declares" the servers of hand-built targets: relative paths resolve in servers/.
DECLARED = SERVERS / "trailmap.yaml"
PY_SERVER = SERVERS / "py_server.py"
TS_SERVER = SERVERS / "ts_server.ts"
RAW_SERVER = SERVERS / "raw_server.py"
#: Unique to this pytest run; every ``command:`` server of these tests carries it in its argv.
RUN_ID = f"mcpfx-{uuid.uuid4().hex[:12]}"

WEB = DeviceInfo("web", "playwright-native", 1280, 800)
ANDROID = DeviceInfo("android", "android-ondevice-accessibility", 1080, 2400)

#: Short enough to keep the suite fast, long enough for node + tsx on a busy machine.
HANDSHAKE_S = 20.0
CALL_S = 20.0


def sentinel(label: str = "") -> str:
    return f"--sentinel={RUN_ID}{'-' + label if label else ''}"


def script(path: str | Path, **extra: Any) -> McpServerSpec:
    return McpServerSpec(script=str(path), **extra)


def command(*args: str, label: str = "", **extra: Any) -> McpServerSpec:
    """A ``command:`` entry running this Python with ``args`` plus the run's sentinel argument.

    Only for the dependency-free ``raw_server.py``: the launcher resolves the symlinks of a
    ``command:`` path, so a virtualenv's ``python`` becomes its base interpreter, without ``mcp``
    (see test_launch.py::test_a_command_entry_naming_a_virtualenv_python_runs_in_that_virtualenv).
    """
    return McpServerSpec(command=sys.executable, args=[*args, sentinel(label)], **extra)


def py_command(*args: str, label: str = "", **extra: Any) -> McpServerSpec:
    """A ``command:`` entry running this (virtualenv) Python through ``env``, so it keeps ``mcp``."""
    return McpServerSpec(command="env", args=[sys.executable, *args, sentinel(label)], **extra)


def make_target(
    *servers: McpServerSpec, source: Path = DECLARED, target_id: str = "fx", tools: list[str] | None = None
) -> Target:
    return Target(
        target_id,
        "Fixture target",
        source,
        SourceSpan(str(source), 1, 1),
        mcp_servers=list(servers),
        tools=tools or [],
    )


def make_toolsets(
    log_dir: Path,
    *,
    handshake: float = HANDSHAKE_S,
    call: float = CALL_S,
    secrets: Mapping[str, str] | None = None,
) -> McpToolsets:
    """Toolsets as a worker has them; ``secrets`` (name -> value) are masked in what servers write."""
    return McpToolsets(
        log_dir, handshake_timeout=handshake, call_timeout=call, worker="mcptest", masker=Masker(secrets)
    )


@pytest.fixture
def toolsets(tmp_path: Path) -> Iterator[Callable[..., McpToolsets]]:
    """Make McpToolsets (logs under tmp_path); every one made is closed after the test."""
    made: list[McpToolsets] = []

    def factory(**kw: Any) -> McpToolsets:
        made.append(make_toolsets(tmp_path / f"logs{len(made)}", **kw))
        return made[-1]

    yield factory
    for ts in made:
        ts.close()


def registry_of(tools: list[Tool], device: DeviceInfo = WEB, agent_mode: str = "host") -> ToolRegistry:
    """A session registry: the built-in tools plus ``tools``."""
    from pytest_trailblaze.tools import builtin_tools

    registry = ToolRegistry(platform=device.platform, driver_key=device.driver_key, agent_mode=agent_mode)
    registry.register_all(builtin_tools())
    registry.register_all(tools)
    return registry


def context_of(registry: ToolRegistry, device: DeviceInfo = WEB, memory: Memory | None = None) -> ToolContext:
    return ToolContext(registry, memory or Memory(), device)


def run_tool(
    registry: ToolRegistry,
    name: str,
    args: Mapping[str, Any] | None = None,
    *,
    memory: Memory | None = None,
    device: DeviceInfo = WEB,
) -> ToolResult:
    """One call through the registry's dispatch boundary (interpolation, validation, hooks)."""
    return registry.execute(name, dict(args or {}), context_of(registry, device, memory))


class NoHooks:
    """A stand-in for ``config.hook`` where SessionRegistries is used outside pytest's plugin."""

    def __getattr__(self, name: str) -> Any:
        return lambda **kw: None


HOOKS = NoHooks()


# -- runtimes -------------------------------------------------------------------------------------
def clear_runtime_caches() -> None:
    launch.find_bun.cache_clear()
    launch.find_tsx.cache_clear()


def path_without(*names: str) -> str:
    """PATH minus every folder holding one of ``names``."""
    keep = [
        folder
        for folder in os.environ.get("PATH", "").split(os.pathsep)
        if folder and not any((Path(folder) / n).exists() for n in names)
    ]
    return os.pathsep.join(keep)


@contextmanager
def path_set(value: str) -> Iterator[None]:
    """PATH set to ``value`` (and the runtime look-ups forgotten) for the block."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PATH", value)
        clear_runtime_caches()
        try:
            yield
        finally:
            mp.undo()
            clear_runtime_caches()


def with_bun() -> str:
    """PATH with node_modules/.bin (bun, tsx) in front."""
    return os.pathsep.join([str(NODE_BIN), os.environ.get("PATH", "")])


def without_bun() -> str:
    return path_without("bun")


# -- processes ------------------------------------------------------------------------------------
def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        with Path(f"/proc/{pid}/stat").open() as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(marker: str, timeout: float = 5.0) -> dict[int, str]:
    """Processes matching ``marker`` still alive after up to ``timeout`` seconds (empty when none)."""
    deadline = time.monotonic() + timeout
    while True:
        left = {pid: args for pid, args in matching(marker).items() if pid_alive(pid)}
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def kill_matching(marker: str) -> None:
    """Clean up what a failed test left behind: SIGKILL, by pid, what carries this test's marker."""
    for pid in matching(marker):
        try:
            os.kill(pid, 9)
        except OSError:
            pass


# -- servers shared by the whole run (web, playwright-native, host agent) ---------------------------
#: Set in the parent's environment while the shared servers start: they must inherit it.
PARENT_SENTINEL = ("MCPFX_PARENT_SENTINEL", RUN_ID)


def start_tools(
    toolsets: McpToolsets,
    scope: Any,
    *servers: McpServerSpec,
    device: DeviceInfo = WEB,
    agent_mode: str = "host",
    path: str | None = None,
    target: Target | None = None,
) -> dict[str, Any]:
    """Start ``servers`` for ``scope`` (with ``path`` as PATH when given): the registrable tools by name."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(*PARENT_SENTINEL)
        if path is not None:
            mp.setenv("PATH", path)
        clear_runtime_caches()
        try:
            tools = toolsets.tools_for(scope, target or make_target(*servers), device, agent_mode)
        finally:
            mp.undo()
            clear_runtime_caches()
    return {t.name: t for t in tools}


@pytest.fixture(scope="session")
def shared_toolsets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpToolsets]:
    ts = make_toolsets(tmp_path_factory.mktemp("mcp-shared-logs"))
    yield ts
    ts.close()


@pytest.fixture(scope="session")
def py_tools(shared_toolsets: McpToolsets) -> dict[str, Any]:
    """The tools of ``py_server.py`` (a ``script:`` entry) in a web / playwright-native / host session."""
    return start_tools(shared_toolsets, "py", script("py_server.py"))


@pytest.fixture(scope="session")
def ts_node_tools(shared_toolsets: McpToolsets) -> dict[str, Any]:
    """The tools of ``ts_server.ts`` on node + tsx (bun kept off PATH)."""
    return start_tools(shared_toolsets, "ts-node", script("ts_server.ts"), path=without_bun())


@pytest.fixture(scope="session")
def ts_bun_tools(shared_toolsets: McpToolsets) -> dict[str, Any]:
    """The tools of ``ts_server.ts`` on bun (node_modules/.bin put on PATH)."""
    return start_tools(shared_toolsets, "ts-bun", script("ts_server.ts"), path=with_bun())


@pytest.fixture(autouse=True, scope="session")
def _no_fixture_server_survives_the_session() -> Iterator[None]:
    """Belt and braces: anything of this run still alive at the very end is killed (and reported)."""
    yield
    left = wait_gone(RUN_ID, timeout=2.0)
    kill_matching(RUN_ID)
    if left:
        sys.stderr.write(f"\nMCP fixture servers left behind by the tests (killed now): {left}\n")


# -- workspaces and trails for pytester runs ---------------------------------------------------------
#: Options of pytester runs: no screenshots (no browser work on failure), short MCP timeouts.
FAST = (
    "--trailblaze-screenshots=off",
    "--trailblaze-mcp-handshake-timeout=20",
    "--trailblaze-mcp-call-timeout=20",
)
QUIET = "-W ignore::pytest.PytestAssertRewriteWarning"


def workspace(base: Path, servers: str, *, extra: Mapping[str, str] | None = None) -> Path:
    """``base/trails/config`` with target ``fx`` (web) declaring ``servers`` (YAML list items)."""
    root = base / "trails" / "config"
    write(root, "trailblaze.yaml", "targets: [fx]\n")
    trailmap = f"""
id: fx
target:
  display_name: Fixture
  mcp_servers:
{servers}
  platforms:
    web: {{}}
"""
    (root / "trailmaps" / "fx").mkdir(parents=True)
    (root / "trailmaps" / "fx" / "trailmap.yaml").write_text(trailmap.lstrip())
    for rel, text in (extra or {}).items():
        write(root, rel, text)
    return root


def trail(trail_id: str, *steps: str) -> str:
    """A trail of target ``fx``: one step per block of web calls (YAML list items, indented 8)."""
    body = "".join(
        f"  - step: Use the MCP server ({number})\n    recording:\n      web:\n{calls}\n"
        for number, calls in enumerate(steps, 1)
    )
    return f"config:\n  id: {trail_id}\n  target: fx\ntrail:\n{body}"


def outcome_section(result: pytest.RunResult, title: str) -> str:
    """The lines of the failure or error section of pytest's report whose title holds ``title``."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if title in line and line.startswith("_"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith(("_", "="))), len(lines))
    return "\n".join(lines[start + 1 : end])


class Helpers:
    """What the MCP tests share, through the ``fx`` fixture (test folders are not packages)."""

    SERVERS = SERVERS
    DECLARED = DECLARED
    REPO = REPO
    NODE_BIN = NODE_BIN
    PY_SERVER = PY_SERVER
    TS_SERVER = TS_SERVER
    RAW_SERVER = RAW_SERVER
    RUN_ID = RUN_ID
    WEB = WEB
    ANDROID = ANDROID
    HOOKS = HOOKS
    McpServerSpec = McpServerSpec
    sentinel = staticmethod(sentinel)
    script = staticmethod(script)
    command = staticmethod(command)
    py_command = staticmethod(py_command)
    make_target = staticmethod(make_target)
    make_toolsets = staticmethod(make_toolsets)
    start_tools = staticmethod(start_tools)
    PARENT_SENTINEL = PARENT_SENTINEL
    registry_of = staticmethod(registry_of)
    context_of = staticmethod(context_of)
    run_tool = staticmethod(run_tool)
    clear_runtime_caches = staticmethod(clear_runtime_caches)
    path_without = staticmethod(path_without)
    path_set = staticmethod(path_set)
    with_bun = staticmethod(with_bun)
    without_bun = staticmethod(without_bun)
    processes = staticmethod(processes)
    matching = staticmethod(matching)
    pid_alive = staticmethod(pid_alive)
    wait_gone = staticmethod(wait_gone)
    kill_matching = staticmethod(kill_matching)
    write = staticmethod(write)
    FAST = FAST
    QUIET = QUIET
    workspace = staticmethod(workspace)
    trail = staticmethod(trail)
    outcome_section = staticmethod(outcome_section)


@pytest.fixture(scope="session")
def fx() -> type[Helpers]:
    """Shared helpers, paths and constants of the MCP tests."""
    return Helpers
