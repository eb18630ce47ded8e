"""Traces and videos of web trails, as pytest-playwright keeps them: ``--trailblaze-tracing`` and
``--trailblaze-video`` (``on`` / ``retain-on-failure``), the trace opened in the real trace viewer
(``playwright show-trace``) with one group per step, secrets masked inside the trace, and a clear
note when Playwright has no ffmpeg for videos.

Runs are real pytest subprocesses on headless Chromium. Each test has its own Playwright browsers
folder (``PLAYWRIGHT_BROWSERS_PATH``): ``trailblaze install-ffmpeg`` links imageio-ffmpeg there, or
nothing is linked, to see the missing-ffmpeg path.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pytest_trailblaze.drivers.playwright import WebDriver

APP = (Path(__file__).resolve().parents[2] / "examples" / "sample-app").as_uri()
TRAILBLAZE = Path(sys.executable).parent / "trailblaze"
SECRET = "Qx7traceSECRETvalue"

PASSING = """
config: { id: rec/passing }
trail:
  - step: Open the counter
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#counter" }
  - step: Click increment
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
"""

FAILING = """
config: { id: rec/failing }
trail:
  - step: Type the password into the name field
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#form" }
        - web_type: { ref: "css=#name-input", text: "{{password}}" }
  - step: Compare totals
    recording:
      web:
        - assertEquals: { actual: "41", expected: "42" }
"""


@pytest.fixture
def run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """``run(*args, ffmpeg=True)``: both trails in a pytest subprocess with its own browsers folder."""
    (pytester.path / "trails").mkdir()
    (pytester.path / "trails" / "passing.trail.yaml").write_text(PASSING)
    (pytester.path / "trails" / "failing.trail.yaml").write_text(FAILING)

    def run_(*args: str, ffmpeg: bool = True) -> pytest.RunResult:
        browsers = tmp_path / ("with-ffmpeg" if ffmpeg else "without-ffmpeg")
        monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(browsers))
        if ffmpeg:
            linked = subprocess.run(
                [TRAILBLAZE, "install-ffmpeg"], capture_output=True, text=True, check=True
            )
            assert str(browsers) in linked.stdout
        return pytester.runpytest_subprocess(
            f"--trailblaze-memory=app={APP}",
            f"--trailblaze-secret=password={SECRET}",
            "-p", "no:randomly",
            *args,
            timeout=180,
        )  # fmt: skip

    return run_


def _folders(root: Path) -> dict[str, Path]:
    out = root / "trailblaze-output"
    return {json.loads(p.read_text())["trail_id"]: p.parent for p in out.glob("*/record.json")}


def test_retain_on_failure_keeps_the_trace_of_the_failing_trail_only(run, pytester: pytest.Pytester) -> None:
    result = run("--trailblaze-tracing=retain-on-failure", "--trailblaze-video=on")

    result.assert_outcomes(passed=1, failed=1)
    folders = _folders(pytester.path)
    assert (folders["rec/failing"] / "trace.zip").is_file()
    assert not (folders["rec/passing"] / "trace.zip").exists()
    for folder in folders.values():
        assert (folder / "video.webm").read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # a WebM (EBML) file
    result.stdout.re_match_lines([r"failed rec/failing\[web\]: .*\(.*trace\.zip, video\.webm\)"])
    result.stdout.re_match_lines([r"passed rec/passing\[web\]: .*\(video\.webm\)"])


def test_the_trace_masks_the_secret_typed_into_the_page(run, pytester: pytest.Pytester) -> None:
    result = run("--trailblaze-tracing=on")

    result.assert_outcomes(passed=1, failed=1)
    with zipfile.ZipFile(_folders(pytester.path)["rec/failing"] / "trace.zip") as trace:
        members = {name: trace.read(name) for name in trace.namelist()}
    assert any(name.endswith(".trace") for name in members)
    assert [name for name, data in members.items() if SECRET.encode() in data] == []
    assert b"********" in members["trace.trace"]
    result.stdout.fnmatch_lines(["note: secrets are masked in traces' text, but screenshots, trace frames*"])


def test_the_trace_opens_in_the_trace_viewer_with_one_group_per_step(
    run, pytester: pytest.Pytester, driver: WebDriver
) -> None:
    run("--trailblaze-tracing=on", "-k", "passing").assert_outcomes(passed=1)
    trace = _folders(pytester.path)["rec/passing"] / "trace.zip"

    with _trace_viewer(trace) as url:
        page = driver.page
        page.goto(url)
        actions = page.get_by_role("tree")
        first = actions.get_by_text("step 1 of 2: Open the counter")
        first.wait_for(timeout=20_000)
        assert actions.get_by_text("step 2 of 2: Click increment").is_visible()


def test_without_ffmpeg_the_trail_runs_and_the_run_says_how_to_get_videos(
    run, pytester: pytest.Pytester
) -> None:
    result = run("--trailblaze-video=on", "-k", "passing", ffmpeg=False)

    result.assert_outcomes(passed=1)
    note = "video: not recorded: Playwright's ffmpeg is missing at "
    (record,) = (
        json.loads(p.read_text()) for p in (pytester.path / "trailblaze-output").glob("*/record.json")
    )
    assert any(n.startswith(note) and "trailblaze install-ffmpeg" in n for n in record["notes"])
    result.stdout.fnmatch_lines([f"note: {note}*"])


def test_pytest_playwright_options_apply_where_ours_say_nothing(run, pytester: pytest.Pytester) -> None:
    """pytest-playwright's ``--tracing``, ``--video`` and ``--screenshot`` ask trails for the same
    evidence; ``--trailblaze-tracing`` wins."""
    run("--tracing=on", "--video=on", "--screenshot=on", "-k", "passing").assert_outcomes(passed=1)
    folder = _folders(pytester.path)["rec/passing"]
    assert (folder / "trace.zip").is_file()
    assert (folder / "video.webm").read_bytes()[:4] == b"\x1a\x45\xdf\xa3"
    assert sorted(p.name for p in (folder / "steps").glob("*.png")) == ["step-01.png", "step-02.png"]

    run("--tracing=on", "--trailblaze-tracing=off", "-k", "passing").assert_outcomes(passed=1)
    assert not (_folders(pytester.path)["rec/passing"] / "trace.zip").exists()


def test_evidence_is_off_by_default(run, pytester: pytest.Pytester) -> None:
    run().assert_outcomes(passed=1, failed=1)
    names = {p.name for p in (pytester.path / "trailblaze-output").rglob("*")}
    assert not names & {"trace.zip", "video.webm", ".videos", "steps"}


@contextmanager
def _trace_viewer(trace: Path) -> Iterator[str]:
    """``playwright show-trace`` serving ``trace`` on a free port of 127.0.0.1; its process group
    is stopped at the end, also when it never answered."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [str(Path(sys.executable).parent / "playwright"), "show-trace"]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port), str(trace)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "BROWSER": "true"},  # serve only: do not open a desktop browser
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 20
        while not _answers(port):
            assert process.poll() is None, f"show-trace exited with {process.returncode}"
            assert time.monotonic() < deadline, "the trace viewer does not answer"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)


def _answers(port: int) -> bool:
    with socket.socket() as client:
        return client.connect_ex(("127.0.0.1", port)) == 0
