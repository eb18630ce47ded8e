"""Device pool leases: one holder per device, a clear error when none is free, freed on release."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_trailblaze.core.errors import DriverError
from pytest_trailblaze.drivers.pool import DevicePools, lease_device
from pytest_trailblaze.drivers.profiles import DeviceProfile, PoolDevice

POOL = DeviceProfile(
    "android-phone",
    "android",
    {"platformName": "Android"},
    devices=(
        PoolDevice("emulator-5554", capabilities={"appium:udid": "emulator-5554"}),
        PoolDevice("emulator-5556", capabilities={"appium:udid": "emulator-5556"}),
    ),
)


def test_two_holders_never_get_one_device(tmp_path: Path) -> None:
    first = lease_device(POOL, tmp_path, "gw0")
    second = lease_device(POOL, tmp_path, "gw1")  # flock: another open file is another holder
    try:
        assert {first.device.label, second.device.label} == {"emulator-5554", "emulator-5556"}
    finally:
        first.release()
        second.release()


def test_a_worker_starts_at_its_own_number(tmp_path: Path) -> None:
    lease = lease_device(POOL, tmp_path, "gw1", start=1)
    try:
        assert lease.device.label == "emulator-5556"
    finally:
        lease.release()


def test_a_full_pool_names_its_holders_and_the_ways_out(tmp_path: Path) -> None:
    held = [lease_device(POOL, tmp_path, "gw0"), lease_device(POOL, tmp_path, "gw1")]
    try:
        with pytest.raises(DriverError) as caught:
            lease_device(POOL, tmp_path, "gw2", start=2)
        message = str(caught.value)
        assert "every device of the pool 'android-phone' is held by another worker (2 devices)" in message
        assert "gw0 (pid " in message and "holds emulator-5554" in message
        assert "gw1 (pid " in message and "holds emulator-5556" in message
        assert "fix: run with `--dist loadgroup`" in message and "-n 2" in message
    finally:
        for lease in held:
            lease.release()


def test_a_released_device_can_be_leased_again(tmp_path: Path) -> None:
    one = DeviceProfile("ios-ipad", "ios", devices=(PoolDevice("ipad-1"),))
    lease = lease_device(one, tmp_path, "gw0")
    with pytest.raises(DriverError):
        lease_device(one, tmp_path, "gw1")
    lease.release()
    again = lease_device(one, tmp_path, "gw1")
    again.release()


def test_pools_lease_once_per_profile_and_ignore_profiles_without_devices(tmp_path: Path) -> None:
    pools = DevicePools(tmp_path, "gw1")
    try:
        assert pools.device(DeviceProfile("android", "android")) is None
        device = pools.device(POOL)
        assert device is not None and device.label == "emulator-5556"
        assert pools.device(POOL) is device  # kept for the session
        assert sorted(p.name for p in tmp_path.iterdir()) == ["android-phone-2.lock"]
    finally:
        pools.release()
    others = [DevicePools(tmp_path, "gw0"), DevicePools(tmp_path, "gw3")]
    try:  # after release, both devices are free again
        assert {o.device(POOL).label for o in others} == {"emulator-5554", "emulator-5556"}  # type: ignore[union-attr]
    finally:
        for other in others:
            other.release()


def test_pools_outside_a_run_make_and_remove_their_own_folder() -> None:
    pools = DevicePools(None)
    assert pools.device(POOL) is not None
    folder = pools._run_dir
    assert folder is not None and folder.is_dir()
    pools.release()
    assert not folder.exists()
