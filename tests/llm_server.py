"""A scripted model on a real HTTP server of 127.0.0.1 speaking the providers' wire protocols.

``POST /v1/chat/completions`` answers as OpenAI Chat Completions (``tools`` / ``tool_calls``),
``POST /openai/deployments/<name>/chat/completions`` as Azure OpenAI (the same protocol),
``POST /v1/messages`` as Anthropic Messages (``tool_use`` blocks) and
``POST /v1beta/models/<model>:generateContent`` as Google Gemini (``functionCall`` parts, each
with a thought signature the client must send back); the official SDKs talk to it unmodified
through their base URL. Answers come from a script keyed by a piece of the step's objective line
(``Objective (step 1 of 2): ...``): the n-th answer for a conversation is the script's n-th move,
n being how many assistant turns the request already holds (with those the agent says it left
out to fit the model's context), so the server keeps no state between
requests and serves xdist workers in parallel (a script entry may also map platforms to moves:
``{"web": [...], "android": [...]}``). A move's ``{ref:TEXT}`` placeholder becomes the ref of the
first screen line containing TEXT (``[ref=e7]`` on web, ``[y1234]`` on mobile), read from the
screen the request carries, which proves the screen reached the model.

Usage is reported as the providers do with a prompt cache: 100 input tokens a request, of which
60 are read from the cache from the second request of a conversation on (Anthropic: written to
it by the first), and 10 output tokens.

Moves: ``call(name, **args)``, ``raw(name, arguments_text)``, ``text(words)``, ``http(status, msg)``,
``garbage(body)`` (a 200 with that body), ``slow(seconds, move)``, ``first(move, then)``,
``done()`` / ``give_up(why)`` (objectiveStatus).
"""

from __future__ import annotations

import base64
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


def calls(*moves: Move) -> Move:
    """One reply holding several tool calls (``call`` moves), as models may send."""
    return {"kind": "calls", "moves": list(moves)}


def done(why: str = "done") -> Move:
    return call("objectiveStatus", explanation=why, status="COMPLETED")


def give_up(why: str) -> Move:
    return call("objectiveStatus", explanation=why, status="FAILED")


@dataclass
class ScriptedModel:
    """The server; ``script`` maps objective fragments to moves, ``bodies`` keeps every request body."""

    script: dict[str, Any] = field(default_factory=dict)
    bodies: list[bytes] = field(default_factory=list)
    #: (path, headers) of every request, in order
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    port: int = 0
    used: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: A context window as a local server has one (OpenAI wire): a request counts a token per
    #: four bytes of its body, reported as its usage; one past the window is refused as
    #: llama-cpp-python and vLLM refuse it. None: no window, and 100 tokens a request.
    context_tokens: int | None = None

    @property
    def openai_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def gemini_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    @property
    def azure_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(body) for body in self.bodies]

    # -- answering -----------------------------------------------------------------------------------
    def answer(self, path: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        self.bodies.append(body)
        self.calls.append((path, dict(headers or {})))
        request = json.loads(body)
        wire = (
            "gemini"
            if ":generateContent" in path
            else "anthropic"
            if path.endswith("/messages")
            else "openai"
        )
        turns = request["contents"] if wire == "gemini" else request["messages"]
        user = [t for t in turns if t.get("role") == "user"]
        objective = _objective(_first_text(user[0], wire) if user else "")
        position = sum(1 for t in turns if t.get("role") in ("assistant", "model"))
        # calls the agent left out of the history to fit the model's context still count
        opening = _first_text(user[0], wire) if user else ""
        left_out = re.search(r"\((\d+) earlier calls? of this step left out", opening)
        position += int(left_out.group(1)) if left_out else 0
        moves = next((m for key, m in self.script.items() if key in objective), None)
        if isinstance(moves, dict):  # moves per platform, read from the system prompt
            platform = re.search(r"on an? (\w+) device", _system(request, wire))
            moves = moves.get(platform.group(1) if platform else "", None)
        tokens = len(body) // 4
        if self.context_tokens is not None and tokens > self.context_tokens:
            return 400, _error(wire, 400, (
                f"This model's maximum context length is {self.context_tokens} tokens. However, you "
                f"requested {tokens + 1024} tokens ({tokens} in the messages, 1024 in the completion). "
                "Please reduce the length of the messages or completion."
            ))  # fmt: skip
        if moves is None or position >= len(moves):
            return 400, _error(wire, 400, f"no scripted move {position} for {objective[:80]!r}")
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
            return move["status"], _error(wire, move["status"], move["message"])
        if move["kind"] == "garbage":
            return 200, move["body"]
        screen = _last_screen(turns)
        reply = {"anthropic": _anthropic_reply, "gemini": _gemini_reply, "openai": _openai_reply}[wire]
        model = request.get("model") or path.rsplit("/", 1)[-1].split(":")[0]
        answer = reply(_resolved(move, screen), position, model)
        if self.context_tokens is not None and wire == "openai":
            answer["usage"].update(prompt_tokens=tokens, prompt_tokens_details={"cached_tokens": 0})
        return 200, answer


def _error(wire: str, status: int, message: str) -> dict[str, Any]:
    if wire == "gemini":
        return {"error": {"code": status, "message": message, "status": "INVALID_ARGUMENT"}}
    return {"error": {"message": message, "type": "scripted"}}


def _objective(text: str) -> str:
    """The objective line of the first user turn (the step before it is named there too)."""
    found = re.search(r"^(?:Objective|Verify) \(.*$", text, re.M)
    return found.group(0) if found else text


def _system(request: dict[str, Any], wire: str) -> str:
    if wire == "gemini":
        return " ".join(p.get("text", "") for p in request.get("systemInstruction", {}).get("parts", []))
    if wire == "anthropic":
        system = request["system"]
        return system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)
    return _first_text(request["messages"][0], wire)


