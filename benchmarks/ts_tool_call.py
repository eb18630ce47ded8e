"""A TypeScript tool that makes one primitive call, against the same primitive called directly
(as a trail's YAML recording calls it), side by side through the registry, on each runtime.

The primitive is a no-op Python tool, so the figure is the TypeScript path's own cost: the call
to the host process, the ``ctx.tools`` request back over the pipe, the inner call, the answer.
Each round runs a fresh host and makes ``--calls`` calls on each path, the TypeScript path's
first call included. A session starts its hosts in the background when its registry is built,
while the browser starts, so the rounds begin once the host is up; its start-up (spawn,
handshake, loading and transpiling the tool file) is printed on its own, and so is a first call
that finds no host at all. Goal: at most 10 ms more per call than the primitive.

    .venv/bin/python benchmarks/ts_tool_call.py [--calls 30] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.tooling.tooldef import tool
from pytest_trailblaze.mcp.toolsets import McpToolsets
from pytest_trailblaze.session.workspaces import typescript_tools
from pytest_trailblaze.typescript import runtime
from pytest_trailblaze.typescript.hosts import TsHosts
from pytest_trailblaze.typescript.ts_tools import TsTool, bind
from pytest_trailblaze.workspace import WorkspaceLoader

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "node_modules" / ".bin"
DEVICE = DeviceInfo("web", "playwright-native", 1280, 800)
TOOL = """import { trailblaze } from "@trailblaze/scripting";

/** Call the primitive once. */
export const bench_once = trailblaze.tool<{ n: number }>(async ({ n }, ctx) => {
  await ctx.tools.bench_noop({ n });
  return "done";
});
"""


@tool("bench_noop", source="python:bench")
def bench_noop(ctx: Any, n: int) -> str:
    return "ok"


def workspace(root: Path) -> Any:
    config = root / "trails" / "config"
    (config / "trailmaps" / "bench" / "tools").mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [bench]\n")
    (config / "trailmaps/bench/trailmap.yaml").write_text(
        "id: bench\ntarget:\n  display_name: Bench\n  tools: [bench_once]\n"
    )
    (config / "trailmaps/bench/tools/bench_once.ts").write_text(TOOL)
    ws = WorkspaceLoader(scripted_tools=typescript_tools).load(config)
    assert not ws.errors, [p.format() for p in ws.errors]
    return ws


def one_round(ws: Any, logs: Path, calls: int) -> tuple[float, float, float, float]:
    """(host start-up, mean per TypeScript call incl. the first, mean per primitive call,
    a first call made before any host started)."""
    mcp = McpToolsets(logs, handshake_timeout=60, call_timeout=60, worker="bench")
    try:
        registry = ToolRegistry(platform="web", driver_key="playwright-native")
        scripted = [t for t in ws.tools if isinstance(t, TsTool)]
        began = time.perf_counter()
        hosts = TsHosts.of(mcp)
        binding = hosts.binding("bench", ws.targets["bench"], DEVICE, scripted)
        registry.register_all([*bind(ws.tools, binding), bench_noop])
        hosts.ready()  # the session meanwhile starts its browser
        startup = time.perf_counter() - began
        ctx = ToolContext(registry, Memory(), DEVICE)
        began = time.perf_counter()
        for n in range(calls):
            registry.execute("bench_once", {"n": n}, ctx)
        ts_mean = (time.perf_counter() - began) / calls
        began = time.perf_counter()
        for n in range(calls):
            registry.execute("bench_noop", {"n": n}, ctx)
        primitive = (time.perf_counter() - began) / calls
    finally:
        mcp.close()
    cold = McpToolsets(logs, handshake_timeout=60, call_timeout=60, worker="bench")
    try:
        registry = ToolRegistry(platform="web", driver_key="playwright-native")
        began = time.perf_counter()
        binding = TsHosts.of(cold).binding("cold", ws.targets["bench"], DEVICE, scripted)
        registry.register_all([*bind(ws.tools, binding), bench_noop])
        registry.execute("bench_once", {"n": 0}, ToolContext(registry, Memory(), DEVICE))
        return startup, ts_mean, primitive, time.perf_counter() - began
    finally:
        cold.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    plain = os.environ["PATH"]
    with tempfile.TemporaryDirectory(prefix="tb-ts-bench-") as tmp:
        root = Path(tmp)
        os.environ["TRAILBLAZE_CACHE_DIR"] = str(root / "cache")
        os.chdir(root)
        for label in ("bun", "tsx"):
            bin_dir = root / f"bin-{label}"
            bin_dir.mkdir()
            for name in (label, "tsc"):
                (bin_dir / name).symlink_to(BIN / name)
            os.environ["PATH"] = f"{bin_dir}{os.pathsep}{plain}".replace(f"{BIN}{os.pathsep}", "")
            runtime.forget()
            ws = workspace(root / label)
            rounds = [one_round(ws, root / "logs", options.calls) for _ in range(options.rounds)]
            startup, ts_mean, primitive, cold = (statistics.median(r[i] for r in rounds) for i in range(4))
            extra = (ts_mean - primitive) * 1000
            print(f"{label:>4}: primitive {primitive * 1000:.2f} ms/call, .ts tool {ts_mean * 1000:.2f} "
                  f"ms/call over {options.calls} calls, first included: +{extra:.2f} ms "
                  "(goal <= 10 ms)")  # fmt: skip
            print(f"      host start-up in the background (spawn, handshake, load + transpile): "
                  f"{startup * 1000:.0f} ms; a first call finding no host: {cold * 1000:.0f} ms "
                  f"(medians of {options.rounds} rounds)")  # fmt: skip
    os.environ["PATH"] = plain


if __name__ == "__main__":
    main()
