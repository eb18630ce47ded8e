"""What one model request of the agent weighs, per platform and step kind (goal: a web step's
median request <= 16 KB of JSON).

Each request is built exactly as the agent builds it (system prompt, objective, the calls so far,
the reminder and the current screen, the tools offered) and encoded as the provider's JSON
(OpenAI Chat Completions and Anthropic Messages), without a screenshot. Web screens come from
real headless Chromium on the sample app's pages; mobile screens from the Appium page sources the
tests use. A step's requests are its first, second and third call (one and two calls made); the
median is over them and the pages.

"before" is the same conversation with what the agent offered until now: every tool the session
surfaces to the model, each with its full published JSON Schema (the ``nodeSelector`` matchers of
four platforms, pydantic's titles and null unions), plumbing tools included.

Tokens are estimated at 4 bytes of JSON a token (tokenizers differ; a provider's own count is
in its usage, which the JUnit properties report).

    .venv/bin/python benchmarks/agent_request.py
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from pytest_trailblaze.agent import anthropic_messages, openai_chat
from pytest_trailblaze.agent.agent_tools import TOOLS
from pytest_trailblaze.agent.prompt import menu, objective_text, reminder, system_prompt, tool_specs
from pytest_trailblaze.agent.screen import capture_text, mobile_screen_text
from pytest_trailblaze.agent.wire import Conversation, ToolRequest, ToolSpec, Turn
from pytest_trailblaze.core.run.runner import Heal, ResolvedStep, plan_trail
from pytest_trailblaze.core.screen.hierarchy import parse_hierarchy
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.drivers.browser import BrowserHost
from pytest_trailblaze.drivers.browser_options import BrowserOptions
from pytest_trailblaze.drivers.playwright import WebDriver
from pytest_trailblaze.tools import builtin_tools

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "examples" / "sample-app"
WEB_PAGES = ("index.html#counter", "index.html#form", "duplicate-list.html", "search-duplicates.html")
MOBILE_SOURCES = {"android": "android-phone.xml", "ios": "iphone.xml"}
DRIVERS = {"web": "playwright-native", "android": "android-ondevice-instrumentation", "ios": "ios-host"}
CONTEXT = "The sample app has a counter, a contact form and product lists."
BYTES_PER_TOKEN = 4


def step_of(kind: str, words: str) -> ResolvedStep:
    trail = parse_trail(f"trail:\n  - {kind}: {json.dumps(words)}\n", "bench.trail.yaml")
    return plan_trail(trail, ("web",)).steps[0]


def healing(step: ResolvedStep) -> ResolvedStep:
    """The step as the agent gets it when its recording failed on the second of three calls."""
    text = (
        'trail:\n  - step: Save the form\n    recording:\n      web:\n        - web_click: {ref: "css=#a"}\n'
    )
    text += '        - web_click: {ref: "css=#b"}\n        - web_wait: {seconds: 1}\n'
    calls = plan_trail(parse_trail(text, "bench.trail.yaml"), ("web",)).steps[0].calls or ()
    heal = Heal(tuple(calls), ("Clicked button 'A'",), "No element found matching css=#b")
    return ResolvedStep(
        step.number, step.total, step.step, step.classifier, "web", tuple(calls), healing=heal
    )


def requests(ctx: ToolContext, step: ResolvedStep, specs: tuple[ToolSpec, ...], screen: str) -> list[dict]:
    """The step's first three requests (no call made yet, one, two), as the agent sends them."""
    system = system_prompt(ctx, CONTEXT)
    history: list[Turn] = [Turn("user", objective_text(step))]
    out = []
    for n in range(3):
        words = reminder(step, ctx.memory)
        turns = [*history, Turn("user", f"{words}\n\nCurrent screen:\n{screen}")]
        out.append({"conversation": Conversation(system, specs, turns, cache_until=len(history))})
        call = ToolRequest(f"call_{n}", "web_click", json.dumps({"ref": f"e{n + 3}"}))
        history += [Turn("assistant", "", call=call), Turn("result", "ok: Clicked button 'Go'", call=call)]
    return out


