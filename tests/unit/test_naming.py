"""Tool and trailmap naming rules (decisions "Tool Naming Convention" and "Trailmap-scoped tool naming").

The messages are the product here: each finding says what is wrong, why, and how to fix it.
"""

from __future__ import annotations

import pytest

from pytest_trailblaze.core.trail.naming import (
    NAME_RE,
    NameFinding,
    category,
    check_tool_name,
    check_trailmap_id,
    device_type_in,
    local_half,
    suggest,
    unscoped_tools,
)

CONVENTION_WHY = f"names are lowerCamelCase words joined by single underscores ({NAME_RE.pattern})"


def only(findings: list[NameFinding]) -> NameFinding:
    assert len(findings) == 1, findings
    return findings[0]


# -- categories --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("tap", "universal"),
        ("inputText", "universal"),
        ("android_adbShell", "platform"),
        ("web_click", "platform"),
        ("ios_pressHome", "platform"),
        ("mobile_setClipboard", "platform"),
        ("org_resetBackend", "org"),
        ("org_ios_configureUser", "org-platform"),
        ("shop_applyCoupon", "app"),
        ("shop_ios_scroll", "app-platform"),
        ("shop_web_openCart", "app-platform"),
    ],
)
def test_category_of_each_row_of_the_naming_table(name: str, expected: str) -> None:
    assert category(name) == expected
    assert check_tool_name(name) == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("tap_v2", "universal"),
        ("web_click_v2", "platform"),
        ("org_resetBackend_v3", "org"),
        ("org_ios_configureUser_v2", "org-platform"),
        ("shop_applyCoupon_v2", "app"),
        ("shop_ios_scroll_v2", "app-platform"),
    ],
)
def test_a_version_suffix_keeps_the_category(name: str, expected: str) -> None:
    assert category(name) == expected
    assert check_tool_name(name) == []


# -- the convention regex -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [
        ("Adb_Shell", "adb_shell"),
        ("_foo", "foo"),
        ("2tap", "tool2tap"),
        ("shop_2fa", "shop2fa"),
        ("Shop__Apply-Coupon", "shop_apply_coupon"),
        ("android__foo", "android_foo"),
        ("foo_", "foo"),
        ("web-click", "web_click"),
    ],
)
def test_names_breaking_the_convention(name: str, suggestion: str) -> None:
    finding = only(check_tool_name(name))
    assert finding.severity == "error"
    assert finding.what == f"tool name '{name}' does not follow the naming convention"
    assert finding.why == CONVENTION_WHY
    assert finding.fix == f"rename it, e.g. '{suggestion}'"
    assert suggest(name) == suggestion
    assert NAME_RE.match(suggestion), "the suggestion itself must follow the convention"
    assert check_tool_name(suggestion) == []


# -- the wire rule -------------------------------------------------------------------------------


def test_a_name_past_the_wire_limit_is_an_error_naming_the_local_half() -> None:
    name = "shop_web_" + "a" * 56
    assert len(name) == 65
    finding = only(check_tool_name(name))
    assert finding.severity == "error"
    assert finding.what == f"tool name '{name[:40]}...' is 65 characters long"
    assert finding.why == "tool names travel as OpenAI / MCP function names, at most 64 characters"
    assert finding.fix == f"rename the local half '{'a' * 56}' to something shorter"


@pytest.mark.parametrize(("name", "suggestion"), [("a.b", "a_b"), ("a:b", "a_b"), ("tap now", "tap_now")])
def test_characters_a_function_name_cannot_carry(name: str, suggestion: str) -> None:
    finding = only(check_tool_name(name))
    assert finding.severity == "error"
    assert finding.what == f"tool name '{name}' cannot travel as a function name"
    assert finding.why == "OpenAI / MCP function names are 1 to 64 characters of letters, digits, '_' and '-'"
    assert finding.fix == f"rename it, e.g. '{suggestion}'"


def test_an_empty_name_is_a_wire_error() -> None:
    finding = only(check_tool_name(""))
    assert finding.what == "tool name '' cannot travel as a function name"
    assert finding.fix == "rename it, e.g. 'toolName'"


def test_exactly_sixty_characters_is_fine() -> None:
    name = "shop_" + "a" * 55
    assert len(name) == 60
    assert check_tool_name(name) == []


