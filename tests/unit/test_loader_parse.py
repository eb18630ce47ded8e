"""What the loader builds from valid trails: unified and legacy v1, and the template pass."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import SourceSpan
from pytest_trailblaze.core.trail.model import ANY_DEVICE, ArgDecl, Step, ToolCall, Trail
from pytest_trailblaze.core.trail.parse import (
    classifier_from_filename,
    expand_template,
    load_trail,
    parse_trail,
)
from pytest_trailblaze.core.trail.v1format import DEFAULT_TRAILHEAD_TEXT
from pytest_trailblaze.core.trail.yamlcore import YamlInt

PATH = "trails/shop/trail.yaml"


def parse(text: str, **kwargs) -> Trail:
    return parse_trail(textwrap.dedent(text).lstrip("\n"), PATH, **kwargs)


def span(line: int, col: int) -> SourceSpan:
    return SourceSpan(PATH, line, col)


UNIFIED = """
config:
  id: shop/checkout
  target: shop
  title: Checkout works
  description: Buy one thing
  priority: P1
  context: The shop sometimes shows a promo dialog.
  devices:
    android: android_ondevice_accessibility
    ios-iphone: Ios_Host
    web: PLAYWRIGHT_NATIVE
  skip:
    ios: "flaky on iOS"
    web:
  tags: [smoke, checkout, 2026]
  memory:
    email: qa@example.test
    count: 3
    ratio: 1.50
    enabled: true
    zip: '007'
  metadata:
    owner: qa-team
trailhead:
  step: Launch the shop signed in
  maxRetries: 1
  recording:
    android: { launchApp: { appId: com.example.shop, launchMode: REINSTALL } }
    web: {}
    ios-iphone:
trail:
  - step: Open the cart
    recording:
      android:
        - tapOnElementBySelector:
            reason: The cart icon is the only one with this description.
            nodeSelector: { androidAccessibility: { contentDescriptionRegex: Cart } }
      android-tablet: []
      web:
        - web_click: { ref: 'css=#cart', reasoning: open the cart }
        - pressBack:
  - step: Dismiss any promo dialog
    recordable: false
  - verify: The cart shows "{{email}}"
    maxRetries: 2
    recording:
      web:
        - web_verifyTextVisible: { text: "{{email}}" }
