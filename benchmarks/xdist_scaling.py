"""Whole ``pytest`` runs against Playwright written by hand, timed side by side in one script.

web: 20 web trails of 20 actions each (the trail of ``web_replay.py``) against the sample app
served on 127.0.0.1, run as ``pytest -n 0`` and ``pytest -n 2``. The control is the same actions
written against Playwright by hand (``by_hand.py``, which imports nothing of the plugin), run in one
process and in two, with a browser each and a fresh context per trail, as xdist workers have. Each
run is a fresh process, so the figures hold what a user waits for: start-up, imports, collection,
worker start, browser launch, reports, shutdown. Two goals, both read against the control measured
in the same round (so both sides see the same load):

- ``pytest -n 0`` takes at most 1.10x the control's one process;
- ``-n 2``'s speed-up over ``-n 0`` is at least 0.95 of the control's speed-up from one process
  to two.

A third pair shows what pytest-xdist itself costs: the same actions as plain pytest tests
(``PLAIN_TESTS``: ``by_hand.py``'s actions, a browser per process from a session fixture), run
with ``-n 0`` and ``-n 2`` and no plugin of ours. Its share of the control's speed-up is the most a
pytest plugin can get (xdist's controller starts before any worker, and each worker starts pytest
again); the plugin's share of the plain tests' speed-up is printed beside.

Both sides launch the same Chromium with the same flags (the headless shell when it is installed,
as Playwright runs its own for headless). CPU seconds are counted over every process a run starts,
Chromium's included (they are orphaned to a reaper that waits for them), and printed beside the
wall times: on a shared machine CPU seconds are the steadier figure. Modules load from bytecode,
as from an installed wheel: the runs may write ``__pycache__`` (``PYTHONDONTWRITEBYTECODE`` is
dropped for them) and an untimed warm-up run of each side goes first; without it every process
compiled the plugin's hundred modules from source, about 0.1 CPU-s each.

appium: 20 android trails (about 60 Appium commands each) on a pool of four devices served by
two local Appium servers (fake driver), run with ``-n 1``, ``-n 2`` and ``-n 4`` under
``--dist loadgroup``: each worker leases its own device of the pool. Speed-ups are against
``-n 1``; with the fake driver the work is CPU (client and servers), so 2 cores bound it.

Rounds alternate between the variants (in reverse order every other round); ratios are taken
within a round, and their medians reported.

    .venv/bin/python benchmarks/xdist_scaling.py [--rounds 3] [--part web|appium|both]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
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
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from appium_replay import TRAIL as ANDROID_TRAIL
from web_replay import TRAIL as WEB_TRAIL

REPO = Path(__file__).resolve().parent.parent
BENCHMARKS = Path(__file__).resolve().parent
SAMPLE_APP = REPO / "examples" / "sample-app"
PHONE_APP = REPO / "examples" / "mobile" / "apps" / "android-phone.xml"
TRAILS = 20
#: What the measured runs load: this plugin and xdist, as in a project that installs just these two.
#: The development venv also holds every plugin the test suite combines us with (pytest-playwright,
#: allure, pytest-html, anyio/trio...); each xdist worker would import them all, which is their
#: cost, not ours, so autoloading is off and these are named.
PLUGINS = ("-p", "pytest_trailblaze.plugin", "-p", "xdist.plugin")
#: Runs the commands of argv[2] (a JSON list of argvs) side by side, as the reaper of everything
#: they start (Linux's child subreaper): Chromium's processes outlive the Playwright driver that
#: started them and would otherwise go to init with their CPU time uncounted. Writes the wall time
#: until the last command ended, its CPU seconds and every process's CPU seconds to argv[1].
REAPER = """
import ctypes, json, os, resource, subprocess, sys, time
try:
    ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except (OSError, AttributeError):
    pass
out, commands = sys.argv[1], json.loads(sys.argv[2])
started = time.perf_counter()
running = [subprocess.Popen(argv) for argv in commands]
codes = [p.wait() for p in running]
wall = time.perf_counter() - started
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid == 0:
        time.sleep(0.01)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "w") as f:
    json.dump({"codes": codes, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime}, f)
