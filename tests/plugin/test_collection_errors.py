"""Bad input found at collection: malformed trails, unbindable args, bad option values."""

from __future__ import annotations

import pytest

MALFORMED = """
config:
  id: broken
  bogus: 1
trail:
  - step: Open the app
    recordin:
      web: []
  - verify: ""
    recording:
      web:
        - web_click: 5
  - step: Tap
    recording:
      web:
        - config: { url: x }
"""

ARGS_TRAIL = """
config:
  args:
    user: { type: string }
    count: { type: integer, default: 1 }
    admin: { type: boolean, default: false }
trail:
  - step: Log in
    recording:
      web:
        - assertEquals: { actual: "{{args.user}}", expected: x }
"""

GOOD = "trail:\n  - step: s\n    recording:\n      web: []\n"


def no_traceback(result: pytest.RunResult) -> None:
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text
    assert "pytest_trailblaze/" not in text
    assert "INTERNALERROR" not in text


def test_a_malformed_trail_is_one_error_listing_every_problem(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/broken.trail.yaml", MALFORMED)
    tb.write(pytester.path, "trails/good.trail.yaml", GOOD)

    result = pytester.runpytest("--collect-only")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/broken.trail.yaml*",
            "5 problems found:",
            "trails/broken.trail.yaml:3:3: unknown key 'bogus'*",
            "trails/broken.trail.yaml:6:5: unknown key 'recordin'*",
            "*did you mean 'recording'*",
            "trails/broken.trail.yaml:8:13: *verify*empty*",
            "trails/broken.trail.yaml:11:22: the arguments of 'web_click' must be a mapping*",
            "trails/broken.trail.yaml:15:11: 'config' cannot be a tool name*",
        ]
    )
    assert "ERROR trails/good.trail.yaml" not in result.stdout.str()
    no_traceback(result)


def test_a_yaml_syntax_error_points_at_line_and_column(pytester: pytest.Pytester, tb) -> None:
    tb.write(
        pytester.path, "trails/syntax.trail.yaml", 'trail:\n  - step: "unterminated\n    recording: {}\n'
    )

    result = pytester.runpytest("--collect-only")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["trails/syntax.trail.yaml:*:*: *"])
    no_traceback(result)


def test_a_missing_required_arg_names_the_arg_and_the_option(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/login.trail.yaml", ARGS_TRAIL)

    result = pytester.runpytest("--collect-only")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["trails/login.trail.yaml:3:5: missing required arg 'user'*--trailblaze-arg user=*"]
    )
    no_traceback(result)


def test_every_arg_problem_is_listed_with_the_option_fix(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/login.trail.yaml", ARGS_TRAIL)

    result = pytester.runpytest(
        "--collect-only", "--trailblaze-arg", "count=many", "--trailblaze-arg", "admin=yes"
    )

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "trails/login.trail.yaml:3:5: missing required arg 'user'*",
            "trails/login.trail.yaml:4:5: *'count'*integer*many*",
            "trails/login.trail.yaml:5:5: *'admin'*true or false*yes*",
        ]
    )
    count_line = next(line for line in result.outlines if "'count'" in line)
    assert "--trailblaze-arg count=" in count_line, "a wrong type must say how to fix it"
    no_traceback(result)


def test_an_arg_error_does_not_claim_the_arg_is_undeclared(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/login.trail.yaml", ARGS_TRAIL)

    result = pytester.runpytest("--collect-only", "--trailblaze-arg", "count=many")

    result.stdout.fnmatch_lines(["*'count'*integer*many*"])
    assert "no collected trail declares" not in result.stdout.str() + result.stderr.str()


def test_an_arg_nobody_declares_is_a_usage_error(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/login.trail.yaml", ARGS_TRAIL)

    result = pytester.runpytest(
        "--collect-only", "--trailblaze-arg", "user=ada", "--trailblaze-arg", "usr=ada"
    )

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: unknown trail arg(s) usr*declared: admin, count, user*"])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--trailblaze-memory", "novalue"], "*--trailblaze-memory expects KEY=VALUE*novalue*"),
        (["--trailblaze-secret", "=x"], "*--trailblaze-secret expects KEY=VALUE*"),
        (["--trailblaze-arg", "noequals"], "*--trailblaze-arg expects KEY=VALUE*noequals*"),
        (["--trailblaze-viewport", "12"], "*--trailblaze-viewport expects WIDTHxHEIGHT*'12'*"),
        (["--trailblaze-viewport", "0x10"], "*--trailblaze-viewport expects WIDTHxHEIGHT*"),
        (["--trailblaze-driver", "NOPE"], "*--trailblaze-driver*unknown driver 'NOPE'*PLAYWRIGHT_NATIVE*"),
        (["--trailblaze-args-file", "missing.yaml"], "*--trailblaze-args-file missing.yaml*cannot read*"),
        (["--trailblaze-args-file", "list.yaml"], "*--trailblaze-args-file list.yaml*expected a map*"),
        (["--trailblaze-args-file", "broken.yaml"], "*--trailblaze-args-file broken.yaml*not valid YAML*"),
        (["--trailblaze-settle-ms", "soon"], "*--trailblaze-settle-ms*whole number*'soon'*"),
    ],
)
def test_bad_option_values_are_usage_errors(
    pytester: pytest.Pytester, tb, args: list[str], expected: str
) -> None:
    tb.write(pytester.path, "trails/ok.trail.yaml", GOOD)
    tb.write(pytester.path, "list.yaml", "[1, 2]\n")
    tb.write(pytester.path, "broken.yaml", "a: [1,\n")

    result = pytester.runpytest("--collect-only", *args)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([expected])
    no_traceback(result)
