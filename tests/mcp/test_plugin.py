"""MCP servers seen through the plugin: a workspace target's ``mcp_servers:``, real trails, real browser.

- a server dying under a call FAILS that trail with the exit code and stderr, copies the server log
  into the test's artifacts, and makes the next trail of the session an ERROR with the same cause;
- a tool name collision with a built-in or a workspace tool is an ERROR of the items naming both;
- what servers see through the plugin (device of the real browser, memory without secrets);
- no server process outlives a run, with a failing trail or with ``-n 2``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

#: Records every MCP tool result of a trail item in results/<item>.json (on the worker that ran it).
RECORDER = """
import json, pathlib, re

OUT = pathlib.Path(__file__).parent / "results"


def pytest_trailblaze_after_tool(name, args, result, context):
    if name.startswith("pyfx_"):
        OUT.mkdir(exist_ok=True)
        item = re.sub(r"[^A-Za-z0-9]+", "-", context.trail_path.rsplit("/", 1)[-1])
        path = OUT / f"{item}.json"
        seen = json.loads(path.read_text()) if path.exists() else {}
        seen[name] = result.message
        path.write_text(json.dumps(seen))
"""


# -- a crash, through the plugin ------------------------------------------------------------------------
def test_a_crash_fails_the_trail_and_errors_the_next_one_of_the_session(pytester, fx) -> None:
    marker = fx.sentinel(f"plugin-crash-{pytester.path.name}")
    servers = f"""    - name: crasher
      command: {sys.executable}
      args: [{fx.RAW_SERVER}, crash, "{marker}"]"""
    fx.workspace(pytester.path, servers)
    fx.write(pytester.path, "trails/a_crash.trail.yaml", fx.trail("fx/crash", "        - crash_on_call: {}"))
    fx.write(pytester.path, "trails/b_next.trail.yaml", fx.trail("fx/next", "        - crash_on_call: {}"))

    try:
        result = pytester.runpytest_subprocess(*fx.FAST, "-p", "no:randomly", timeout=90)
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(failed=1, errors=1)
    died = "MCP server crasher died while running tool 'crash_on_call'"
    failed = fx.outcome_section(result, "fx/crash[web]")
    errored = fx.outcome_section(result, "ERROR at setup of fx/next[web]")
    for text in (failed, errored):
        assert died in text
        assert "exit code: 42" in text
        assert "intentional crash diagnostic line one" in text
        assert "intentional crash diagnostic line two" in text
    assert "Traceback" not in result.stdout.str()
    assert left == {}, f"server processes survived the run: {left}"

    # the failing test's artifacts hold a copy of the server's log
    logs = list((pytester.path / "trailblaze-output").rglob("mcp-*.log"))
    assert logs, f"no mcp-*.log under {pytester.path / 'trailblaze-output'}"
    [log] = [p for p in logs if "a_crash" in str(p.parent)]
    content = log.read_text()
    assert "intentional crash diagnostic line one" in content
    assert "intentional crash diagnostic line two" in content
    assert log.name.endswith("-crasher.log")


# -- collisions, through the plugin ----------------------------------------------------------------------
GREET_TOOL = """
id: fx_greet
description: Greet.
parameters: []
tools:
  - dumpMemory: {}
