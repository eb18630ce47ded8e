"""The JUnit properties of an inner run, per test case: what the agent tests read usage, cost
and healing from (``--junitxml`` in the pytester's folder)."""

from __future__ import annotations

import re

import pytest


def props(pytester: pytest.Pytester, xml: str = "report.xml") -> dict[str, dict[str, str]]:
    """``{test case name: {property: value}}`` of ``xml`` in the pytester's folder."""
    text = (pytester.path / xml).read_text(encoding="utf-8")
    cases = {}
    for name, body in re.findall(r'<testcase [^>]*name="([^"]+)"[^>]*>(.*?)</testcase>', text, re.S):
        cases[name] = dict(re.findall(r'<property name="([^"]+)" value="([^"]*)"', body))
    return cases