def test_sixty_one_characters_is_one_warning_naming_the_local_half() -> None:
    name = "shop_ios_" + "b" * 52
    assert len(name) == 61
    finding = only(check_tool_name(name))
    assert finding.severity == "warning"
    assert finding.what == f"tool name '{name}' is 61 characters long"
    assert finding.why == "the wire limit is 64; names past 60 leave no room for prefixes"
    assert finding.fix == f"rename the local half '{'b' * 52}' to something shorter"


def test_sixty_four_characters_is_still_only_a_warning() -> None:
    name = "shop_" + "c" * 59
    assert len(name) == 64
    assert [f.severity for f in check_tool_name(name)] == ["warning"]


@pytest.mark.parametrize(
    ("name", "local"),
    [
        ("wikipedia_web_openMainPage", "openMainPage"),
        ("shop_applyCoupon", "applyCoupon"),
        ("org_resetBackend", "resetBackend"),
        ("shop_ios_scroll_v2", "scroll_v2"),
        ("tap", "tap"),
    ],
)
def test_local_half(name: str, local: str) -> None:
    assert local_half(name) == local


# -- device types --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "device"),
    [
        ("shop_iphone_scroll", "iphone"),
        ("shop_tapOnTablet", "tablet"),
        ("shop_phone_login", "phone"),
        ("ipad_scroll", "ipad"),
        ("shop_scrollPhoneList", "phone"),
        ("shop_iPadView", "ipad"),
        ("shop_iPhoneTap", "iphone"),
    ],
)
def test_a_device_type_in_any_segment_or_camel_case_word_is_an_error(name: str, device: str) -> None:
    assert device_type_in(name) == device
    finding = only(check_tool_name(name))
    assert finding.severity == "error"
    assert finding.what == f"tool name '{name}' names a device type ('{device}')"
    assert (
        finding.why == "a tool runs on every device of its platform; the device type comes from the session"
    )
    assert finding.fix == f"drop '{device}' from the name and branch on ctx.device inside the tool"


@pytest.mark.parametrize("name", ["shop_telephone", "shop_microphoneCheck", "shop_tabletop", "shop_iTap"])
def test_words_that_merely_contain_a_device_type_are_fine(name: str) -> None:
    assert device_type_in(name) is None
    assert check_tool_name(name) == []


def test_a_bad_name_with_a_device_type_reports_both() -> None:
    findings = check_tool_name("Shop_phoneTap")
    assert [f.what for f in findings] == [
        "tool name 'Shop_phoneTap' does not follow the naming convention",
        "tool name 'Shop_phoneTap' names a device type ('phone')",
    ]


# -- reserved words ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["config", "prompts", "tools", "trailhead"])
def test_reserved_words_are_not_tool_names(name: str) -> None:
    finding = only(check_tool_name(name))
    assert finding.severity == "error"
    assert finding.what == f"'{name}' is a reserved word, not a tool name"
    assert finding.why == "config, prompts, tools and trailhead are trail keywords"
    assert finding.fix == "choose another name"


def test_reserved_words_only_match_whole_names() -> None:
    assert check_tool_name("shop_tools") == []
    assert check_tool_name("configApp") == []


# -- trailmap ids and scoping ---------------------------------------------------------------------


@pytest.mark.parametrize("trailmap_id", ["clock", "playwrightSample", "shop2", "trailblaze"])
def test_good_trailmap_ids(trailmap_id: str) -> None:
    assert check_trailmap_id(trailmap_id) is None


@pytest.mark.parametrize("trailmap_id", ["Clock", "my_app", "my-app", "2shop", ""])
def test_bad_trailmap_ids(trailmap_id: str) -> None:
    assert check_trailmap_id(trailmap_id) == (
        f"trailmap id '{trailmap_id}' must be one lowerCamelCase word (^[a-z][a-zA-Z0-9]*$)"
    )


def test_unscoped_tools_lack_the_trailmap_prefix() -> None:
    tools = ["shop_applyCoupon", "applyCoupon", "shopX_tap", "shop", "shop_web_open"]
    assert unscoped_tools("shop", tools) == ["applyCoupon", "shopX_tap", "shop"]
    assert unscoped_tools("shop", []) == []


def test_the_framework_trailmap_is_exempt_from_scoping() -> None:
    assert unscoped_tools("trailblaze", ["tap", "inputText", "web_click"]) == []