"""


class Run:
    """One measured run: wall seconds and CPU seconds of every process it started."""

    def __init__(self, wall: float, cpu: float) -> None:
        self.wall, self.cpu = wall, cpu


def measured(commands: list[list[str]], cwd: Path, env: dict[str, str] | None = None) -> Run:
    """Run ``commands`` side by side under the reaper; a failing command stops the script."""
    env = {k: v for k, v in (env or os.environ).items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        done = subprocess.run(
            [sys.executable, "-c", REAPER, out.name, json.dumps(commands)],
            cwd=cwd,
            capture_output=True,
            text=True,
            env=env,
        )
        result = json.loads(Path(out.name).read_text() or "{}")
    if done.returncode != 0 or any(result.get("codes", [1])):
        shown = " ".join(commands[0])
        sys.exit(f"{shown} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return Run(result["wall"], result["cpu"])


def write_trails(folder: Path, template: str) -> None:
    folder.mkdir(parents=True)
    for n in range(TRAILS):
        text = template.replace("id: bench/", f"id: bench/n{n:02d}-", 1)
        (folder / f"trail-{n:02d}.trail.yaml").write_text(text, encoding="utf-8")


#: The plain pytest tests of the third pair: by_hand.py's actions, one test per trail.
PLAIN_TESTS = """
import json, os

import pytest
from playwright.sync_api import sync_playwright

from by_hand import direct


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(**json.loads(os.environ["BENCH_LAUNCH"]))
        yield launched
        launched.close()


@pytest.mark.parametrize("n", range(int(os.environ["BENCH_TRAILS"])))
def test_trail(browser, n):
    direct(browser, os.environ["BENCH_URL"], {"width": 1280, "height": 800})
