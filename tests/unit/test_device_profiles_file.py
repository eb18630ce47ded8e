"""Reading device profiles from a capabilities file, and what messages show of them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from pytest_trailblaze.core.tooling.context import DeviceInfo
from pytest_trailblaze.drivers.profiles import (
    DeviceProfile,
    PoolDevice,
    read_profiles,
    shown_capabilities,
    shown_url,
    split_credentials,
)


def read(tmp_path: Path, text: str) -> tuple[dict[str, DeviceProfile], list[str]]:
    path = tmp_path / "caps.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    profiles, problems = read_profiles(path.read_text(encoding="utf-8"), path)
    return profiles, [p.format().replace(str(tmp_path) + "/", "") for p in problems]


def test_the_first_shape_is_one_device_per_platform_named_after_it(tmp_path: Path) -> None:
    (tmp_path / "app.xml").write_text("<app/>", encoding="utf-8")
    profiles, problems = read(
        tmp_path,
        """
        android: { platformName: Android, appium:app: app.xml }
        ios: { platformName: iOS }
        """,
    )
    assert problems == []
    assert list(profiles) == ["android", "ios"]
    android = profiles["android"]
    assert (android.platform, android.url, android.devices) == ("android", None, ())
    assert android.form_factor is None
    assert android.capabilities == {"platformName": "Android", "appium:app": str(tmp_path / "app.xml")}


def test_profiles_name_their_device_type_and_may_have_a_server_and_a_pool(tmp_path: Path) -> None:
    profiles, problems = read(
        tmp_path,
        """
        android-phone: { platformName: Android }
        android-tablet:
          capabilities: { platformName: Android }
          url: http://127.0.0.1:4724/wd/hub
          devices:
            - emulator-5554
            - http://127.0.0.1:4725
            - { udid: R58M, url: "http://127.0.0.1:4726", capabilities: { appium:systemPort: 8201 } }
        ios-ipad: { capabilities: { platformName: iOS } }
        tablet: { platformName: Android }
        android-pixel-8: { platformName: Android }
        """,
    )
    assert problems == []
    tablet = profiles["android-tablet"]
    assert (tablet.platform, tablet.form_factor) == ("android", "tablet")
    assert tablet.segments == ("android", "tablet")
    assert tablet.url == "http://127.0.0.1:4724/wd/hub"
    assert tablet.devices == (
        PoolDevice("emulator-5554", capabilities={"appium:udid": "emulator-5554"}),
        PoolDevice("http://127.0.0.1:4725", url="http://127.0.0.1:4725"),
        PoolDevice("R58M", "http://127.0.0.1:4726", {"appium:systemPort": 8201, "appium:udid": "R58M"}),
    )
    assert profiles["ios-ipad"].segments == ("ios", "ipad")
    assert profiles["tablet"].segments == ("android", "tablet")
    assert profiles["android-pixel-8"].form_factor is None  # the window size decides
    assert profiles["android-phone"].capabilities == {"platformName": "Android"}


def test_every_problem_of_the_file_is_listed_with_its_place(tmp_path: Path) -> None:
    _, problems = read(
        tmp_path,
        """
        web: { browserName: chrome }
        android-tablet:
          capabilities: [1]
          url: ftp://farm
          devices: []
          udid: x
        ios-ipad:
          devices: [{ bogus: 1 }]
        """,
    )
    text = "\n".join(problems)
    assert "caps.yaml:1:1: 'web' is not an android or ios device name" in text
    assert "caps.yaml:3:17: capabilities of 'android-tablet' must be a mapping, not a list" in text
    assert "caps.yaml:4:8: url of 'android-tablet' is not an http(s) URL: 'ftp://farm'" in text
    assert "caps.yaml:5:12: devices of 'android-tablet' is an empty list" in text
    assert "caps.yaml:6:3: unknown key 'udid' in device 'android-tablet'" in text
    assert "caps.yaml:8:15: unknown key 'bogus' in device 1 of 'ios-ipad'" in text


def test_values_take_environment_variables_without_splicing_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FARM_KEY", 'k3y" }\nios: {')
    monkeypatch.setenv("FARM_URL", "https://ada:k3y@hub.example.test/wd/hub")
    profiles, problems = read(
        tmp_path,
        """
        android-phone:
          capabilities:
            platformName: Android
            bstack:options: { userName: ada, accessKey: "{{FARM_KEY}}" }
          url: "{{FARM_URL}}"
        """,
    )
    assert problems == []
    assert list(profiles) == ["android-phone"]
    phone = profiles["android-phone"]
    assert phone.capabilities["bstack:options"]["accessKey"] == 'k3y" }\nios: {'
    assert phone.url == "https://ada:k3y@hub.example.test/wd/hub"


def test_messages_show_no_credentials() -> None:
    assert shown_url("https://ada:k3y@hub.example.test/wd/hub") == "https://***@hub.example.test/wd/hub"
    assert shown_url("http://127.0.0.1:4723") == "http://127.0.0.1:4723"
    caps = {
        "platformName": "Android",
        "appium:unicodeKeyboard": True,
        "appium:keystorePassword": "pw",
        "bstack:options": {"userName": "ada", "accessKey": "k3y"},
        "sauce:options": {"accessKey": ""},
    }
    assert shown_capabilities(caps) == {
        "platformName": "Android",
        "appium:unicodeKeyboard": True,
        "appium:keystorePassword": "***",
        "bstack:options": {"userName": "ada", "accessKey": "***"},
        "sauce:options": {"accessKey": ""},
    }


def test_credentials_leave_the_url_for_basic_auth() -> None:
    assert split_credentials("https://ada%40corp:k3y:x@hub.example.test:443/wd/hub") == (
        "https://hub.example.test:443/wd/hub",
        "ada@corp",
        "k3y:x",
    )
    assert split_credentials("http://127.0.0.1:4723") == ("http://127.0.0.1:4723", None, None)


def test_a_declared_device_type_wins_over_the_window_size() -> None:
    phone_sized = DeviceInfo("android", "appium-android", 1080, 2400, 2.75)
    assert phone_sized.classifier == "android-phone"
    declared = DeviceInfo("android", "appium-android", 1080, 2400, 2.75, declared_form_factor="tablet")
    assert declared.classifier == "android-tablet"
    assert declared.chain() == ("android-tablet", "android", "tablet")
