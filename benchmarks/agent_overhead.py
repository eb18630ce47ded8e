"""The agent's own overhead per loop iteration, model time excluded (goal: <= 50 ms).

On real headless Chromium with the sample app's contact form (its largest screen), one iteration
of the agent loop costs, besides the model's answer and the tool's own work:

* screen: the ARIA snapshot from the driver, numbered with ``eN`` refs (and, for vision models,
  a PNG screenshot);
* prompt: the conversation (system prompt, objective with remembered values, calls so far, the
  screen), the masking filter, the provider request and its JSON encoding;
* reply: decoding a Chat Completions answer into the SDK's types, then into a tool call.

The same pieces also run inside a real ``AgentLoop`` against a scripted model on 127.0.0.1; the
loop's own ``overhead_ms`` (screen + prompt + masking) is reported as a cross-check.

    .venv/bin/python benchmarks/agent_overhead.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from openai.types.chat import ChatCompletion

from pytest_trailblaze.agent import AgentLoop, LlmSpec, make_provider, openai_chat
from pytest_trailblaze.agent.loop import _masked
from pytest_trailblaze.agent.prompt import menu, objective_text, system_prompt, tool_specs
from pytest_trailblaze.agent.screen import capture
from pytest_trailblaze.agent.tools import TOOLS
from pytest_trailblaze.agent.wire import Conversation, ToolRequest, Turn
from pytest_trailblaze.core.context import ToolContext
from pytest_trailblaze.core.loader import parse_trail
from pytest_trailblaze.core.memory import Memory
from pytest_trailblaze.core.registry import ToolRegistry
from pytest_trailblaze.core.runner import plan_trail
from pytest_trailblaze.drivers.playwright import BrowserHost, BrowserOptions
from pytest_trailblaze.tools import builtin_tools

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from llm_server import call, done, serve  # noqa: E402

APP = ROOT / "examples" / "sample-app" / "index.html"
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
    action()
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    rounds = parser.parse_args().rounds
    host = BrowserHost(BrowserOptions())
    driver = host.new_driver()
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
    system = system_prompt(step, ctx, "A sample app.")
    history = [
        Turn("user", objective_text(step, ctx.memory)),
        Turn("assistant", "", call=ToolRequest("call_0", "web_type", '{"ref": "e9", "text": "{{email}}"}')),
        Turn("result", "ok: typed", call=ToolRequest("call_0", "web_type", "{}")),
    ]
    screen = capture(ctx)
    shot = capture(ctx, screenshot_path=ctx.artifact("bench.png"))
    body = json.dumps(REPLY)

    def prompt(png: bytes | None = None) -> None:
        conversation = Conversation(system, specs, [*history, Turn("user", screen.text, image_png=png)])
        json.dumps(openai_chat.build_request(_masked(conversation, ctx.memory), "m"))

    def reply() -> None:
        parsed = openai_chat.parse_response(ChatCompletion.model_validate(json.loads(body)))
        json.loads(parsed.calls[0].arguments)

    return {
        "screen (snapshot + refs)": median_ms(lambda: capture(ctx), rounds),
        "screen with screenshot": median_ms(
            lambda: capture(ctx, screenshot_path=ctx.artifact("bench.png")), rounds
        ),
        "prompt (build + mask + encode)": median_ms(prompt, rounds),
        "prompt with screenshot": median_ms(lambda: prompt(shot.png), rounds),
        "reply parse": median_ms(reply, rounds),
    }


def loop_overhead(ctx: ToolContext, step: object, rounds: int) -> tuple[float, float]:
    """A real loop against a scripted model on 127.0.0.1: its measured overhead, and the round trip."""
    moves = [call("web_verifyTextVisible", text="Contact Form")] * rounds + [done()]
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
    text_only = (
        parts["screen (snapshot + refs)"] + parts["prompt (build + mask + encode)"] + parts["reply parse"]
    )
    vision = parts["screen with screenshot"] + parts["prompt with screenshot"] + parts["reply parse"]
    print(f"{'per iteration, text model':34} {text_only:7.2f} ms  (goal <= 50 ms)")
    print(f"{'per iteration, vision model':34} {vision:7.2f} ms  (the screenshot is a browser capture)")
    print(f"{'AgentLoop overhead_ms (median)':34} {loop[0]:7.2f} ms")
    print(f"{'full iteration incl. local model':34} {loop[1]:7.2f} ms  (HTTP, SDK, tool call included)")


if __name__ == "__main__":
    main()
