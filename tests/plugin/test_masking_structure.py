"""Masking rewrites values, never structure; every written form of a secret is masked; trail text
cannot steer the terminal (docs/guides/security.md).

- A one-letter secret (``e``) or one equal to a field name (``outcome``, ``nodeid``) used to rewrite
  dictionary keys and report fields: ``KeyError: 'nodeid'`` in the summary, an INTERNALERROR from
  pytest rebuilding a report. Now only text values are masked, the run ends with its reports, and a
  one- or two-character secret is named in a warning (never its value).
- A secret with regular-expression characters and a newline, typed into a textarea, reaches the
  page's accessibility snapshot as one line and failure messages line by line: every form is masked.
- ESC, BEL, NUL and CR in ``config.id`` and step text are shown as ``\\x1b`` in the terminal, JUnit
  and the reports instead of being obeyed.
"""

from __future__ import annotations

import json
import os
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

FAILING = """
config:
  id: checkout-flow
trail:
  - step: Check the total
    recording:
      web:
        - assertEquals: { actual: "needle nodeid outcome keyword", expected: "other" }
"""


def _files(root: Path, pattern: str) -> list[Path]:
    return sorted((root / "trailblaze-output").rglob(pattern))


@pytest.mark.timeout(300)
def test_secrets_equal_to_letters_or_field_names_mask_text_and_keep_the_reports_whole(
    pytester: pytest.Pytester, tb
) -> None:
    tb.write(pytester.path, "trails/checkout.trail.yaml", FAILING)

    result = pytester.runpytest_subprocess(
        "--trailblaze-secret=E=e", "--trailblaze-secret=O=outcome", "--trailblaze-secret=N=nodeid",
        "-p", "no:randomly", "--junitxml=junit.xml", "--trailblaze-report=report.html", "-rA", timeout=240,
    )  # fmt: skip

    output = result.stdout.str() + result.stderr.str()
    assert "INTERNALERROR" not in output and "KeyError" not in output and "Traceback" not in output
    assert result.ret == 1
    summary = json.loads((pytester.path / "trailblaze-output" / "summary.json").read_text())
    assert summary["totals"] == {"failed": 1}
    (trail,) = summary["trails"]
    assert trail["outcome"] == "failed" and trail["nodeid"].startswith("trails/checkout.trail.yaml::")
    (record_path,) = _files(pytester.path, "record.json")
    record = json.loads(record_path.read_text())
    assert {"nodeid", "outcome", "steps", "artifacts"} <= set(record)
    assert record["steps"][0]["outcome"] == "failed" and record["steps"][0]["kind"] == "step"
    assert "e" not in record["steps"][0]["text"]  # the text is masked: every 'e' starred out
    case = ET.parse(pytester.path / "junit.xml").getroot().find(".//testcase")
    names = [p.get("name") for p in case.iter("property")]
    assert {"step_1", "trail_id", "failing_step", "outcome"} <= set(names)  # property names untouched
    assert case.find("failure") is not None
    assert (pytester.path / "report.html").is_file()


def test_a_one_or_two_character_secret_is_named_in_a_warning_not_shown(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/checkout.trail.yaml", FAILING)

    result = pytester.runpytest_subprocess("--trailblaze-secret=PIN=q7", "--collect-only", "-q", timeout=120)

    warning = (
        "--trailblaze-secret PIN: a secret of one or two characters is masked wherever those characters "
        "occur, so ordinary text in the output is starred out too; use the full secret value"
    )
    assert warning in result.stdout.str()
    assert result.stdout.str().count("PytestConfigWarning") == 1
    assert "q7" not in result.stdout.str()


#: A password with regular-expression characters and a line break, unique to this run.
TAG = uuid.uuid4().hex[:6]
LINES = (f"a.*(b)[x]{TAG}", f"+$^|?{{1}}{TAG}")
MULTILINE = "\n".join(LINES)
TEXTAREA_TRAIL = """
config: { id: sweep/multiline }
trail:
  - step: Write the message and check it
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html#form" }
        - web_type: { ref: "css=#message-input", text: "{{password}}" }
        - web_verifyValue: { ref: "css=#message-input", expected: "something else", type: VALUE }
  - step: Check the text too
    recording:
      web:
        - web_verifyValue: { ref: "css=#message-input", expected: "something else" }
"""


@pytest.mark.timeout(300)
def test_every_written_form_of_a_multi_line_secret_is_masked(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/multiline.trail.yaml", TEXTAREA_TRAIL)

    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, f"--trailblaze-secret=password={MULTILINE}", "-p", "no:randomly", "-rA", "-v",
        "--junitxml=junit.xml", "--trailblaze-report=report.html", timeout=240,
    )  # fmt: skip

    result.assert_outcomes(failed=1)
    aria = _files(pytester.path, "failure-page.aria.yaml")
    assert aria and "textbox" in aria[0].read_text()
    assert "********" in aria[0].read_text()
    forms = [*LINES, " ".join(LINES), "\\n".join(LINES), *(line.replace("\\", "\\\\") for line in LINES)]
    leaks = [
        f"{stream}: {form!r}"
        for stream, text in (("stdout", result.stdout.str()), ("stderr", result.stderr.str()))
        for form in forms
        if form in text
    ]
    for folder, _, files in os.walk(pytester.path):
        for name in files:
            data = Path(folder, name).read_bytes()
            leaks += [f"{Path(folder, name)}: {form!r}" for form in forms if form.encode() in data]
    assert leaks == []


CONTROL_TRAIL = """
config:
  id: "clear \\e[2J\\e[H screen"
trail:
  - step: "ring \\a and hide \\r the line \\0 end"
    recording:
      web:
        - assertEquals: { actual: "x", expected: "y" }
"""


@pytest.mark.timeout(300)
def test_control_characters_in_trail_text_are_shown_not_obeyed(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/controls.trail.yaml", CONTROL_TRAIL)

    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-v", "-rA", "--junitxml=junit.xml", "--trailblaze-report=report.html",
        timeout=240,
    )  # fmt: skip

    result.assert_outcomes(failed=1)
    raw = ("\x1b", "\x07", "\x00", "\r")
    for stream in (result.stdout.str(), result.stderr.str()):
        assert not [c for c in raw if c in stream], [c for c in raw if c in stream]
    out = result.stdout.str()
    assert "controls.trail.yaml::clear \\x1b[2J\\x1b[H screen[web]" in out
    assert "ring \\x07 and hide \\r the line \\0 end" in out
    junit = (pytester.path / "junit.xml").read_text()
    assert 'name="clear \\x1b[2J\\x1b[H screen[web]"' in junit
    assert "ring \\x07 and hide \\r the line \\0 end" in junit
    report = (pytester.path / "report.html").read_text()
    assert "ring \\x07 and hide \\r the line \\0 end" in report
    assert not [c for c in raw if c in report]
