"""TypeScript tools run by their host, a real Bun or Node + tsx subprocess, through the registry:
composition with siblings and Python tools, memory both ways, failures caught and uncaught, the
recursion bound, thrown errors located, the context, a tool that never settles, callbacks refused
outside a call. Every test runs on both runtimes."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import FatalToolError, ToolFailure
from pytest_trailblaze.core.masking import Masker
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry, recorded_calls
from pytest_trailblaze.core.tooling.tooldef import tool
from pytest_trailblaze.mcp.toolsets import McpToolsets
from pytest_trailblaze.session.workspaces import typescript_tools
from pytest_trailblaze.tools import builtin_tools
from pytest_trailblaze.typescript.hosts import TsHosts
from pytest_trailblaze.typescript.ts_tools import TsTool, bind
from pytest_trailblaze.workspace import Workspace, WorkspaceLoader

SECRET = "Sw0rdfish-7c1e"
WEB = DeviceInfo("web", "playwright-native", 1280, 800)

TOOLS = {
    "shop_double.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        export interface DoubleArgs { n: number }
        export interface Doubled { value: number }
        /** Double a number. */
        export const shop_double = trailblaze.tool<DoubleArgs, Doubled>(async ({ n }) => ({ value: n * 2 }));
    """,
    "shop_compose.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        export interface ComposeArgs { n: number }
        /** A sibling, then a Python tool. */
        export interface Composed { sum: number; said: string }
        export const shop_compose = trailblaze.tool<ComposeArgs, Composed>(async ({ n }, ctx) => {
          const doubled = await ctx.tools.shop_double({ n });
          const said = await ctx.tools.py_add({ a: doubled.value, b: 1 });
          return { sum: doubled.value + 1, said };
        });
    """,
    "shop_probe.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        /** Probe with try/catch. */
        export const shop_probe = trailblaze.tool(async (_input, ctx) => {
          try {
            await ctx.tools.assertEquals({ actual: "a", expected: "b" });
            return "no failure";
          } catch (error) {
            return `caught ${(error as Error).name}: ${(error as Error).message}`;
          }
        });
    """,
    "shop_uncaught.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        /** An inner failure nobody catches. */
        export const shop_uncaught = trailblaze.tool(async (_input, ctx) => {
          await ctx.tools.assertEquals({ actual: "left", expected: "right" });
          return "never";
        });
    """,
    "shop_unknown.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        /** Call a tool nobody has. */
        export const shop_unknown = trailblaze.tool(async (_input, ctx) => {
          try {
            await (ctx.tools as any).shop_nowhere({});
            return "found";
          } catch (error) {
            return (error as Error).message;
          }
        });
    """,
    "shop_recurse.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        export interface RecurseArgs { depth: number }
        /** Call itself, deeper and deeper. */
        export const shop_recurse = trailblaze.tool<RecurseArgs>(async ({ depth }, ctx) => {
          await ctx.tools.shop_recurse({ depth: depth + 1 });
          return `depth ${depth}`;
        });
    """,
    "shop_throw.ts": """
        import { trailblaze } from "@trailblaze/scripting";

        function check(value: string): void {
          if (value !== "ok") {
            throw new TypeError(`bad value ${value}`);
          }
        }

        /** Throw from a helper. */
        export const shop_throw = trailblaze.tool<{ value: string }>(async ({ value }) => {
          check(value);
          return "fine";
        });
    """,
    "shop_memory.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        /** Read, write, delete memory and hand a secret on by reference. */
        export const shop_memory = trailblaze.tool(async (_input, ctx) => {
          const seen = { user: ctx.memory.get("user"), password: ctx.memory.get("password"),
                         hasPassword: ctx.memory.has("password"), keys: ctx.memory.keys().sort(),
                         greeting: ctx.memory.interpolate("hi {{user}}, ${password}") };
          ctx.memory.set("fromTs", "written before the call");
          const inner = await ctx.tools.py_readMemory({ key: "fromTs" });
          const matches = await ctx.tools.py_isSecret({ value: ctx.memory.get("password") ?? "" });
          ctx.memory.set("after", ctx.memory.get("fromPython") ?? "missing");
          ctx.memory.delete("gone");
          return { seen, inner, matches };
        });
    """,
    "shop_context.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        /** What the context holds. */
        type Seen = Record<string, unknown>;
        export const shop_context = trailblaze.tool<{ word: string }, Seen>(async ({ word }, ctx) => {
          ctx.logger.info(`context asked with ${word}`);
          console.log(`console says ${word}`);
          return {
            device: ctx.device, baseUrl: ctx.baseUrl ?? null,
            sessionId: ctx.sessionId, invocation: ctx.invocationId,
            target: ctx.target ? { id: ctx.target.id, appIds: ctx.target.appIds,
                                   app: ctx.target.resolveAppId({ defaultAppId: "fallback" }) } : null,
            word,
          };
        });
    """,
    "shop_hang.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        /** Never settles. */
        export const shop_hang = trailblaze.tool(async () => new Promise<string>(() => {}));
    """,
    "shop_late.ts": """
        import { trailblaze } from "@trailblaze/scripting";
        /** Calls a tool after its own call has ended. */
        export const shop_late = trailblaze.tool(async (_input, ctx) => {
          setTimeout(() => {
            ctx.tools.assertEquals({ actual: "x", expected: "x" }).then(
              () => console.error("late callback: ran"),
              (error: Error) => console.error(`late callback: ${error.message}`),
            );
          }, 50);
          return "returned";
        });
    """,
    "shop_legacy.js": """
        export async function shop_legacy(args, ctx, client) {
          const said = await client.tools.py_add({ a: args.a, b: 10 });
          return `legacy ${said} on ${ctx.device.platform}`;
        }
    """,
    "shop_legacy.yaml": """
        script: ./shop_legacy.js
        name: shop_legacy
        description: A legacy tool.
        inputSchema:
          a: { type: integer }
    """,
}


