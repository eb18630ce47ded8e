"""The same trails give the same per-item outcomes with and without ``-n 2`` (pytest-xdist)."""

from __future__ import annotations

import json
import re

import pytest

TRAILS = {
    "counter": """
        config: { id: x/counter, tags: [smoke] }
        trail:
          - step: Open the counter and count
            recording:
              web:
                - web_navigate: { url: "{{app}}/index.html#counter" }
                - web_click: { ref: "css=#increment-btn" }
                - web_verifyValue: { ref: "css=#counter-value", expected: "1" }
        """,
    "about": """
        trailhead:
          step: Open About
          recording:
            web:
              web_navigate: { url: "{{app}}/index.html#about" }
        trail:
          - verify: The version is shown
            recording:
              web:
                - web_verifyTextVisible: { text: "Version: 1.0.0" }
              android-phone:
                - assertVisibleWithText: { text: "1.0.0" }
        """,
    "failing": """
        config: { id: x/failing }
        trail:
          - step: Compare
            recording:
              web:
                - assertEquals: { actual: "1", expected: "2" }
        """,
    "broken-head": """
        trailhead:
          step: Open a missing page
          recording:
            web:
              web_navigate: { url: "{{app}}/missing.html" }
        trail:
          - step: Never
            recording:
              web: []
        """,
    "skipped": """
        config:
          skip: { web: not on the web today }
        trail:
          - step: Never
            recording:
              web: []
        """,
    "noop": """
        trail:
          - step: Nothing
            recording:
              web: []
        """,
}


def outcomes(pytester: pytest.Pytester) -> dict[str, str]:
    return json.loads((pytester.path / "outcomes.json").read_text(encoding="utf-8"))


def test_outcomes_are_identical_with_two_workers(pytester: pytest.Pytester, tb) -> None:
    pytester.makeconftest(tb.OUTCOME_RECORDER)
    for name, text in TRAILS.items():
        tb.write(pytester.path, f"trails/{name}.trail.yaml", text)
    common = (tb.APP_MEMORY, "-p", "no:randomly", "--trailblaze-screenshots=off")

    serial = pytester.runpytest_subprocess(*common)
    serial_outcomes = outcomes(pytester)
    parallel = pytester.runpytest_subprocess(*common, "-n", "2", "--junitxml=parallel.xml")
    parallel_outcomes = outcomes(pytester)

    serial.assert_outcomes(passed=3, failed=1, errors=1, skipped=2)
    parallel.assert_outcomes(passed=3, failed=1, errors=1, skipped=2)
    assert parallel.stdout.str().count("created: 2/2 workers") == 1
    assert serial_outcomes == parallel_outcomes
    assert serial_outcomes == {
        "trails/about.trail.yaml::about[android]": "skipped",
        "trails/about.trail.yaml::about[web]": "passed",
        "trails/broken-head.trail.yaml::broken-head[web]": "error",
        "trails/counter.trail.yaml::x/counter[web]": "passed",
        "trails/failing.trail.yaml::x/failing[web]": "failed",
        "trails/noop.trail.yaml::noop[web]": "passed",
        "trails/skipped.trail.yaml::skipped[web]": "skipped",
    }
    # Per-item report properties travel from the workers to the controller's JUnit XML.
    xml = (pytester.path / "parallel.xml").read_text(encoding="utf-8")
    failing = re.search(r'<testcase [^>]*name="x/failing\[web\]".*?</testcase>', xml, re.S)
    assert failing, xml
    assert '<property name="failing_step" value="step 1 of 1: Compare" />' in failing.group(0)
    assert '<property name="trail_id" value="x/failing" />' in failing.group(0)


#: A conftest that writes, per process, which modules of the plugin (pydantic, asyncio, yaml) it
#: imported: by the end of the session, and on the controller also when its workers start.
MODULE_RECORDER = """
import json, pathlib, sys, pytest

def record(config, what):
    who = getattr(config, "workerinput", {}).get("workerid", "controller")
    prefixes = ("pytest_trailblaze", "pydantic", "asyncio", "yaml")
    loaded = sorted(m for m in sys.modules if m.startswith(prefixes))
    pathlib.Path(str(config.rootpath), f"{what}-{who}.json").write_text(json.dumps(loaded))

@pytest.hookimpl(tryfirst=True)  # before xdist's own starts the workers
def pytest_sessionstart(session):
    record(session.config, "start-up")

def pytest_sessionfinish(session):
    record(session.config, "modules")
"""

