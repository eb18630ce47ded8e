"""A dependency-free MCP fixture server (line-delimited JSON-RPC on stdio, standard library only).

Behaviour by the first argument:

- ``hang``: drains stdin, never answers ``initialize``, never exits on its own.
- ``stubborn``: answers ``initialize`` and ``tools/list``, then ignores stdin EOF and SIGTERM and
  starts a child in its own process group that ignores SIGTERM too; the child's pid goes to the
  file named by ``MCPFX_CHILD_PID_FILE``.
- ``crash``: handshakes normally, advertises ``crash_on_call``; on the first ``tools/call`` writes two
  stderr lines and exits with code 42.
- ``normal``: handshakes, advertises ``raw_echo`` and ``raw_env`` and answers them; a call of any
  other tool gets a JSON-RPC error (-32602); exits on stdin EOF.
- ``junk``: like ``normal``, but first writes a banner line on stdout (not JSON-RPC), with the
  value of ``MCPFX_JUNK`` when set.
- ``junkcall``: like ``normal``, but every ``tools/call`` first writes a stray line on stdout
  (``MCPFX_JUNK`` when set), as a ``print`` left in a tool would.
- ``huge``: like ``normal``, but answers every ``tools/call`` with one message of
  ``MCPFX_HUGE_CHARS`` characters (default 40 million), written in 1 MB pieces.
- ``hangup``: like ``normal``, but on a ``tools/call`` writes a stderr line, closes its stdout and
  sleeps: the process lives on without a way to answer.
- ``spew``: like ``normal``, but every ``tools/call`` first writes ``MCPFX_SPEW_MB`` megabytes of
  numbered stderr lines (default 20), then one stderr line of 1 MB without a break.

Further arguments (``--sentinel=...``) are ignored; they make the process easy to find with ``ps``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "normal"
SENTINELS = [a for a in sys.argv[2:] if a.startswith("--sentinel=")]

TOOLS = {
    "crash": [{"name": "crash_on_call", "description": "Crash.", "inputSchema": {"type": "object"}}],
    "stubborn": [{"name": "stubborn_echo", "description": "Echo.", "inputSchema": {"type": "object"}}],
    "normal": [
        {
            "name": "raw_echo",
            "description": "Echo.",
            "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}},
        },
        {"name": "raw_env", "description": "TRAILBLAZE_* variables.", "inputSchema": {"type": "object"}},
    ],
}


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def stray() -> None:
    sys.stdout.write(os.environ.get("MCPFX_JUNK", "debug: not a JSON-RPC message") + "\n")
    sys.stdout.flush()


def send_huge(ident: int) -> None:
    size = int(os.environ.get("MCPFX_HUGE_CHARS", str(40_000_000)))
    head = json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": ""}]}})
    before, after = head.split('"text": ""')
    sys.stdout.write(before + '"text": "')
    piece = "x" * (1024 * 1024)
    for _ in range(size // len(piece)):
        sys.stdout.write(piece)
    sys.stdout.write('"' + after + "\n")
    sys.stdout.flush()


def spew() -> None:
    line = "spewed stderr line {:09d} " + "y" * 90 + "\n"
    for number in range(int(os.environ.get("MCPFX_SPEW_MB", "20")) * 10_000):
        sys.stderr.write(line.format(number))
    sys.stderr.write("z" * (1024 * 1024) + "\n")
    sys.stderr.write("spew done\n")
    sys.stderr.flush()


def answer(request: dict) -> None:
    method, ident = request.get("method"), request.get("id")
    if ident is None:
        return  # a notification
    if method == "initialize":
        version = request.get("params", {}).get("protocolVersion", "2025-06-18")
        send(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "result": {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "raw-fixture", "version": "1.0.0"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS.get(MODE, TOOLS["normal"])}})
    elif method == "tools/call":
        if MODE == "junkcall":
            stray()
        if MODE == "huge":
            send_huge(ident)
            return
        if MODE == "spew":
            spew()
        if MODE == "hangup":
            sys.stderr.write("hanging up on the client\n")
            sys.stderr.flush()
            os.close(1)
            time.sleep(600)
        if MODE == "crash":
            sys.stderr.write("intentional crash diagnostic line one\n")
            sys.stderr.write("intentional crash diagnostic line two\n")
            sys.stderr.flush()
            os._exit(42)
        params = request.get("params", {})
        if params.get("name") not in {t["name"] for t in TOOLS.get(MODE, TOOLS["normal"])}:
            error = {"code": -32602, "message": f"Unknown tool: {params.get('name')}"}
            send({"jsonrpc": "2.0", "id": ident, "error": error})
            return
        message = params.get("arguments", {}).get("message", "")
        if params["name"] == "raw_env":
            message = json.dumps({k: v for k, v in os.environ.items() if k.startswith("TRAILBLAZE_")})
        send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": str(message)}]}})
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}})


def main() -> None:
    if MODE == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(  # SIG_IGN is inherited: the child ignores SIGTERM too
            [sys.executable, "-c", "import time; time.sleep(600)", "stubborn-child", *SENTINELS]
        )
        pid_file = os.environ.get("MCPFX_CHILD_PID_FILE")
        if pid_file:
            with open(pid_file, "w") as fh:  # noqa: PTH123
                fh.write(str(child.pid))
    if MODE == "junk":
        stray()
    for line in sys.stdin:
        if not line.strip():
            continue
        if MODE == "hang":
            continue
        answer(json.loads(line))
    if MODE in ("hang", "stubborn"):
        while True:  # stdin is closed: stay anyway
            time.sleep(1)


if __name__ == "__main__":
    main()
