"""The driver contract: the shipped drivers implement the capabilities they claim, with the
contract's very signatures, and a driver without a capability gets the tool's located message."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest

from pytest_trailblaze.core.run import driver as contract
from pytest_trailblaze.core.run.runner import StepFailureInfo, TrailRunner, plan_trail
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.drivers.appium import MobileDriver
from pytest_trailblaze.drivers.playwright import WebDriver
from pytest_trailblaze.tools import builtin_tools

WEB_CLAIMS = (
    contract.WebSession,
    contract.Screenshots,
    contract.VisionImages,
    contract.Recording,
    contract.StepMarks,
    contract.FileConfinement,
    contract.SelectorProbe,
)
MOBILE_CLAIMS = (
    contract.MobileSession,
    contract.Screenshots,
    contract.Pausing,
    contract.AppLaunching,
    contract.Recording,
)


class HookDriver:
    """A driver as a ``pytest_trailblaze_make_driver`` hook writes one: the bare contract, a
    screen structure and pictures, nothing else (no app launching, no waiting of its own)."""

    def __init__(self, platform: str = "android") -> None:
        self.platform = platform
        self.driver_key = "android-ondevice-instrumentation"
        self.closed = False

    def device_info(self) -> DeviceInfo:
        return DeviceInfo(self.platform, self.driver_key, 1080, 2400, 2.75)

    def hierarchy(self) -> str:
        return "<hierarchy/>"

    def screenshot(self, path: Path) -> Path:
        path.write_bytes(b"\x89PNG")
        return path

    def close(self) -> None:
        self.closed = True


def members(protocol: type) -> list[str]:
    return sorted(typing._get_protocol_attrs(protocol))  # type: ignore[attr-defined]


def shape(function: object) -> list[tuple[str, object, bool]]:
    """A callable's parameters after ``self``: name, kind, and whether it has a default."""
    params = list(inspect.signature(function).parameters.values())[1:]  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default is not inspect.Parameter.empty) for p in params]


@pytest.mark.parametrize(
    ("implementation", "protocol"),
    [(WebDriver, p) for p in WEB_CLAIMS] + [(MobileDriver, p) for p in MOBILE_CLAIMS],
    ids=lambda v: v.__name__,
)
def test_a_shipped_driver_has_every_method_of_what_it_claims_with_the_contracts_signature(
    implementation: type, protocol: type
) -> None:
    for name in members(protocol):
        declared = getattr(protocol, name, None)
        if not callable(declared):
            continue  # a data member (platform, driver_key): set per instance, checked below
        implemented = getattr(implementation, name, None)
        assert callable(implemented), f"{implementation.__name__} lacks {protocol.__name__}.{name}"
        assert shape(implemented) == shape(declared), (
            f"{implementation.__name__}.{name} differs from the contract"
        )


def test_the_web_driver_is_an_instance_of_what_it_claims_and_not_of_the_mobile_bundle() -> None:
    driver = object.__new__(WebDriver)  # no browser: isinstance reads the class's members only
    assert all(isinstance(driver, p) for p in WEB_CLAIMS)
    assert not isinstance(driver, contract.MobileSession)


def test_the_appium_driver_is_an_instance_of_what_it_claims_and_not_of_the_web_bundle() -> None:
    driver = MobileDriver(session=None, platform="android", owns_session=False)
    assert all(isinstance(driver, p) for p in MOBILE_CLAIMS)
    assert not isinstance(driver, contract.WebSession)
    assert not isinstance(driver, contract.VisionImages)


def test_a_hook_driver_is_a_driver_with_the_capabilities_it_has_and_no_others() -> None:
    driver = HookDriver()
    has = [
        p.__name__
        for p in (contract.Driver, contract.Hierarchy, contract.Screenshots)
        if isinstance(driver, p)
    ]
    assert has == ["Driver", "Hierarchy", "Screenshots"]
    lacks = (
        contract.Pausing,
        contract.AppLaunching,
        contract.Recording,
        contract.StepMarks,
        contract.VisionImages,
        contract.WebSession,
        contract.MobileSession,
    )
    assert not any(isinstance(driver, p) for p in lacks)
    assert not isinstance(object(), contract.Driver)


def run(recording: str, driver: object, tmp_path: Path, platform: str = "android") -> TrailRunner:
    registry = ToolRegistry(platform=platform)
    registry.register_all(builtin_tools())
    device = DeviceInfo(platform, "android-ondevice-instrumentation", 1080, 2400)
    ctx = ToolContext(registry, Memory(), device, driver, artifacts_dir=tmp_path)  # type: ignore[arg-type]
    text = f"trail:\n  - step: Do it\n    recording:\n      {platform}:\n        - {recording}\n"
    runner = TrailRunner(plan_trail(parse_trail(text, "t.trail.yaml"), device.chain()), ctx)
    runner.run_steps()
    return runner


@pytest.mark.parametrize(
    ("recording", "cause"),
    [
        ("launchApp: {appId: com.example}", "the android driver cannot launch apps"),
        (
            "tapOnElementWithText: {text: Go}",
            "mobile tools need the Appium driver, this session has HookDriver",
        ),
        ("inputText: {text: hello}", "mobile tools need the Appium driver, this session has HookDriver"),
    ],
)
def test_a_driver_lacking_a_capability_fails_the_call_at_its_line_saying_what_it_cannot_do(
    tmp_path: Path, recording: str, cause: str
) -> None:
    with pytest.raises(StepFailureInfo) as caught:
        run(recording, HookDriver(), tmp_path)
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("t.trail.yaml:2:5: step 1 of 1 failed: Do it")
    assert f"  cause: {cause}" in lines, lines


def test_a_driver_without_pictures_cannot_take_snapshots_and_one_with_them_can(tmp_path: Path) -> None:
    class Blind(HookDriver):
        screenshot = None  # type: ignore[assignment]

    with pytest.raises(StepFailureInfo) as caught:
        run("takeSnapshot: {screenName: home}", Blind(), tmp_path)
    assert "  cause: this session's driver cannot take snapshots" in str(caught.value).splitlines()

    run("takeSnapshot: {screenName: home}", HookDriver(), tmp_path)
    assert (tmp_path / "snapshots" / "home.png").read_bytes() == b"\x89PNG"
    assert (tmp_path / "snapshots" / "home.hierarchy.txt").read_text() == "<hierarchy/>"


def test_waiting_without_a_clock_of_the_drivers_own_still_waits(tmp_path: Path) -> None:
    runner = run("wait: {timeToWaitInSeconds: 0}", HookDriver(), tmp_path)
    assert runner.failed is None


def test_the_cached_check_answers_as_isinstance_does_for_every_driver_and_capability() -> None:
    class Blind(HookDriver):
        screenshot = None  # type: ignore[assignment]

    class Late(HookDriver):
        """Gets its picture method per instance, after construction."""

    late = Late()
    late.sleep = lambda seconds: None  # type: ignore[attr-defined]
    nameless = HookDriver()
    del nameless.driver_key
    drivers = [
        HookDriver(),
        Blind(),
        late,
        nameless,
        object.__new__(WebDriver),
        MobileDriver(session=None, platform="ios", owns_session=False),  # type: ignore[arg-type]
        object(),
    ]
    protocols = [
        contract.Driver,
        contract.Screenshots,
        contract.Pausing,
        contract.WebSession,
        contract.MobileSession,
    ]
    for _ in range(2):  # the second round is answered from the cache
        for driver in drivers:
            for protocol in protocols:
                expected = isinstance(driver, protocol)
                assert contract.implements(driver, protocol) is expected, (
                    type(driver).__name__,
                    protocol.__name__,
                )
