"""Scaling out with pytest-xdist: whole ``pytest`` runs timed side by side in one script.

web: 20 web trails of 20 actions each (the trail of ``web_replay.py``) against the sample app
served on 127.0.0.1, run as ``pytest -n 0`` and ``pytest -n 2``; the goal on 2 cores is a
speed-up of at least 1.6x. Each run is a fresh pytest process, so the figures include what a
user waits for: start-up, collection, worker start, browser launch. As a control, the same
actions written against Playwright by hand run in one process and in two (a browser each), so
the plugin's speed-up can be read against what Playwright and Chromium themselves reach on the
machine. Trails run in Chromium's headless shell when it is installed (as Playwright runs its own);
with the full browser in ``--headless`` mode one stream kept about 1.6 of 2 cores busy and neither
side scaled (measured 2026-11-25: plugin 1.05x, Playwright by hand 1.08x); with the headless shell
a stream needs about 0.8 cores.

appium: 20 android trails (about 60 Appium commands each) on a pool of four devices served by
two local Appium servers (fake driver), run with ``-n 1``, ``-n 2`` and ``-n 4`` under
``--dist loadgroup``: each worker leases its own device of the pool. Speed-ups are against
``-n 1``; with the fake driver the work is CPU (client and servers), so 2 cores bound it.

Rounds alternate between the variants; medians are compared.

    .venv/bin/python benchmarks/xdist_scaling.py [--rounds 3] [--part web|appium|both]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from appium_replay import TRAIL as ANDROID_TRAIL
from web_replay import TRAIL as WEB_TRAIL

REPO = Path(__file__).resolve().parent.parent
SAMPLE_APP = REPO / "examples" / "sample-app"
PHONE_APP = REPO / "examples" / "mobile" / "apps" / "android-phone.xml"
TRAILS = 20
#: What the measured runs load: this plugin and xdist, as in a project that installs just these two.
#: The development venv also holds every plugin the test suite combines us with (pytest-playwright,
#: allure, pytest-html, anyio/trio...); each xdist worker would import them all, which is their
#: cost, not ours, so autoloading is off and these are named.
PLUGINS = ("-p", "pytest_trailblaze.plugin", "-p", "xdist.plugin")
#: CPU seconds of each run, by the run's arguments.
CPU: dict[str, list[float]] = {}


def write_trails(folder: Path, template: str) -> None:
    folder.mkdir(parents=True)
    for n in range(TRAILS):
        text = template.replace("id: bench/", f"id: bench/n{n:02d}-", 1)
        (folder / f"trail-{n:02d}.trail.yaml").write_text(text, encoding="utf-8")


def pytest_run(cwd: Path, *args: str) -> float:
    """One whole ``pytest`` run in a fresh process; its wall time (a failing run stops the script).

    The CPU time of the run (every process below it: pytest, workers, Playwright, Chromium) is
    added to ``CPU`` under the variant's arguments, to read the wall times against.
    """
    argv = [sys.executable, "-m", "pytest", *PLUGINS, "trails", "-q", "-p", "no:cacheprovider", *args]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    CPU.setdefault(" ".join(args), []).append(cpu)
    if done.returncode != 0:
        sys.exit(f"pytest {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return seconds


def compare(cwd: Path, variants: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Median wall time per variant, rounds alternating between them."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, args in variants.items():
            times[name].append(pytest_run(cwd, *args))
    return {name: statistics.median(values) for name, values in times.items()}


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def sample_app() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(SAMPLE_APP)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.contextmanager
def appium_server(log: Path) -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    argv = ["node", str(REPO / "node_modules" / "appium" / "index.js"), "server", "--address", "127.0.0.1"]
    argv += ["--port", str(port), "--log-level", "warn"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            argv, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/status", timeout=1):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"Appium did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)
        yield url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def raw_playwright_run(url: str, processes: int) -> float:
    """The 20 trails' actions written against Playwright by hand (``web_replay.direct``), split over
    ``processes`` fresh Python processes with a browser each, as xdist workers have: the wall time.

    This is the control: how far Playwright and Chromium themselves scale on this machine.
    """
    share = [TRAILS // processes + (1 if k < TRAILS % processes else 0) for k in range(processes)]
    argv = [sys.executable, __file__, "--raw-worker", url]
    started = time.perf_counter()
    workers = [subprocess.Popen([*argv, str(n)], cwd=REPO / "benchmarks") for n in share]
    if any(w.wait() != 0 for w in workers):
        sys.exit("the hand-written Playwright control failed")
    return time.perf_counter() - started


def raw_worker(url: str, count: int) -> None:
    """One control process: a browser, then ``count`` fresh contexts running the 20 actions."""
    from web_replay import direct

    from pytest_trailblaze.drivers.browser import BrowserHost, BrowserOptions

    host = BrowserHost(BrowserOptions())
    try:
        for _ in range(count):
            direct(host.browser, url, {"width": 1280, "height": 800})
    finally:
        host.close()


def busy_cores(action: Any) -> tuple[float, float]:
    """``action``'s wall time and how many cores the whole machine kept busy meanwhile."""

    def busy() -> tuple[int, int]:
        with Path("/proc/stat").open(encoding="ascii") as stat:
            ticks = [int(x) for x in stat.readline().split()[1:]]
        return sum(ticks), ticks[3] + ticks[4]

    (total0, idle0), started = busy(), time.perf_counter()
    action()
    (total1, idle1), wall = busy(), time.perf_counter() - started
    share = 1 - (idle1 - idle0) / max(total1 - total0, 1)
    return wall, share * (os.cpu_count() or 1)


