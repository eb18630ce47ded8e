"""The Appium driver over a live session is what the driver contract says it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_trailblaze.core.run import driver as contract

if TYPE_CHECKING:  # the fixtures' types; at run time the fixtures come from conftest.py
    from conftest import Device


def test_a_live_appium_driver_implements_the_mobile_bundle_and_its_capabilities(device: Device) -> None:
    claims = (
        contract.MobileSession,
        contract.Screenshots,
        contract.Pausing,
        contract.AppLaunching,
        contract.Recording,
    )
    assert [p.__name__ for p in claims if not isinstance(device.driver, p)] == []
    assert not isinstance(device.driver, contract.WebSession)
    assert device.driver.platform == device.platform