"""


@pytest.fixture(scope="module")
def unified() -> Trail:
    return parse(UNIFIED)


def test_unified_text_fields(unified: Trail) -> None:
    config = unified.config
    assert unified.format == "unified"
    assert unified.path == PATH
    assert unified.span == span(1, 1)
    assert (config.id, config.target, config.title) == ("shop/checkout", "shop", "Checkout works")
    assert (config.description, config.priority) == ("Buy one thing", "P1")
    assert config.context == "The shop sometimes shows a promo dialog."
    assert config.driver is None and config.platform is None


def test_devices_are_normalised_to_driver_enum_names(unified: Trail) -> None:
    assert dict(unified.config.devices) == {
        "android": "ANDROID_ONDEVICE_ACCESSIBILITY",
        "ios-iphone": "IOS_HOST",
        "web": "PLAYWRIGHT_NATIVE",
    }


def test_skip_map_keeps_reasons_and_blank_means_not_skipped(unified: Trail) -> None:
    assert dict(unified.config.skip) == {"ios": "flaky on iOS", "web": ""}


def test_tags_are_text(unified: Trail) -> None:
    assert unified.config.tags == ("smoke", "checkout", "2026")


def test_memory_values_are_strings_as_written(unified: Trail) -> None:
    assert dict(unified.config.memory) == {
        "email": "qa@example.test",
        "count": "3",
        "ratio": "1.50",
        "enabled": "true",
        "zip": "007",
    }
    assert all(isinstance(v, str) for v in unified.config.memory.values())


def test_metadata_is_a_text_map(unified: Trail) -> None:
    assert dict(unified.config.metadata) == {"owner": "qa-team"}


def test_trailhead_single_map_recording_and_noops(unified: Trail) -> None:
    head = unified.trailhead
    assert head is not None
    assert (head.kind, head.text, head.max_retries, head.recordable) == (
        "trailhead",
        "Launch the shop signed in",
        1,
        True,
    )
    assert head.span == span(25, 3)
    launch = ToolCall(
        "launchApp",
        {"appId": "com.example.shop", "launchMode": "REINSTALL"},
        span(28, 16),
        {"appId": span(28, 29), "launchMode": span(28, 54)},
    )
    assert dict(head.recording) == {"android": (launch,), "web": (), "ios-iphone": ()}


def test_steps_kinds_texts_and_spans(unified: Trail) -> None:
    steps = unified.steps
    assert [(s.kind, s.text) for s in steps] == [
        ("step", "Open the cart"),
        ("step", "Dismiss any promo dialog"),
        ("verify", 'The cart shows "{{email}}"'),
    ]
    assert [s.span for s in steps] == [span(32, 5), span(42, 5), span(44, 5)]


def test_step_recording_per_classifier_with_empty_list_noop(unified: Trail) -> None:
    recording = unified.steps[0].recording
    assert list(recording) == ["android", "android-tablet", "web"]
    assert recording["android-tablet"] == ()
    assert [c.name for c in recording["web"]] == ["web_click", "pressBack"]


def test_tool_args_and_arg_spans(unified: Trail) -> None:
    (tap,) = unified.steps[0].recording["android"]
    assert tap.name == "tapOnElementBySelector"
    assert tap.span == span(35, 11)
    assert dict(tap.args) == {
        "reason": "The cart icon is the only one with this description.",
        "nodeSelector": {"androidAccessibility": {"contentDescriptionRegex": "Cart"}},
    }
    assert dict(tap.arg_spans) == {"reason": span(36, 13), "nodeSelector": span(37, 13)}


def test_reason_and_reasoning_are_plain_args(unified: Trail) -> None:
    click, _ = unified.steps[0].recording["web"]
    assert dict(click.args) == {"ref": "css=#cart", "reasoning": "open the cart"}
    assert click.arg_spans["reasoning"].line == 40
    assert "reason" in unified.steps[0].recording["android"][0].args


def test_no_arg_tool_written_with_null_has_empty_args(unified: Trail) -> None:
    _, back = unified.steps[0].recording["web"]
    assert back == ToolCall("pressBack", {}, span(41, 11), {})


def test_recordable_and_max_retries(unified: Trail) -> None:
    open_cart, promo, verify = unified.steps
    assert (open_cart.recordable, open_cart.max_retries) == (True, None)
    assert (promo.recordable, promo.recording) == (False, None)
    assert (verify.recordable, verify.max_retries) == (True, 2)


def test_step_calls_lists_every_classifier_in_file_order(unified: Trail) -> None:
    assert [c.name for c in unified.steps[0].calls()] == ["tapOnElementBySelector", "web_click", "pressBack"]
    assert unified.steps[1].calls() == ()


def test_classifiers_and_platforms(unified: Trail) -> None:
    assert unified.classifiers() == ("android", "web", "ios-iphone", "android-tablet")
    assert unified.platforms() == ("android", "ios", "web")


def test_platforms_come_from_devices_trailhead_and_steps_not_from_skip() -> None:
    trail = parse(
        """
        config:
          devices: {desktop: COMPOSE}
          skip: {ios-ipad: not yet}
        trailhead:
          step: Launch
          recording:
            web: {web_navigate: {url: "https://example.test"}}
        trail:
          - step: x
            recording:
              android-phone: []
        """
    )
    assert trail.classifiers() == ("web", "android-phone", "desktop")
    assert trail.platforms() == ("android", "desktop", "web")


def test_trail_without_any_classifier_has_no_platform() -> None:
    trail = parse("trail:\n  - step: Open the app\n  - verify: It opened\n")
    assert trail.classifiers() == ()
    assert trail.platforms() == ()
    assert trail.config.devices == {}
    assert trail.trailhead is None


def test_verify_recording_and_folded_text() -> None:
    trail = parse(
        """
        trail:
          - verify: >
              The heading "Sign in"
              is visible
            recording:
              ios-iphone:
                - assertVisibleBySelector: {nodeSelector: {iosMaestro: {textRegex: Sign in}}}
        """
    )
    (step,) = trail.steps
    assert step.kind == "verify"
    assert step.text == 'The heading "Sign in" is visible\n'
    assert step.recording["ios-iphone"][0].args["nodeSelector"] == {"iosMaestro": {"textRegex": "Sign in"}}


def test_typed_tool_arg_values_are_kept() -> None:
    trail = parse(
        """
        trail:
          - step: x
            recording:
              android:
                - swipe: {direction: left, steps: 3, fast: true, ratio: 0.5, missing: null, list: [a, 1]}
        """
    )
    assert dict(trail.steps[0].calls()[0].args) == {
        "direction": "left",
        "steps": 3,
        "fast": True,
        "ratio": 0.5,
        "missing": None,
        "list": ["a", 1],
    }


def test_config_only_document_has_zero_steps() -> None:
    trail = parse("config:\n  id: meta/only\n  title: Metadata\n")
    assert (trail.format, trail.steps, trail.trailhead) == ("unified", (), None)
    assert trail.config.id == "meta/only"


def test_config_null_only_document_is_valid() -> None:
    trail = parse("config:\n")
    assert trail.steps == ()
    assert trail.config.id is None


def test_nl_only_trailhead() -> None:
    trail = parse(
        """
        trailhead:
          step: >
            Launch the desktop app.
        trail:
          - step: Type a prompt
        """
    )
    assert trail.trailhead is not None
    assert trail.trailhead.text == "Launch the desktop app.\n"
    assert trail.trailhead.recording is None


def test_merge_keys_and_aliases_in_args() -> None:
    trail = parse(
        """
        trail:
          - step: x
            recording:
              web:
                - web_type: &base {ref: e1, text: hi}
                - web_type:
                    <<: *base
                    text: bye
        """
    )
    first, second = trail.steps[0].calls()
    assert dict(first.args) == {"ref": "e1", "text": "hi"}
    assert dict(second.args) == {"ref": "e1", "text": "bye"}


# --- config.args -----------------------------------------------------------------------------------

ARGS = """
config:
  args:
    recipient: string
    retries: integer
    name: {type: string, default: "Jane Doe", description: Full name}
    code: {type: string, default: '007'}
    bare: {type: string, default: 007}
    greeting: {type: string, default: '{{memory.email}}'}
    count: {type: integer, default: 3}
    quoted_count: {type: integer, default: '12'}
    dark: {type: boolean, default: false}
    loud: {type: boolean, default: 'TRUE'}
    items: {type: array, default: [a, b]}
    user: {type: object, default: {name: x}}
    untyped: {default: x}
    optional: {required: false, default: y}
    needed: {type: string, required: true}
    empty: {}
