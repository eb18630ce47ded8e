"""The agent's pure parts: model specs, the provider wire formats, the screen text, the prompt."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import pytest

from pytest_trailblaze.agent import anthropic_messages, gemini, openai_chat
from pytest_trailblaze.agent.durable_selectors import literal_pattern, mobile_node_selector
from pytest_trailblaze.agent.prompt import remembered_values
from pytest_trailblaze.agent.screen import mobile_refs, mobile_screen_text, web_screen_text
from pytest_trailblaze.agent.spec import LlmSpec, parse_model, require_sdk
from pytest_trailblaze.agent.wire import (
    Conversation,
    ProviderError,
    ToolRequest,
    ToolSpec,
    Turn,
    Usage,
    server_text,
)
from pytest_trailblaze.core.errors import ConfigurationError
from pytest_trailblaze.core.screen.hierarchy import parse_hierarchy
from pytest_trailblaze.core.screen.node_selectors import find_all
from pytest_trailblaze.core.tooling.memory import Memory


def test_model_specs() -> None:
    assert parse_model("openai/gpt-4.1", "x") == ("openai", "gpt-4.1")
    assert parse_model(" Anthropic/claude-sonnet-4-5 ", "x") == ("anthropic", "claude-sonnet-4-5")
    assert parse_model("openai/meta-llama/Llama-3-8B", "x") == ("openai", "meta-llama/Llama-3-8B")
    assert parse_model("gemini/gemini-2.5-flash", "x") == ("google", "gemini-2.5-flash")
    assert parse_model("azure/my-deployment", "x") == ("azure", "my-deployment")
    for bad in ("gpt-4.1", "openai/", "/x", "ollama/llama3"):
        with pytest.raises(ConfigurationError):
            parse_model(bad, "--trailblaze-llm")


def test_keys_come_from_the_providers_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY is not set"):
        LlmSpec("openai", "gpt-4.1").api_key()
    assert LlmSpec("openai", "llama3", "http://127.0.0.1:11434/v1").api_key() == "not-needed"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k-1")
    assert LlmSpec("anthropic", "claude").api_key() == "k-1"
    assert "k-1" not in repr(LlmSpec("anthropic", "claude"))


def test_a_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each provider names the extra that installs only its own SDK, and the umbrella one."""
    for provider, module, extra in (
        ("anthropic", "anthropic", "agent-anthropic"),
        ("google", "google.genai", "agent-google"),
        ("azure", "openai", "agent-openai"),
    ):
        monkeypatch.setitem(__import__("sys").modules, module, None)
        with pytest.raises(ConfigurationError) as caught:
            require_sdk(LlmSpec(provider, "m"))
        assert f"pip install 'pytest-trailblaze[{extra}]' (or [agent] for every provider)" in str(
            caught.value
        )


CONVERSATION = Conversation(
    "system words",
    (ToolSpec("web_click", "Click", {"type": "object", "properties": {"ref": {"type": "string"}}}),),
    [
        Turn("user", "Objective"),
        Turn("assistant", "", call=ToolRequest("c1", "web_click", '{"ref": "e1"}')),
        Turn("result", "ok: clicked", call=ToolRequest("c1", "web_click", '{"ref": "e1"}')),
        Turn("user", "Current screen:\n- button", image=b"\x89PNG"),
    ],
)


