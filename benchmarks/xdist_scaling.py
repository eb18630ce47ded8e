"""Scaling out with pytest-xdist: whole ``pytest`` runs timed side by side in one script.

web: 20 web trails of 20 actions each (the trail of ``web_replay.py``) against the sample app
served on 127.0.0.1, run as ``pytest -n 0`` and ``pytest -n 2``; the goal on 2 cores is a
speed-up of at least 1.6x. Each run is a fresh pytest process, so the figures include what a
user waits for: start-up, collection, worker start, browser launch.

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

from appium_replay import TRAIL as ANDROID_TRAIL
from web_replay import TRAIL as WEB_TRAIL

REPO = Path(__file__).resolve().parent.parent
SAMPLE_APP = REPO / "examples" / "sample-app"
PHONE_APP = REPO / "examples" / "mobile" / "apps" / "android-phone.xml"
TRAILS = 20
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
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "trails",
        "-q",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        *args,
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
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
