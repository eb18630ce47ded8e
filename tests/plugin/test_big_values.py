"""A value of 50 MB is shown cut, with a note of its size.

A tool argument of 50 MB once made 150 MB of terminal output, a 350 MB ``record.json`` and 2 GB
of memory. The tool still gets the whole value; what the terminal, JUnit, the records and the
report show of it is its start and ``… [50,000,000 characters, 49,998,000 not shown]``.
"""

from __future__ import annotations

import json

import pytest

SIZE = 50_000_000
CONFTEST = f"""
from pytest_trailblaze import tool


@tool(description="Put a big value in memory")
def make_big(ctx) -> str:
    ctx.memory.set("big", "x" * {SIZE})
    return "made"


@tool(description="Measure a text")
def measure(ctx, text: str) -> str:
    return f"got {{len(text)}} characters"


def pytest_trailblaze_register_tools(registry, config):
    registry.register(make_big)
    registry.register(measure)
"""
TRAIL = """
config: { id: big/value }
trail:
  - step: Make a big value
    recording:
      web:
        - make_big: {}
        - measure: { text: "{{big}}" }
  - step: Compare it
    recording:
      web:
        - assertEquals: { actual: "{{big}}", expected: "small" }
"""
NOTE = f"… [{SIZE:,} characters, {SIZE - 2_000:,} not shown]"


@pytest.mark.timeout(300)
def test_a_big_value_reaches_the_tool_whole_and_every_output_cut(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "conftest.py", CONFTEST)
    tb.write(pytester.path, "trails/big.trail.yaml", TRAIL)

    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-rA", "-v", "--junitxml=junit.xml", "--trailblaze-report=report.html",
        timeout=240,
    )  # fmt: skip

    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert len(out) < 200_000, len(out)
    assert NOTE in out
    (record_path,) = (pytester.path / "trailblaze-output").rglob("record.json")
    record = json.loads(record_path.read_text())
    calls = record["steps"][0]["calls"]
    assert calls[1]["message"] == f"got {SIZE} characters"  # the tool got the whole value
    assert calls[1]["args"]["text"].endswith(NOTE)
    for name in ("junit.xml", "report.html", record_path.relative_to(pytester.path)):
        size = (pytester.path / name).stat().st_size
        assert size < 500_000, f"{name}: {size} bytes"