def test_the_openai_request_and_reply() -> None:
    request = openai_chat.build_request(CONVERSATION, "m")
    assert request["tool_choice"] == "required" and "max_tokens" not in request
    assert request["messages"][2]["content"] == ""  # never null: servers' validation rejects it
    free = openai_chat.build_request(replace(CONVERSATION, require_tool=False), "m", max_tokens=9)
    assert free["tool_choice"] == "auto" and free["max_tokens"] == 9
    assert [m["role"] for m in request["messages"]] == ["system", "user", "assistant", "tool", "user"]
    assert request["messages"][2]["tool_calls"][0]["function"] == {
        "name": "web_click",
        "arguments": '{"ref": "e1"}',
    }
    assert request["messages"][4]["content"][1]["image_url"]["url"] == "data:image/png;base64,iVBORw=="
    json.dumps(request)  # plain JSON all the way down
    function = SimpleNamespace(name="web_type", arguments='{"text": "x"}')
    reply = SimpleNamespace(
        choices=[
            SimpleNamespace(
                message=SimpleNamespace(content=None, tool_calls=[SimpleNamespace(id="a", function=function)])
            )
        ],
        usage=SimpleNamespace(
            prompt_tokens=7, completion_tokens=2, prompt_tokens_details=SimpleNamespace(cached_tokens=5)
        ),
    )
    parsed = openai_chat.parse_response(reply)
    assert parsed.calls == (ToolRequest("a", "web_type", '{"text": "x"}'),)
    assert parsed.usage == Usage(7, 2, 5)
    with pytest.raises(ProviderError, match="holds no message"):
        openai_chat.parse_response(SimpleNamespace(choices=[]))


def test_the_anthropic_request_and_reply() -> None:
    request = anthropic_messages.build_request(replace(CONVERSATION, cache_until=3), "m")
    cache = {"type": "ephemeral"}
    # Breakpoints on what repeats: every tool, the system prompt, the history before the screen.
    assert request["system"] == [{"type": "text", "text": "system words", "cache_control": cache}]
    assert request["tools"][-1]["cache_control"] == cache and request["tool_choice"] == {"type": "any"}
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "user"]
    assert request["messages"][1]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "web_click", "input": {"ref": "e1"}}
    ]
    result, screen, image = request["messages"][2]["content"]
    assert result["type"] == "tool_result" and screen["type"] == "text" and image["type"] == "image"
    assert result["cache_control"] == cache and "cache_control" not in screen
    assert json.dumps(request).count("cache_control") == 3
    free = anthropic_messages.build_request(replace(CONVERSATION, require_tool=False), "m")
    assert free["tool_choice"] == {"type": "auto"}
    reply = SimpleNamespace(
        content=[
            SimpleNamespace(type="text", text="ok"),
            SimpleNamespace(type="tool_use", id="t", name="x", input={"a": 1}),
        ],
        usage=SimpleNamespace(
            input_tokens=3, output_tokens=1, cache_read_input_tokens=50, cache_creation_input_tokens=7
        ),
    )
    parsed = anthropic_messages.parse_response(reply)
    assert parsed.text == "ok" and parsed.calls == (ToolRequest("t", "x", '{"a": 1}'),)
    assert parsed.usage == Usage(60, 1, 50, 7)  # every input token counted, the cache's apart


