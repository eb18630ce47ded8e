"""Replay speed: a 20-action trail through the plugin against the same Playwright calls made directly.

Both variants run in one process on one browser against the sample app served on 127.0.0.1,
each starting from a fresh browser context (the plugin opens one per trail). The plugin variant
goes through everything a replay uses: the trail loader, the plan, the runner, the registry
(interpolation, validation, observers, tool log), the web driver (element resolution, settle) and
the evidence every trail gets with the evidence options off (a timed record of each step and its
tool calls, as ``record.json``, ``summary.json`` and the report read it).
Rounds alternate between the variants; medians are compared.

    .venv/bin/python benchmarks/web_replay.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from by_hand import direct

from pytest_trailblaze.core.run.runner import TrailRunner, plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import load_trail
from pytest_trailblaze.drivers.browser import BrowserHost
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.playwright import WebDriver
from pytest_trailblaze.evidence.records import StepRecorder
from pytest_trailblaze.tools import builtin_tools

APP = Path(__file__).resolve().parent.parent / "examples" / "sample-app"
TRAIL = """config:
  id: bench/twenty-actions
trail:
  - step: Open the app
    recording:
      web:
        - web_navigate: { url: "{{baseUrl}}/index.html" }
  - step: Fill in the contact form
    recording:
      web:
        - web_click: { ref: "css=#nav-form" }
        - web_type: { ref: "css=#name-input", text: Ada Lovelace }
        - web_type: { ref: "css=#email-input", text: ada@example.test }
        - web_selectOption: { ref: "css=#category-select", values: [feedback] }
        - web_type: { ref: "css=#message-input", text: Hello }
        - web_click: { nodeSelector: { web: { ariaRole: button, ariaNameRegex: Submit } } }
  - verify: The form was submitted
    recording:
      web:
        - web_verifyTextVisible: { text: Form submitted! }
  - step: Count to three and back
    recording:
      web:
        - web_click: { ref: "css=#nav-counter" }
        - web_click: { ref: "css=#increment-btn" }
        - web_click: { ref: "css=#increment-btn" }
        - web_click: { ref: "css=#increment-btn" }
        - web_verifyValue: { ref: "css=#counter-value", expected: "3" }
        - web_click: { nodeSelector: { web: { cssSelector: "#decrement-btn" } }, ref: "css=#decrement-btn" }
        - web_verifyTextVisible: { text: "Current value: 2" }
        - web_click: { ref: "css=#reset-btn" }
        - web_verifyTextVisible: { text: "Current value: 0" }
  - step: Read the version
    recording:
      web:
        - web_click: { ref: "css=#nav-about" }
        - web_verifyValue: { ref: "css=#version", expected: "1.0.0" }
        - web_verifyTextVisible: { text: AI-powered }
"""


class StepRecords:
    """The step listener a trail item has with evidence off: a ``StepRecorder`` fed per step."""

    def __init__(self, trail, ctx: ToolContext) -> None:
        self.recorder, self.ctx = StepRecorder(trail), ctx

    def step_started(self, step) -> None:
        self.recorder.started(step, self.ctx.tool_log)

    def step_finished(self, step, error) -> None:
        self.recorder.finished(step, self.ctx.tool_log, error)


def through_plugin(host: BrowserHost, trail_path: Path, registry: ToolRegistry, base_url: str) -> None:
    """Load, plan and replay the trail as a trail item does."""
    trail = load_trail(trail_path)
    driver = WebDriver.open(host)
    memory = Memory()
    memory.set("baseUrl", base_url)
    device = driver.device_info()
    ctx = ToolContext(registry, memory, device, driver, str(trail_path))
    runner = TrailRunner(plan_trail(trail, device.chain()), ctx)
    runner.listeners.append(StepRecords(trail, ctx))
    runner.run_steps()
    driver.close()


def serve() -> tuple[ThreadingHTTPServer, str]:
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(APP)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    options = parser.parse_args()
    server, base_url = serve()
    host = BrowserHost(BrowserOptions())
    registry = ToolRegistry(platform="web", driver_key="playwright-native")
    registry.register_all(builtin_tools())
    viewport = {"width": 1280, "height": 800}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            trail_path = Path(tmp) / "bench.trail.yaml"
            trail_path.write_text(TRAIL)
            run_direct = functools.partial(direct, host.browser, base_url, viewport)
            run_plugin = functools.partial(through_plugin, host, trail_path, registry, base_url)
            run_direct(), run_plugin()  # warm-up
            plugin_times, direct_times = [], []
            for _ in range(options.rounds):
                direct_times.append(timed(run_direct))
                plugin_times.append(timed(run_plugin))
    finally:
        host.close()
        server.shutdown()
        server.server_close()
    d, p = statistics.median(direct_times), statistics.median(plugin_times)
    print(f"direct Playwright: median {d * 1000:7.1f} ms per 20-action run ({options.rounds} rounds)")
    print(f"through plugin:    median {p * 1000:7.1f} ms per 20-action run ({options.rounds} rounds)")
    print(f"ratio plugin / direct: {p / d:.2f}  (goal <= 1.05) {'OK' if p / d <= 1.05 else 'MISSED'}")


if __name__ == "__main__":
    main()