def before_specs(ctx: ToolContext) -> tuple[ToolSpec, ...]:
    """The tools as the agent offered them before: all surfaced, each with its full schema."""
    offered = [
        d
        for d in ctx.registry.descriptors()
        if d.surface_to_llm and ctx.registry.unsupported_reason(ctx.registry.get(d.name)) is None
    ]
    return tuple(ToolSpec(d.name, d.description, dict(d.parameters)) for d in offered)


def sizes(items: list[dict]) -> tuple[list[int], list[int]]:
    openai = [len(json.dumps(openai_chat.build_request(i["conversation"], "m"))) for i in items]
    anthropic = [len(json.dumps(anthropic_messages.build_request(i["conversation"], "m"))) for i in items]
    return openai, anthropic


def context_for(platform: str, driver: Any = None) -> ToolContext:
    registry = ToolRegistry(platform=platform, driver_key=DRIVERS[platform])
    registry.register_all([*builtin_tools(), *TOOLS])
    memory = Memory()
    memory.set("email", "qa@example.test")
    device = (
        driver.device_info() if driver is not None else DeviceInfo(platform, DRIVERS[platform], 1080, 2400)
    )
    return ToolContext(registry, memory, device, driver)


def measure(platform: str, screens: list[str], ctx: ToolContext) -> dict[str, tuple[list[int], list[int]]]:
    kinds = {
        "step": step_of("step", "Fill in the form as {{email}}, then send it"),
        "verify": step_of("verify", "The form shows a thank-you note"),
    }
    if platform == "web":
        kinds["heal"] = healing(kinds["step"])
    rows: dict[str, tuple[list[int], list[int]]] = {}
    for kind, step in kinds.items():
        now = tool_specs(menu(step, ctx), platform)
        old = (
            before_specs(ctx)
            if step.step.kind != "verify"
            else tuple(s for s in before_specs(ctx) if ctx.registry.get(s.name).descriptor.is_verification)
        )
        new_items, old_items = [], []
        for screen in screens:
            new_items += requests(ctx, step, now, screen)
            old_items += requests(ctx, step, old, screen)
        rows[kind] = (sizes(new_items)[0], sizes(old_items)[0])
        rows[kind + " (anthropic)"] = (sizes(new_items)[1], sizes(old_items)[1])
    return rows


def report(platform: str, rows: dict[str, tuple[list[int], list[int]]]) -> None:
    for kind, (now, before) in rows.items():
        median_now, median_before = statistics.median(now), statistics.median(before)
        print(
            f"{platform:8} {kind:22} {median_now / 1024:6.1f} KB ~{median_now / BYTES_PER_TOKEN:6,.0f} tokens"
            f"   before {median_before / 1024:6.1f} KB ~{median_before / BYTES_PER_TOKEN:6,.0f} tokens"
            f"   ({median_before / median_now:4.1f}x smaller; max now {max(now) / 1024:.1f} KB)"
        )


def main() -> None:
    print(f"{'platform':8} {'step kind':22} {'median request now':30}   before (full schemas, every tool)")
    host = BrowserHost(BrowserOptions())
    driver = WebDriver.open(host)
    try:
        ctx = context_for("web", driver)
        screens = []
        for page in WEB_PAGES:
            driver.page.goto(
                (APP / page.split("#")[0]).as_uri() + ("#" + page.split("#")[1] if "#" in page else "")
            )
            screens.append(capture_text(ctx))
        rows = measure("web", screens, ctx)
        report("web", rows)
        median = statistics.median(rows["step"][0])
        verdict = "met" if median <= 16384 else "MISSED"
        print(f"{'':8} web step median: {median / 1024:.1f} KB of JSON (goal <= 16 KB): {verdict}")
    finally:
        driver.close()
        host.close()
    for platform, source in MOBILE_SOURCES.items():
        xml = (ROOT / "examples" / "mobile" / "apps" / source).read_text(encoding="utf-8")
        ctx = context_for(platform)
        screen = mobile_screen_text(parse_hierarchy(xml), ctx.device.width, ctx.device.height)
        report(platform, measure(platform, [screen], ctx))


if __name__ == "__main__":
    main()
