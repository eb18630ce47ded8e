"""The agent's own overhead per loop iteration, model time excluded (goal: <= 50 ms).

On real headless Chromium with the sample app's contact form (its largest screen), one iteration
of the agent loop costs, besides the model's answer and the tool's own work:

* screen: the ARIA snapshot from the driver, numbered with ``eN`` refs (and, for vision models,
  a JPEG of the viewport at CSS pixels);
* prompt: the conversation (system prompt, objective with remembered values, calls so far, the
  screen), the masking filter, the provider request and its JSON encoding;
* reply: decoding a Chat Completions answer into the SDK's types, then into a tool call;
* for calls on an element (``web_click`` ``e17``): the probe that finds the durable
  ``nodeSelector`` kept in the recording (it runs before the tool, which resolves the ref itself).

Each "before" line measures, in the same run on the same page, what the previous version did:
the snapshot through ``locator(":root")`` and a PNG screenshot written to a file and read back.

The same pieces also run inside a real ``AgentLoop`` against a scripted model on 127.0.0.1; the
loop's own ``overhead_ms`` (screen + prompt + masking) is reported as a cross-check.

    .venv/bin/python benchmarks/agent_overhead.py [--rounds 60]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from openai.types.chat import ChatCompletion

from pytest_trailblaze.agent import AgentLoop, LlmSpec, make_provider, openai_chat
from pytest_trailblaze.agent.agent_tools import TOOLS
from pytest_trailblaze.agent.durable_selectors import web_node_selector
from pytest_trailblaze.agent.loop import _masked
from pytest_trailblaze.agent.prompt import menu, objective_text, system_prompt, tool_specs
from pytest_trailblaze.agent.screen import capture_image, capture_text, web_screen_text
from pytest_trailblaze.agent.wire import Conversation, ToolRequest, Turn
from pytest_trailblaze.core.run.runner import plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.drivers.browser import BrowserHost
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.playwright import WebDriver
from pytest_trailblaze.tools import builtin_tools

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from llm_server import call, done, serve  # noqa: E402

APP = ROOT / "examples" / "sample-app" / "index.html"
#: One frame at 60 Hz: how far apart in the frame the measured calls are spread.
FRAME_S = 1 / 60
REPLY = {
    "id": "c",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "web_click", "arguments": '{"ref": "e17"}'},
                    }
                ],
            },
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def median_ms(action: Callable[[], object], rounds: int) -> float:
    """The median time of ``action``; a random pause before each round (not timed) lets the
    calls land anywhere in the browser's frame, as they do in the loop after a model's answer
    (back-to-back calls would lock onto the frame rate and measure its phase instead)."""
    pause = random.Random(0)
    action()
    times = []
    for _ in range(rounds):
        time.sleep(pause.random() * FRAME_S)
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60)
    rounds = parser.parse_args().rounds
    host = BrowserHost(BrowserOptions())
    driver = WebDriver.open(host)
    try:
        driver.page.goto(APP.as_uri() + "#form")
        registry = ToolRegistry(platform="web", driver_key="playwright-native")
        registry.register_all([*builtin_tools(), *TOOLS])
        memory = Memory()
        memory.set("email", "qa@example.test")
        memory.set("password", "hunter2-secret", secret=True)
        ctx = ToolContext(
            registry, memory, driver.device_info(), driver, str(APP), ROOT / "trailblaze-output" / "bench"
        )
        step = plan_trail(
            parse_trail("trail:\n  - step: Submit the form as {{email}}\n", "b"), ("web",)
        ).steps[0]
        report(measure(ctx, step, rounds), loop_overhead(ctx, step, rounds))
    finally:
        driver.close()
        host.close()


def measure(ctx: ToolContext, step: object, rounds: int) -> dict[str, float]:
    specs = tool_specs(menu(step, ctx))
    system = system_prompt(ctx, "A sample app.")
    history = [
        Turn("user", objective_text(step)),
        Turn("assistant", "", call=ToolRequest("call_0", "web_type", '{"ref": "e9", "text": "{{email}}"}')),
        Turn("result", "ok: typed", call=ToolRequest("call_0", "web_type", "{}")),
    ]
    text = capture_text(ctx)
    image, media_type = capture_image(ctx, ctx.artifact("bench.png"))
    png = ctx.driver.screenshot(ctx.artifact("bench-before.png")).read_bytes()
    body = json.dumps(REPLY)
    page = ctx.driver.page

    def prompt(picture: bytes | None = None, kind: str = "image/png") -> None:
        turn = Turn("user", text, image=picture, image_type=kind)
        conversation = Conversation(system, specs, [*history, turn])
        json.dumps(openai_chat.build_request(_masked(conversation, ctx.memory), "m"))

    def reply() -> None:
        parsed = openai_chat.parse_response(ChatCompletion.model_validate(json.loads(body)))
        json.loads(parsed.calls[0].arguments)

    return {
        "screen text (snapshot + refs)": median_ms(lambda: capture_text(ctx), rounds),
        "  before: root-locator snapshot": median_ms(
            lambda: web_screen_text(page.locator(":root").aria_snapshot()), rounds
        ),
        "screen picture (JPEG, CSS px)": median_ms(
            lambda: capture_image(ctx, ctx.artifact("bench.png")), rounds
        ),
        "  before: PNG file, read back": median_ms(
            lambda: ctx.driver.screenshot(ctx.artifact("bench-before.png")).read_bytes(), rounds
        ),
        "prompt (build + mask + encode)": median_ms(prompt, rounds),
        "prompt with picture": median_ms(lambda: prompt(image, media_type), rounds),
        "  before: prompt with PNG": median_ms(lambda: prompt(png), rounds),
        "reply parse": median_ms(reply, rounds),
        "selector probe (element calls)": median_ms(lambda: web_node_selector(ctx.driver, "e17"), rounds),
    }


def loop_overhead(ctx: ToolContext, step: object, rounds: int) -> tuple[float, float]:
    """A real loop against a scripted model on 127.0.0.1: its measured overhead, and the round trip."""
    # progress notes that differ, so that the loop's repetition guard does not stop the run
    moves = [call("objectiveStatus", explanation=f"check {n}", status="IN_PROGRESS") for n in range(rounds)]
    moves.append(done())
    with serve({"Submit the form": moves}) as model:
        provider = make_provider(
            LlmSpec("openai", "bench", model.openai_url, 30, retries=0, screenshots=False)
        )
        started = time.perf_counter()
        run = AgentLoop(provider, max_calls=rounds + 2).run(step, ctx)
        elapsed = (time.perf_counter() - started) * 1000 / run.llm_calls
        provider.close()
    return statistics.median(run.overhead_ms[1:]), elapsed


def report(parts: dict[str, float], loop: tuple[float, float]) -> None:
    for name, value in parts.items():
        print(f"{name:34} {value:7.2f} ms")
    base = parts["prompt (build + mask + encode)"] + parts["reply parse"]
    text_only = parts["screen text (snapshot + refs)"] + base
    before_text = parts["  before: root-locator snapshot"] + base
    picture = (
        parts["screen picture (JPEG, CSS px)"]
        + parts["prompt with picture"]
        - parts["prompt (build + mask + encode)"]
    )
    before_picture = (
        parts["  before: PNG file, read back"]
        + parts["  before: prompt with PNG"]
        - parts["prompt (build + mask + encode)"]
    )
    print(f"{'per iteration, text model':34} {text_only:7.2f} ms  (before {before_text:.2f} ms)")
    print(
        f"{'per iteration, vision model':34} {text_only + picture:7.2f} ms  "
        f"(before {before_text + before_picture:.2f} ms; goal <= 50 ms)"
    )
    print(f"{'  + selector probe, element calls':34} {parts['selector probe (element calls)']:7.2f} ms")
    print(f"{'AgentLoop overhead_ms (median)':34} {loop[0]:7.2f} ms")
    print(f"{'full iteration incl. local model':34} {loop[1]:7.2f} ms  (HTTP, SDK, tool call included)")


if __name__ == "__main__":
    main()
