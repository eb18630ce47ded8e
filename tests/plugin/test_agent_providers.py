"""Every provider people use, through pytest: OpenAI, Anthropic, Google Gemini, Azure OpenAI.

Each speaks its own wire protocol through its official SDK to a scripted model on a real local
HTTP server (``llm_server``); trails run on real headless Chromium against the sample app. What
a team paying for a model checks: the requests are well formed for the provider, usage and cost
are reported, pictures go only to models that take them, and no secret reaches any request.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from html import unescape

import pytest
from junit_props import props
from llm_server import ScriptedModel, call, done, serve, signature

from pytest_trailblaze.core.masking import written_forms

COUNTER = """\
config:
  id: providers/counter
trailhead:
  step: Open the counter
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#counter" }
trail:
  - step: Click increment twice
  - verify: The counter shows 2
"""

MOVES = {
    "Click increment twice": [
        call("web_click", ref="{ref:Increment}"),
        call("web_click", ref="{ref:Increment}"),
        done(),
    ],
    "The counter shows 2": [call("web_verifyTextVisible", text="Current value: 2")],
}


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with serve(MOVES) as scripted:
        yield scripted


def options(model: ScriptedModel, provider: str, name: str = "scripted-1") -> list[str]:
    url = {
        "openai": model.openai_url,
        "anthropic": model.anthropic_url,
        "google": model.gemini_url,
        "azure": model.azure_url,
    }[provider]
    return [f"--trailblaze-llm={provider}/{name}", f"--trailblaze-llm-base-url={url}"]


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys as a team sets them (Azure requires one even for a local endpoint)."""
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test-key")
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-test-key")


