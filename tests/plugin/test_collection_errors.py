"""Bad input found at collection: malformed trails, unbindable args, bad option values."""

from __future__ import annotations

import re
import sys

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


# -- static checks of recorded calls ----------------------------------------------------------------
CALLS = """
config:
  id: calls
  args:
    pause: { type: integer, default: 1 }
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html" }
  - step: Typos and bad values
    recording:
      web:
        - web_clik: { ref: "css=#go" }
        - web_navigate: {}
        - wait: { timeToWaitInSeconds: .nan }
        - wait: { timeToWaitInSeconds: -5 }
        - wait: { timeToWaitInSeconds: .inf }
        - wait: { timeToWaitInSeconds: 1e300 }
        - web_type: { ref: "css=#name", text: "{{args.nope}}" }
        - web_resize: { width: 800, heigth: 600 }
  - step: Values only the run knows are not judged
    recording:
      web:
        - web_wait: { seconds: "{{args.pause}}" }
        - wait: { timeToWaitInSeconds: "{{delay}}" }
        - web_resize: { width: "{{memory.width}}", height: 600 }
"""


def test_every_static_problem_of_a_trail_is_one_collection_error_before_anything_runs(
    pytester: pytest.Pytester, tb
) -> None:
    tb.write(pytester.path, "trails/calls.trail.yaml", CALLS)

    result = pytester.runpytest(tb.APP_MEMORY)

    result.assert_outcomes(errors=1)  # nothing ran: not even step 1's navigation
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/calls.trail.yaml*",
            "9 problems found:",
            "trails/calls.trail.yaml:13:11: unknown tool 'web_clik' in step 2 (\"Typos and bad values\")",
            "  fix: did you mean 'web_click'?",
            "trails/calls.trail.yaml:14:11: invalid arguments for 'web_navigate': "
            "missing required argument 'url'",
            "trails/calls.trail.yaml:15:19: invalid arguments for 'wait': argument 'timeToWaitInSeconds': "
            "must be a finite number*(got nan)",
            "trails/calls.trail.yaml:16:19: *'timeToWaitInSeconds': *greater than or equal to 0 (got -5)",
            "trails/calls.trail.yaml:17:19: *'timeToWaitInSeconds': must be a finite number*(got inf)",
            "trails/calls.trail.yaml:18:19: *'timeToWaitInSeconds': *less than or equal to 600 (got 1e+300)",
            "trails/calls.trail.yaml:19:11: 'web_type' uses {{args.nope}}, which the trail does not declare",
            "trails/calls.trail.yaml:20:11: invalid arguments for 'web_resize': "
            "missing required argument 'height'",
            "trails/calls.trail.yaml:20:37: invalid arguments for 'web_resize': "
            "unknown argument 'heigth' (did you mean 'height'?)*",
        ]
    )
    step_3 = [line for line in result.outlines if re.match(r"trails/calls.trail.yaml:2[1-9]:", line)]
    assert not step_3, "values with tokens are judged at run time"
    no_traceback(result)


SHOP_WORKSPACE = {
    "trails/config/trailblaze.yaml": "targets: [shop]\n",
    "trails/config/trailmaps/shop/trailmap.yaml": """
        id: shop
        target:
          display_name: Shop
          tools: [shop_web_pause, shop_web_checkout, shop_web_typo]
    """,
    "trails/config/trailmaps/shop/tools/shop_web_pause.tool.yaml": """
        id: shop_web_pause
        description: Pause for a while.
        parameters:
          - name: seconds
            type: number
        tools:
          - wait: { timeToWaitInSeconds: "{{params.seconds}}" }
    """,
    "trails/config/trailmaps/shop/tools/shop_web_checkout.tool.yaml": """
        id: shop_web_checkout
        description: Pause, then check out.
        parameters:
          - name: pause
            type: number
        tools:
          - shop_web_pause: { seconds: "{{params.pause}}" }
          - web_click: { ref: "css=#checkout" }
    """,
    "trails/config/trailmaps/shop/tools/shop_web_typo.tool.yaml": """
        id: shop_web_typo
        description: Calls a tool that does not exist.
        parameters: []
        tools:
          - web_clik: { ref: "css=#go" }
    """,
}


def test_composed_tools_are_checked_at_every_depth_with_the_arguments_of_the_call(
    pytester: pytest.Pytester, tb
) -> None:
    for relpath, text in SHOP_WORKSPACE.items():
        tb.write(pytester.path, relpath, text)
    tb.write(
        pytester.path,
        "trails/shop.trail.yaml",
        """
        config:
          target: shop
        trail:
          - step: Check out
            recording:
              web:
                - shop_web_checkout: { pause: -5 }
                - shop_web_checkout: { pause: 1 }
                - shop_web_typo: {}
        """,
    )

    result = pytester.runpytest("--collect-only")

    result.assert_outcomes(errors=1)
    pause = "trails/config/trailmaps/shop/tools/shop_web_pause.tool.yaml"
    typo = "trails/config/trailmaps/shop/tools/shop_web_typo.tool.yaml"
    result.stdout.fnmatch_lines(
        [
            "2 problems found:",
            f"{pause}:7:13: invalid arguments for 'wait': argument 'timeToWaitInSeconds': "
            "*greater than or equal to 0 (got -5)",
            "  why: it runs inside 'shop_web_checkout' -> 'shop_web_pause', "
            "called at trails/shop.trail.yaml:7:11",
            f"{typo}:5:5: unknown tool 'web_clik' in composed tool 'shop_web_typo'",
            "  why: *; it runs inside 'shop_web_typo', called at trails/shop.trail.yaml:9:11",
            "  fix: did you mean 'web_click'?",
        ]
    )
    no_traceback(result)


