"""What a pytest-xdist controller costs before its workers start, and in all, beside bare pytest's.

Runs ``pytest -n 2`` on the 20 web trails of ``xdist_scaling.py`` (the sample app served on
127.0.0.1), with a probe plugin (``-p``) that reads, in the controller only:

- its CPU seconds and wall seconds from process start to ``pytest_sessionstart``, where xdist
  starts the workers: everything there is on the critical path of the run;
- its CPU seconds in all (the reports it reads, the files it writes), which on a machine with as
  many cores as workers is taken from the workers;
- how many modules of the plugin (and pydantic) it imported.

The floor is the same controller measured with ``-p no:trailblaze`` on an empty folder: pytest
and xdist alone. CPU seconds are the steadier figure on a loaded machine; medians of the rounds.

    .venv/bin/python benchmarks/xdist_controller.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from web_replay import TRAIL as WEB_TRAIL
from xdist_scaling import PLUGINS, sample_app, write_trails

#: Loaded with ``-p controller_probe``: writes the controller's figures to $PROBE_OUT.
PROBE = """
import json, os, resource, sys, time
import pytest

def _cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

def _wall():
    return time.time() - float(os.environ["PROBE_T0"])

_figures = {}

@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        _figures.update(start_cpu=_cpu(), start_wall=_wall())

def pytest_unconfigure(config):
    if hasattr(config, "workerinput"):
        return
    ours = [m for m in sys.modules if m.startswith(("pytest_trailblaze", "pydantic"))]
    _figures.update(cpu=_cpu(), modules=len(ours))
    with open(os.environ["PROBE_OUT"], "w") as f:
        json.dump(_figures, f)
"""


def controller(cwd: Path, probe_dir: Path, plugins: tuple[str, ...], *args: str) -> dict[str, float]:
    """One whole ``pytest -n 2`` run; the controller's figures."""
    out = probe_dir / "figures.json"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
        PYTHONPATH=os.pathsep.join(filter(None, [str(probe_dir), env.get("PYTHONPATH")])),
        PROBE_OUT=str(out),
        PROBE_T0=repr(time.time()),
    )
    probe = ("-p", "controller_probe", "-p", "no:cacheprovider", "-q", "-n", "2")
    argv = [sys.executable, "-m", "pytest", *plugins, *probe, *args]
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 5):  # 5: the floor collects nothing
        sys.exit(f"pytest failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}")
    return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    work = Path(tempfile.mkdtemp(prefix="tb-controller-"))
    try:
        (work / "probe").mkdir()
        (work / "probe" / "controller_probe.py").write_text(PROBE, encoding="utf-8")
        (work / "empty").mkdir()
        write_trails(work / "web" / "trails", WEB_TRAIL)
        with sample_app() as url:
            variants = {
                "pytest -n 2, 20 trails": lambda: controller(
                    work / "web", work / "probe", PLUGINS, "trails", f"--trailblaze-memory=baseUrl={url}"
                ),
                "floor: pytest + xdist": lambda: controller(
                    work / "empty", work / "probe", ("-p", "xdist.plugin")
                ),
            }
            for run in variants.values():
                run()  # warm-up: bytecode, disk cache
            results = {name: [run() for _ in range(rounds)] for name, run in variants.items()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"the xdist controller, {os.cpu_count()} cores (load {load}), median of {rounds} rounds:")
    for name, runs in results.items():
        med = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        print(
            f"  {name:24} until workers start: {med['start_cpu']:5.2f} CPU-s {med['start_wall']:5.2f} s wall;"
            f"  in all {med['cpu']:5.2f} CPU-s;  {med['modules']:.0f} modules of the plugin and pydantic"
        )


if __name__ == "__main__":
    main()