trail:
  - step: Type "{{args.name}}"
"""


@pytest.fixture(scope="module")
def args() -> dict[str, ArgDecl]:
    return dict(parse(ARGS).config.args)


def test_args_compact_form_is_required(args: dict[str, ArgDecl]) -> None:
    assert args["recipient"] == ArgDecl("recipient", "string", span(3, 5), "", required=True, default=None)
    assert (args["retries"].type, args["retries"].required) == ("integer", True)


def test_args_full_form_with_description_and_default(args: dict[str, ArgDecl]) -> None:
    assert args["name"] == ArgDecl(
        "name", "string", span(5, 5), "Full name", required=False, default="Jane Doe"
    )


@pytest.mark.parametrize(
    ("name", "arg_type", "default"),
    [
        ("code", "string", "007"),
        ("bare", "string", "007"),
        ("greeting", "string", "{{memory.email}}"),
        ("count", "integer", 3),
        ("quoted_count", "integer", 12),
        ("dark", "boolean", False),
        ("loud", "boolean", True),
        ("items", "array", ["a", "b"]),
        ("user", "object", {"name": "x"}),
        ("untyped", "string", "x"),
        ("optional", "string", "y"),
    ],
)
def test_args_typed_defaults(args: dict[str, ArgDecl], name: str, arg_type: str, default: object) -> None:
    decl = args[name]
    assert (decl.type, decl.required, decl.default) == (arg_type, False, default)
    numbers_keep_their_text = type(default) is int and isinstance(decl.default, YamlInt)
    assert type(decl.default) is type(default) or numbers_keep_their_text


def test_args_required_forms(args: dict[str, ArgDecl]) -> None:
    assert (args["needed"].required, args["needed"].default) == (True, None)
    assert (args["empty"].type, args["empty"].required) == ("string", True)


def test_args_keep_declaration_order(args: dict[str, ArgDecl]) -> None:
    assert list(args)[:3] == ["recipient", "retries", "name"]


# --- legacy v1 -----------------------------------------------------------------------------------------

V1 = """
- config:
    id: demo/login
    title: Login
    driver: PLAYWRIGHT_NATIVE
    platform: web
    skip: flaky on CI
    source: {type: HANDWRITTEN, reason: written by hand}
    metadata: {owner: qa}
    memory: {user: alice}
