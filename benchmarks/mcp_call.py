"""MCP call overhead: a tool call through the plugin's registry against a raw ``mcp`` client call,
on the same warm server, side by side; and spawn + initialize time per runtime.

The plugin path is everything a recorded call goes through: registry lookup, memory interpolation,
JSON-Schema validation, ``_trailblazeContext`` injection, the sync-to-async bridge and the result
mapping. The raw path is the SDK's ``ClientSession.call_tool`` awaited directly in the event loop
that owns the session (the same session object both paths use).

The two paths alternate in short rounds, and the ratio is the median of each round's plugin / raw
ratio: a pair measured within a fraction of a second sees the same machine load, so a busy machine
moves both sides of a pair rather than one side of the comparison.

    .venv/bin/python benchmarks/mcp_call.py [--calls 100] [--rounds 21]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.mcp import launch as launch_module
from pytest_trailblaze.mcp.launch import resolve_server
from pytest_trailblaze.mcp.server import McpServer, Portal
from pytest_trailblaze.mcp.server_tools import McpTool
from pytest_trailblaze.workspace.schema import McpServerSpec

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "mcp"
DEVICE = DeviceInfo("web", "playwright-native", 1280, 800)


def start(script: str, portal: Portal, logs: Path) -> tuple[McpServer, float]:
    spec = resolve_server(McpServerSpec(script=script), EXAMPLES / "benchmark.yaml")
    server = McpServer(spec, portal=portal, device_env={}, log_path=logs / f"{spec.name}.log")
    began = time.perf_counter()
    server.start()
    return server, time.perf_counter() - began


def spawn_times(portal: Portal, logs: Path) -> dict[str, float]:
    """Spawn + initialize + tools/list for each runtime this machine has."""
    runtimes: dict[str, float] = {}
    bin_dir = REPO / "node_modules" / ".bin"
    plain_path = os.environ["PATH"]
    for label, script, with_bun in (
        ("python", "python_server.py", False),
        ("bun", "typescript/server.ts", True),
        ("node+tsx", "typescript/server.ts", False),
    ):
        os.environ["PATH"] = f"{bin_dir}:{plain_path}" if with_bun else plain_path
        launch_module.find_bun.cache_clear()
        if with_bun and launch_module.find_bun() is None:
            continue
        samples = []
        for _ in range(3):
            server, seconds = start(script, portal, logs)
            server.stop()
            samples.append(seconds)
        runtimes[label] = statistics.median(samples)
    os.environ["PATH"] = plain_path
    launch_module.find_bun.cache_clear()
    return runtimes


def call_overhead(portal: Portal, logs: Path, calls: int, rounds: int) -> tuple[list[float], list[float]]:
    """Seconds per call of each round: (plugin path, raw path), measured in pairs."""
    server, _ = start("python_server.py", portal, logs)
    registry = ToolRegistry(platform="web", driver_key="playwright-native")
    registry.register_all(McpTool(server, t) for t in server.tools)
    memory = Memory()
    memory.set("user", "ada")
    ctx = ToolContext(registry, memory, DEVICE)
    session_call = server.connection.session.call_tool  # the SDK session both paths share
    raw_args = {
        "name": "ada",
        "_trailblazeContext": {"memory": {"user": "ada"}, "device": DEVICE.as_context()},
    }

    async def raw_batch() -> None:
        for _ in range(calls):
            await session_call("sampleApp_greeting", raw_args)

    def plugin_batch() -> None:
        for _ in range(calls):
            registry.execute("sampleApp_greeting", {"name": "{{user}}"}, ctx)

    loop = portal.get()

    def timed(batch: Any) -> float:
        began = time.perf_counter()
        batch()
        return (time.perf_counter() - began) / calls

    plugin_batch(), loop.call(raw_batch)  # warm-up
    plugin_times, raw_times = [], []
    for number in range(rounds):  # which path goes first alternates, so neither gets a steady edge
        if number % 2:
            plugin_times.append(timed(plugin_batch))
            raw_times.append(timed(lambda: loop.call(raw_batch)))
        else:
            raw_times.append(timed(lambda: loop.call(raw_batch)))
            plugin_times.append(timed(plugin_batch))
        ctx.tool_log.clear()
    server.stop()
    return plugin_times, raw_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="calls per round and path")
    parser.add_argument("--rounds", type=int, default=21)
    options = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="tb-mcp-bench-"))
    portal = Portal()
    try:
        plugin_times, raw_times = call_overhead(portal, logs, options.calls, options.rounds)
        runtimes = spawn_times(portal, logs)
    finally:
        portal.close()
        shutil.rmtree(logs, ignore_errors=True)
    batches = f"{options.calls} calls x {options.rounds} rounds"
    ratios = sorted(p / r for p, r in zip(plugin_times, raw_times, strict=True))
    raw, plugin = statistics.median(raw_times), statistics.median(plugin_times)
    print(f"raw mcp client call:     median {raw * 1000:.3f} ms per call ({batches})")
    print(f"through plugin registry: median {plugin * 1000:.3f} ms per call")
    spread = f"rounds {ratios[0]:.2f}-{ratios[-1]:.2f}"
    ratio = statistics.median(ratios)
    verdict = "OK" if ratio <= 1.15 else "MISSED"
    print(f"ratio plugin / raw: {ratio:.2f}  ({spread}; goal <= 1.15, warm server) {verdict}")
    for label, seconds in runtimes.items():
        print(f"spawn + initialize + tools/list, {label:>8}: median {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
