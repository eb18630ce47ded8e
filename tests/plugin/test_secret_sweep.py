"""A secret never leaves a run: every output stream, every file and every path name is swept for it.

One workspace exercises every channel a secret could leak through (docs/guides/security.md):

- a web trail whose ``config.id`` and step text hold an environment variable that is also a
  secret, that types the secret into a field, snapshots the page under a secret-derived name and
  then fails on a step whose cause quotes the secret (node ids, ``.pytest_cache``, artifact folder
  and file names, snapshot contents, failure text);
- a Python tool that prints, logs, warns and raises with the secret (captured output and logs,
  ``--log-file``, warnings, exception text, pytest's ``-l`` locals);
- a TypeScript tool given the secret that prints, logs, remembers and throws it (its host's log,
  the analysis cache of its types);
- an MCP server that echoes the secret on stderr, in a log notification and in its result, then
  dies on a call, so that a later trail's setup error quotes its stderr tail (MCP logs and their
  per-test copies);
- a collection error quoting the secret;
- the evidence of the run: live step progress (``-v``), per-trail ``record.json``, ``summary.json``,
  the HTML report (``--trailblaze-report``), JUnit step properties, and Playwright traces
  (``--trailblaze-tracing on``; the secret typed into a field is inside them unless masked).

The same tree runs twice through real pytest subprocesses: serially, then with ``-n 2`` and
``--trailblaze-full-trace`` (tracebacks and locals of plugin frames), both with ``--junitxml``,
``-l``, ``-rA`` and the cache enabled. Afterwards no byte of stdout, stderr or any file under the
tree, and no file or folder name, may hold the secret.
"""

from __future__ import annotations

import os
import sys
import uuid
import zipfile
from pathlib import Path
from urllib.parse import quote

import pytest

from pytest_trailblaze.core.masking import name_token, written_forms

#: Distinctive, and unchanged by JSON, XML, shell or slug escaping: a plain byte search finds any copy.
SECRET = f"Qx7sweep{uuid.uuid4().hex[:10]}SECRET"
RUN_MARK = f"sweep-server-{uuid.uuid4().hex[:8]}"
#: Every 8 characters of the secret: a piece that survived a cut (``start...end`` reprs) is a leak too.
PIECES = [SECRET[i : i + 8] for i in range(len(SECRET) - 7)]

#: A dependency-free MCP server: every call writes its value to stderr and to a log notification;
#: ``sweep_echo`` returns it, ``sweep_crash`` dies (so later trails of the session quote the tail).
SERVER = r"""
import json, os, sys

TOOLS = [
    {"name": name, "description": name, "inputSchema": {"type": "object",
     "properties": {"value": {"type": "string"}}}}
    for name in ("sweep_echo", "sweep_crash")
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        continue
    if method == "initialize":
        version = request["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": ident, "result": {"protocolVersion": version,
              "capabilities": {"tools": {}, "logging": {}}, "serverInfo": {"name": "sweep", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = request["params"]["name"]
        value = request["params"].get("arguments", {}).get("value", "")
        sys.stderr.write(f"sweep server got the value {value}\n")
        sys.stderr.flush()
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "info", "data": f"sweep notification with {value}"}})
        if name == "sweep_crash":
            os._exit(3)
        text = {"type": "text", "text": f"echo {value}"}
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [text]}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "result": {}})
"""

CONFTEST = """
import logging
import warnings

from pytest_trailblaze import tool


@tool(description="Log in through the API")
def sweep_login(ctx, password: str) -> str:
    print(f"stdout: logging in with {password}")
    logging.getLogger("sweep").warning("log: logging in with %s", password)
    warnings.warn(f"warning: logging in with {password}")
    raise RuntimeError(f"login refused for password {password}")


def pytest_trailblaze_register_tools(registry, config):
    registry.register(sweep_login)
"""