def _first_text(turn: dict[str, Any], wire: str) -> str:
    if wire == "gemini":
        return next((p["text"] for p in turn.get("parts", []) if "text" in p), "")
    content = turn["content"]
    if isinstance(content, str):
        return content
    return next((b.get("text", "") for b in content if b.get("type") == "text"), "")


def _texts(turn: dict[str, Any]) -> list[str]:
    if "parts" in turn:
        return [p.get("text", "") for p in turn["parts"]]
    content = turn.get("content")
    return [content] if isinstance(content, str) else [b.get("text", "") for b in content or []]


def _last_screen(turns: list[dict[str, Any]]) -> str:
    for turn in reversed(turns):
        for part in _texts(turn):
            if part and "Current screen:" in part:
                return part[part.index("Current screen:") :]
    return ""


def ref_in(screen: str, fragment: str) -> str:
    for line in screen.splitlines():
        if fragment in line:
            found = re.search(r"\[ref=(e\d+)\]", line) or re.match(r"\s*\[(y\d+)\]", line)
            if found:
                return found.group(1)
    return f"no-ref-for-{fragment}"


def _resolved(move: Move, screen: str) -> Move:
    if move["kind"] == "calls":
        return {**move, "moves": [_resolved(m, screen) for m in move["moves"]]}
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
    message: dict[str, Any] = {"role": "assistant", "content": None}  # null, as OpenAI sends it
    if move["kind"] == "text":
        message["content"] = move["text"]
    else:
        message["tool_calls"] = [
            {"id": f"call_{n}_{i}", "type": "function", "function": function}
            for i, function in enumerate(_openai_functions(move))
        ]
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
        "usage": {
            "prompt_tokens": 100,
            "completion_tokens": 10,
            "total_tokens": 110,
            "prompt_tokens_details": {"cached_tokens": 60 if n else 0},
        },
    }


def _openai_functions(move: Move) -> list[dict[str, str]]:
    if move["kind"] == "calls":
        return [f for m in move["moves"] for f in _openai_functions(m)]
    arguments = move["arguments"] if move["kind"] == "raw" else json.dumps(move["args"])
    return [{"name": move["name"], "arguments": arguments}]


def _anthropic_reply(move: Move, n: int, model: str) -> dict[str, Any]:
    if move["kind"] == "text":
        content: list[dict[str, Any]] = [{"type": "text", "text": move["text"]}]
    else:
        moves = move["moves"] if move["kind"] == "calls" else [move]
        content = [
            {"type": "tool_use", "id": f"toolu_{n}_{i}", "name": m["name"],
             "input": m["args"] if m["kind"] == "call" else m["arguments"]}
            for i, m in enumerate(moves)
        ]  # fmt: skip
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 40,
            "cache_read_input_tokens": 60 if n else 0,
            "cache_creation_input_tokens": 0 if n else 60,
            "output_tokens": 10,
        },
    }


def signature(n: int) -> str:
    """The thought signature of the n-th call of a conversation (base64, as Gemini sends it)."""
    return base64.b64encode(f"sig-{n}".encode()).decode()


def _gemini_reply(move: Move, n: int, model: str) -> dict[str, Any]:
    if move["kind"] == "text":
        parts: list[dict[str, Any]] = [{"text": move["text"]}]
    else:
        moves = move["moves"] if move["kind"] == "calls" else [move]
        parts = [
            {"functionCall": {"name": m["name"], "args": m["args"] if m["kind"] == "call" else {}},
             "thoughtSignature": signature(n)}
            for m in moves
        ]  # fmt: skip
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {
            "promptTokenCount": 100,
            "candidatesTokenCount": 10,
            "cachedContentTokenCount": 60 if n else 0,
            "totalTokenCount": 110,
        },
        "modelVersion": model,
    }


class _Handler(BaseHTTPRequestHandler):
    model: ScriptedModel

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        status, payload = self.model.answer(self.path, self.rfile.read(length), dict(self.headers))
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
