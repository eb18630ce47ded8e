"""A scripted model on a real HTTP server of 127.0.0.1 speaking the providers' wire protocols.

``POST /v1/chat/completions`` answers as OpenAI Chat Completions (``tools`` / ``tool_calls``) and
``POST /v1/messages`` as Anthropic Messages (``tool_use`` blocks); the official SDKs talk to it
unmodified through their ``base_url``. Answers come from a script keyed by a piece of the step's
objective text: the n-th answer for a conversation is the script's n-th move, n being how many
assistant turns the request already holds, so the server keeps no state between requests and
serves xdist workers in parallel (a script entry may also map platforms to moves: ``{"web": [...],
"android": [...]}``). A move's ``{ref:TEXT}`` placeholder becomes the ref of the first
screen line containing TEXT (``[ref=e7]`` on web, ``[y1234]`` on mobile), read from the screen the
request carries, which proves the screen reached the model.

Moves: ``call(name, **args)``, ``raw(name, arguments_text)``, ``text(words)``, ``http(status, msg)``,
``garbage(body)`` (a 200 with that body), ``slow(seconds, move)``, ``first(move, then)``,
``done()`` / ``give_up(why)`` (objectiveStatus).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Move = dict[str, Any]
_REF = re.compile(r"\{ref:([^}]*)\}")


def call(name: str, **args: Any) -> Move:
    return {"kind": "call", "name": name, "args": args}


def raw(name: str, arguments: str) -> Move:
    return {"kind": "raw", "name": name, "arguments": arguments}


def text(words: str) -> Move:
    return {"kind": "text", "text": words}


def http(status: int, message: str) -> Move:
    return {"kind": "http", "status": status, "message": message}


def garbage(body: str) -> Move:
    """A 200 answer whose body is ``body`` as it is (not the protocol's JSON)."""
    return {"kind": "garbage", "body": body}


def slow(seconds: float, move: Move) -> Move:
    return {"kind": "slow", "seconds": seconds, "move": move}


def first(move: Move, then: Move) -> Move:
    """``move`` the first time this script position is asked for, ``then`` every later time."""
    return {"kind": "first", "first": move, "then": then}


def done(why: str = "done") -> Move:
    return call("objectiveStatus", explanation=why, status="COMPLETED")


def give_up(why: str) -> Move:
    return call("objectiveStatus", explanation=why, status="FAILED")


@dataclass
class ScriptedModel:
    """The server; ``script`` maps objective fragments to moves, ``bodies`` keeps every request body."""

    script: dict[str, Any] = field(default_factory=dict)
    bodies: list[bytes] = field(default_factory=list)
    port: int = 0
    used: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(body) for body in self.bodies]

    # -- answering -----------------------------------------------------------------------------------
    def answer(self, path: str, body: bytes) -> tuple[int, Any]:
        self.bodies.append(body)
        request = json.loads(body)
        anthropic = path.endswith("/messages")
        turns = request["messages"]
        objective = _first_text(turns[1] if not anthropic else turns[0], anthropic)
        position = sum(1 for t in turns if t["role"] == "assistant")
        moves = next((m for key, m in self.script.items() if key in objective), None)
        if isinstance(moves, dict):  # moves per platform, read from the system prompt
            system = request["system"] if anthropic else _first_text(turns[0], False)
            platform = re.search(r"drives an? (\w+) device", system)
            moves = moves.get(platform.group(1) if platform else "", None)
        if moves is None or position >= len(moves):
            return 400, {"error": {"message": f"no scripted move {position} for {objective[:80]!r}"}}
        move = moves[position]
        if move["kind"] == "first":  # the first request of this kind gets one move, later ones another
            with self.lock:
                seen = id(move) in self.used
                self.used.add(id(move))
            move = move["then"] if seen else move["first"]
        if move["kind"] == "slow":
            time.sleep(move["seconds"])
            move = move["move"]
        if move["kind"] == "http":
            return move["status"], {"error": {"message": move["message"], "type": "scripted"}}
        if move["kind"] == "garbage":
            return 200, move["body"]
        screen = _last_screen(turns, anthropic)
        reply = _anthropic_reply if anthropic else _openai_reply
        return 200, reply(_resolved(move, screen), position, request.get("model", "?"))


def _first_text(turn: dict[str, Any], anthropic: bool) -> str:
    content = turn["content"]
    if isinstance(content, str):
        return content
    return next((b.get("text", "") for b in content if b.get("type") == "text"), "")


def _last_screen(turns: list[dict[str, Any]], anthropic: bool) -> str:
    for turn in reversed(turns):
        content = turn.get("content")
        parts = [content] if isinstance(content, str) else [b.get("text", "") for b in content or []]
        for part in parts:
            if part and part.startswith("Current screen:"):
                return part
    return ""


def ref_in(screen: str, fragment: str) -> str:
    for line in screen.splitlines():
        if fragment in line:
            found = re.search(r"\[ref=(e\d+)\]", line) or re.match(r"\s*\[(y\d+)\]", line)
            if found:
                return found.group(1)
    return f"no-ref-for-{fragment}"


def _resolved(move: Move, screen: str) -> Move:
    if move["kind"] != "call":
        return move

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return _REF.sub(lambda m: ref_in(screen, m.group(1)), value)
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return value

    return {**move, "args": fill(move["args"])}


def _openai_reply(move: Move, n: int, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if move["kind"] == "text":
        message["content"] = move["text"]
    else:
        arguments = move["arguments"] if move["kind"] == "raw" else json.dumps(move["args"])
        function = {"name": move["name"], "arguments": arguments}
        message["tool_calls"] = [{"id": f"call_{n}", "type": "function", "function": function}]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
    }


def _anthropic_reply(move: Move, n: int, model: str) -> dict[str, Any]:
    if move["kind"] == "text":
        content: list[dict[str, Any]] = [{"type": "text", "text": move["text"]}]
    else:
        args = move["args"] if move["kind"] == "call" else move["arguments"]
        content = [{"type": "tool_use", "id": f"toolu_{n}", "name": move["name"], "input": args}]
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }


class _Handler(BaseHTTPRequestHandler):
    model: ScriptedModel

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        status, payload = self.model.answer(self.path, self.rfile.read(length))
        body = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def log_message(self, format: str, *args: object) -> None:
        """Keep request lines out of the test output."""


@contextmanager
def serve(script: dict[str, Any] | None = None) -> Iterator[ScriptedModel]:
    """A running scripted model; stopped (its port closed) when the block ends."""
    model = ScriptedModel(dict(script or {}))
    handler = type("Handler", (_Handler,), {"model": model})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    model.port = server.server_port
    thread = threading.Thread(target=server.serve_forever, name="scripted-model", daemon=True)
    thread.start()
    try:
        yield model
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
