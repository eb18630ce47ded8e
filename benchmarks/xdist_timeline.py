"""Where a ``pytest -n 2`` run of the plugin spends its time, phase by phase, beside plain pytest's.

``xdist_scaling.py`` says how much slower ``-n 2`` is than two hand-written processes; this says
where. It runs ``pytest -n 2`` on the same 20 web trails (the sample app served on 127.0.0.1) and
the plain pytest tests of the same actions (``PLAIN_TESTS``), in turn, with a probe plugin
(``-p``) in every process: the controller and each worker stamp when the process started (from
``/proc``), ``pytest_configure``, the end of collection, the first and every finished test, and
their exit, with their own CPU seconds at each. Printed, as medians of the rounds, for each side:

- ``worker up``: from the run's start to a worker's ``pytest_configure`` (Python, pytest, xdist
  and the plugins' imports, the options), and the worker's CPU seconds by then;
- ``to first``: from there to its first test (collection, and the controller's go);
- ``tests``: from its first test to its last one, and that per test;
- ``spread``: how much later the last worker ended its tests than the first (the share of the
  work that one worker did alone);
- ``worker CPU`` and ``controller CPU`` in all, and the run's wall time.

Linux only (``/proc``). Needs a quiet machine: the phases are tens of milliseconds apart.

    .venv/bin/python benchmarks/xdist_timeline.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xdist_scaling import (
    PLAIN_TESTS,
    TRAILS,
    WEB_TRAIL,
    launch_arguments,
    measured,
    plain_command,
    pytest_command,
    sample_app,
    write_trails,
)

#: Loaded with ``-p timeline_probe`` in every process: appends [event, epoch s, CPU s] to
#: $TIMELINE_DIR/<role>.jsonl, where the role is the xdist worker's id or "controller".
PROBE = """
import atexit, json, os, time

ROLE = os.environ.get("PYTEST_XDIST_WORKER", "controller")
OUT = os.path.join(os.environ["TIMELINE_DIR"], ROLE + ".jsonl")

def _started():
    with open("/proc/self/stat") as f:
        ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/stat") as f:
        booted = next(int(line.split()[1]) for line in f if line.startswith("btime"))
    return booted + ticks / os.sysconf("SC_CLK_TCK")

def mark(event, at=None):
    times = os.times()
    with open(OUT, "a") as f:
        f.write(json.dumps([event, time.time() if at is None else at, times.user + times.system]) + "\\n")

mark("start", _started())
atexit.register(mark, "exit")

def pytest_configure(config):
    mark("configure")

def pytest_collection_finish(session):
    mark("collected")

def pytest_runtest_logstart(nodeid, location):
    mark("test-start")

def pytest_runtest_logfinish(nodeid, location):
    mark("test-done")
"""

Events = dict[str, list[tuple[float, float]]]


def read_timeline(folder: Path) -> dict[str, Events]:
    """Each process's events by role: lists of (seconds since the controller started, CPU s)."""
    roles: dict[str, Events] = {}
    for path in folder.glob("*.jsonl"):
        events: Events = {}
        for line in path.read_text().splitlines():
            event, at, cpu = json.loads(line)
            events.setdefault(event, []).append((at, cpu))
        roles[path.stem] = events
    zero = roles["controller"]["start"][0][0]
    return {
        role: {name: [(at - zero, cpu) for at, cpu in stamps] for name, stamps in events.items()}
        for role, events in roles.items()
    }


def tests_span(events: Events) -> float:
    """Seconds from a worker's first test starting to its last test done."""
    return events["test-done"][-1][0] - events["test-start"][0][0]


def phases(roles: dict[str, Events], wall: float) -> dict[str, float]:
    """One run's figures: each worker's phases (their mean), the spread, CPU seconds."""
    workers = [events for role, events in roles.items() if role != "controller"]

    def mean(of: Callable[[Events], float]) -> float:
        return statistics.fmean(of(events) for events in workers)

    lasts = [events["test-done"][-1][0] for events in workers]
    return {
        "worker up (s)": mean(lambda e: e["configure"][0][0]),
        "worker CPU by then (s)": mean(lambda e: e["configure"][0][1]),
        "to first test (s)": mean(lambda e: e["test-start"][0][0] - e["configure"][0][0]),
        "tests (s)": mean(tests_span),
        "per test (ms)": mean(lambda e: 1000 * tests_span(e) / len(e["test-done"])),
        "spread (s)": max(lasts) - min(lasts),
        "worker CPU (s)": mean(lambda e: e["exit"][-1][1]),
        "controller CPU (s)": roles["controller"]["exit"][-1][1],
        "wall (s)": wall,
    }


def run(kind: str, work: Path, url: str, launch: dict[str, Any], probe_dir: Path) -> dict[str, float]:
    """One ``pytest -n 2`` run of ``kind`` ("plugin" or "plain"), probed; its figures."""
    timeline = Path(tempfile.mkdtemp(dir=work))
    probed = ("-p", "timeline_probe", "-n", "2")
    if kind == "plugin":
        (argv, env), cwd = pytest_command(*probed, f"--trailblaze-memory=baseUrl={url}"), work / "web"
    else:
        (argv, env), cwd = plain_command(url, launch, *probed), work / "plain"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(probe_dir), env.get("PYTHONPATH")]))
    env["TIMELINE_DIR"] = str(timeline)
    result = measured([argv], cwd, env)
    return phases(read_timeline(timeline), result.wall)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="xdist-timeline-") as scratch:
        work = Path(scratch)
        write_trails(work / "web" / "trails", WEB_TRAIL)
        (work / "plain").mkdir()
        (work / "plain" / "test_plain.py").write_text(PLAIN_TESTS, encoding="utf-8")
        probe_dir = work / "probe"
        probe_dir.mkdir()
        (probe_dir / "timeline_probe.py").write_text(PROBE, encoding="utf-8")
        launch = launch_arguments()
        results: dict[str, list[dict[str, float]]] = {"plugin": [], "plain": []}
        with sample_app() as url:
            for kind in results:  # untimed warm-up: bytecode, disk cache
                run(kind, work, url, launch, probe_dir)
            for k in range(rounds):
                for kind in results if k % 2 == 0 else list(results)[::-1]:
                    results[kind].append(run(kind, work, url, launch, probe_dir))
    print(
        f"pytest -n 2, {TRAILS} web trails: pytest-trailblaze beside plain pytest tests, median of {rounds}:"
    )
    print(f"  {'':24} {'trailblaze':>11} {'plain':>8} {'difference':>11}")
    for name in results["plugin"][0]:
        ours = statistics.median(r[name] for r in results["plugin"])
        plain = statistics.median(r[name] for r in results["plain"])
        print(f"  {name:24} {ours:11.3f} {plain:8.3f} {ours - plain:+11.3f}")


if __name__ == "__main__":
    main()
