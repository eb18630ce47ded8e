"""Where a run's Appium server is and how its sessions are made, as read from its options: a
module of its own, so reading options imports none of the Appium driver (``appium.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.jsondata import JsonValue

if TYPE_CHECKING:  # annotations: the options are read without the capabilities file's YAML reader
    from .profiles import DeviceProfile


@dataclass(frozen=True)
class AppiumSettings:
    """Where the Appium server is and how sessions are made."""

    url: str | None = None
    server_home: Path | None = None
    #: Devices by name (``android``, ``android-tablet``), from the capabilities file.
    profiles: Mapping[str, DeviceProfile] = field(default_factory=dict)
    fresh_session: bool = False
    connect_timeout_s: float = 15.0
    #: ``--log-level`` of the local server (its log is masked: ``drivers.appium_server``).
    server_log_level: str = "warn"

    @property
    def capabilities(self) -> dict[str, Mapping[str, JsonValue]]:
        """Capabilities by device name (by platform for files of the first shape)."""
        return {name: profile.capabilities for name, profile in self.profiles.items()}

    @property
    def configured(self) -> bool:
        return bool(self.url or self.server_home)

    def profile(self, name: str, platform: str) -> DeviceProfile:
        """The capabilities file's device ``name``, else a profile of ``platform`` by that name."""
        from .profiles import DeviceProfile  # loads the YAML reader: on a device's first use

        return self.profiles.get(name) or DeviceProfile(name, platform)

    def serves(self, profile: DeviceProfile) -> bool:
        """Whether the profile's device has a server: its own URLs, the run's URL or local server."""
        return self.configured or profile.has_server()