"""


Command = tuple[list[str], dict[str, str]]


def plain_command(url: str, launch: dict[str, Any], *args: str) -> Command:
    """The argv and environment of a run of the plain pytest tests (``PLAIN_TESTS``): xdist and
    nothing of ours."""
    argv = [sys.executable, "-m", "pytest", "-p", "xdist.plugin", "-q", "-p", "no:cacheprovider", *args]
    env = {
        **os.environ,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONPATH": str(BENCHMARKS),
        "BENCH_URL": url,
        "BENCH_LAUNCH": json.dumps(launch),
        "BENCH_TRAILS": str(TRAILS),
    }
    return argv, env


def pytest_command(*args: str) -> Command:
    """The argv and environment of a whole ``pytest`` run of the trails with the plugin."""
    argv = [sys.executable, "-m", "pytest", *PLUGINS, "trails", "-q", "-p", "no:cacheprovider", *args]
    return argv, {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def plain_run(cwd: Path, url: str, launch: dict[str, Any], *args: str) -> Run:
    """The plain pytest tests in a fresh process."""
    argv, env = plain_command(url, launch, *args)
    return measured([argv], cwd, env)


def pytest_run(cwd: Path, *args: str) -> Run:
    """One whole ``pytest`` run in a fresh process."""
    argv, env = pytest_command(*args)
    return measured([argv], cwd, env)


def by_hand_run(url: str, processes: int, launch: dict[str, Any]) -> Run:
    """The 20 trails' actions written against Playwright by hand (``by_hand.py``), split over
    ``processes`` fresh Python processes with a browser each, as xdist workers have.

    This is the control: how fast Playwright and Chromium themselves go on this machine.
    """
    share = [TRAILS // processes + (1 if k < TRAILS % processes else 0) for k in range(processes)]
    worker = [sys.executable, str(BENCHMARKS / "by_hand.py"), url]
    return measured([[*worker, str(n), json.dumps(launch)] for n in share], BENCHMARKS)


def compare(variants: dict[str, Callable[[], Run]], rounds: int) -> list[dict[str, Run]]:
    """Every variant once per round, in reverse order every other round (so neither side always
    runs first after a pause, or right after the other)."""
    names = list(variants)
    results: list[dict[str, Run]] = []
    for k in range(rounds):
        order = names if k % 2 == 0 else names[::-1]
        results.append({name: variants[name]() for name in order})
    return results


def launch_arguments() -> dict[str, Any]:
    """The keyword arguments the plugin launches its default browser with, Chromium resolved as it
    resolves it (Playwright's own build if installed, else the system's, the headless shell first)."""
    from playwright.sync_api import sync_playwright

    from pytest_trailblaze.drivers.browser import BrowserHost, find_system_chromium
    from pytest_trailblaze.drivers.browser_options import BrowserOptions

    kwargs = BrowserHost(BrowserOptions()).launch_kwargs()
    with sync_playwright() as playwright:
        bundled = Path(playwright.chromium.executable_path)
    if not bundled.exists():
        kwargs["executable_path"] = find_system_chromium(kwargs["headless"]) or str(bundled)
    return kwargs


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


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def web(work: Path, rounds: int) -> None:
    write_trails(work / "web" / "trails", WEB_TRAIL)
    plain = work / "plain"
    plain.mkdir()
    (plain / "test_plain.py").write_text(PLAIN_TESTS, encoding="utf-8")
    launch = launch_arguments()
    with sample_app() as url:
        memory = f"--trailblaze-memory=baseUrl={url}"
        variants: dict[str, Callable[[], Run]] = {
            "pytest -n 0": lambda: pytest_run(work / "web", "-n", "0", memory),
            "by hand, 1 process": lambda: by_hand_run(url, 1, launch),
            "pytest -n 2": lambda: pytest_run(work / "web", "-n", "2", memory),
            "by hand, 2 processes": lambda: by_hand_run(url, 2, launch),
            "plain pytest -n 0": lambda: plain_run(plain, url, launch, "-n", "0"),
            "plain pytest -n 2": lambda: plain_run(plain, url, launch, "-n", "2"),
        }
        for warm_up in ("pytest -n 0", "by hand, 1 process", "plain pytest -n 0"):  # bytecode, disk cache
            variants[warm_up]()
        results = compare(variants, rounds)

    def median(of: Callable[[dict[str, Run]], float]) -> float:
        return statistics.median(of(result) for result in results)

    def spread(of: Callable[[dict[str, Run]], float]) -> str:
        """The lowest and highest of a ratio over the rounds: how far a verdict is from the noise."""
        values = [of(result) for result in results]
        return f"rounds {min(values):.2f}-{max(values):.2f}"

    def ratio(top: str, bottom: str, field: str = "wall") -> Callable[[dict[str, Run]], float]:
        return lambda r: getattr(r[top], field) / getattr(r[bottom], field)

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    cores = os.cpu_count()
    print(f"web, {TRAILS} trails x 20 actions, {cores} cores (load {load}), median of {rounds} rounds:")
    for name in variants:
        wall = statistics.median(r[name].wall for r in results)
        cpu = statistics.median(r[name].cpu for r in results)
        print(f"  {name:22} {wall:6.2f} s wall  {cpu:6.2f} s CPU")
    alone_of = ratio("pytest -n 0", "by hand, 1 process")
    alone, cpu_alone = median(alone_of), median(ratio("pytest -n 0", "by hand, 1 process", "cpu"))
    print(
        f"  pytest -n 0 / by hand: {alone:.2f}x wall ({spread(alone_of)}), {cpu_alone:.2f}x CPU "
        f"(goal <= 1.10x) {verdict(alone <= 1.10)}"
    )
    ours = ratio("pytest -n 0", "pytest -n 2")
    theirs = ratio("by hand, 1 process", "by hand, 2 processes")

    def share_of(r: dict[str, Run]) -> float:
        return ours(r) / theirs(r)

    share = median(share_of)
    print(f"  speed-up of a second process: pytest -n 2 {median(ours):.2f}x, by hand {median(theirs):.2f}x")
    print(
        f"  pytest's share of the control's speed-up: {share:.2f} ({spread(share_of)}) "
        f"(goal >= 0.95) {verdict(share >= 0.95)}"
    )
    plain = ratio("plain pytest -n 0", "plain pytest -n 2")

    def plain_share_of(r: dict[str, Run]) -> float:
        return plain(r) / theirs(r)

    plain_share, of_plain = median(plain_share_of), median(lambda r: ours(r) / plain(r))
    print(
        f"  plain pytest tests, same actions: -n 2 {median(plain):.2f}x, a share of {plain_share:.2f} "
        f"({spread(plain_share_of)}, pytest-xdist's own cost); pytest-trailblaze's share of theirs: "
        f"{of_plain:.2f}"
    )


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
        variants = {
            f"-n {n}": functools.partial(pytest_run, folder, "-n", str(n), *common) for n in (1, 2, 4)
        }
        variants["-n 1"]()  # warm-up: bytecode, disk cache
        results = compare(variants, rounds)
    medians = {name: statistics.median(r[name].wall for r in results) for name in variants}
    base = medians["-n 1"]
    print(f"appium, {TRAILS} android trails, a pool of 4 devices on 2 Appium servers, median of {rounds}:")
    for name, seconds in medians.items():
        print(f"  pytest {name} --dist loadgroup: {seconds:6.2f} s  ({base / seconds:.2f}x of -n 1)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--part", choices=("web", "appium", "both"), default="both")
    options = parser.parse_args()
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
