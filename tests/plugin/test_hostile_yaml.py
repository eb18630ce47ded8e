"""Hostile YAML in a real pytest run (issue 13 §1, §4): nothing crashes the process, every bad file
is a located collection error, the other trails still run, and an environment value never adds
structure to a trail.

Runs are subprocesses: a crash of the composer (SIGSEGV) must show up as a failed test here, not
take this test session down with it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

DEEP = 25_000
GOOD = "trail:\n  - step: Nothing to do\n    recording:\n      web: []\n"
BAD_FILES = {
    "trails/deep_list.trail.yaml": "[" * DEEP + "]" * DEEP + "\n",
    "trails/deep_map.trail.yaml": "{a: " * DEEP + "1" + "}" * DEEP + "\n",
    "trails/deep_args.trail.yaml": (
        "trail:\n  - step: s\n    recording:\n      web:\n"
        "        - assertEquals: {actual: " + "[" * 5_000 + "]" * 5_000 + ", expected: x}\n"
    ),
    "trails/tagged.trail.yaml": (
        "trail:\n  - step: s\n    recording:\n      web:\n"
        "        - assertEquals: {actual: !!python/name:os.system '', expected: x}\n"
    ),
}
EXPECTED = {
    "trails/deep_list.trail.yaml:1:129: nesting deeper than 128",
    "trails/deep_map.trail.yaml:1:513: nesting deeper than 128",
    "trails/deep_args.trail.yaml:5:155: nesting deeper than 128",
    "trails/tagged.trail.yaml:5:34: unknown YAML tag !!python/name:os.system",
}


@pytest.fixture
def hostile(pytester: pytest.Pytester, tb) -> pytest.Pytester:
    for rel, text in BAD_FILES.items():
        path = pytester.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    tb.write(pytester.path, "trails/good.trail.yaml", GOOD)
    tb.write(pytester.path, "trails/also_good.trail.yaml", GOOD)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        "-p", "no:randomly", "--continue-on-collection-errors", "--junitxml=junit.xml", *args, timeout=240
    )


def located(output: str) -> None:
    for where in EXPECTED:
        assert where in output, f"{where!r} missing from:\n{output}"
    assert "Traceback" not in output
    assert "RecursionError" not in output


def test_bad_files_are_located_errors_and_the_other_trails_run(hostile: pytest.Pytester) -> None:
    result = run(hostile)
    result.assert_outcomes(passed=2, errors=len(BAD_FILES))
    located(result.stdout.str())
    assert (hostile.path / "junit.xml").is_file()


def test_the_same_under_xdist(hostile: pytest.Pytester) -> None:
    result = run(hostile, "-n", "2")
    result.assert_outcomes(passed=2, errors=len(BAD_FILES))
    located(result.stdout.str())
    assert "crashed" not in result.stdout.str()


def test_trailblaze_check_reports_them(hostile: pytest.Pytester) -> None:
    console = Path(sys.executable).parent / "trailblaze"
    done = subprocess.run(
        [str(console), "check", "trails", "--no-servers"],
        cwd=hostile.path,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    located(done.stdout)
    assert "2 trail(s) in 6 file(s)" in done.stdout
    assert done.stderr == ""


# -- an environment value stays one value ----------------------------------------------------------
INJECTION = 'x"\n    recording:\n      web:\n        - script: { function: "marker.py:mark" }\n  - step: "y'
MARKER_PY = """
from pathlib import Path


def mark(params, ctx):
    Path(__file__).with_name("MARKER").write_text("the injected step ran")
    return "marked"
"""


def test_an_environment_value_cannot_add_a_step(
    pytester: pytest.Pytester, tb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the value was spliced into the text, so it added a ``script`` step that wrote MARKER."""
    tb.write(pytester.path, "trails/marker.py", MARKER_PY)
    tb.write(
        pytester.path,
        "trails/login.trail.yaml",
        'trail:\n  - step: "Check {{TB_INJECT}}"\n    recording:\n      web: []\n',
    )
    monkeypatch.setenv("TB_INJECT", INJECTION)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "--collect-only", "-q", timeout=120)
    result.assert_outcomes()
    assert "1 test collected" in result.stdout.str()
    result = run(pytester)
    result.assert_outcomes(passed=1)
    assert not (pytester.path / "trails" / "MARKER").exists()


# -- args files and caps files are read like trails ---------------------------------------------------
ARGS_TRAIL = """
config:
  args:
    code: { type: string }
    count: { type: integer }
trail:
  - step: Compare
    recording:
      web:
        - assertEquals: { actual: "{{args.code}}/{{args.count}}", expected: "017/010" }
"""


def test_an_args_file_keeps_the_text_as_written(pytester: pytest.Pytester, tb) -> None:
    """YAML 1.1 read ``017`` as 15 (octal): the string arg became "15"."""
    tb.write(pytester.path, "trails/args.trail.yaml", ARGS_TRAIL)
    tb.write(pytester.path, "args.yaml", "code: 017\ncount: 010\n")
    result = run(pytester, "--trailblaze-args-file=args.yaml")
    result.assert_outcomes(passed=1)


def test_a_tag_in_an_args_file_is_a_usage_error(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/args.trail.yaml", ARGS_TRAIL)
    tb.write(pytester.path, "args.yaml", "code: !!python/name:os.system ''\n")
    result = run(pytester, "--trailblaze-args-file=args.yaml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "args.yaml:1:7: unknown YAML tag !!python/name:os.system" in result.stderr.str()
