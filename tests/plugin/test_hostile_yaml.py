"""Hostile YAML in a real pytest run: nothing crashes the process, every bad file
is a located collection error, the other trails still run, and an environment value never adds
structure to a trail.

Runs are subprocesses: a crash of the composer (SIGSEGV) must show up as a failed test here, not
take this test session down with it.
"""

from __future__ import annotations

import subprocess
import sys
import time
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


# -- fan-outs that multiply at every level -----------------------------------------------------------
def merge_fan_out(levels: int = 8, width: int = 10) -> str:
    """Tool arguments whose mappings each merge ten aliases of the level below: 10**8 pairs."""
    rows = ["        - assertEquals:", "            actual:", "              - &a0 {k0: x}"]
    for level in range(1, levels + 1):
        sources = ", ".join([f"*a{level - 1}"] * width)
        rows.append(f"              - &a{level} {{<<: [{sources}], k{level}: y}}")
    rows.append("            expected: x")
    return "trail:\n  - step: Merge\n    recording:\n      web:\n" + "\n".join(rows) + "\n"


def args_fan_out(levels: int = 9, width: int = 10) -> str:
    """Args whose defaults each repeat the one before ten times: 10**10 characters at the last."""
    rows = ["config:", "  args:", '    a0: {type: string, default: "xxxxxxxxxx"}']
    for level in range(1, levels + 1):
        repeated = ("{{args.a" + str(level - 1) + "}}") * width
        rows.append(f'    a{level}: {{type: string, default: "{repeated}"}}')
    rows += ["trail:", "  - step: Use it", "    recording:", "      web:"]
    rows.append(f'        - assertEquals: {{actual: "{{{{args.a{levels}}}}}", expected: x}}')
    return "\n".join(rows) + "\n"


FAN_OUTS = {
    "trails/merges.trail.yaml": (
        merge_fan_out(),
        "trails/merges.trail.yaml:13:17: `<<:` merge keys in this file bring in more than 500,000 entries",
    ),
    "trails/args.trail.yaml": (
        args_fan_out(),
        "trails/args.trail.yaml:12:5: arg 'a9' expands to 10,000,000,000 characters through {{args...}} "
        "references",
    ),
}


@pytest.mark.parametrize("rel", sorted(FAN_OUTS))
def test_a_fan_out_is_a_located_error_in_collection_and_check(
    pytester: pytest.Pytester, tb, rel: str
) -> None:
    text, expected = FAN_OUTS[rel]
    tb.write(pytester.path, rel, text)
    tb.write(pytester.path, "trails/good.trail.yaml", GOOD)
    console = Path(sys.executable).parent / "trailblaze"

    started = time.monotonic()
    collected = pytester.runpytest_subprocess("-p", "no:randomly", "--collect-only", "-q", timeout=120)
    checked = subprocess.run(
        [str(console), "check", "trails", "--no-servers"],
        cwd=pytester.path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    took = time.monotonic() - started

    assert expected in collected.stdout.str()
    assert "good[web]" in collected.stdout.str()
    assert expected in checked.stdout and checked.returncode == 1
    assert "MemoryError" not in collected.stdout.str() + checked.stdout + checked.stderr
    assert took < 60, f"two runs took {took:.0f} s: the limit is checked while building, not after"
