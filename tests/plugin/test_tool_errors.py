"""An exception from a user's Python or scripted tool reads like any failed step.

The failure names the trail file and line, ``step i of N``, the tool and its masked arguments,
the exception, and the user's own frames; plugin frames appear only with
``--trailblaze-full-trace``.
"""

from __future__ import annotations

import pytest

SECRET = "Tk9-user-tool-secret"

CONFTEST = """
from pytest_trailblaze import tool

import helpers


@tool(description="Log in through the API")
def api_login(ctx, password: str, user: str = "ann") -> str:
    return helpers.check(user, password)


def pytest_trailblaze_register_tools(registry, config):
    registry.register(api_login)
"""

HELPERS = """
def check(user, password):
    raise RuntimeError(f"login refused for {user} with password {password}")
"""

SCRIPTS = """
def reset(params, ctx):
    return _wipe(params["table"])


def _wipe(table):
    raise ValueError(f"no table {table!r}")
"""

LOGIN = """
config: { id: errors/login }
trail:
  - step: Open nothing
    recording:
      web: []
  - step: Log in through the API
    recording:
      web:
        - api_login: { password: "{{password}}" }
"""

HEAD = """
config: { id: errors/head }
trailhead:
  step: Reset the data
  recording:
    web:
      script: { function: "scripts.py:reset", params: { table: users } }
trail:
  - step: Never runs
    recording:
      web: []
"""


def _tree(pytester: pytest.Pytester, tb) -> None:
    pytester.makeconftest(CONFTEST)
    tb.write(pytester.path, "helpers.py", HELPERS)
    tb.write(pytester.path, "trails/scripts.py", SCRIPTS)
    tb.write(pytester.path, "trails/login.trail.yaml", LOGIN)
    tb.write(pytester.path, "trails/head.trail.yaml", HEAD)
    pytester.syspathinsert()


def _run(pytester: pytest.Pytester, *extra: str) -> pytest.RunResult:
    return pytester.runpytest(
        f"--trailblaze-secret=password={SECRET}", "--trailblaze-screenshots=off", "-p", "no:randomly", "-l",
        *extra,
    )  # fmt: skip


def test_a_user_tool_exception_is_a_located_step_failure_with_the_users_frames(pytester, tb) -> None:
    _tree(pytester, tb)

    result = _run(pytester)

    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "trails/login.trail.yaml:6:5: step 2 of 2 failed: Log in through the API",
            '  tool 1 of 1 (line 9): api_login {"password": "********"}',
            "  cause: RuntimeError: login refused for ann with password ********",
            "    traceback (your code; --trailblaze-full-trace shows every frame):",
            "      conftest.py:8 in api_login",
            "        return helpers.check(user, password)",
            "      helpers.py:2 in check",
            '        raise RuntimeError(f"login refused for {user} with password {password}")',
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*trails/head.trail.yaml:3:3: the trailhead failed: Reset the data",
            "  tool 1 of 1 (line 6): script *",
            "  cause: ValueError: no table 'users'",
            "    traceback (your code; *",
            "      trails/scripts.py:2 in reset",
            "      trails/scripts.py:6 in _wipe",
        ]
    )
    text = result.stdout.str()
    assert "pytest_trailblaze" not in text
    assert "Traceback" not in text
    assert SECRET not in text + result.stderr.str()


def test_the_full_trace_option_shows_the_plugin_frames_too(pytester, tb) -> None:
    _tree(pytester, tb)

    result = _run(pytester, "--trailblaze-full-trace", "trails/login.trail.yaml")

    result.assert_outcomes(failed=1)
    text = result.stdout.str()
    assert "pytest_trailblaze/core/tooling/registry.py" in text
    assert "RuntimeError: login refused for ann with password ********" in text
    assert "helpers.py:2: RuntimeError" in text
    assert SECRET not in text + result.stderr.str()