@tool("py_add", source="python:test")
def py_add(ctx: Any, a: int, b: int) -> str:
    return f"{a}+{b}={a + b}"


@tool("py_readMemory", source="python:test")
def py_read_memory(ctx: Any, key: str) -> str:
    ctx.memory.set("fromPython", f"python saw {ctx.memory.get(key)}")
    return str(ctx.memory.get(key))


@tool("py_isSecret", source="python:test")
def py_is_secret(ctx: Any, value: str) -> str:
    return f"secret matches: {value == SECRET}; value was {value}"


def _write(root: Path) -> Path:
    config = root / "trails" / "config"
    tools = config / "trailmaps" / "shop" / "tools"
    import textwrap

    for name, text in TOOLS.items():
        tools.mkdir(parents=True, exist_ok=True)
        (tools / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    (config / "trailblaze.yaml").write_text("targets: [shop]\n")
    (config / "trailmaps/shop/trailmap.yaml").write_text(
        "id: shop\ntarget:\n  display_name: Shop\n  tools: [shop_compose]\n"
        "  platforms:\n    web:\n      base_url: http://shop.test\n    android:\n      app_ids: [com.shop]\n"
    )
    return config


class Session:
    """A registry like a session's: built-ins, the workspace's tools bound to hosts, Python tools."""

    def __init__(self, ws: Workspace, mcp: McpToolsets, scope: str) -> None:
        self.ws = ws
        self.mcp = mcp
        self.scope = scope
        self.registry = ToolRegistry(platform="web", driver_key="playwright-native")
        scripted = [t for t in ws.tools if isinstance(t, TsTool)]
        binding = TsHosts.of(mcp).binding(scope, ws.targets["shop"], WEB, scripted)
        self.registry.register_all(
            [*builtin_tools(), *bind(ws.tools, binding), py_add, py_read_memory, py_is_secret]
        )

    def context(self, memory: Memory | None = None) -> ToolContext:
        return ToolContext(self.registry, memory or Memory(), WEB)

    def run(self, name: str, args: dict[str, Any] | None = None, ctx: ToolContext | None = None) -> Any:
        ctx = ctx or self.context()
        return self.registry.execute(name, args or {}, ctx)


@pytest.fixture(autouse=True)
def _isolated() -> None:
    """The module's session sets PATH, the folder and the cache itself, for both runtimes."""


@pytest.fixture(scope="module", params=["bun", "tsx"])
def session(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, ts
) -> Iterator[Session]:
    """One workspace and its hosts per runtime: bun alone on PATH, or tsx (with node) alone."""
    root = tmp_path_factory.mktemp(f"host-{request.param}")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    for name in (request.param, "tsc"):
        (bin_dir / name).symlink_to(ts.NODE_BIN / name)
    plain = [p for p in os.environ["PATH"].split(os.pathsep) if p and not (Path(p) / "bun").exists()]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setenv("PATH", os.pathsep.join([str(bin_dir), *plain]))
        mp.setenv("TRAILBLAZE_CACHE_DIR", str(root / "cache"))
        mp.setenv("TRAILBLAZE_TS_MARK", ts.MARK)
        ts.forget_runtimes()
        ws = WorkspaceLoader(
            builtin_names=[t.name for t in builtin_tools()], scripted_tools=typescript_tools
        ).load(_write(root))
        assert [p.format() for p in ws.errors] == []
        mcp = McpToolsets(
            root / "logs",
            handshake_timeout=30,
            call_timeout=6,
            worker="tstest",
            masker=Masker({"password": SECRET}),
        )
        try:
            yield Session(ws, mcp, f"scope-{request.param}")
        finally:
            mcp.close()
            ts.forget_runtimes()
    assert ts.left_running() == {}


def host_runtime(session: Session) -> str:
    [server] = [s for (scope, _), s in TsHosts.of(session.mcp)._hosts.items()]
    return Path(server.launch.argv[0]).name


def test_siblings_and_python_tools_compose_and_objects_come_back_structured(session: Session) -> None:
    ctx = session.context()
    result = session.run("shop_compose", {"n": 20}, ctx)
    assert result.data == {"sum": 41, "said": "40+1=41"}
    assert json.loads(result.message) == {"sum": 41, "said": "40+1=41"}
    calls = [(e.name, e.depth, e.parent, e.success) for e in ctx.tool_log]
    assert calls == [("shop_compose", 0, None, True), ("shop_double", 1, 0, True), ("py_add", 1, 0, True)]
    assert [e.name for e in recorded_calls(ctx.tool_log)] == ["shop_compose"]


def test_the_host_runs_on_the_runtime_found(session: Session, request: pytest.FixtureRequest) -> None:
    session.run("shop_double", {"n": 1})
    assert host_runtime(session) == request.node.callspec.params["session"]


def test_a_caught_inner_failure_is_the_inner_tools_message(session: Session) -> None:
    ctx = session.context()
    result = session.run("shop_probe", {}, ctx)
    assert result.message == "caught ToolCallError: expected 'b' but got 'a'"
    assert [(e.name, e.success) for e in ctx.tool_log] == [("shop_probe", True), ("assertEquals", False)]


def test_an_uncaught_inner_failure_fails_the_tool_with_that_message_and_where(session: Session) -> None:
    with pytest.raises(ToolFailure) as info:
        session.run("shop_uncaught")
    message = str(info.value)
    assert message.startswith("tool 'shop_uncaught' failed: expected 'right' but got 'left'\n  at ")
    assert re.search(r"trails/config/trailmaps/shop/tools/shop_uncaught\.ts:4:\d+$", message), message


def test_an_unknown_tool_name_rejects_naming_it(session: Session) -> None:
    said = session.run("shop_unknown").message
    assert said.startswith("unknown tool 'shop_nowhere'")


def test_a_thrown_error_names_the_tool_the_message_and_the_ts_line(session: Session) -> None:
    with pytest.raises(ToolFailure) as info:
        session.run("shop_throw", {"value": "nope"})
    lines = str(info.value).splitlines()
    assert lines[0] == "tool 'shop_throw' threw TypeError: bad value nope"
    assert re.search(r"trails/config/trailmaps/shop/tools/shop_throw\.ts:5:\d+$", lines[1]), lines
    assert session.run("shop_throw", {"value": "ok"}).message == "fine"


def test_arguments_are_checked_against_the_ts_schema_before_the_call(session: Session) -> None:
    from pytest_trailblaze.core.errors import ToolArgumentError

    with pytest.raises(ToolArgumentError) as info:
        session.run("shop_double", {"n": "two", "extra": 1})
    assert "invalid arguments for 'shop_double'" in str(info.value)


def test_re_entry_is_bounded_and_the_error_names_the_chain(session: Session) -> None:
    with pytest.raises(FatalToolError) as info:
        session.run("shop_recurse", {"depth": 0})
    first = str(info.value).splitlines()[0]
    # sixteen nested calls ran; the seventeenth, refused, ends the chain
    assert first == "tool calls nested deeper than 16 levels: " + " -> ".join(["shop_recurse"] * 18)


def test_memory_round_trip_and_secrets_stay_out_of_the_host(session: Session) -> None:
    memory = Memory()
    memory.seed({"user": "ada", "gone": "soon"})
    memory.set("password", SECRET, secret=True)
    ctx = session.context(memory)
    result = session.run("shop_memory", {}, ctx).data
    assert result["seen"] == {
        "user": "ada",
        "password": "{{password}}",
        "hasPassword": True,
        "keys": ["gone", "password", "user"],
        "greeting": "hi ada, ${password}",
    }
    assert result["inner"] == "written before the call", "writes before a callback reach the inner tool"
    assert result["matches"] == "secret matches: True; value was ********", "the reference resolves here"
    assert memory.get("fromTs") == "written before the call"
    assert memory.get("after") == "python saw written before the call", (
        "the inner tool's writes reach the tool"
    )
    assert "gone" not in memory.public()
    assert memory.is_secret("password") and memory.get("password") == SECRET


def test_the_context_holds_device_target_base_url_session_and_a_logger(session: Session) -> None:
    first = session.run("shop_context", {"word": SECRET}).data
    second = session.run("shop_context", {"word": "again"}).data
    assert first["device"] == {
        "platform": "web",
        "widthPixels": 1280,
        "heightPixels": 800,
        "driverType": "playwright-native",
    }
    assert first["target"] == {"id": "shop", "appIds": [], "app": "fallback"}
    assert first["baseUrl"] == "http://shop.test"
    assert first["sessionId"] == second["sessionId"] and first["sessionId"].startswith("tb-tstest-")
    assert first["invocation"] != second["invocation"]
    [log] = session.mcp.logs(session.scope)
    text = log.read_text()
    assert "context asked with ********" in text and "console says ********" in text
    assert SECRET not in text


def test_a_legacy_function_gets_the_client_as_its_third_argument(session: Session) -> None:
    assert session.run("shop_legacy", {"a": 5}).message == "legacy 5+10=15 on web"


def test_a_callback_after_the_call_ended_is_refused(session: Session) -> None:
    assert session.run("shop_late").message == "returned"
    [log] = session.mcp.logs(session.scope)
    deadline = time.monotonic() + 10
    while "late callback:" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    text = log.read_text()
    assert "late callback: callback refused: it names no call in progress" in text
    assert "[trailblaze/callTool] callback refused: it names no call in progress" in text


def test_a_tool_that_never_settles_times_out_and_the_next_call_gets_a_fresh_host(session: Session) -> None:
    hosts = TsHosts.of(session.mcp)
    session.run("shop_double", {"n": 1})
    [before] = list(hosts._hosts.values())
    pid = before.connection.process.pid
    started = time.monotonic()
    with pytest.raises(ToolFailure) as info:
        session.run("shop_hang")
    assert time.monotonic() - started < 20
    assert "tool 'shop_hang' did not answer within 6 s" in str(info.value)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]
    assert session.run("shop_double", {"n": 4}).data == {"value": 8}
    [after] = list(hosts._hosts.values())
    assert after is not before
