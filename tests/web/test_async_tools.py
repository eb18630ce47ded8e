"""``async def`` tools run inside web trails, where Playwright's loop holds the trail's thread.

A user with an async client (an HTTP API, a database seed) writes the tool as ``async def``; it
runs on an event loop of its own, so nothing collides with Playwright's loop marked on the main
thread, and its failures read like any other tool's.
"""

from __future__ import annotations

CONFTEST = """
import asyncio
import threading

from pytest_trailblaze import tool


@tool(description="Count the sample app's counter page over a raw async HTTP request")
async def fetch_length(ctx, path: str) -> str:
    host, port = ctx.memory.get("server").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET {path} HTTP/1.0\\r\\nHost: x\\r\\n\\r\\n".encode())
    await writer.drain()
    body = await reader.read()
    writer.close()
    await writer.wait_closed()
    ctx.memory.set("status", body.split(b" ", 2)[1].decode())
    ctx.memory.set("thread", threading.current_thread().name)
    return f"read {len(body)} bytes"


@tool(description="Fails the way a check does")
async def check_async(ctx, expected: str) -> None:
    await asyncio.sleep(0)
    assert ctx.memory.get("status") == expected, f"status was {ctx.memory.get('status')}, not {expected}"


def pytest_trailblaze_register_tools(registry, config):
    registry.register(fetch_length)
    registry.register(check_async)
"""

TRAIL = """
config: { id: async/tools }
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Ask the server for the page
    recording:
      web:
        - fetch_length: { path: /index.html }
        - check_async: { expected: "200" }
  - step: The page still answers after the async tool
    recording:
      web:
        - web_click: { ref: "css=#increment-btn" }
        - web_verifyValue: { ref: "css=#counter-value", expected: "1" }
        - assertEquals: { actual: "{{thread}}", expected: "trailblaze-async-tools" }
  - step: Expect a missing page
    recording:
      web:
        - fetch_length: { path: /missing.html }
        - check_async: { expected: "200" }
"""


def test_async_tools_run_in_a_web_trail_and_fail_like_any_step(pytester, app_url: str) -> None:
    pytester.makeconftest(CONFTEST)
    (pytester.path / "trails").mkdir()
    (pytester.path / "trails" / "async.trail.yaml").write_text(TRAIL)
    server = app_url.split("://", 1)[1]
    result = pytester.runpytest(
        f"--trailblaze-memory=app={app_url}", f"--trailblaze-memory=server={server}", "-p", "no:randomly"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*step 3 of 3 failed: Expect a missing page",
            "*cause: status was 404, not 200",
        ]
    )
    assert "cannot be called from a running event loop" not in result.stdout.str()
