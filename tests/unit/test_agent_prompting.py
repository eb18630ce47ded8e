"""The agent's pure decisions: what the model sees of a tool, which claims a passing check proves,
the guidance per kind of objective, a heal's history, repetition, and what a model takes and costs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pytest_trailblaze.agent.models import ModelFacts, Price, check_overrides, facts_for, known_facts
from pytest_trailblaze.agent.prompt import guidance, heal_text, previous_step, single_claim
from pytest_trailblaze.agent.repeats import RepeatGuard, call_key
from pytest_trailblaze.agent.tool_briefs import lean_parameters, lean_spec, offered
from pytest_trailblaze.agent.wire import Usage
from pytest_trailblaze.core.errors import ConfigurationError
from pytest_trailblaze.core.run.runner import Heal, plan_trail
from pytest_trailblaze.core.tooling.tooldef import ToolDescriptor
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.tools import web


def test_a_web_element_tool_is_lean_and_described() -> None:
    spec = lean_spec(web.web_scroll.descriptor)
    assert spec.description == "Scroll the page, or the element under a target, with the mouse wheel."
    props = spec.parameters["properties"]
    assert set(props) == {"direction", "amount", "ref", "reasoning"}  # no nodeSelector
    assert props["direction"] == {
        "description": "Which way to scroll or swipe.",
        "enum": ["UP", "DOWN", "LEFT", "RIGHT"],
        "type": "string",
        "default": "DOWN",
    }
    assert props["ref"] == {
        "description": "Scroll over this element; leave out to scroll the page.",
        "type": "string",
    }
    assert "required" not in spec.parameters  # scrolling the page needs no element
    click = lean_spec(web.web_click.descriptor)
    assert click.parameters["required"] == ["ref"] and click.description == "Click the element with this ref."
    assert len(str(click.parameters)) < 300  # it was over 10,000 characters


def test_pydantic_noise_goes_and_a_tools_own_descriptions_stay() -> None:
    schema = {
        "title": "t_arguments",
        "type": "object",
        "additionalProperties": False,
        "$defs": {"Mode": {"title": "Mode", "description": "A Python enum's docstring.", "enum": ["A", "B"]}},
        "properties": {
            "name": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "title": "Name"},
            "mode": {"$ref": "#/$defs/Mode", "default": "A"},
            "count": {"type": "integer", "description": "Mine.", "minimum": 1, "title": "Count"},
            "nodeSelector": {"type": "object"},
        },
        "required": ["count", "nodeSelector"],
    }
    assert lean_parameters("t", schema) == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "mode": {"enum": ["A", "B"], "default": "A"},
            "count": {"type": "integer", "description": "Mine.", "minimum": 1},
            "reasoning": {"type": "string", "description": "Why, in a few words (optional)."},
        },
        "required": ["count"],
    }


def test_plumbing_is_not_offered() -> None:
    def tool(name: str) -> ToolDescriptor:
        return ToolDescriptor(name, "", "builtin")

    names = ["web_click", "web_applyCookies", "web_resize", "launchApp", "takeSnapshot", "tap"]
    assert [d.name for d in offered(map(tool, names), "web")] == ["web_click", "tap"]
    assert [d.name for d in offered(map(tool, names), "android")] == [
        "web_click",
        "web_applyCookies",
        "web_resize",
        "launchApp",
        "tap",
    ]


@pytest.mark.parametrize(
    ("text", "single"),
    [
        ("The counter shows 2", True),
        ("A heading reads Welcome back", True),
        ("The counter shows 2 and the heading reads Blorp", False),
        ("The cart holds milk, eggs", False),
        ("Either Save or Cancel is shown", False),
        ("The banner is not shown", False),
        ("No error appears", False),
        ("The dialog has disappeared", False),
        ("Only one item is listed", False),
        ("It shows 2. The title is Home", False),
        ("The counter shows 2 with the heading Blorp", False),
        ("The counter shows 2 after the heading reads Blorp", False),
        ("Every item has a price", False),
        ("All three items are listed", False),
        ("Die Anzeige zeigt 2 und die Überschrift Blorp", False),
        ("计数器显示2和标题Blorp", False),
        ("The title of the page is Home", True),
    ],
)
def test_which_verifications_one_passing_check_proves(text: str, single: bool) -> None:
    assert single_claim(text) is single


def steps(text: str) -> list:
    return list(plan_trail(parse_trail(text, "t.trail.yaml"), ("web",)).steps)


def test_guidance_fits_the_kind_of_objective() -> None:
    trail = "trail:\n  - step: If a cookie banner shows, close it\n  - step: Add milk, then check out\n"
    trail += "  - step: Press Save\n  - verify: Saved\n"
    conditional, parts, single, verify = (" ".join(guidance(s)) for s in steps(trail))
    assert "Conditional: when the condition does not hold" in conditional
    assert "several parts" in parts and "Conditional" not in parts
    assert "Once the action worked, report COMPLETED" in single
    assert "only look and check" in verify and "FAILED as soon as one does not" in verify


def test_a_heal_shows_the_calls_that_ran_the_failure_and_the_rest() -> None:
    text = (
        "trail:\n  - step: Save\n    recording:\n      web:\n"
        '        - web_click: {ref: "css=#a", reasoning: "first"}\n'
        '        - web_type: {ref: "css=#b", text: "{{password}}"}\n'
        "        - web_wait: {seconds: 1}\n"
    )
    step = steps(text)[0]
    healing = replace(step, healing=Heal(step.calls, ("Clicked A",), "No element found\nmatching css=#b"))
    assert heal_text(healing).splitlines()[1:4] == [
        '1. web_click {"ref": "css=#a"} -> ok: Clicked A',
        '2. web_type {"ref": "css=#b", "text": "{{password}}"} -> error: No element found',
        "matching css=#b",
    ]
    assert '3. web_wait {"seconds": 1} -> not run' in heal_text(healing)
    assert [c.name for c in healing.healing.kept] == ["web_click"]


class _Run:
    def __init__(self, step, explanation: str) -> None:
        self.step, self.done, self.healed, self.explanation = step, True, False, explanation


def test_the_previous_step_and_its_outcome() -> None:
    trail = parse_trail(
        "trailhead:\n  step: Open\n  recording:\n    web: {web_wait: {}}\ntrail:\n  - step: A\n  - step: B\n",
        "t.trail.yaml",
    )
    plan = plan_trail(trail, ("web",))
    first, second = plan.steps
    assert previous_step(trail, first, []).outcome == "passed, replayed from its recording"
    assert previous_step(trail, first, []).label == "the trailhead"
    shown = previous_step(trail, second, [_Run(first, "did A")])
    assert (shown.label, shown.text, shown.outcome) == (
        "step 1 of 2",
        "A",
        "passed, done by the agent: did A",
    )
    assert previous_step(trail, plan.trailhead, []) is None


def test_repetition_counts_the_same_call_on_the_same_screen_with_the_same_result() -> None:
    guard = RepeatGuard()
    key = call_key("web_click", {"ref": "e9", "reasoning": "one"}, "screen", "error: gone")
    assert key == call_key("web_click", {"reasoning": "two", "ref": "e9"}, "screen", "error: gone")
    assert key != call_key("web_click", {"ref": "e9"}, "other screen", "error: gone")
    counts = [guard.count(key) for _ in range(5)]
    assert counts == [1, 2, 3, 4, 5]
    assert guard.warning(2, "x") is None and "x 3 times" in (guard.warning(3, "x") or "")
    assert not guard.exhausted(4) and guard.exhausted(5)


def test_cost_counts_cached_and_written_input_at_their_prices() -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
    usage = Usage(
        input_tokens=1_000_000, output_tokens=100_000, cached_input_tokens=600_000, cache_write_tokens=100_000
    )
    assert price.cost(usage) == pytest.approx(
        (300_000 * 3.0 + 600_000 * 0.3 + 100_000 * 3.75 + 100_000 * 15.0) / 1e6
    )
    assert Price(1.0, 2.0).cost(Usage(1000, 0, 500)) == pytest.approx(0.001)  # no cached price: full price


def test_what_the_table_knows_and_what_a_workspace_overrides() -> None:
    dated = known_facts("anthropic", "claude-haiku-4-5-20251001", hosted=True)
    assert dated.vision and dated.forced_tools and dated.price == Price(1.0, 5.0, 0.10, 1.25)
    assert known_facts("openai", "gpt-4.1-mini", hosted=True).price == Price(0.40, 1.60, 0.10)
    newer = known_facts("openai", "gpt-6-sol", hosted=True)
    assert newer.vision and newer.forced_tools and newer.price is None  # no made-up price
    assert not known_facts("openai", "gpt-3.5-turbo", hosted=True).vision
    local = known_facts("openai", "qwen2.5:7b", hosted=False)
    assert local == ModelFacts(vision=False, forced_tools=False, price=None)
    proxied = known_facts("openai", "gpt-4o", hosted=False)  # behind a base URL: its own prices
    assert proxied.vision and not proxied.forced_tools and proxied.price is None
    overrides = {"openai/qwen2.5:7b": {"vision": True, "price": {"input": 0.1, "output": 0.2}}}
    mine = facts_for("openai", "qwen2.5:7b", hosted=False, overrides=overrides, where="llm.models")
    assert mine.vision and mine.price == Price(0.1, 0.2) and not mine.forced_tools
    assert mine.context_tokens is None
    sized = facts_for(
        "openai", "qwen2.5:7b", hosted=False, overrides={"qwen2.5:7b": {"context": 8192}}, where="llm.models"
    )
    assert sized.context_tokens == 8192 and not sized.vision


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"vision": "yes"}, "llm.models.m.vision: expected true or false, got 'yes'"),
        ({"tool_choice": "any"}, "llm.models.m.tool_choice: expected auto or required, got 'any'"),
        ({"price": {"input": 1}}, "llm.models.m.price: needs both input and output"),
        ({"price": {"input": 1, "output": float("nan")}}, "llm.models.m.price.output: expected dollars"),
        ({"prize": 1}, "llm.models.m: unknown key 'prize'; accepted: vision, tool_choice, price, context"),
        ({"context": "8k"}, "llm.models.m.context: expected the model's context in tokens"),
        ({"context": 512}, "llm.models.m.context: expected the model's context in tokens, a whole number of"),
        ({"context": True}, "llm.models.m.context: expected the model's context in tokens"),
        ({"context": 4096.5}, "llm.models.m.context: expected the model's context in tokens"),
    ],
)
def test_a_bad_override_says_what_and_where(entry: dict, message: str) -> None:
    found = check_overrides({"m": entry}, "llm.models")
    assert found is not None and found[0] == "m" and found[1].startswith(message)
    with pytest.raises(ConfigurationError, match="expected a mapping"):
        facts_for("openai", "m", hosted=True, overrides={"m": 3}, where="llm.models")
