"""The web driver over a real browser is what the driver contract says it is."""

from __future__ import annotations

from pytest_trailblaze.core.run import driver as contract
from pytest_trailblaze.drivers.playwright import WebDriver


def test_a_live_web_driver_implements_the_web_bundle_and_its_capabilities(driver: WebDriver) -> None:
    claims = (
        contract.WebSession,
        contract.Screenshots,
        contract.VisionImages,
        contract.Recording,
        contract.StepMarks,
        contract.FileConfinement,
        contract.SelectorProbe,
    )
    assert [p.__name__ for p in claims if not isinstance(driver, p)] == []
    assert not isinstance(driver, contract.MobileSession)
    assert isinstance(driver.locate("css=body", None), contract.Element)