MCP_TARGET = {
    "trails/config/trailblaze.yaml": "targets: [lab]\n",
    "trails/config/trailmaps/lab/trailmap.yaml": f"""
        id: lab
        target:
          display_name: Lab
          mcp_servers:
            - command: {sys.executable}
              args: [-c, "raise SystemExit('collection must not start MCP servers')"]
    """,
}


def test_names_an_mcp_server_may_provide_are_left_to_the_run(pytester: pytest.Pytester, tb) -> None:
    """Only a running server knows its tools; collection starts none, so it cannot judge them.
    Arguments of tools it does know are still checked."""
    for relpath, text in MCP_TARGET.items():
        tb.write(pytester.path, relpath, text)
    calls = """
        config:
          target: lab
        trail:
          - step: Call the server
            recording:
              web:
                - lab_createEntities: { entities: [] }
                %s
        """
    tb.write(pytester.path, "trails/lab.trail.yaml", calls % "")
    tb.write(pytester.path, "trails/typo.trail.yaml", calls % "- wait: { timeToWaitInSeconds: -1 }")

    result = pytester.runpytest("--collect-only", "trails/lab.trail.yaml")
    typo = pytester.runpytest("--collect-only", "trails/typo.trail.yaml")

    result.assert_outcomes()
    result.stdout.fnmatch_lines(["*<*lab*web*>*", "*1 test collected*"])
    typo.assert_outcomes(errors=1)
    typo.stdout.fnmatch_lines(["trails/typo.trail.yaml:8:19: invalid arguments for 'wait'*(got -1)"])


ANDROID_TYPO = """
trail:
  - step: Tap
    recording:
      android:
        - tapOnElementWithTxt: { text: Pay }
        - tapOnPoint: { x: -1, y: 10 }
"""


def test_names_are_judged_on_the_platforms_this_run_can_drive(pytester: pytest.Pytester, tb) -> None:
    """Without an Appium URL android items are skipped at run time, so only their arguments are
    judged at collection; with one, the misspelt name is a collection error too."""
    tb.write(pytester.path, "trails/pay.trail.yaml", ANDROID_TYPO)

    undriven = pytester.runpytest("--collect-only")
    driven = pytester.runpytest("--collect-only", "--trailblaze-appium-url", "http://127.0.0.1:9")

    undriven.assert_outcomes(errors=1)
    assert "tapOnElementWithTxt" not in undriven.stdout.str()
    undriven.stdout.fnmatch_lines(["trails/pay.trail.yaml:6:25: invalid arguments for 'tapOnPoint'*(got -1)"])
    driven.assert_outcomes(errors=1)
    driven.stdout.fnmatch_lines(
        [
            "2 problems found:",
            "trails/pay.trail.yaml:5:11: unknown tool 'tapOnElementWithTxt' in step 1 (\"Tap\")",
            "  why: no tool with that name is registered for platform 'android'*",
            "  fix: did you mean 'tapOnElementWithText'?",
            "trails/pay.trail.yaml:6:25: invalid arguments for 'tapOnPoint'*",
        ]
    )


def test_a_broken_link_and_a_folder_named_like_a_trail_are_collection_errors(
    pytester: pytest.Pytester, tb
) -> None:
    tb.write(pytester.path, "trails/good.trail.yaml", GOOD)
    tb.write(pytester.path, "trails/checkout.trail.yaml/inner.trail.yaml", GOOD)
    (pytester.path / "trails" / "gone.trail.yaml").symlink_to("moved.trail.yaml")

    result = pytester.runpytest("--collect-only")

    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/checkout.trail.yaml*",
            "trails/checkout.trail.yaml:1:1: a folder named like a trail file",
            "  why: names matching '*.trail.yaml' are trail files; pytest does not collect what this "
            "folder holds",
            "  fix: rename the folder (e.g. 'checkout'), or move its trail files out of it",
            "*ERROR collecting trails/gone.trail.yaml*",
            "trails/gone.trail.yaml:1:1: broken symbolic link to 'moved.trail.yaml'",
            "  fix: point the link at an existing trail file, or delete the link",
        ]
    )
    assert "good.trail.yaml" not in "".join(line for line in result.outlines if "ERROR" in line)
    no_traceback(result)


def test_a_composed_tool_that_reaches_itself_is_a_collection_error(pytester: pytest.Pytester, tb) -> None:
    """At run time the loop would end at the nesting limit, after its first calls ran."""
    tools = "trails/config/trailmaps/shop/tools"
    loop = "id: shop_web_{0}\ndescription: Loops.\nparameters: []\ntools:\n  - shop_web_{1}: {{}}\n"
    workspace = {**SHOP_WORKSPACE, f"{tools}/shop_web_ping.tool.yaml": loop.format("ping", "pong")}
    workspace[f"{tools}/shop_web_pong.tool.yaml"] = loop.format("pong", "ping")
    for relpath, text in workspace.items():
        tb.write(pytester.path, relpath, text)
    tb.write(
        pytester.path,
        "trails/loop.trail.yaml",
        """
        config:
          target: shop
        trail:
          - step: Loop
            recording:
              web:
                - shop_web_ping: {}
        """,
    )

    result = pytester.runpytest("--collect-only")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            f"{tools}/shop_web_pong.tool.yaml:5:5: composed tool 'shop_web_ping' calls itself "
            "(shop_web_ping -> shop_web_pong -> shop_web_ping)",
            "  why: it runs inside 'shop_web_ping' -> 'shop_web_pong', called at trails/loop.trail.yaml:7:11",
        ]
    )