TRAILS = {
    # config.id and step text from an environment variable that is also a secret
    "trails/web_login.trail.yaml": """
        config:
          id: "login-{{SWEEP_PASSWORD}}"
        trail:
          - step: Log in with {{SWEEP_PASSWORD}}
            recording:
              web:
                - web_navigate: { url: "{{app}}/index.html#form" }
                - web_type: { ref: "css=#name-input", text: "{{password}}" }
                - web_snapshot: { screenName: "shot-{{password}}" }
                - takeSnapshot: { screenName: "{{password}}" }
                - web_verifyTextVisible: { text: "Welcome {{password}}" }
        """,
    "trails/py_tool.trail.yaml": """
        config: { id: sweep/py-tool }
        trail:
          - step: Call the login API
            recording:
              web:
                - sweep_login: { password: "{{password}}" }
        """,
    "trails/mcp_a_crash.trail.yaml": """
        config: { id: sweep/mcp-a, target: sw }
        trail:
          - step: Echo through the server
            recording:
              web:
                - sweep_echo: { value: "{{password}}" }
          - step: Crash the server
            recording:
              web:
                - sweep_crash: { value: "{{password}}" }
        """,
    "trails/mcp_b_later.trail.yaml": """
        config: { id: sweep/mcp-b, target: sw }
        trail:
          - step: Echo again
            recording:
              web:
                - sweep_echo: { value: "{{password}}" }
        """,
    "trails/a_ts_tool.trail.yaml": """  # before the MCP server crashes (scope sw)
        config: { id: sweep/ts-tool, target: sw }
        trail:
          - step: Leak through a TypeScript tool
            recording:
              web:
                - sw_leak: { value: "{{password}}" }
        """,
    "trails/broken.trail.yaml": """
        config:
          id: sweep/broken
          args: { token: "{{SWEEP_PASSWORD}}" }
        trail:
          - step: Never runs
            recording:
              web: []
        """,
}


#: A TypeScript tool given the secret as an argument: it prints, logs, remembers and throws it.
TS_TOOL = """
import { trailblaze } from "@trailblaze/scripting";

/** Leak the value every way a tool can. */
export const sw_leak = trailblaze.tool<{ value: string }>(async ({ value }, ctx) => {
  console.log(`ts stdout ${value}`);
  console.error(`ts stderr ${value}`);
  ctx.logger.warn(`ts logger ${value}`);
  ctx.memory.set("tsCopy", value);
  throw new Error(`ts refused ${value}`);
});
"""


def _workspace(base: Path, tb) -> None:
    tb.write(base, "server.py", SERVER)
    tb.write(base, "trails/config/trailmaps/sw/tools/sw_leak.ts", TS_TOOL)
    tb.write(base, "trails/config/trailblaze.yaml", "targets: [sw]\n")
    tb.write(
        base,
        "trails/config/trailmaps/sw/trailmap.yaml",
        f"""
        id: sw
        target:
          display_name: Sweep
          tools: [sw_leak]
          mcp_servers:
            - name: sweeper
              command: {sys.executable}
              args: [{base / "server.py"}, "--{RUN_MARK}"]
          platforms:
            web: {{}}
        """,
    )
    tb.write(base, "conftest.py", CONFTEST)
    for rel, text in TRAILS.items():
        tb.write(base, rel, text)


def _holds(text: str | bytes) -> bool:
    return any((p.encode() if isinstance(text, bytes) else p) in text for p in PIECES)


def _leaks(root: Path) -> list[str]:
    """Every path under ``root`` whose name or content holds the secret or a piece of it."""
    found = []
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(folder, name)
            if _holds(name):
                found.append(f"name: {path.relative_to(root)}")
            elif name in files and not path.is_symlink() and _holds(path.read_bytes()):
                found.append(f"content: {path.relative_to(root)}")
            elif name.endswith(".zip") and name in files:  # compressed: look inside (traces)
                found += [f"inside: {path.relative_to(root)}:{m}" for m in _zip_leaks(path)]
    return found


