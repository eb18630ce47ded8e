"""No browser or Playwright driver process of a run survives it: after failures and after Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

#: Records this run's process tree when a marked tool is about to run, then a ``ready`` flag.
RECORDER = """
import json
import pathlib

HERE = pathlib.Path(__file__).parent

def pytest_trailblaze_before_tool(name, args, context):
    if name in ("assertEquals", "web_wait"):
        tmp = HERE / "procs.json.tmp"
        tmp.write_text(json.dumps(descendants()))
        tmp.replace(HERE / "procs.json")
"""

FAILING = """
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Compare
    recording:
      web:
        - assertEquals: { actual: "1", expected: "2" }
"""

WAITING = """
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Wait a long time
    recording:
      web:
        - web_wait: { seconds: 20 }
"""


class RunProcesses:
    """The processes one pytest run started, as its recorder saw them mid-run."""

    def __init__(self, recorded: list[list], run_id: str) -> None:
        self.recorded = {int(pid): cmd for pid, cmd in recorded}
        browsers = [cmd for cmd in self.recorded.values() if f"--trailblaze-test-run={run_id}" in cmd]
        assert browsers, f"no browser with the run id among {self.recorded}"
        profile = re.search(r"--user-data-dir=(\S+)", browsers[0])
        self.markers = [run_id, *([profile.group(1)] if profile else [])]
        self.drivers = {p: c for p, c in self.recorded.items() if "playwright" in c and "run-driver" in c}
        assert self.drivers, f"no Playwright driver among {self.recorded}"

    def survivors(self, tb, grace_s: float = 5.0) -> dict[int, str]:
        """Processes of the run still alive after a short grace for exits in flight."""
        deadline = time.monotonic() + grace_s
        while True:
            table = tb.processes()
            left = {p: c for p, c in table.items() if any(m in c for m in self.markers)}
            left.update({p: c for p, c in self.recorded.items() if table.get(p) == c})
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.1)

    def kill(self, tb) -> None:
        """Clean up after a failed assertion: end what this run left behind, by pid."""
        for pid in self.survivors(tb, grace_s=0):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def run_id() -> str:
    return uuid.uuid4().hex


def test_no_process_survives_a_failing_run(pytester: pytest.Pytester, tb, run_id: str) -> None:
    pytester.makeconftest(tb.PROCESS_PROBE + RECORDER)
    tb.write(pytester.path, "trails/failing.trail.yaml", FAILING)

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, f"--trailblaze-browser-arg=--trailblaze-test-run={run_id}"
    )

    result.assert_outcomes(failed=1)
    run = RunProcesses(json.loads((pytester.path / "procs.json").read_text()), run_id)
    try:
        assert run.survivors(tb) == {}
    finally:
        run.kill(tb)


def test_no_process_survives_ctrl_c_in_the_middle_of_a_step(
    pytester: pytest.Pytester, tb, run_id: str
) -> None:
    pytester.makeconftest(tb.PROCESS_PROBE + RECORDER)
    tb.write(pytester.path, "trails/waiting.trail.yaml", WAITING)
    log = pytester.path / "run.log"
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", tb.APP_MEMORY,
               f"--trailblaze-browser-arg=--trailblaze-test-run={run_id}"]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=pytester.path, stdout=out, stderr=subprocess.STDOUT, env=env)
    run = None
    try:
        procs = wait_for_file(pytester.path / "procs.json", proc, timeout_s=60)
        run = RunProcesses(json.loads(procs.read_text()), run_id)
        live = run.survivors(tb, grace_s=0)
        assert any(run_id in cmd for cmd in live.values()), "the browser must be found while it runs"
        assert set(run.drivers) <= set(live), "the driver must be found while it runs"
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        ret = proc.wait(timeout=60)
        took = time.monotonic() - started
        output = log.read_text(errors="replace")

        assert ret == pytest.ExitCode.INTERRUPTED, output
        assert "KeyboardInterrupt" in output
        assert took < 15, f"the run needed {took:.1f} s to stop after SIGINT (the step waits 20 s)"
        assert run.survivors(tb) == {}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if run is not None:
            run.kill(tb)


def wait_for_file(path: Path, proc: subprocess.Popen, timeout_s: float) -> Path:
    """Poll until ``path`` exists; fail early when the process already ended."""
    deadline = time.monotonic() + timeout_s
    while not path.exists():
        assert proc.poll() is None, f"the run ended before it got to the step (exit {proc.returncode})"
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)
    return path