#: What only collects and runs trails: the xdist controller hands the items over and reads reports.
WORKER_SIDE = (
    "pydantic",
    "asyncio",  # Playwright's loop (drivers.loopstate)
    "pytest_trailblaze.core.trail.parse",
    "pytest_trailblaze.drivers.browser",
    "pytest_trailblaze.drivers.appium",
    "pytest_trailblaze.plugin.collection",
    "pytest_trailblaze.plugin.fixtures",
    "pytest_trailblaze.plugin.evidence",
    "pytest_trailblaze.plugin.trace_video",
    "pytest_trailblaze.plugin.agent",
    "pytest_trailblaze.core.run.runner",
    "pytest_trailblaze.core.tooling.registry",
    "pytest_trailblaze.agent.loop",
    "pytest_trailblaze.workspace",
    "pytest_trailblaze.mcp.server",
    "pytest_trailblaze.drivers.playwright",
    "pytest_trailblaze.tools",
)
#: What the controller's start-up, which every worker waits for, loads only when an option needs it
#: (a capabilities file, a model) or at the end of the run (the evidence files).
LATER_ON_CONTROLLER = (
    "yaml",
    "pytest_trailblaze.agent.models",
    "pytest_trailblaze.agent.wire",
    "pytest_trailblaze.session.run_summary",
    "pytest_trailblaze.evidence.html",
)


def only_ours(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    """This plugin and xdist only, as a project installing just these two: the development venv's
    other plugins (pytest-playwright, allure...) import what they import."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return ("-p", "pytest_trailblaze.plugin", "-p", "xdist.plugin", "-p", "no:cacheprovider")


def test_the_controller_imports_only_what_reads_reports(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tb
) -> None:
    """Its start-up comes before any worker starts: it declares every option, reads the settings
    (a bad value stops the run there, once), masks and totals reports, and imports nothing that
    collects or runs trails."""
    pytester.makeconftest(MODULE_RECORDER)
    for name in ("counter", "noop"):
        tb.write(pytester.path, f"trails/{name}.trail.yaml", TRAILS[name])
    result = pytester.runpytest_subprocess(*only_ours(pytester, monkeypatch), tb.APP_MEMORY, "-n", "2")

    result.assert_outcomes(passed=2)
    controller = set(json.loads((pytester.path / "modules-controller.json").read_text(encoding="utf-8")))
    found = pytester.path.glob("modules-gw*.json")
    workers = [json.loads(path.read_text(encoding="utf-8")) for path in found]
    assert "pytest_trailblaze.plugin.options" in controller
    assert sorted(controller.intersection(WORKER_SIDE)) == []
    start_up = set(json.loads((pytester.path / "start-up-controller.json").read_text(encoding="utf-8")))
    assert "pytest_trailblaze.plugin.options" in start_up
    assert sorted(start_up.intersection(LATER_ON_CONTROLLER)) == []
    assert len(workers) == 2
    collecting = {"pydantic", "pytest_trailblaze.plugin.collection", "pytest_trailblaze.plugin.fixtures"}
    agent_loop = {"pytest_trailblaze.agent.loop", "pytest_trailblaze.session.agent_steps"}
    for worker in workers:  # every worker collects every trail; without a model, no agent loop
        assert collecting <= set(worker)
        assert sorted(agent_loop.intersection(worker)) == []


def test_a_bad_option_stops_the_controller_before_any_worker_starts(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tb
) -> None:
    tb.write(pytester.path, "trails/noop.trail.yaml", TRAILS["noop"])
    result = pytester.runpytest_subprocess(
        *only_ours(pytester, monkeypatch), "-n", "2", "--trailblaze-browser-launch-timeout=soon"
    )

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.str().count("--trailblaze-browser-launch-timeout") == 1, result.stderr.str()
    assert "gw0" not in result.stdout.str() + result.stderr.str()


def test_listing_fixtures_or_items_with_workers_still_collects_here(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tb
) -> None:
    """``--fixtures`` and ``--collect-only`` collect in the process that was started, ``-n`` or not."""
    tb.write(pytester.path, "trails/noop.trail.yaml", TRAILS["noop"])
    ours = only_ours(pytester, monkeypatch)

    fixtures = pytester.runpytest_subprocess(*ours, "-n", "2", "--fixtures")
    listed = pytester.runpytest_subprocess(*ours, "-n", "2", "--collect-only", "-q")

    assert fixtures.ret == 0
    assert "trailblaze_run" in fixtures.stdout.str()
    assert listed.ret == 0
    assert "trails/noop.trail.yaml::noop[web]" in listed.stdout.str()