def test_the_gemini_request_and_reply() -> None:
    signed = ToolRequest("c1", "web_click", '{"ref": "e1"}', signature=b"sig")
    conversation = replace(
        CONVERSATION,
        turns=[*CONVERSATION.turns[:1], Turn("assistant", "", call=signed), *CONVERSATION.turns[2:]],
    )
    request = gemini.build_request(conversation, "gemini-2.5-flash")
    config = request["config"]
    assert config["system_instruction"] == "system words"
    assert config["tool_config"] == {"function_calling_config": {"mode": "ANY"}}
    declaration = config["tools"][0]["function_declarations"][0]
    assert declaration["name"] == "web_click" and declaration["parameters_json_schema"]["type"] == "object"
    contents = request["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    call = contents[1]["parts"][0]
    assert call == {
        "function_call": {"name": "web_click", "args": {"ref": "e1"}},
        "thought_signature": b"sig",
    }
    response, screen, image = contents[2]["parts"]
    assert response == {"function_response": {"name": "web_click", "response": {"output": "ok: clicked"}}}
    assert screen["text"].startswith("Current screen:") and image["inline_data"]["data"] == b"\x89PNG"
    free = gemini.build_request(replace(conversation, require_tool=False), "m")
    assert free["config"]["tool_config"]["function_calling_config"]["mode"] == "AUTO"
    function = SimpleNamespace(name="web_type", args={"text": "x"}, id=None)
    reply = SimpleNamespace(
        candidates=[
            SimpleNamespace(
                content=SimpleNamespace(
                    parts=[
                        SimpleNamespace(text="thinking", thought=True, function_call=None),
                        SimpleNamespace(
                            text=None, thought=None, function_call=function, thought_signature=b"s2"
                        ),
                    ]
                )
            )
        ],
        usage_metadata=SimpleNamespace(
            prompt_token_count=9,
            candidates_token_count=2,
            thoughts_token_count=3,
            cached_content_token_count=4,
        ),
    )
    parsed = gemini.parse_response(reply)
    assert parsed.text == "" and parsed.calls == (
        ToolRequest("gemini_1", "web_type", '{"text": "x"}', b"s2"),
    )
    assert parsed.usage == Usage(9, 5, 4)
    with pytest.raises(ProviderError, match="no candidate"):
        gemini.parse_response(SimpleNamespace(candidates=[], prompt_feedback="blocked"))


@pytest.mark.parametrize(
    ("body", "raw", "said"),
    [
        ({"error": {"message": "line one\n  line two\n"}}, None, "line one\n  line two"),
        ({"detail": [{"msg": "field required"}]}, None, '[{"msg": "field required"}]'),
        ({"error": {"message": ""}}, None, "(the server's error message is empty)"),
        (None, "<html>Bad gateway</html>", "<html>Bad gateway</html>"),
        ({"error": {"message": "\n".join(f"l{i}" for i in range(20))}}, None, "l0\nl1\nl2\nl3\nl4\nl5 [...]"),
    ],
)
def test_a_refusal_quotes_the_servers_own_words(body: object, raw: str | None, said: str) -> None:
    assert server_text(body, raw) == said


def test_the_web_screen_marks_the_refs_the_driver_resolves() -> None:
    lines = ["- main:", '  - heading "Counter" [level=2]', '  - paragraph: "Current value: 0"']
    snapshot = "\n".join([*lines, "  - text: plain", '  - button "Increment": +'])
    assert web_screen_text(snapshot).splitlines() == [
        "- main:",
        '  - heading "Counter" [level=2] [ref=e1]',
        '  - paragraph [ref=e2]: "Current value: 0"',
        "  - text: plain",
        '  - button "Increment" [ref=e3]: +',
    ]


BUTTON = 'class="android.widget.Button" clickable="true" text="Buy"'
APP = f"""<app><hierarchy class="h" bounds="[0,0][100,100]">
  <b {BUTTON} resource-id="a:id/buy" bounds="[0,0][50,10]"/>
  <b {BUTTON} resource-id="a:id/buy2" bounds="[0,20][50,30]"/>
  <e class="android.widget.EditText" text="typed secret" resource-id="a:id/field" bounds="[0,40][50,50]"/>
  <t class="android.widget.TextView" text="Hidden" displayed="false" bounds="[0,60][50,70]"/>
</hierarchy></app>"""


def test_mobile_refs_are_stable_and_selectors_unique() -> None:
    nodes = parse_hierarchy(APP)
    refs = mobile_refs(nodes)
    assert list(refs) == list(mobile_refs(parse_hierarchy(APP)))
    assert [n.get("resource-id") for n in refs.values()] == ["a:id/buy", "a:id/buy2", "a:id/field"]
    text = mobile_screen_text(nodes, 100, 100)
    assert "Hidden" not in text and 'Button text="Buy" id=a:id/buy clickable' in text
    for node in refs.values():
        selector = mobile_node_selector(node, nodes, "android")
        assert find_all(nodes, selector) == [node]
        assert "textRegex" not in selector["androidAccessibility"] or node.get("text") == "Buy"
    assert literal_pattern("$5.00") == r"\Q$5.00\E" and literal_pattern("Buy now") == "Buy now"


def test_secrets_are_named_never_shown() -> None:
    memory = Memory()
    memory.set("email", "qa@example.test")
    memory.set("password", "hunter2", secret=True)
    lines = "\n".join(remembered_values(memory))
    assert "{{email}} = qa@example.test" in lines and "{{password}} = (a secret" in lines
    assert "hunter2" not in lines