def test_gemini_through_its_sdk_sends_thought_signatures_back(
    pytester: pytest.Pytester, tb, model: ScriptedModel, keys: None
) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", COUNTER)
    result = pytester.runpytest(
        tb.APP_MEMORY, *options(model, "google", "gemini-2.5-flash"), "--junitxml=report.xml"
    )
    result.assert_outcomes(passed=1)
    paths = [path for path, _ in model.calls]
    assert paths[0].endswith("/models/gemini-2.5-flash:generateContent") and len(paths) == 4
    assert model.calls[0][1]["x-goog-api-key"] == "gemini-test-key"
    third = model.requests()[2]
    assert third["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}  # a base URL: not forced
    calls = [p for c in third["contents"] if c["role"] == "model" for p in c["parts"]]
    assert [p["functionCall"]["name"] for p in calls] == ["web_click", "web_click"]
    assert [p["thoughtSignature"] for p in calls] == [signature(0), signature(1)]
    results = [
        p["functionResponse"] for c in third["contents"] for p in c["parts"] if "functionResponse" in p
    ]
    assert results[0]["name"] == "web_click" and results[0]["response"]["output"].startswith("ok: Clicked")
    declared = {d["name"] for d in third["tools"][0]["functionDeclarations"]}
    assert "web_click" in declared and "nodeSelector" not in str(third["tools"])
    case = props(pytester)["providers/counter[web]"]
    assert case["llm_model"] == "google/gemini-2.5-flash"
    assert (case["llm_calls"], case["llm_input_tokens"], case["llm_cached_input_tokens"]) == (
        "4",
        "400",
        "120",
    )


def test_azure_openai_through_the_sdks_azure_client(
    pytester: pytest.Pytester, tb, model: ScriptedModel, keys: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", COUNTER)
    monkeypatch.setenv("OPENAI_API_VERSION", "2024-10-21")
    result = pytester.runpytest(
        tb.APP_MEMORY, *options(model, "azure", "gpt-4o-mini"), "--junitxml=report.xml"
    )
    result.assert_outcomes(passed=1)
    path, headers = model.calls[0]
    assert path == "/openai/deployments/gpt-4o-mini/chat/completions?api-version=2024-10-21"
    assert headers["api-key"] == "azure-test-key"
    first = model.requests()[0]
    assert first["tool_choice"] == "required"  # Azure honours a forced tool call
    assert first["messages"][-1]["content"][1]["type"] == "image_url"  # a vision deployment gets pictures


def test_azure_needs_its_endpoint(
    pytester: pytest.Pytester, keys: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    result = pytester.runpytest("--trailblaze-llm=azure/my-deployment")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "Azure OpenAI needs its endpoint" in result.stderr.str()


@pytest.mark.parametrize(
    ("provider", "name", "pictures"),
    [
        ("openai", "scripted-1", False),  # unknown to the table: text only, never an HTTP 400
        ("azure", "my-text-deployment", False),
        ("anthropic", "claude-haiku-4-5", True),  # known to take images, wherever it is served
    ],
)
def test_pictures_go_only_to_models_known_to_take_them(
    pytester: pytest.Pytester, tb, model: ScriptedModel, keys: None, provider: str, name: str, pictures: bool
) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", COUNTER)
    pytester.runpytest(tb.APP_MEMORY, *options(model, provider, name)).assert_outcomes(passed=1)
    assert [pictured(request) for request in model.requests()] == [pictures] * 4


def pictured(request: dict) -> bool:
    """Whether the request's last turn carries a picture (OpenAI or Anthropic form)."""
    content = request["messages"][-1]["content"]
    return isinstance(content, list) and any(b.get("type") in ("image_url", "image") for b in content)


def test_the_workspace_says_what_a_model_takes_and_costs(
    pytester: pytest.Pytester, tb, model: ScriptedModel
) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", COUNTER)
    tb.write(
        pytester.path,
        "trails/config/trailblaze.yaml",
        "llm:\n  models:\n    openai/scripted-1:\n      vision: true\n      tool_choice: required\n"
        "      price: { input: 2.0, cached_input: 0.5, output: 8.0 }\n",
    )
    result = pytester.runpytest(
        tb.APP_MEMORY, *options(model, "openai"), "--junitxml=report.xml", "--trailblaze-report=report.html"
    )
    result.assert_outcomes(passed=1)
    assert all(r["tool_choice"] == "required" for r in model.requests())
    assert all(b'"image_url"' in body for body in model.bodies)
    case = props(pytester)["providers/counter[web]"]
    # 400 input tokens, 120 of them cached (the second and third call of the first step), 40 output
    assert case["llm_input_tokens"] == "400" and case["llm_cached_input_tokens"] == "120"
    assert case["llm_cost_usd"] == f"{(280 * 2.0 + 120 * 0.5 + 40 * 8.0) / 1e6:.6f}" == "0.000940"
    result.stdout.fnmatch_lines(
        [
            "*trailblaze: model usage*",
            "4 LLM calls in 1 trail: 400 input tokens (120 cached), 40 output tokens, $0.0009",
        ]
    )
    html = unescape((pytester.path / "report.html").read_text(encoding="utf-8"))
    assert "model: 4 LLM calls · 400 input tokens (120 cached) · 40 output tokens · $0.0009" in html


def test_an_unpriced_model_says_how_to_price_it(pytester: pytest.Pytester, tb, model: ScriptedModel) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", COUNTER)
    result = pytester.runpytest(tb.APP_MEMORY, *options(model, "openai"), "--junitxml=report.xml")
    result.assert_outcomes(passed=1)
    assert "llm_cost_usd" not in props(pytester)["providers/counter[web]"]
    result.stdout.fnmatch_lines(
        [
            "4 LLM calls in 1 trail: 400 input tokens (120 cached), 40 output tokens, cost unknown",
            "note openai/scripted-1: no price known; set llm.models.<model>.price*",
        ]
    )


def test_a_bad_price_is_an_error_at_its_line(pytester: pytest.Pytester, tb) -> None:
    tb.write(pytester.path, "trails/counter.trail.yaml", COUNTER)
    tb.write(
        pytester.path,
        "trails/config/trailblaze.yaml",
        "llm:\n  models:\n    openai/x:\n      price: { input: -1, output: 2 }\n",
    )
    result = pytester.runpytest("--collect-only", "-q")
    assert "trails/config/trailblaze.yaml:4:" in result.stdout.str()
    assert (
        "llm.models.openai/x.price.input: expected dollars per million tokens, got -1" in result.stdout.str()
    )


SECRET = "Zq9-never-send-me-7Yw"

SECRET_TRAIL = """\
config:
  id: providers/secret
trailhead:
  step: Open the form
  recording:
    web:
      web_navigate: { url: "{{app}}/index.html#form" }
trail:
  - step: Fill the form with {{password}}
    recording:
      web:
        - web_type: { ref: "css=#name-input", text: "{{password}}" }   # the secret is on screen now
        - web_evaluate: { script: "() => { throw new Error('stale') }" }  # fails at once: heals
  - step: Remember the name field as name
  - verify: The name field is filled in
"""

SECRET_MOVES = {
    "Fill the form with": [call("web_type", ref='{ref:textbox "Email"}', text="{{password}}"), done()],
    "Remember the name field": [
        call("rememberWithAi", prompt="the name field's value", variable="name"),
        done(),
    ],
    "The name field is filled in": [call("assertWithAi", prompt="The name field holds text"), done()],
    "Question: the name field": [call("answer", found=True, value="something typed")],
    "Statement: The name field": [call("answer", holds=True, explanation="it holds text")],
}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "google", "azure"])
def test_no_secret_reaches_any_model_request(
    pytester: pytest.Pytester, tb, model: ScriptedModel, keys: None, provider: str
) -> None:
    """The secret is typed into the page, quoted by a healed step's history, read by judgement
    tools; each provider's requests carry its token or the mask, never the secret."""
    tb.write(pytester.path, "trails/secret.trail.yaml", SECRET_TRAIL)
    model.script.update(SECRET_MOVES)
    name = (
        "claude-sonnet-4-5" if provider == "anthropic" else "gpt-4o" if provider == "azure" else "scripted-1"
    )
    result = pytester.runpytest(
        tb.APP_MEMORY,
        f"--trailblaze-secret=password={SECRET}",
        *options(model, provider, "gemini-2.5-flash" if provider == "google" else name),
        "--trailblaze-self-heal",
        "--trailblaze-llm-screenshots=on",
        "--trailblaze-save-recordings",
        "--junitxml=report.xml",
        "--trailblaze-report=report.html",
        "-rA",
    )
    result.assert_outcomes(passed=1)
    assert len(model.bodies) == 7  # heal (2), remember (2) and its question, verify (1) and its question
    forms = [f.encode() for f in written_forms(SECRET)]
    forms.append(base64.b64encode(SECRET.encode()))
    for index, body in enumerate(model.bodies):
        assert not [f for f in forms if f in body], f"request {index + 1} holds the secret"
    everything = b"".join(model.bodies)
    assert b"{{password}}" in everything and b"********" in everything
    # the new outputs (usage properties and totals, judgement marks, healed recording) hold none either
    assert "trailblaze: model usage" in result.stdout.str()
    assert "# model judgement" in (pytester.path / "trails" / "secret.trail.yaml").read_text(encoding="utf-8")
    output = (result.stdout.str() + result.stderr.str()).encode()
    assert not [f for f in forms if f in output]
    for path in pytester.path.rglob("*"):
        if path.is_file():
            assert not [f for f in forms if f in path.read_bytes()], f"{path} holds the secret"
    assert b"llm_cached_input_tokens" in (pytester.path / "report.xml").read_bytes()
