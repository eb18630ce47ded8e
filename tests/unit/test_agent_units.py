"""The agent's pure parts: model specs, the provider wire formats, the screen text, the prompt."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from pytest_trailblaze.agent import anthropic_messages, openai_chat
from pytest_trailblaze.agent.prompt import remembered_values
from pytest_trailblaze.agent.screen import mobile_refs, mobile_screen_text, web_screen_text
from pytest_trailblaze.agent.selectors import literal_pattern, mobile_node_selector
from pytest_trailblaze.agent.spec import LlmSpec, parse_model, require_sdk
from pytest_trailblaze.agent.wire import Conversation, ProviderError, ToolRequest, ToolSpec, Turn
from pytest_trailblaze.core.errors import ConfigurationError
from pytest_trailblaze.core.memory import Memory
from pytest_trailblaze.drivers.selectors import find_all, parse_hierarchy


def test_model_specs() -> None:
    assert parse_model("openai/gpt-4.1", "x") == ("openai", "gpt-4.1")
    assert parse_model(" Anthropic/claude-sonnet-4-5 ", "x") == ("anthropic", "claude-sonnet-4-5")
    assert parse_model("openai/meta-llama/Llama-3-8B", "x") == ("openai", "meta-llama/Llama-3-8B")
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
    monkeypatch.setitem(__import__("sys").modules, "anthropic", None)
    with pytest.raises(ConfigurationError, match=r"pip install 'pytest-trailblaze\[agent\]'"):
        require_sdk(LlmSpec("anthropic", "claude"))


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
        usage=SimpleNamespace(prompt_tokens=7, completion_tokens=2),
    )
    parsed = openai_chat.parse_response(reply)
    assert parsed.calls == (ToolRequest("a", "web_type", '{"text": "x"}'),) and parsed.usage.input_tokens == 7
    with pytest.raises(ProviderError, match="holds no message"):
        openai_chat.parse_response(SimpleNamespace(choices=[]))


def test_the_anthropic_request_and_reply() -> None:
    request = anthropic_messages.build_request(CONVERSATION, "m")
    assert request["system"] == "system words"
    assert [m["role"] for m in request["messages"]] == ["user", "assistant", "user"]
    assert request["messages"][1]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "web_click", "input": {"ref": "e1"}}
    ]
    result, screen, image = request["messages"][2]["content"]
    assert result["type"] == "tool_result" and screen["type"] == "text" and image["type"] == "image"
    reply = SimpleNamespace(
        content=[
            SimpleNamespace(type="text", text="ok"),
            SimpleNamespace(type="tool_use", id="t", name="x", input={"a": 1}),
        ],
        usage=SimpleNamespace(input_tokens=3, output_tokens=1),
    )
    parsed = anthropic_messages.parse_response(reply)
    assert parsed.text == "ok" and parsed.calls == (ToolRequest("t", "x", '{"a": 1}'),)


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
