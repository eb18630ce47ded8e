"""Memory, secrets and trail args, end to end on Chromium."""

from __future__ import annotations

import pytest

SECRET = "Sup3r-S3cret-Passw0rd"

#: A tool that fails unless its ``value`` argument arrives with the expected Python type.
TYPE_TOOL = """
from typing import Any

from pytest_trailblaze.core.errors import ToolFailure
from pytest_trailblaze.core.tooling.tooldef import tool


@tool(description="Assert the Python type of a value")
def probe_typeIs(ctx, value: Any, expected: str) -> str:
    if type(value).__name__ != expected:
        raise ToolFailure(f"{value!r} is a {type(value).__name__}, not a {expected}")
    return "ok"


def pytest_trailblaze_register_tools(registry, config):
    registry.register(probe_typeIs)
"""

PRECEDENCE = """
config:
  id: memory/precedence
  memory:
    baseUrl: {app_url}
    fromCli: config value
    fromConfig: config value
trail:
  - step: Open the form through the config.memory URL
    recording:
      web:
        - web_navigate: {{ url: "{{{{baseUrl}}}}/index.html#form" }}
        - web_evaluate: {{ script: "if (!location.href.startsWith('file:')) throw new Error(location.href)" }}
  - verify: The command line beats config.memory, which beats the defaults fixture
    recording:
      web:
        - assertEquals: {{ actual: "{{{{fromCli}}}}", expected: cli value }}
        - assertEquals: {{ actual: "${{fromConfig}}", expected: config value }}
        - assertEquals: {{ actual: "{{{{memory.fromDefaults}}}}", expected: default value }}
  - step: Type text with a memory token nobody set (an undeclared args token is a collection error)
    recording:
      web:
        - web_type: {{ ref: "css=#name-input", text: "Hi {{{{nobody}}}}" }}
        - web_evaluate:
            script: >-
              if (document.querySelector('#name-input').value !== 'Hi {{' + '{{nobody}}}}')
              throw new Error('typed: ' + document.querySelector('#name-input').value)
"""

ARGS = """
config:
  id: memory/args
  args:
    width: { type: integer, default: 1000 }
    label: { type: string, default: default label }
    strict: { type: boolean, default: false }
trail:
  - step: Open the app
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#form" }
  - verify: A whole-value token keeps the arg's type, text tokens are text
    recording:
      web:
        - probe_typeIs: { value: "{{args.width}}", expected: int }
        - probe_typeIs: { value: "{{args.strict}}", expected: bool }
        - probe_typeIs: { value: "w={{args.width}}", expected: str }
        - assertEquals: { actual: "{{args.label}}", expected: from the command line }
        - assertEquals: { actual: "strict={{args.strict}}", expected: strict=true }
  - step: Use the integer arg in a tool
    recording:
      web:
        - web_resize: { width: "{{args.width}}", height: 600 }
        - web_evaluate: { script: "if (innerWidth !== 640) throw new Error('width ' + innerWidth)" }
        - web_type: { ref: "css=#name-input", text: "{{args.label}} / {{args.width}}" }
        - web_verifyValue: { ref: "css=#name-input", type: VALUE, expected: from the command line / 640 }
"""

SECRETS = """
config:
  id: memory/secret
trail:
  - step: Type the password
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#form" }
        - web_type: { ref: "css=#name-input", text: "{{password}}" }
        - web_verifyValue: { ref: "css=#name-input", type: VALUE, expected: "{{password}}" }
        - dumpMemory: {}
  - verify: The password is not what it is
    recording:
      web:
        - assertEquals: { actual: "{{password}}", expected: "not the password" }
"""


def test_memory_precedence_and_unknown_tokens(pytester: pytest.Pytester, tb) -> None:
    examples_conftest = (tb.EXAMPLES / "conftest.py").read_text(encoding="utf-8")
    pytester.makeconftest(
        examples_conftest.replace(
            'return {"baseUrl": sample_app_url}',
            'return {"baseUrl": sample_app_url, "fromConfig": "default value", '
            '"fromDefaults": "default value"}',
        )
    )
    tb.write(pytester.path, "trails/precedence.trail.yaml", PRECEDENCE.format(app_url=tb.APP_URL))

    result = pytester.runpytest("--trailblaze-memory", "fromCli=cli value")

    result.assert_outcomes(passed=1)


def test_args_from_the_command_line_and_an_args_file_keep_their_types(pytester: pytest.Pytester, tb) -> None:
    pytester.makeconftest(TYPE_TOOL)
    tb.write(pytester.path, "trails/args.trail.yaml", ARGS)
    tb.write(pytester.path, "args.yaml", "label: from the file\nstrict: true\n")

    result = pytester.runpytest(
        tb.APP_MEMORY, "--trailblaze-args-file", "args.yaml",
        "--trailblaze-arg", "width=640", "--trailblaze-arg", "label=from the command line",
    )  # fmt: skip

    result.assert_outcomes(passed=1)


def test_a_wrongly_typed_arg_value_fails_the_type_probe(pytester: pytest.Pytester, tb) -> None:
    """The control of the test above: the probe tool does fail on a type it does not expect."""
    pytester.makeconftest(TYPE_TOOL)
    tb.write(
        pytester.path,
        "trails/probe.trail.yaml",
        "trail:\n  - step: s\n    recording:\n      web:\n"
        "        - probe_typeIs: { value: '7', expected: int }\n",
    )

    result = pytester.runpytest("--trailblaze-screenshots=off")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*cause: '7' is a str, not a int*"])


def test_a_secret_never_shows_in_output_junit_or_artifacts(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/secret.trail.yaml", SECRETS)

    result = pytester.runpytest(
        tb.APP_MEMORY, f"--trailblaze-secret=password={SECRET}", "--junitxml=report.xml", "-rA",
        "-o", "log_cli=true", "--log-cli-level=DEBUG", "--trailblaze-output=out",
    )  # fmt: skip

    result.assert_outcomes(failed=1)
    text = result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(
        [
            "*step 2 of 2 failed: The password is not what it is*",
            '*assertEquals {"actual": "********", "expected": "not the password"}*',
            "*cause: expected 'not the password' but got '********'*",
        ]
    )
    assert SECRET not in text
    assert SECRET not in (pytester.path / "report.xml").read_text(encoding="utf-8")
    for path in (pytester.path / "out").rglob("*"):
        if path.is_file() and path.suffix != ".png":
            assert SECRET not in path.read_text(encoding="utf-8", errors="replace"), path
