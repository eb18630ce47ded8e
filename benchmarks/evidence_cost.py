"""What evidence costs: the 20-action trail of ``web_replay.py`` replayed through the plugin with
each kind of evidence, against the same actions written directly against Playwright.

Variants, all in one process on one browser, rounds alternating, medians compared:

- ``off``: the defaults (step records only), as in ``web_replay.py``;
- ``tracing``: ``--trailblaze-tracing on``: a Playwright trace with screenshots and DOM snapshots,
  one group per step, written as ``trace.zip`` (and masked, with a secret set);
- ``screenshots``: ``--trailblaze-screenshot on``: a PNG after each of the trail's 5 steps;
- ``video``: ``--trailblaze-video on``, when Playwright has its ffmpeg (``trailblaze install-ffmpeg``).

The trace, screenshot and video code is the plugin's own (``WebDriver.start_recording`` /
``stop_recording``, ``recordings.mask_archive``, ``driver.screenshot``).

    .venv/bin/python benchmarks/evidence_cost.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import web_replay  # the trail, the direct variant and the server are shared

from pytest_trailblaze.core.masking import Masker
from pytest_trailblaze.core.run.runner import TrailRunner, plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import load_trail
from pytest_trailblaze.drivers import ffmpeg
from pytest_trailblaze.drivers.browser import BrowserHost
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.playwright import WebDriver
from pytest_trailblaze.session.run_evidence import mask_archive
from pytest_trailblaze.tools import builtin_tools


class Evidence(web_replay.StepRecords):
    """Step records plus what one evidence option adds at each step."""

    def __init__(self, trail, ctx: ToolContext, kind: str, folder: Path) -> None:
        super().__init__(trail, ctx)
        self.kind, self.folder = kind, folder

    def step_started(self, step) -> None:
        super().step_started(step)
        if self.kind == "tracing":
            self.ctx.driver.recording_step(f"{step.label}: {step.step.text}")

    def step_finished(self, step, error) -> None:
        super().step_finished(step, error)
        if self.kind == "tracing":
            self.ctx.driver.recording_step(None)
        if self.kind == "screenshots":
            self.ctx.driver.screenshot(self.folder / "steps" / f"step-{step.number:02d}.png")


def replay(host: BrowserHost, trail_path: Path, registry: ToolRegistry, base_url: str, kind: str) -> None:
    """One trail item's replay with the evidence ``kind`` (``off``, ``tracing``, ...)."""
    trail = load_trail(trail_path)
    with tempfile.TemporaryDirectory() as folder:
        driver = WebDriver.open(host)
        memory = Memory()
        memory.set("baseUrl", base_url)
        device = driver.device_info()
        ctx = ToolContext(registry, memory, device, driver, str(trail_path))
        runner = TrailRunner(plan_trail(trail, device.chain()), ctx)
        runner.listeners.append(Evidence(trail, ctx, kind, Path(folder)))
        if kind in ("tracing", "video"):
            driver.start_recording(video=kind == "video", tracing=kind == "tracing")
        runner.run_steps()
        for path in driver.stop_recording(Path(folder)) if kind in ("tracing", "video") else ():
            if path.suffix == ".zip":
                mask_archive(path, Masker({"password": "Lovelace"}))
        driver.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    rounds = parser.parse_args().rounds
    server, base_url = web_replay.serve()
    kinds = ["off", "tracing", "screenshots"] + (["video"] if ffmpeg.missing() is None else [])
    with tempfile.TemporaryDirectory() as videos:
        hosts = {"plain": BrowserHost(BrowserOptions())}
        hosts["video"] = BrowserHost(replace(BrowserOptions(), video_dir=Path(videos)))
        registry = ToolRegistry(platform="web", driver_key="playwright-native")
        registry.register_all(builtin_tools())
        try:
            times = measure(hosts, registry, base_url, kinds, rounds)
        finally:
            for host in hosts.values():
                host.close()
            server.shutdown()
            server.server_close()
    report(times, rounds)
    if "video" not in kinds:
        print(f"video: not measured ({ffmpeg.missing()})")


def measure(hosts, registry, base_url: str, kinds: list[str], rounds: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        trail_path = Path(tmp) / "bench.trail.yaml"
        trail_path.write_text(web_replay.TRAIL)
        viewport = {"width": 1280, "height": 800}
        runs = {"direct": functools.partial(web_replay.direct, hosts["plain"].browser, base_url, viewport)}
        for kind in kinds:
            host = hosts["video" if kind == "video" else "plain"]
            runs[kind] = functools.partial(replay, host, trail_path, registry, base_url, kind)
        for run in runs.values():
            run()  # warm-up
        times: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(rounds):
            for name, run in runs.items():
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
    return times


def report(times: dict[str, list[float]], rounds: int) -> None:
    medians = {name: statistics.median(values) for name, values in times.items()}
    direct, off = medians["direct"], medians["off"]
    print(f"20-action web trail, median of {rounds} rounds (one process, one browser)")
    for name, value in medians.items():
        extra = ""
        if name not in ("direct", "off"):
            extra = f"  x{value / off:.2f} vs off, +{(value - off) * 1000:6.1f} ms"
        print(f"  {name:<12} {value * 1000:8.1f} ms   x{value / direct:.2f} vs direct{extra}")
    print(f"evidence off / direct: {off / direct:.2f}  (goal <= 1.10)")


if __name__ == "__main__":
    main()
