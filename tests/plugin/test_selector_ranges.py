"""Numbers inside a recorded ``nodeSelector`` are range-checked like every tool argument.

``index``, ``nthIndex``, ``headingLevel``, ``inputType`` and the collection item row / column are
whole numbers with bounds: a negative, fractional, non-finite or absurd value is a collection
error at the call's ``file:line`` (and a problem in ``trailblaze check``), at any depth of the
selector's relations, before any device or browser starts.
"""

from __future__ import annotations

import pytest

from pytest_trailblaze import cli

SELECTORS = """
config:
  id: selectors
trail:
  - step: Out-of-range selector numbers
    recording:
      android:
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { textRegex: Go }, index: -1 }
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { textRegex: Go }, index: .nan }
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { textRegex: Go }, index: 1e300 }
        - assertVisibleBySelector:
            nodeSelector: { androidAccessibility: { collectionItemRowIndex: -3 } }
        - assertVisibleBySelector:
            nodeSelector:
              androidAccessibility: { textRegex: Total }
              below: { androidAccessibility: { inputType: .inf } }
        - tapOnElementBySelector:
            nodeSelector: { androidAccessibility: { textRegex: Go }, index: 2 }
      web:
        - web_click: { nodeSelector: { web: { cssSelector: a, nthIndex: -2 } } }
        - web_click: { nodeSelector: { web: { ariaRole: heading, headingLevel: 0 } } }
        - web_click: { nodeSelector: { web: { cssSelector: a, nthIndex: 1.5 } } }
        - web_click: { nodeSelector: { web: { ariaRole: heading, headingLevel: 2, nthIndex: 0 } } }
"""

EXPECTED = [
    "trails/selectors.trail.yaml:8:13: invalid arguments for 'tapOnElementBySelector': "
    "argument 'nodeSelector.index': *greater than or equal to 0 (got -1)",
    "trails/selectors.trail.yaml:10:13: *'nodeSelector.index': must be a finite number* (got nan)",
    "trails/selectors.trail.yaml:12:13: *'nodeSelector.index': * (got 1e+300)",
    "trails/selectors.trail.yaml:14:13: invalid arguments for 'assertVisibleBySelector': "
    "argument 'nodeSelector.androidAccessibility.collectionItemRowIndex': "
    "*greater than or equal to 0 (got -3)",
    "trails/selectors.trail.yaml:16:13: *'nodeSelector.below.androidAccessibility.inputType': "
    "must be a finite number* (got inf)",
    "trails/selectors.trail.yaml:22:24: invalid arguments for 'web_click': "
    "argument 'nodeSelector.web.nthIndex': *greater than or equal to 0 (got -2)",
    "trails/selectors.trail.yaml:23:24: *'nodeSelector.web.headingLevel': "
    "*greater than or equal to 1 (got 0)",
    "trails/selectors.trail.yaml:24:24: *'nodeSelector.web.nthIndex': *valid integer* (got 1.5)",
]


def test_out_of_range_selector_numbers_are_collection_errors_at_their_lines(
    pytester: pytest.Pytester, tb
) -> None:
    tb.write(pytester.path, "trails/selectors.trail.yaml", SELECTORS)

    # Android items exist with an Appium URL (nothing listens there: collection starts nothing).
    result = pytester.runpytest("--collect-only", "--trailblaze-appium-url=http://127.0.0.1:9")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*ERROR collecting trails/selectors.trail.yaml*", "8 problems found:"])
    result.stdout.fnmatch_lines(EXPECTED, consecutive=False)
    text = result.stdout.str()
    assert ":20:" not in text and ":25:" not in text, "in-range selectors are fine"
    assert "Traceback" not in text and "pytest_trailblaze/" not in text


def test_trailblaze_check_reports_the_same_problems(
    pytester: pytest.Pytester, tb, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    tb.write(pytester.path, "trails/selectors.trail.yaml", SELECTORS)
    monkeypatch.chdir(pytester.path)

    rc = cli.main(["check", "trails"])

    out = capsys.readouterr().out
    assert rc == 1, out
    lines = out.splitlines()
    pytest.LineMatcher(lines).fnmatch_lines(EXPECTED, consecutive=False)
    assert lines[-1].endswith("8 problem(s)"), out