def _zip_leaks(path: Path) -> list[str]:
    with zipfile.ZipFile(path) as archive:
        return [name for name in archive.namelist() if _holds(archive.read(name))]


def _run(pytester: pytest.Pytester, tb, *extra: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(
        tb.APP_MEMORY,
        f"--trailblaze-secret=password={SECRET}",
        "--trailblaze-mcp-handshake-timeout=20",
        "--trailblaze-mcp-call-timeout=20",
        "--continue-on-collection-errors",
        "-p", "no:randomly",
        "-p", "cacheprovider",
        "-l",
        "-rA",
        "-W", "default",
        "--trailblaze-report=report.html",
        "--trailblaze-tracing=on",
        *extra,
        timeout=240,
    )  # fmt: skip


def test_no_byte_of_a_secret_leaves_the_run(pytester: pytest.Pytester, tb, monkeypatch) -> None:
    monkeypatch.setenv("SWEEP_PASSWORD", SECRET)
    # bun runs the TypeScript tool; its analysis cache is inside the swept tree
    monkeypatch.setenv("PATH", f"{tb.REPO / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TRAILBLAZE_CACHE_DIR", str(pytester.path / "ts-cache"))
    _workspace(pytester.path, tb)
    try:
        serial = _run(
            pytester, tb, "--junitxml=junit-serial.xml", "--log-file=run.log", "--log-level=INFO", "-v",
            "--alluredir=allure-serial",
        )  # fmt: skip
        parallel = _run(
            pytester, tb, "-n", "2", "--junitxml=junit-xdist.xml", "--trailblaze-full-trace",
            "--alluredir=allure-xdist",
        )  # fmt: skip
    finally:
        left = tb.matching(RUN_MARK)
        for pid in left:
            os.kill(pid, 9)
    assert left == {}, f"MCP servers outlived the runs: {left}"

    # every channel was exercised: the sweep below looks at real output, not at an empty tree
    serial.assert_outcomes(failed=4, errors=2)
    assert "cause: tool 'sw_leak' threw Error: ts refused ********" in serial.stdout.str()
    assert list((pytester.path / "ts-cache").rglob("*.json")), "the TypeScript analysis was cached"
    assert parallel.ret == 1
    out = pytester.path / "trailblaze-output"
    assert list(out.rglob("failure.png")), "no failure screenshot"
    assert len(list(out.rglob("snapshots/*.hierarchy.txt"))) == 2, "snapshots not taken"
    assert list((out / "mcp-logs").glob("*.log")), "no MCP log"
    ts_logs = list((out / "mcp-logs").glob("*-ts-sw.log"))
    assert any("ts stderr ********" in p.read_text() for p in ts_logs), "no TypeScript host log"
    assert list(out.rglob("mcp-*.log")), "no per-test copy of an MCP log"
    assert (pytester.path / ".pytest_cache" / "v" / "cache" / "lastfailed").is_file()
    # evidence: live progress (-v), records, summary, HTML report, JUnit step properties
    assert len(list(out.rglob("record.json"))) == 5, "trail records not written"
    assert (out / "summary.json").is_file() and (pytester.path / "report.html").is_file()
    assert "Log in with ********" in (pytester.path / "report.html").read_text()
    assert "step 1/1 Log in with ******** … ✗" in serial.stdout.str()
    assert list(out.rglob("trace.zip")), "no trace recorded"
    assert (pytester.path / ".pytest_cache" / "v" / "cache" / "nodeids").is_file()
    assert "log: logging in with ********" in (pytester.path / "run.log").read_text()
    # Allure: results with steps and tool calls, captured output and evidence attached
    for allure_dir in ("allure-serial", "allure-xdist"):
        results = "".join(p.read_text() for p in (pytester.path / allure_dir).glob("*-result.json"))
        assert "Log in with ********" in results and '"password", "value": "********"' in results
        assert list((pytester.path / allure_dir).glob("*-attachment.png")), "no screenshot attached"
        assert list((pytester.path / allure_dir).glob("*-attachment.txt")), "no log or output attached"

    for name, result in (("serial", serial), ("-n 2", parallel)):
        for stream, lines in (("stdout", result.outlines), ("stderr", result.errlines)):
            hits = [line for line in lines if _holds(line)]
            assert not hits, f"{name} run, {stream}:\n" + "\n".join(hits)
    assert _leaks(pytester.path) == []

    # what a reader sees instead: the mask in text, a stable hash in names
    text = serial.stdout.str()
    assert "********" in text
    assert "login-secret-" in text


def test_a_secret_named_by_its_environment_variable_masks_what_reads_it(pytester, tb, monkeypatch) -> None:
    """``--trailblaze-secret NAME`` takes the value from the environment: off the command line, and
    every ``{{NAME}}`` that reads it (here a ``config.id``) is masked before collection names items."""
    monkeypatch.setenv("SWEEP_TOKEN", SECRET)
    trail = 'config: { id: "api-{{SWEEP_TOKEN}}" }\ntrail:\n  - step: Nothing\n    recording: { web: [] }\n'
    tb.write(pytester.path, "trails/t.trail.yaml", trail)

    named = pytester.runpytest("--trailblaze-secret", "SWEEP_TOKEN", "--collect-only", "-q")
    missing = pytester.runpytest("--trailblaze-secret", "SWEEP_UNSET_NAME", "--collect-only", "-q")

    assert f"trails/t.trail.yaml::api-{name_token('SWEEP_TOKEN')}[web]" in named.outlines
    assert SECRET not in named.stdout.str() + named.stderr.str()
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    assert "--trailblaze-secret SWEEP_UNSET_NAME: no environment variable SWEEP_UNSET_NAME is set" in (
        missing.stderr.str()
    )


#: A password as people pick them: a quote, a space, ``<`` and ``&`` (each escaped by JSON, URLs or HTML).
SPECIAL = f'Qx7"sw <{uuid.uuid4().hex[:6]}>&p\\'
SPELLINGS = written_forms(SPECIAL)
ESCAPED_TRAIL = """
config: { id: sweep/escaped }
trail:
  - step: Open the form with the password in the address, then fail quoting it
    recording:
      web:
        - web_navigate: { url: "{{app}}/index.html?pw={{password}}#form" }
        - web_type: { ref: "css=#name-input", text: "{{password}}" }
        - web_evaluate: { script: "throw new Error('refused ' + location.href)" }
"""


def test_a_secret_is_masked_however_it_is_escaped(pytester: pytest.Pytester, tb) -> None:
    """The browser percent-encodes the password in its URL, the trace writes it JSON-escaped, the
    report HTML-escaped: none of those spellings may leave the run either."""
    tb.write(pytester.path, "trails/escaped.trail.yaml", ESCAPED_TRAIL)
    result = pytester.runpytest_subprocess(
        tb.APP_MEMORY, f"--trailblaze-secret=password={SPECIAL}", "-p", "no:randomly", "-rA",
        "--junitxml=junit.xml", "--trailblaze-report=report.html", "--trailblaze-tracing=on", timeout=180,
    )  # fmt: skip

    result.assert_outcomes(failed=1)
    assert "index.html?pw=********#form" in result.stdout.str()
    assert "%22sw%20%3C" in quote(SPECIAL, safe="")  # the escaped spellings are really different
    leaks = []
    for folder, _, files in os.walk(pytester.path):
        for name in files:
            path = Path(folder, name)
            chunks = [path.read_bytes()]
            if name.endswith(".zip"):
                with zipfile.ZipFile(path) as archive:
                    chunks += [archive.read(member) for member in archive.namelist()]
            leaks += [f"{path}: {form}" for form in SPELLINGS for c in chunks if form.encode() in c]
    leaks += [f"output: {form}" for form in SPELLINGS if form in result.stdout.str() + result.stderr.str()]
    assert leaks == []