- trailhead: myapp_freshInstall
- prompts:
    - step: Open the login page
      recording:
        tools:
          - web_navigate: { url: https://example.test/login }
    - verify: The heading "Sign in" is visible
      recordable: false
    - step: Nothing to do here
      maxRetries: 3
      recording: {tools: []}
- tools:
    - web_wait: { seconds: 1 }
- prompts:
    - step: Sign in
"""


def test_v1_config() -> None:
    config = parse(V1).config
    assert (config.id, config.title, config.driver, config.platform) == (
        "demo/login",
        "Login",
        "PLAYWRIGHT_NATIVE",
        "web",
    )
    assert dict(config.skip) == {ANY_DEVICE: "flaky on CI"}
    assert dict(config.memory) == {"user": "alice"}
    assert dict(config.metadata) == {
        "owner": "qa",
        "source": "HANDWRITTEN",
        "sourceReason": "written by hand",
    }


def test_v1_source_is_bridged_whatever_the_key_order() -> None:
    trail = parse(
        """
        - config:
            metadata: {owner: qa}
            source: {type: HANDWRITTEN}
        - prompts:
            - step: x
        """
    )
    assert dict(trail.config.metadata) == {"owner": "qa", "source": "HANDWRITTEN"}


def test_v1_bare_string_trailhead() -> None:
    head = parse(V1).trailhead
    assert head == Step(
        "trailhead",
        DEFAULT_TRAILHEAD_TEXT,
        span(10, 3),
        {ANY_DEVICE: (ToolCall("myapp_freshInstall", {}, span(10, 14)),)},
    )
    assert DEFAULT_TRAILHEAD_TEXT == "Reach the trailhead starting state"


def test_v1_steps_in_file_order_with_tools_items() -> None:
    trail = parse(V1)
    assert trail.format == "v1"
    assert [(s.kind, s.text) for s in trail.steps] == [
        ("step", "Open the login page"),
        ("verify", 'The heading "Sign in" is visible'),
        ("step", "Nothing to do here"),
        ("tools", "Run the listed tools"),
        ("step", "Sign in"),
    ]
    first, verify, noop, tools, last = trail.steps
    navigate = ToolCall(
        "web_navigate", {"url": "https://example.test/login"}, span(15, 13), {"url": span(15, 29)}
    )
    assert dict(first.recording) == {ANY_DEVICE: (navigate,)}
    assert (verify.recordable, verify.recording) == (False, None)
    assert (dict(noop.recording), noop.max_retries) == ({ANY_DEVICE: ()}, 3)
    assert tools.span == span(21, 3)
    assert [c.name for c in tools.recording[ANY_DEVICE]] == ["web_wait"]
    assert last.recording is None


def test_v1_without_file_classifier_has_no_platform() -> None:
    trail = parse(V1)
    assert trail.classifiers() == ()
    assert trail.platforms() == ()


def test_v1_trailhead_map_with_step_tools_and_retries() -> None:
    trail = parse(
        """
        - trailhead:
            step: Sign in as alice
            maxRetries: 2
            tools:
              - launchApp: {appId: com.example}
        - prompts:
            - step: x
        """
    )
    head = trail.trailhead
    assert (head.kind, head.text, head.max_retries) == ("trailhead", "Sign in as alice", 2)
    assert [c.name for c in head.recording[ANY_DEVICE]] == ["launchApp"]


def test_v1_trailhead_map_with_tools_only_gets_default_text() -> None:
    trail = parse("- trailhead:\n    tools:\n      - launchApp: {appId: x}\n- prompts:\n    - step: x\n")
    assert trail.trailhead.text == DEFAULT_TRAILHEAD_TEXT


def test_v1_trailhead_map_with_step_only_has_no_recording() -> None:
    trail = parse("- trailhead:\n    step: Be signed in\n- prompts:\n    - step: x\n")
    assert (trail.trailhead.text, trail.trailhead.recording) == ("Be signed in", None)


def test_v1_file_with_only_config() -> None:
    trail = parse("- config:\n    id: x\n")
    assert (trail.format, trail.steps, trail.config.id) == ("v1", (), "x")


def test_v1_explicit_file_classifier_keys_recordings_and_skip() -> None:
    trail = parse(V1, file_classifier="ios-iphone")
    assert set(trail.steps[0].recording) == {"ios-iphone"}
    assert set(trail.trailhead.recording) == {"ios-iphone"}
    assert dict(trail.config.skip) == {"ios-iphone": "flaky on CI"}
    assert trail.platforms() == ("ios",)


@pytest.mark.parametrize(
    ("file_name", "key", "platforms"),
    [
        ("android-phone.trail.yaml", "android-phone", ("android",)),
        ("web.trail.yaml", "web", ("web",)),
        ("ios-ipad.trail.yaml", "ios-ipad", ("ios",)),
        ("login.trail.yaml", ANY_DEVICE, ()),
        ("trail.yaml", ANY_DEVICE, ()),
        ("blaze.yaml", ANY_DEVICE, ()),
    ],
)
def test_v1_classifier_from_file_name_via_load_trail(
    tmp_path: Path, file_name: str, key: str, platforms: tuple[str, ...]
) -> None:
    path = tmp_path / "login" / file_name
    path.parent.mkdir()
    path.write_text(textwrap.dedent(V1).lstrip("\n"), encoding="utf-8")
    trail = load_trail(path)
    assert trail.path == str(path)
    assert set(trail.steps[0].recording) == {key}
    assert set(trail.steps[3].recording) == {key}
    assert trail.platforms() == platforms


def test_unified_file_ignores_its_file_name_classifier(tmp_path: Path) -> None:
    path = tmp_path / "android-phone.trail.yaml"
    path.write_text("trail:\n  - step: x\n    recording:\n      web: []\n", encoding="utf-8")
    trail = load_trail(path)
    assert trail.classifiers() == ("web",)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/android-phone.trail.yaml", "android-phone"),
        ("web.trail.yaml", "web"),
        ("x/desktop.trail.yaml", "desktop"),
        ("x/launch-smoke.trail.yaml", None),
        ("x/Android.trail.yaml", None),
        ("x/trail.yaml", None),
        ("x/android-phone.yaml", None),
    ],
)
def test_classifier_from_filename(path: str, expected: str | None) -> None:
    assert classifier_from_filename(path) == expected


def test_load_trail_display_path_is_used_in_spans(tmp_path: Path) -> None:
    path = tmp_path / "trail.yaml"
    path.write_text("trail:\n  - step: x\n", encoding="utf-8")
    trail = load_trail(path, display_path="trails/x/trail.yaml")
    assert trail.path == "trails/x/trail.yaml"
    assert trail.steps[0].span == SourceSpan("trails/x/trail.yaml", 2, 5)


# --- the load-time {{VAR}} template pass -----------------------------------------------------------------


def write_trail(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "trail.yaml"
    path.write_text(textwrap.dedent(body).lstrip("\n"), encoding="utf-8")
    return path


NAVIGATE = """
trail:
  - step: Open {{ SHOP_NAME }}
    recording:
      web:
        - web_navigate: {url: "{{BASE_URL}}/cart", pages: {{PAGES}}}
"""


def test_template_substitutes_environment_before_parsing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("BASE_URL", "http://127.0.0.1:8123")
    monkeypatch.setenv("SHOP_NAME", "the shop")
    monkeypatch.setenv("PAGES", "3")
    trail = load_trail(write_trail(tmp_path, NAVIGATE))
    step = trail.steps[0]
    assert step.text == "Open the shop"
    assert dict(step.calls()[0].args) == {"url": "http://127.0.0.1:8123/cart", "pages": 3}


def test_template_cwd(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("CWD", raising=False)
    monkeypatch.chdir(tmp_path)
    trail = load_trail(write_trail(tmp_path, 'trail:\n  - step: "Open {{CWD}}/index.html"\n'))
    assert trail.steps[0].text == f"Open {Path.cwd()}/index.html"


def test_template_leaves_unset_names_literal(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE_X", raising=False)
    trail = load_trail(write_trail(tmp_path, 'trail:\n  - step: "Type {{NOT_SET_ANYWHERE_X}}"\n'))
    assert trail.steps[0].text == "Type {{NOT_SET_ANYWHERE_X}}"


def test_template_deferred_variables_stay_literal(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("EMAIL", "qa@example.test")
    monkeypatch.setenv("TOKEN", "s3cret")
    monkeypatch.setenv("HOST", "example.test")
    monkeypatch.setenv("TRAILBLAZE_DEFERRED_VARIABLES", " EMAIL , TOKEN")
    trail = load_trail(write_trail(tmp_path, 'trail:\n  - step: "{{EMAIL}} {{ TOKEN }} {{HOST}}"\n'))
    assert trail.steps[0].text == "{{EMAIL}} {{ TOKEN }} example.test"


def test_template_never_substitutes_dotted_tokens(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("args", "ENV-ARGS")
    monkeypatch.setenv("memory", "ENV-MEMORY")
    monkeypatch.setenv("name", "ENV-NAME")
    text = 'trail:\n  - step: "{{args.name}} {{ memory.email }} ${name} {{name}}"\n'
    trail = load_trail(write_trail(tmp_path, text))
    assert trail.steps[0].text == "{{args.name}} {{ memory.email }} ${name} ENV-NAME"


def test_parse_trail_does_not_run_the_template_pass(monkeypatch) -> None:
    monkeypatch.setenv("BASE_URL", "http://x")
    trail = parse_trail('trail:\n  - step: "Open {{BASE_URL}}"\n', PATH)
    assert trail.steps[0].text == "Open {{BASE_URL}}"


@pytest.mark.parametrize(
    ("text", "env", "expected"),
    [
        ("no tokens", {"A": "1"}, "no tokens"),
        ("{{A}}-{{ A }}-{{  A  }}", {"A": "1"}, "1-1-1"),
        ("{{A}}", {"A": ""}, ""),
        ("{{A.b}} {{a-b}} {{1A}} {A}", {"A": "1", "a-b": "2", "1A": "3"}, "{{A.b}} {{a-b}} {{1A}} {A}"),
        ("{{A}}", {"A": "1", "TRAILBLAZE_DEFERRED_VARIABLES": "A"}, "{{A}}"),
        ("{{A}} {{B}}", {"A": "{{B}}", "B": "2"}, "{{B}} 2"),
        ("{{CWD}}", {"CWD": "/from/env"}, "/from/env"),
    ],
)
def test_expand_template_with_explicit_env(text: str, env: dict[str, str], expected: str) -> None:
    assert expand_template(text, env) == expected


def test_expand_template_cwd_builtin(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert expand_template("{{ CWD }}/x", {}) == f"{Path.cwd()}/x"
    assert expand_template("{{CWD}}", {"TRAILBLAZE_DEFERRED_VARIABLES": "CWD"}) == "{{CWD}}"
