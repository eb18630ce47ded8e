"""Pages whose script never yields, and promises that never settle: the step fails within the web timeout.

Playwright's ``evaluate`` has no timeout: ``while(true){}`` in a page, or ``web_evaluate`` of
``new Promise(() => {})``, kept a run waiting until CI killed it. Every call into the page is
bounded now (``drivers/pageguard.py``): the step fails within a few seconds of the web timeout,
naming the cause; a busy script is stopped (Chromium) and the run goes on to the next trail; the
browser is closed at the end as always.
"""

from __future__ import annotations

import os
import time
import uuid

import pytest

TIMEOUT_MS = 3000

BUSY_PAGE = "data:text/html,<h1>busy</h1><script>while(true){}</script>"
LATER_BUSY = "data:text/html,<h1>fine</h1><button onclick='while(true){}'>Spin</button>"
SPINS_SOON = "data:text/html,<h1>soon</h1><script>setTimeout(() => { while (true) {} }, 300)</script>"


def spins_soon_then(name: str, step: str, call: str) -> str:
    """A trail that opens a page which starts spinning a moment later, then tries ``call`` on it."""
    return f"""
        config: {{ id: busy/{name} }}
        trail:
          - step: Open a page that starts spinning a moment later
            recording:
              web:
                - web_navigate: {{ url: "{SPINS_SOON}" }}
                - web_wait: {{ seconds: 1 }}
          - step: {step}
            recording:
              web:
                - {call}
        """


TRAILS = {
    "trails/a_loads_busy.trail.yaml": f"""
        config: {{ id: busy/loads }}
        trail:
          - step: Open a page whose script never yields
            recording:
              web:
                - web_navigate: {{ url: "{BUSY_PAGE}" }}
        """,
    "trails/b_promise.trail.yaml": """
        config: { id: busy/promise }
        trail:
          - step: Wait for a promise that never settles
            recording:
              web:
                - web_evaluate: { script: "new Promise(() => {})" }
        """,
    "trails/c_script.trail.yaml": """
        config: { id: busy/script }
        trail:
          - step: Run a script that never yields
            recording:
              web:
                - web_evaluate: { script: "() => { while (true) {} }" }
        """,
    "trails/d_click.trail.yaml": f"""
        config: {{ id: busy/click }}
        trail:
          - step: Open a page that spins once clicked
            recording:
              web:
                - web_navigate: {{ url: "{LATER_BUSY}" }}
          - step: Click it
            recording:
              web:
                - web_click: {{ ref: "css=button" }}
          - step: Never reached
            recording:
              web:
                - web_verifyTextVisible: {{ text: "fine" }}
        """,
    "trails/d_leave.trail.yaml": spins_soon_then(
        "leave", "Try to leave it", 'web_navigate: { url: "data:text/html,<h1>elsewhere</h1>" }'
    ),
    "trails/d_verify_text.trail.yaml": spins_soon_then(
        "verifytext", "Look for a text on it", 'web_verifyTextVisible: { text: "nowhere" }'
    ),
    "trails/d_verify_element.trail.yaml": spins_soon_then(
        "verifyelement", "Look for an element on it", 'web_verifyElementVisible: { ref: "css=#nowhere" }'
    ),
    "trails/e_after.trail.yaml": """
        config: { id: busy/after }
        trail:
          - step: A page that behaves, in the same browser
            recording:
              web:
                - web_navigate: { url: "data:text/html,<h1>calm</h1>" }
                - web_verifyTextVisible: { text: "calm" }
        """,
}


@pytest.mark.timeout(600)
def test_busy_pages_fail_their_step_within_the_timeout_and_the_run_goes_on(
    pytester: pytest.Pytester, tb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)  # on CI navigations get twice the web timeout
    for rel, text in TRAILS.items():
        tb.write(pytester.path, rel, text)
    run_id = uuid.uuid4().hex[:10]

    started = time.monotonic()
    result = pytester.runpytest_subprocess(
        f"--trailblaze-web-timeout={TIMEOUT_MS}", f"--trailblaze-browser-arg=--trailblaze-test-run={run_id}",
        "-p", "no:randomly", "--junitxml=junit.xml", timeout=500,
    )  # fmt: skip
    took = time.monotonic() - started

    out = result.stdout.str()
    result.assert_outcomes(failed=7, passed=1)
    stopped = "the page did not answer within 3 s: its script never yields; the script was stopped"
    assert f"opening {BUSY_PAGE}: {stopped}" in out
    assert "web_evaluate: no answer within 3 s (a promise the page never settled?)" in out
    assert (
        "web_evaluate: the page did not answer within 3 s: its script never yields; the script was stopped"
        in out
    )
    assert "trails/d_click.trail.yaml:7:5: step 2 of 3 failed: Click it" in out
    assert (
        "'Click it': css=button: the page did not answer within 3 s: its script never yields; the script"
        in out
    )
    # a navigation waiting on a busy page cannot stop its script: the page is closed instead
    assert (
        "the page did not answer within 3 s: its script never yields; the page could not be stopped and was"
        in out
    )
    # waiting assertions on a page that started spinning while they wait
    for step, what in (
        ("Look for a text on it", "looking for text 'nowhere'"),
        ("Look for an element on it", "css=#nowhere"),
    ):
        assert f"step 2/2 '{step}': {what}: the page did not answer within" in out, out[-4000:]
    assert "Traceback" not in out and "INTERNALERROR" not in out
    # seven busy trails, each bounded by the 3 s timeout plus short probes, and browser start-up
    assert took < 180, f"the run took {took:.0f} s"
    left = tb.matching(run_id)
    for pid in left:
        os.kill(pid, 9)
    assert left == {}, f"browser processes outlived the run: {left}"
