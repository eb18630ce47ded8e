"""MCP details seen through real trails (pytester runs, real browser, real servers).

- a tool's memory writes (``_meta.trailblaze.memoryDelta``) are read by the trail's later steps, and
  a secret key a server writes stays masked in what the run prints and in the JUnit report;
- a server that writes non-JSON-RPC text on stdout ERRORs its trails at once, quoting the line with
  the run's secrets masked, instead of waiting for the handshake watchdog.
"""

from __future__ import annotations

import sys

SEED = "seed-secret-4410"
ROTATED = "rotated-secret-5521"


def _py_server(fx, marker: str) -> str:
    return f"""    - name: pyfx
      command: env
      args: [{sys.executable}, {fx.PY_SERVER}, "{marker}"]"""


def test_memory_written_by_a_tool_is_read_by_later_steps(pytester, fx) -> None:
    marker = fx.sentinel("trail-delta")
    fx.workspace(pytester.path, _py_server(fx, marker))
    trail = fx.trail(
        "fx/delta",
        "        - pyfx_remember: {values: {orderId: A-17}}",
        '        - assertEquals: {actual: "{{orderId}}", expected: A-17}\n'
        '        - pyfx_echo: {message: "order {{memory.orderId}}"}',
    )
    fx.write(pytester.path, "trails/delta.trail.yaml", trail)

    try:
        result = pytester.runpytest(*fx.FAST, fx.QUIET, "-p", "no:randomly")
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(passed=1)


def test_a_secret_a_server_rotates_stays_masked(pytester, fx) -> None:
    marker = fx.sentinel("trail-secret")
    fx.workspace(pytester.path, _py_server(fx, marker))
    trail = fx.trail(
        "fx/secret",
        f"        - pyfx_remember: {{values: {{token: {ROTATED}}}}}",
        '        - pyfx_fail: {message: "rejected {{token}}"}',
    )
    fx.write(pytester.path, "trails/secret.trail.yaml", trail)

    try:
        result = pytester.runpytest(
            *fx.FAST, fx.QUIET, "-p", "no:randomly", f"--trailblaze-secret=token={SEED}", "--junitxml=out.xml"
        )
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(failed=1)
    failed = fx.outcome_section(result, "fx/secret[web]")
    assert "rejected ********" in failed, failed
    out = result.stdout.str() + result.stderr.str() + (pytester.path / "out.xml").read_text()
    assert ROTATED not in out and SEED not in out


def test_junk_on_stdout_errors_the_trails_at_once_quoting_it_masked(pytester, fx) -> None:
    marker = fx.sentinel("trail-junk")
    servers = f"""    - name: junker
      command: {sys.executable}
      args: [{fx.RAW_SERVER}, junk, "{marker}"]
      env: {{MCPFX_JUNK: "ready, api key {SEED}"}}"""
    fx.workspace(pytester.path, servers)
    for name in ("one", "two"):
        fx.write(
            pytester.path,
            f"trails/{name}.trail.yaml",
            fx.trail(f"fx/{name}", "        - raw_echo: {message: x}"),
        )

    try:
        result = pytester.runpytest(
            *fx.FAST, fx.QUIET, "-p", "no:randomly", f"--trailblaze-secret=key={SEED}"
        )
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(errors=2)
    for item in ("one", "two"):
        text = fx.outcome_section(result, f"ERROR at setup of fx/{item}[web]")
        assert (
            "MCP server junker wrote non-JSON-RPC output on stdout instead of answering `initialize`" in text
        )
        assert "first line: 'ready, api key ********'" in text, text
    assert "did not answer `initialize`" not in result.stdout.str()
    assert SEED not in result.stdout.str() + result.stderr.str()
    assert left == {}, f"the server survived: {left}"