"""


@pytest.mark.parametrize("clash", ["builtin", "workspace"])
def test_a_tool_name_collision_is_an_error_of_the_items_naming_both(pytester, fx, clash) -> None:
    marker = fx.sentinel(f"plugin-collide-{clash}")
    flag = "--with-wait" if clash == "builtin" else "--also=fx_greet"
    servers = f"""    - name: clasher
      command: env
      args: [{sys.executable}, {fx.PY_SERVER}, "{flag}", "{marker}"]"""
    extra = {"trailmaps/fx/tools/fx_greet.tool.yaml": GREET_TOOL} if clash == "workspace" else None
    fx.workspace(pytester.path, servers, extra=extra)
    for name in ("one", "two"):
        fx.write(
            pytester.path,
            f"trails/{name}.trail.yaml",
            fx.trail(f"fx/{name}", "        - pyfx_echo: {message: x}"),
        )

    try:
        result = pytester.runpytest(*fx.FAST, fx.QUIET)
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(errors=2)
    name = "wait" if clash == "builtin" else "fx_greet"
    other = "builtin" if clash == "builtin" else "fx_greet.tool.yaml"
    for item in ("one", "two"):
        text = fx.outcome_section(result, f"ERROR at setup of fx/{item}[web]")
        assert f"tool name collision: '{name}'" in text
        assert f"mcp:clasher ({shutil.which('env')} {sys.executable} {fx.PY_SERVER} {flag} {marker})" in text
        assert other in text
    assert left == {}, f"server processes survived the run: {left}"


# -- naming advice on advertised names ------------------------------------------------------------------
def _badly_named_server(pytester, fx, label: str) -> str:
    """A workspace whose server also advertises ``fx_iphone_scroll`` (names a device type)."""
    marker = fx.sentinel(label)
    servers = f"""    - name: namer
      command: {sys.executable}
      args: [{fx.PY_SERVER}, "--also=fx_iphone_scroll", "{marker}"]"""
    fx.workspace(pytester.path, servers)
    return marker


NAMING_ADVICE = "tool name 'fx_iphone_scroll' names a device type ('iphone')"


def test_advertised_names_against_the_convention_warn_once_at_the_declaring_target(pytester, fx) -> None:
    marker = _badly_named_server(pytester, fx, "plugin-naming")
    for name in ("one", "two"):
        trail = fx.trail(f"fx/{name}", "        - pyfx_echo: {message: hi}")
        fx.write(pytester.path, f"trails/{name}.trail.yaml", trail)

    try:
        result = pytester.runpytest(*fx.FAST, fx.QUIET, "-p", "no:randomly")
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(passed=2)  # advice, not an error
    out = result.stdout.str()
    assert out.count(NAMING_ADVICE) == 1, out
    result.stdout.fnmatch_lines(
        [
            "*trails/config/trailmaps/fx/trailmap.yaml:3: TrailblazeWarning: *trailmap.yaml:3:*"
            f"warning: mcp:namer*: {NAMING_ADVICE}",
            "*fix: drop 'iphone' from the name*",
        ]
    )


def test_trailblaze_check_reports_advertised_naming_advice_as_a_warning(pytester, fx) -> None:
    marker = _badly_named_server(pytester, fx, "check-naming")
    fx.write(pytester.path, "trails/one.trail.yaml", fx.trail("fx/one", "        - pyfx_echo: {message: hi}"))
    console = Path(sys.executable).with_name("trailblaze")

    try:
        plain = subprocess.run(
            [console, "check", "trails"], cwd=pytester.path, capture_output=True, text=True
        )
    finally:
        fx.kill_matching(marker)

    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "trails/config/trailmaps/fx/trailmap.yaml:3:3: warning: mcp:namer" in plain.stdout, plain.stdout
    assert plain.stdout.count(NAMING_ADVICE) == 1


def test_strict_makes_advertised_naming_an_error_in_pytest_and_in_check_alike(pytester, fx) -> None:
    """``--trailblaze-strict`` and ``trailblaze check --strict``: the same finding, an error in both."""
    marker = _badly_named_server(pytester, fx, "strict-naming")
    for name in ("one", "two"):
        fx.write(
            pytester.path,
            f"trails/{name}.trail.yaml",
            fx.trail(f"fx/{name}", "        - pyfx_echo: {message: hi}"),
        )
    console = Path(sys.executable).with_name("trailblaze")

    try:
        result = pytester.runpytest(*fx.FAST, fx.QUIET, "-p", "no:randomly", "--trailblaze-strict")
        check = subprocess.run(
            [console, "check", "--strict", "trails"], cwd=pytester.path, capture_output=True, text=True
        )
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    finding = f"trails/config/trailmaps/fx/trailmap.yaml:3:3: mcp:namer ({sys.executable} {fx.PY_SERVER}"
    result.assert_outcomes(errors=2)
    for item in ("one", "two"):
        text = fx.outcome_section(result, f"ERROR at setup of fx/{item}[web]")
        assert finding in text and NAMING_ADVICE in text, text
        assert "fix: drop 'iphone' from the name" in text
    assert "TrailblazeWarning" not in result.stdout.str()
    assert check.returncode == 1, check.stdout + check.stderr
    assert finding in check.stdout and NAMING_ADVICE in check.stdout, check.stdout
    assert "warning: mcp:namer" not in check.stdout
    assert left == {}, f"server processes survived: {left}"


def test_trailblaze_check_reports_a_server_tool_colliding_with_a_builtin_at_the_trail(pytester, fx) -> None:
    marker = fx.sentinel("check-collision")
    servers = f"""    - name: clasher
      command: {sys.executable}
      args: [{fx.PY_SERVER}, "--with-wait", "{marker}"]"""
    fx.workspace(pytester.path, servers)
    fx.write(pytester.path, "trails/one.trail.yaml", fx.trail("fx/one", "        - pyfx_echo: {message: hi}"))
    console = Path(sys.executable).with_name("trailblaze")

    try:
        argv = [console, "check", "trails"]
        done = subprocess.run(argv, cwd=pytester.path, capture_output=True, text=True, timeout=120)
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "trails/one.trail.yaml:3:11: cannot check the tools of target 'fx'" in done.stdout
    assert "why: tool name collision: 'wait' is defined by mcp:clasher" in done.stdout
    assert "fix: rename one of them" in done.stdout
    assert left == {}, f"server processes survived the check: {left}"


def test_trailblaze_check_says_why_a_server_did_not_start_with_its_stderr_and_log(pytester, fx) -> None:
    crash = pytester.path / "crash.py"
    crash.write_text(
        "import sys\nsys.stderr.write('boom: no config file at ./server.toml\\n')\nsys.exit(3)\n"
    )
    servers = f"""    - name: crasher
      command: {sys.executable}
      args: ["{crash}"]"""
    fx.workspace(pytester.path, servers)
    fx.write(pytester.path, "trails/one.trail.yaml", fx.trail("fx/one", "        - pyfx_echo: {message: hi}"))
    console = Path(sys.executable).with_name("trailblaze")
    temp = pytester.path / "tmp"  # where the check keeps the log it names
    temp.mkdir()

    done = subprocess.run(
        [console, "check", "trails"],
        cwd=pytester.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(temp)},
    )

    assert done.returncode == 1, done.stdout + done.stderr
    assert "trails/one.trail.yaml:3:11: cannot check the tools of target 'fx'" in done.stdout
    assert "why: MCP server crasher exited with code 3 during start-up" in done.stdout
    assert "boom: no config file at ./server.toml" in done.stdout, done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    log = Path(re.search(r"log: (\S+)", done.stdout)[1])
    assert log.parent.parent == temp and "boom: no config file" in log.read_text(encoding="utf-8")


# -- -n 2: what servers see, and nothing survives ----------------------------------------------------------
CALLS = """        - pyfx_echo: { message: "hello {{user}}" }
        - pyfx_env: {}
        - pyfx_context: {}"""


def test_servers_under_xdist_see_the_session_and_none_survives(pytester, fx) -> None:
    marker = f"{fx.RUN_ID}_xdist"
    config = pytester.path / "trails" / "config"
    script = config / "servers" / f"{marker}.py"  # the run-unique file name is the ps marker
    script.parent.mkdir(parents=True)
    shutil.copy(fx.PY_SERVER, script)
    fx.workspace(pytester.path, f"    - script: ../../servers/{marker}.py")  # relative to trailmap.yaml
    pytester.makeconftest(RECORDER)
    for index in range(4):
        fx.write(pytester.path, f"trails/t{index}.trail.yaml", fx.trail(f"fx/t{index}", CALLS))

    try:
        result = pytester.runpytest_subprocess(
            *fx.FAST,
            "-n",
            "2",
            "--trailblaze-memory=user=ada",
            "--trailblaze-secret=pw=hunter2",
            timeout=120,
        )
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(passed=4)
    assert left == {}, f"server processes survived the -n 2 run: {left}"

    seen = {p.stem: json.loads(p.read_text()) for p in (pytester.path / "results").glob("*.json")}
    assert len(seen) == 4, seen
    pids, sessions = set(), set()
    for trail, results in seen.items():
        assert results["pyfx_echo"] == "hello ada", trail
        env = json.loads(results["pyfx_env"])
        assert env["env"]["TRAILBLAZE_DEVICE_PLATFORM"] == "WEB"
        assert env["env"]["TRAILBLAZE_DEVICE_DRIVER"] == "playwright-native"
        assert (env["env"]["TRAILBLAZE_DEVICE_WIDTH_PX"], env["env"]["TRAILBLAZE_DEVICE_HEIGHT_PX"]) == (
            "1280",
            "800",
        )
        assert env["env"]["TRAILBLAZE_TOOLSET_FILE"] == str(script.resolve())
        assert env["cwd"] == str(script.parent.resolve())
        context = json.loads(results["pyfx_context"])["raw"]
        assert context["device"] == {
            "platform": "web",
            "widthPixels": 1280,
            "heightPixels": 800,
            "driverType": "playwright-native",
        }
        assert context["memory"].get("user") == "ada"
        assert "pw" not in context["memory"] and "hunter2" not in results["pyfx_context"]
        pids.add(env["pid"])
        sessions.add(env["env"]["TRAILBLAZE_SESSION_ID"])
    # one server per worker's session scope, reused by that worker's trails
    assert 1 <= len(pids) <= 2 and len(sessions) == len(pids), (pids, sessions)
    assert all(not fx.pid_alive(pid) for pid in pids)
    assert all(("gw0" in s or "gw1" in s) for s in sessions), sessions


# -- the timeout options, through the plugin -----------------------------------------------------------------
#: Records how long each item's setup took in setup-times.json.
SETUP_TIMES = """
import json, pathlib

