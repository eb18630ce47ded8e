"""The agent loop on real headless Chromium, against a scripted model on a real local HTTP server.

The model speaks OpenAI Chat Completions or Anthropic Messages through the official SDKs; its
moves name elements by the refs the screen it received shows (``{ref:Increment}``), so a passing
test also proves the screen reached it. Effects are read from the page with plain Playwright.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from llm_server import ScriptedModel, call, calls, done, garbage, give_up, http, raw, serve, slow, text

from pytest_trailblaze.agent import AgentLoop, LlmSpec, StepRun, make_provider
from pytest_trailblaze.agent.agent_tools import TOOLS
from pytest_trailblaze.agent.recording import recorded_step
from pytest_trailblaze.agent.screen import web_screen_text
from pytest_trailblaze.core.errors import AgentFailure
from pytest_trailblaze.core.run.runner import ResolvedStep, plan_trail
from pytest_trailblaze.core.tooling.context import ToolContext
from pytest_trailblaze.core.trail.parse import parse_trail

SECRET = "hunter2-s3cret-value"


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve() as scripted:
        yield scripted


@pytest.fixture
def agent_ctx(ctx: ToolContext) -> ToolContext:
    ctx.registry.register_all(TOOLS)
    return ctx


def step_of(text: str, kind: str = "step") -> ResolvedStep:
    trail = parse_trail(f"trail:\n  - {kind}: {json.dumps(text)}\n", "agent.trail.yaml")
    return plan_trail(trail, ("web",)).steps[0]


Agent = Callable[..., StepRun]


@pytest.fixture
def agent(model: ScriptedModel, agent_ctx: ToolContext) -> Agent:
    """``agent(step_text, *moves, provider=..., kind=..., **loop_options)``: one step through the loop."""

    def run(
        objective: str,
        *moves: Any,
        provider: str = "openai",
        kind: str = "step",
        timeout: float = 10,
        **loop: Any,
    ) -> StepRun:
        model.script[objective] = list(moves)
        url = {"openai": model.openai_url, "anthropic": model.anthropic_url, "google": model.gemini_url}[
            provider
        ]
        spec = LlmSpec(
            provider, "scripted-1", url, timeout, retries=0, screenshots=loop.pop("screenshots", False)
        )
        provider_ = make_provider(spec)
        try:
            return AgentLoop(provider_, screenshots=spec.screenshots, **loop).run(
                step_of(objective, kind), agent_ctx
            )
        finally:
            provider_.close()

    return run


def counter(page: Any) -> str:
    return page.locator("#counter-value").inner_text()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_step_is_done_by_the_model_through_the_registry(
    provider: str, agent: Agent, open_app: Any, model: ScriptedModel, agent_ctx: ToolContext
) -> None:
    page = open_app("index.html#counter")
    increment = call("web_click", ref="{ref:Increment}")
    run = agent("Click increment twice", increment, increment, done(), provider=provider)
    assert counter(page) == "2"
    assert run.llm_calls == 3 and run.usage.input_tokens == 300 and run.usage.output_tokens == 30
    assert [c.name for c in run.calls] == ["web_click", "web_click", "objectiveStatus"]
    # The recording keeps the model's ref and a durable selector found before the click.
    selector = {"web": {"cssSelector": "#increment-btn"}}
    assert recorded_step(run, agent_ctx.tool_log, agent_ctx.registry) == [
        ("web_click", {"ref": "e11", "nodeSelector": selector}),
        ("web_click", {"ref": "e11", "nodeSelector": selector}),
    ]
    first = model.requests()[0]
    tools = {t["function"]["name"] if provider == "openai" else t["name"]: t for t in first["tools"]}
    assert "web_click" in tools and "objectiveStatus" in tools and "web_evaluate" not in tools
    schema = (
        tools["web_click"]["function"]["parameters"]
        if provider == "openai"
        else tools["web_click"]["input_schema"]
    )
    assert schema["type"] == "object" and "ref" in schema["properties"]
    body = model.bodies[-1].decode()
    assert 'button \\"Increment\\" [ref=e11]' in body  # the current screen with refs
    assert "ok: " in body and ("call_1" in body or "toolu_1" in body)  # the calls so far, as tool turns


@pytest.mark.parametrize(("forced", "choice"), [(False, "auto"), (True, "required")])
def test_the_conversation_follows_the_openai_protocol(
    agent: Agent, open_app: Any, model: ScriptedModel, forced: bool, choice: str
) -> None:
    open_app("index.html#counter")
    agent("Click increment once", call("web_click", ref="{ref:Increment}"), done(), forced_tools=forced)
    last = model.requests()[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "user"]
    assert last[2]["tool_calls"][0]["function"]["name"] == "web_click"
    assert last[2]["content"] == ""  # not null: compatible servers' validation rejects null
    assert last[3]["tool_call_id"] == last[2]["tool_calls"][0]["id"]
    screen = last[4]["content"]
    assert "Objective: Click increment once" in screen  # the per-turn reminder, above the screen
    assert "\n\nCurrent screen:\npage " in screen and "Current value: 1" in screen
    # "required" only where the endpoint is known to honour it; the model is told in words anyway
    assert model.requests()[-1]["tool_choice"] == choice
    assert "exactly one tool call" in last[0]["content"]


def test_the_conversation_follows_the_anthropic_protocol(
    agent: Agent, open_app: Any, model: ScriptedModel
) -> None:
    open_app("index.html#counter")
    agent(
        "Click increment once",
        call("web_click", ref="{ref:Increment}"),
        done(),
        provider="anthropic",
        forced_tools=True,
    )
    request = model.requests()[-1]
    assert "Trailblaze" in request["system"][0]["text"] and request["tool_choice"] == {"type": "any"}
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["user", "assistant", "user"]
    blocks = request["messages"][2]["content"]
    assert (
        blocks[0]["type"] == "tool_result"
        and blocks[0]["tool_use_id"] == request["messages"][1]["content"][0]["id"]
    )
    assert "Current screen:" in blocks[1]["text"]
    # the prompt cache's breakpoints: tools, system, and the history up to the current screen
    assert request["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert request["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert blocks[0]["cache_control"] == {"type": "ephemeral"} and "cache_control" not in blocks[1]


ROOTS = [
    "<main><h1>Plain</h1><button>Go</button><p>text: with a colon</p></main>",
    "only words",
    "",
    "<html aria-label='Named document'><body><button>b</button></body></html>",
    "<html title='Titled'><body><p>x</p></body></html>",
    "<html role=main aria-label=M><body>hi</body></html>",
    "<html hidden><body>x</body></html>",
    "<html style='display:none'><body>x</body></html>",
]


@pytest.mark.parametrize("html", ROOTS)
def test_the_screen_snapshot_is_the_root_snapshot_numbering_reads(driver: Any, html: str) -> None:
    """``hierarchy()`` takes Playwright's cheaper page snapshot; the text must not change (``eN``
    numbering reads it)."""
    driver.page.set_content(html)
    assert driver.hierarchy() == driver.page.locator(":root").aria_snapshot()


@pytest.mark.parametrize("page", ["index.html#form", "duplicate-list.html", "search-duplicates.html"])
def test_the_sample_app_snapshots_match_the_root_snapshot(open_app: Any, driver: Any, page: str) -> None:
    open_app(page)
    assert driver.hierarchy() == driver.page.locator(":root").aria_snapshot()


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_screenshot_goes_with_the_screen_for_vision_models(
    provider: str, agent: Agent, open_app: Any, model: ScriptedModel, agent_ctx: ToolContext
) -> None:
    open_app("index.html#counter")
    agent("Look at the page", done(), screenshots=True, provider=provider)
    content = model.requests()[0]["messages"][-1]["content"]
    if provider == "openai":
        assert content[1]["type"] == "image_url"
        url = content[1]["image_url"]["url"]
    else:
        source = next(block["source"] for block in content if block["type"] == "image")
        url = f"data:{source['media_type']};base64,{source['data']}"
    assert url.startswith("data:image/jpeg;base64,")
    # A picture a browser decodes, of the whole viewport at CSS pixels; kept as the step's artifact.
    viewer = agent_ctx.driver.context.new_page()
    size = viewer.evaluate(
        "async url => { const img = new Image(); img.src = url; await img.decode();"
        " return [img.naturalWidth, img.naturalHeight]; }",
        url,
    )
    viewer.close()
    assert size == [1280, 800]
    assert (agent_ctx.artifacts_dir / "agent-step1-01.jpg").is_file()


def test_no_picture_is_taken_while_a_secret_is_on_screen(
    agent: Agent, open_app: Any, model: ScriptedModel, agent_ctx: ToolContext
) -> None:
    page = open_app("index.html#form")
    agent_ctx.memory.set("password", SECRET, secret=True)
    page.locator("#name-input").fill(SECRET)
    agent("Look at the form", done(), screenshots=True)
    assert "image_url" not in model.bodies[0].decode()
    assert not list(agent_ctx.artifacts_dir.glob("agent-step*"))  # nothing with the secret on disk


def test_a_tool_failure_goes_back_to_the_model(
    agent: Agent, open_app: Any, model: ScriptedModel, agent_ctx: ToolContext
) -> None:
    page = open_app("index.html#counter")
    run = agent(
        "Increment it",
        call("web_click", ref="css=#nope-btn"),
        call("web_click", ref="{ref:Increment}"),
        done(),
    )
    assert counter(page) == "1"
    assert "error: No element found matching css=#nope-btn" in model.bodies[1].decode()
    assert [name for name, _ in recorded_step(run, agent_ctx.tool_log, agent_ctx.registry)] == ["web_click"]


def test_a_recording_keeps_top_level_calls_and_what_a_wrapper_did(
    agent: Agent, open_app: Any, agent_ctx: ToolContext
) -> None:
    """A recordable tool is recorded as itself (not the calls it made); a non-recordable wrapper
    as the recordable calls it made (docs/upstream.md, Recording write-back)."""
    from pytest_trailblaze import tool

    @tool(platforms=("web",))
    def counter_incrementTwice(ctx: Any) -> str:
        """Press Increment twice."""
        for _ in range(2):
            ctx.run("web_click", {"ref": "css=#increment-btn"})
        return "pressed twice"

    @tool(platforms=("web",), is_recordable=False)
    def counter_pressReset(ctx: Any) -> str:
        """Press Reset."""
        return ctx.run("web_click", {"ref": "css=#reset-btn"}).message

    agent_ctx.registry.register_all((counter_incrementTwice, counter_pressReset))
    page = open_app("index.html#counter")
    page.locator("#increment-btn").click()
    run = agent(
        "Reset, then add two",
        call("counter_pressReset"),
        call("counter_incrementTwice"),
        done(),
    )
    assert counter(page) == "2"
    assert recorded_step(run, agent_ctx.tool_log, agent_ctx.registry) == [
        ("web_click", {"ref": "css=#reset-btn"}),
        ("counter_incrementTwice", {}),
    ]


def test_a_verify_step_gets_verification_tools_only_and_ends_when_one_holds(
    agent: Agent, open_app: Any, model: ScriptedModel, agent_ctx: ToolContext
) -> None:
    open_app("index.html#counter")
    run = agent("The counter shows 0", call("web_verifyTextVisible", text="Current value: 0"), kind="verify")
    assert run.llm_calls == 1
    offered = {t["function"]["name"] for t in model.requests()[0]["tools"]}
    assert offered and all(
        name == "objectiveStatus" or agent_ctx.registry.get(name).descriptor.is_verification
        for name in offered
    )
    assert "web_verifyTextVisible" in offered and "web_click" not in offered
    assert "A verification: only look and check" in model.requests()[0]["messages"][-1]["content"]


def test_elements_without_ids_are_recorded_by_role_name_and_position(
    agent: Agent, open_app: Any, agent_ctx: ToolContext
) -> None:
    page = open_app("duplicate-list.html")
    screen = web_screen_text(agent_ctx.driver.hierarchy())
    views = [
        re.search(r"\[ref=(e\d+)\]", line).group(1) for line in screen.splitlines() if 'button "View"' in line
    ]
    run = agent("Open the third product", call("web_click", ref=views[2]), done())
    assert "(ID: elec-3)" in page.locator("#detail-panel").inner_text()
    recorded = recorded_step(run, agent_ctx.tool_log, agent_ctx.registry)
    assert recorded[0][1]["nodeSelector"] == {
        "web": {"ariaRole": "button", "ariaNameRegex": "View", "nthIndex": 2}
    }
    # The selector alone finds the same button again.
    agent_ctx.registry.execute(
        "web_click", {"ref": "css=#gone", "nodeSelector": recorded[0][1]["nodeSelector"]}, agent_ctx
    )
    assert "(ID: elec-3)" in page.locator("#detail-panel").inner_text()


def test_a_selector_is_kept_only_when_its_first_match_is_the_element(
    agent: Agent, agent_ctx: ToolContext
) -> None:
    agent_ctx.driver.page.set_content(
        "<button id=dup>First</button><button id=dup data-testid=second>Second</button>"
        "<button data-testid='q\"uote'>Third</button><button>Third</button>"
    )
    screen = web_screen_text(agent_ctx.driver.hierarchy())
    refs = re.findall(r'button "\w+" \[ref=(e\d+)\]', screen)
    clicks = [call("web_click", ref=ref) for ref in refs[1:]]
    run = agent("Press the last three buttons", *clicks, done())
    recorded = recorded_step(run, agent_ctx.tool_log, agent_ctx.registry)
    selectors = [args["nodeSelector"] for _, args in recorded]
    assert selectors == [
        {"web": {"dataTestId": "second"}},  # `#dup` first finds the other button
        {"web": {"ariaRole": "button", "ariaNameRegex": "Third"}},  # a test id no selector holds
        {"web": {"ariaRole": "button", "ariaNameRegex": "Third", "nthIndex": 1}},
    ]


def test_secrets_never_reach_the_model(
    agent: Agent, open_app: Any, model: ScriptedModel, agent_ctx: ToolContext
) -> None:
    page = open_app("index.html#form")
    agent_ctx.memory.set("password", SECRET, secret=True)
    agent_ctx.memory.set("user", "ada")
    run = agent(
        "Type {{password}} into the Name field",
        call("web_type", ref='{ref:textbox "Name"}', text="{{password}}"),
        call("web_type", ref='{ref:textbox "Email"}', text="{{user}}"),
        done(),
        screenshots=True,
    )
    assert page.locator("#name-input").input_value() == SECRET  # the registry substituted the token
    assert all(SECRET.encode() not in body for body in model.bodies)
    bodies = [b.decode() for b in model.bodies]
    assert "{{password}} = (a secret" in bodies[0] and "{{user}} = ada" in bodies[0]
    # Once the secret is on screen it is masked in the text and no screenshot is sent.
    assert "********" in bodies[-1] and "image_url" not in bodies[-1] and "image_url" in bodies[0]
    recorded = recorded_step(run, agent_ctx.tool_log, agent_ctx.registry)
    assert recorded[0][1]["text"] == "{{password}}"  # the authored token, never the value


# -- every way the model can fail the step ------------------------------------------------------------
def failure(agent: Agent, objective: str, *moves: Any, **options: Any) -> str:
    with pytest.raises(AgentFailure) as caught:
        agent(objective, *moves, **options)
    message = str(caught.value)
    assert "model: openai/scripted-1" in message or "model: anthropic/scripted-1" in message
    assert "Traceback" not in message
    return message


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_http_error_fails_the_step_naming_the_status(agent: Agent, open_app: Any, provider: str) -> None:
    open_app("index.html#counter")
    message = failure(agent, "Click it", http(500, "the model is overloaded"), provider=provider)
    assert "cause: HTTP 500: the model is overloaded" in message
    assert message.startswith("agent.trail.yaml:2:5: step 1 of 1 failed: the agent could not do it: Click it")


def test_a_timeout_fails_the_step(agent: Agent, open_app: Any) -> None:
    open_app("index.html#counter")
    message = failure(agent, "Click it", slow(3, done()), timeout=0.5)
    assert "cause: no answer within 0.5 s (timeout)" in message


def test_unreadable_arguments_go_back_to_the_model(agent: Agent, open_app: Any, model: ScriptedModel) -> None:
    page = open_app("index.html#counter")
    run = agent(
        "Click it", raw("web_click", '{"ref": "e11"'), call("web_click", ref="{ref:Increment}"), done()
    )
    assert counter(page) == "1" and run.llm_calls == 3
    result = model.requests()[1]["messages"][3]
    assert result["role"] == "tool" and result["content"].startswith("error: the arguments of 'web_click'")
    assert "not readable JSON" in result["content"] and "one JSON object" in result["content"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(
    ("body", "cause"),
    [
        ("<html>502 Bad Gateway</html>", "cause: unreadable reply: the body is not JSON"),
        (  # a reply of both protocols' shape, but token counts that are not numbers
            '{"choices": [{"message": {"role": "assistant", "content": "hm"}}],'
            ' "content": [{"type": "text", "text": "hm"}],'
            ' "usage": {"prompt_tokens": "many", "input_tokens": "many"}}',
            "cause: unreadable reply: ValueError: invalid literal for int()",
        ),
    ],
)
def test_an_unreadable_reply_fails_the_step(
    agent: Agent, open_app: Any, provider: str, body: str, cause: str
) -> None:
    open_app("index.html#counter")
    message = failure(agent, "Click it", garbage(body), provider=provider)
    assert cause in message and "after: 1 LLM call, 0 tool calls" in message


def test_a_call_the_registry_rejects_goes_back_to_the_model(
    agent: Agent, open_app: Any, model: ScriptedModel, agent_ctx: ToolContext
) -> None:
    page = open_app("index.html#form")
    run = agent(
        "Type ada as the name",
        call("web_type", ref='{ref:textbox "Name"}'),  # no `text`: the registry's validation says so
        call("web_type", ref='{ref:textbox "Name"}', text="ada"),
        done(),
    )
    assert page.locator("#name-input").input_value() == "ada"
    result = model.requests()[1]["messages"][3]
    assert result["role"] == "tool" and result["content"].startswith("error: ")
    assert "text" in result["content"]  # names the missing argument
    ok = [(c.name, c.ok) for c in run.calls]
    assert ok == [("web_type", False), ("web_type", True), ("objectiveStatus", True)]
    assert [n for n, _ in recorded_step(run, agent_ctx.tool_log, agent_ctx.registry)] == ["web_type"]


def test_arguments_the_model_was_not_offered_go_back_naming_only_what_it_was_offered(
    agent: Agent, open_app: Any, model: ScriptedModel
) -> None:
    """The model never sees `nodeSelector` (it is computed for the recording): an error must not
    offer it either, and a selector the model makes up must not reach the tool."""
    page = open_app("index.html#counter")
    run = agent(
        "Click it",
        call("web_click", ref="{ref:Increment}", bogus=True),
        call("web_click", ref="{ref:Increment}", nodeSelector={"webCssSelector": "#reset-btn"}),
        call("web_click", ref="{ref:Increment}"),
        done(),
    )
    assert counter(page) == "1" and [c.name for c in run.calls] == ["web_click", "objectiveStatus"]
    for n, wrong in ((1, "bogus"), (2, "nodeSelector")):
        said = model.requests()[n]["messages"][-2]["content"]
        assert said == (
            f"error: invalid arguments for 'web_click': unknown argument '{wrong}'; accepted: ref, reasoning"
        )


@pytest.mark.parametrize("provider", ["openai", "anthropic", "google"])
def test_an_unknown_tool_goes_back_to_the_model(
    agent: Agent, open_app: Any, model: ScriptedModel, provider: str
) -> None:
    page = open_app("index.html#counter")
    run = agent("Click it", call("web_tap", ref="e11"), call("web_click", ref="{ref:Increment}"), done(),
                provider=provider)  # fmt: skip
    assert counter(page) == "1" and [c.name for c in run.calls] == ["web_click", "objectiveStatus"]
    said = model.bodies[1].decode()
    assert "error: there is no tool 'web_tap' here" in said and "web_click, web_hover" in said


def test_a_verify_step_may_not_act(agent: Agent, open_app: Any, model: ScriptedModel) -> None:
    page = open_app("index.html#counter")
    message = failure(
        agent,
        "The counter shows 1",
        call("web_click", ref="{ref:Increment}"),
        give_up("it shows 0"),
        kind="verify",
    )
    assert "this verification offers only: " in model.bodies[1].decode() and counter(page) == "0"
    assert "cause: the model reports the objective failed: it shows 0" in message


def test_the_call_budget_fails_the_step(agent: Agent, open_app: Any) -> None:
    page = open_app("index.html#counter")
    click = call("web_click", ref="{ref:Increment}")
    message = failure(agent, "Click forever", click, click, click, max_calls=2)
    assert "cause: used its budget of 2 LLM calls without finishing" in message
    assert "after: 2 LLM calls, 2 tool calls (web_click, web_click)" in message
    assert counter(page) == "2"


def test_a_reply_without_a_tool_call_goes_back_to_the_model(
    agent: Agent, open_app: Any, model: ScriptedModel
) -> None:
    page = open_app("index.html#counter")
    run = agent("Click it", text("I would click it."), call("web_click", ref="{ref:Increment}"), done())
    assert counter(page) == "1" and run.llm_calls == 3
    second = model.requests()[1]["messages"]
    assert second[2] == {"role": "assistant", "content": "I would click it."}
    assert second[3]["role"] == "user" and second[3]["content"].startswith("error: your reply called no tool")


def test_a_rambling_reply_is_repeated_shortened(agent: Agent, open_app: Any, model: ScriptedModel) -> None:
    """A small model that writes up to its output cap: the next request repeats the start of it,
    so it stays within a small context (a 4,096-token server refused the second call)."""
    page = open_app("index.html#counter")
    ramble = "I think about the counter. " * 200
    run = agent("Click it", text(ramble), call("web_click", ref="{ref:Increment}"), done())
    assert counter(page) == "1" and run.llm_calls == 3
    echoed = model.requests()[1]["messages"][2]["content"]
    assert echoed == f"{ramble[:600]}... ({len(ramble) - 600} more characters left out)"


@pytest.mark.parametrize("provider", ["openai", "anthropic", "google"])
def test_of_several_calls_in_one_reply_only_the_first_runs_and_the_model_is_told(
    agent: Agent, open_app: Any, model: ScriptedModel, provider: str
) -> None:
    page = open_app("index.html#counter")
    click = call("web_click", ref="{ref:Increment}")
    run = agent("Click it once", calls(click, click, click), done(), provider=provider)
    assert counter(page) == "1" and [c.name for c in run.calls] == ["web_click", "objectiveStatus"]
    said = model.bodies[1].decode()
    assert "(only the first of your 3 calls ran: make one call per turn)" in said


def test_a_model_that_gives_up_fails_the_step(agent: Agent, open_app: Any) -> None:
    open_app("index.html#counter")
    message = failure(agent, "Buy a ticket", give_up("there is no ticket shop"))
    assert "cause: the model reports the objective failed: there is no ticket shop" in message


def test_an_unreachable_server_fails_the_step(open_app: Any, agent_ctx: ToolContext) -> None:
    open_app("index.html#counter")
    with serve() as stopped:
        url = stopped.openai_url
    provider = make_provider(LlmSpec("openai", "scripted-1", url, 5, retries=0, screenshots=False))
    with pytest.raises(AgentFailure) as caught:
        AgentLoop(provider).run(step_of("Click it"), agent_ctx)
    assert f"cause: cannot connect to {url}" in str(caught.value)
    provider.close()