def web(work: Path, rounds: int) -> None:
    write_trails(work / "web" / "trails", WEB_TRAIL)
    with sample_app() as url:
        memory = f"--trailblaze-memory=baseUrl={url}"
        medians = compare(work / "web", {"-n 0": ["-n", "0", memory], "-n 2": ["-n", "2", memory]}, rounds)
    ratio = medians["-n 0"] / medians["-n 2"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"web, {TRAILS} trails x 20 actions, {os.cpu_count()} cores (load {load}), median of {rounds}:")
    for name, seconds in medians.items():
        cpu = statistics.median(CPU[" ".join([*name.split(), memory])])
        print(f"  pytest {name}: {seconds:6.2f} s wall, {cpu:6.2f} s CPU")
    print(f"  speed-up -n 2 over -n 0: {ratio:.2f}x (goal >= 1.6x) {'OK' if ratio >= 1.6 else 'MISSED'}")
    with sample_app() as url:
        raw = {n: [] for n in (1, 2)}
        cores: list[float] = []
        for _ in range(rounds):
            _, busy = busy_cores(lambda: raw[1].append(raw_playwright_run(url, 1)))
            cores.append(busy)
            raw[2].append(raw_playwright_run(url, 2))
    one, two = statistics.median(raw[1]), statistics.median(raw[2])
    print("control: the same actions written against Playwright by hand, a browser per process:")
    kept = statistics.median(cores)
    print(f"  1 process:   {one:6.2f} s wall, keeping {kept:.2f} of {os.cpu_count()} cores busy")
    print(f"  2 processes: {two:6.2f} s wall")
    print(f"  Playwright's own speed-up on this machine: {one / two:.2f}x")
    print(f"  the plugin's speed-up as a share of it: {ratio / (one / two):.2f}")


def longer(trail: str, times: int) -> str:
    """The android trail with its form-filling step ``times`` over (about 7 Appium commands each)."""
    start, end = trail.index("  - step: Fill in the form"), trail.index("  - verify:")
    return trail[:start] + trail[start:end] * times + trail[end:]


def appium(work: Path, rounds: int) -> None:
    folder = work / "appium"
    write_trails(folder / "trails", longer(ANDROID_TRAIL, 8))
    with appium_server(work / "a.log") as first, appium_server(work / "b.log") as second:
        devices = [(first, "fake-1"), (first, "fake-2"), (second, "fake-3"), (second, "fake-4")]
        listed = "".join(f"\n    - {{url: {u}, udid: {d}}}" for u, d in devices)
        (folder / "pool.yaml").write_text(
            "android-phone:\n  capabilities:\n    platformName: Fake\n    appium:automationName: Fake\n"
            f"    appium:app: {PHONE_APP}\n  devices:{listed}\n",
            encoding="utf-8",
        )
        common = ["--dist", "loadgroup", "--trailblaze-appium-caps=pool.yaml"]
        variants = {f"-n {n}": ["-n", str(n), *common] for n in (1, 2, 4)}
        medians = compare(folder, variants, rounds)
    base = medians["-n 1"]
    print(f"appium, {TRAILS} android trails, a pool of 4 devices on 2 Appium servers, median of {rounds}:")
    for name, seconds in medians.items():
        print(f"  pytest {name} --dist loadgroup: {seconds:6.2f} s  ({base / seconds:.2f}x of -n 1)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part", choices=("web", "appium", "both"), default="both")
    parser.add_argument("--raw-worker", nargs=2, metavar=("URL", "COUNT"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.raw_worker:
        raw_worker(options.raw_worker[0], int(options.raw_worker[1]))
        return
    work = Path(tempfile.mkdtemp(prefix="tb-scale-"))
    try:
        if options.part in ("web", "both"):
            web(work, options.rounds)
        if options.part in ("appium", "both"):
            appium(work, options.rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