TIMES = {}


def pytest_runtest_logreport(report):
    if report.when == "setup":
        TIMES[report.nodeid.split("::")[-1]] = report.duration
        (pathlib.Path(__file__).parent / "setup-times.json").write_text(json.dumps(TIMES))
"""


def test_the_handshake_and_call_timeout_options_apply_to_the_session(pytester, fx) -> None:
    marker = fx.sentinel(f"plugin-timeouts-{pytester.path.name}")
    root = pytester.path / "trails" / "config"
    fx.write(root, "trailblaze.yaml", "targets: [hang, slow]\n")
    servers = {
        "hang": f'command: {sys.executable}\n      args: [{fx.RAW_SERVER}, hang, "{marker}"]',
        "slow": f'command: env\n      args: [{sys.executable}, {fx.PY_SERVER}, "{marker}"]',
    }
    for target, entry in servers.items():
        head = f"id: {target}\ntarget:\n  display_name: T\n  mcp_servers:\n"
        trailmap = f"{head}    - name: {target}er\n      {entry}\n"
        fx.write(root, f"trailmaps/{target}/trailmap.yaml", trailmap)
    sleep = "        - pyfx_sleep: { seconds: 30 }"
    for target, calls in (("hang", "        - raw_echo: {}"), ("slow", sleep)):
        for name in ("a", "b"):
            trail = fx.trail(f"{target}/{name}", calls).replace("target: fx", f"target: {target}")
            fx.write(pytester.path, f"trails/{target}_{name}.trail.yaml", trail)

    pytester.makeconftest(SETUP_TIMES)
    try:
        result = pytester.runpytest(
            "--trailblaze-screenshots=off",
            # long enough for the Python server to start on a loaded machine, short for the hung one
            "--trailblaze-mcp-handshake-timeout=6",
            "--trailblaze-mcp-call-timeout=1",
            fx.QUIET,
            "-p",
            "no:randomly",  # the a/b order below is the run's order
        )
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    result.assert_outcomes(failed=1, errors=3)
    for item in ("hang/a", "hang/b"):
        text = fx.outcome_section(result, f"ERROR at setup of {item}[web]")
        assert "MCP server hanger did not answer `initialize` within 6 s; it was killed" in text
    failed = fx.outcome_section(result, "slow/a[web]")
    assert "tool 'pyfx_sleep' did not answer within 1 s" in failed
    errored = fx.outcome_section(result, "ERROR at setup of slow/b[web]")
    assert "tool 'pyfx_sleep' did not answer within 1 s" in errored
    assert left == {}, f"server processes survived the run: {left}"
    # one watchdog wait and one call timeout in all: the second trail of a scope does not wait again
    setup = json.loads((pytester.path / "setup-times.json").read_text())
    assert setup["hang/a[web]"] >= 6, setup
    assert setup["hang/b[web]"] < 3, setup
    assert setup["slow/b[web]"] < 3, setup


# -- discovery ---------------------------------------------------------------------------------------------
def test_toolbox_discovery_spawns_lists_the_filtered_tools_and_tears_down(tmp_path, fx) -> None:
    marker = f"{fx.RUN_ID}_toolbox"
    root = tmp_path / "trails" / "config"
    (root / "servers").mkdir(parents=True)
    shutil.copy(fx.PY_SERVER, root / "servers" / f"{marker}.py")
    fx.write(root, "trailblaze.yaml", "targets: [fx]\n")
    trailmap = (
        "id: fx\ntarget:\n  display_name: Fixture\n  mcp_servers:\n"
        f"    - script: ../../servers/{marker}.py\n"
        "  platforms:\n    web:\n      tool_sets: [pyfx_support]\n"
    )
    fx.write(root, "trailmaps/fx/trailmap.yaml", trailmap)
    command = [sys.executable, "-m", "pytest_trailblaze.cli", "toolbox", "--config-dir", str(root)]

    try:
        done = subprocess.run([*command, "--target", "fx"], capture_output=True, text=True, timeout=60)
        every = subprocess.run(
            [*command, "--target", "fx", "--all"], capture_output=True, text=True, timeout=60
        )
        left = fx.wait_gone(marker, timeout=3)
    finally:
        fx.kill_matching(marker)

    assert done.returncode == 0, done.stderr
    listed = {line.split()[0] for line in done.stdout.splitlines()[:-1] if line.strip()}
    assert {"pyfx_echo", "pyfx_supportHours", "pyfx_webLower", "pyfx_playwrightDriver"} <= listed
    assert not listed & {"pyfx_hidden", "pyfx_otherToolset", "pyfx_androidOnly", "pyfx_androidDriver"}
    assert left == {}, f"discovery left its server running: {left}"

    # --all: every tool a recording can call, the ones agents are not offered marked as such
    assert every.returncode == 0, every.stderr
    rows = {line.split()[0]: line for line in every.stdout.splitlines()[:-1] if line.strip()}
    assert listed < set(rows)
    for name in ("pyfx_hidden", "pyfx_otherToolset", "web_evaluate"):
        assert "[not offered to agents]" in rows[name], rows.get(name)
    assert "[not offered to agents]" not in rows["pyfx_echo"]
    assert not set(rows) & {"pyfx_androidOnly", "pyfx_androidDriver", "tapOnElementBySelector"}
    assert every.stdout.splitlines()[-1] == (
        f"{len(rows)} callable tool(s) for web (target fx), {len(listed)} offered to agents"
    )
