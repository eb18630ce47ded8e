"""Device profiles: the devices a capabilities file names, each a column of the test matrix.

A capabilities file maps names to devices. The first shape, ``android: {platformName: ...}``,
is one device per platform, named after it: each trail gives one item ``trail[android]``. A
name with a device type is a profile of its own::

    android-tablet:
      capabilities: {platformName: Android, appium:automationName: UiAutomator2}
      url: http://127.0.0.1:4724          # optional: this device's Appium server
      devices: [emulator-5554, emulator-5556]   # optional: a pool, one device per xdist worker

Each trail of the platform then gives one item per profile (``trail[android-tablet]``), the
profile's device type picks the recordings (closest wins), and ``devices:`` makes a pool from
which each pytest-xdist worker leases a device of its own (``drivers.pool``).

Both shapes may mix in one file. String values take ``{{ENV_VAR}}`` like trails, so farm
credentials can stay in the environment (pass them as ``--trailblaze-secret NAME`` too, and
they are masked in everything the run writes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from yaml.nodes import MappingNode, Node, ScalarNode

from ..core.errors import Problem
from ..core.jsondata import JsonValue
from ..core.trail.devices import classifier_problem, platform_of
from ..core.trail.envpass import expand_templates
from ..core.trail.yamlsource import Source, is_null

MOBILE_PLATFORMS = ("android", "ios")
#: The device types (second classifier segment) each mobile platform reports
#: (docs/upstream.md, Device classifiers).
FORM_FACTORS = {"android": ("phone", "tablet"), "ios": ("iphone", "ipad")}
PROFILE_KEYS = ("capabilities", "url", "devices")
DEVICE_KEYS = ("udid", "url", "capabilities")
#: The ``user:key@`` of a farm URL.
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)[^/@?#]*@")
#: Endings of capability names whose values are credentials (``accessKey``, ``keyPassword``):
#: shown as ``***`` in messages.
CREDENTIAL_ENDINGS = ("key", "secret", "password", "token", "authorization", "credentials")


@dataclass(frozen=True)
class PoolDevice:
    """One device of a pool: its own Appium URL and/or capabilities (``appium:udid``)."""

    label: str
    url: str | None = None
    capabilities: Mapping[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True)
class DeviceProfile:
    """A named device of a platform: its capabilities, its server, and optionally a pool."""

    name: str
    platform: str
    capabilities: Mapping[str, JsonValue] = field(default_factory=dict)
    url: str | None = None
    devices: tuple[PoolDevice, ...] = ()

    @property
    def form_factor(self) -> str | None:
        """The device type the name declares (``tablet`` in ``android-tablet``), if any."""
        parts = self.name.split("-")
        known = FORM_FACTORS.get(self.platform, ())
        if parts[0] in known:
            return parts[0]
        return parts[1] if len(parts) > 1 and parts[1] in known else None

    @property
    def segments(self) -> tuple[str, ...]:
        """Classifier segments the profile's device reports when its name declares a type."""
        return (self.platform, self.form_factor) if self.form_factor else (self.platform,)

    @property
    def is_pool(self) -> bool:
        return bool(self.devices)

    def has_server(self) -> bool:
        """Whether every device of the profile has an Appium URL of its own."""
        if self.devices:
            return all(d.url or self.url for d in self.devices)
        return bool(self.url)


def read_profiles(text: str, path: Path) -> tuple[dict[str, DeviceProfile], list[Problem]]:
    """The profiles of a capabilities file, in file order, and every problem found in it."""
    src = Source(str(path))
    root = src.compose(text)
    if root is None or is_null(root):
        return {}, src.problems
    root = expand_templates(root)
    top = src.mapping(root, "a capabilities file", fix="map device names to capabilities: `android: {...}`")
    profiles: dict[str, DeviceProfile] = {}
    for name, key_node, value in src.entries(top) if top is not None else ():
        platform = _profile_platform(src, name, key_node)
        body = src.mapping(value, f"device '{name}'")
        if platform is None or body is None:
            continue
        profile = _profile(src, name, platform, body, path.parent)
        if profile is not None:
            profiles[name] = profile
    return profiles, src.problems


def _profile_platform(src: Source, name: str, key_node: Node) -> str | None:
    platform = platform_of(name)
    why = classifier_problem(name)
    if why is None and platform in MOBILE_PLATFORMS:
        return platform
    src.problem(
        key_node,
        f"'{name}' is not an android or ios device name",
        why=why or f"profiles are Appium devices; {platform} items do not run on Appium",
        fix="name each device by its platform and type, like `android`, `android-tablet`, `ios-ipad`",
    )
    return None


def _profile(src: Source, name: str, platform: str, body: MappingNode, base: Path) -> DeviceProfile | None:
    """``{capabilities, url, devices}``, or (the first shape) a bare map of capabilities."""
    keys = {str(k.value) for k, _ in body.value if isinstance(k, ScalarNode)}
    if not keys & set(PROFILE_KEYS):
        return DeviceProfile(name, platform, _capabilities(src, body, base))
    known = src.known_entries(body, PROFILE_KEYS, f"device '{name}'")
    caps_node = known.get("capabilities")
    caps = src.mapping(caps_node, f"capabilities of '{name}'") if caps_node is not None else None
    devices = known.get("devices")
    return DeviceProfile(
        name,
        platform,
        _capabilities(src, caps, base) if caps is not None else {},
        _url(src, known.get("url"), f"url of '{name}'"),
        _pool(src, devices, name, base) if devices is not None else (),
    )


def _capabilities(src: Source, node: MappingNode, base: Path) -> dict[str, JsonValue]:
    """Capabilities as written; an ``appium:app`` path relative to the file resolves beside it."""
    caps = src.value(node) or {}
    app = caps.get("appium:app")
    if isinstance(app, str) and not Path(app).is_absolute() and (base / app).exists():
        caps["appium:app"] = str((base / app).resolve())
    return caps


def _url(src: Source, node: Node | None, what: str) -> str | None:
    if node is None or is_null(node):
        return None
    text = src.text(node, what)
    if text is None:
        return None
    try:
        parts = urlsplit(text)
        valid = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 1) > 0
    except ValueError:  # a port that is not a number
        valid = False
    if not valid:
        fix = "write it like http://127.0.0.1:4723 (a Selenium Grid or farm URL may carry a path: /wd/hub)"
        src.problem(node, f"{what} is not an http(s) URL: {shown_url(text)!r}", fix=fix)
        return None
    return text


def _pool(src: Source, node: Node, name: str, base: Path) -> tuple[PoolDevice, ...]:
    """``devices:``: udids or URLs as plain strings, or maps of ``udid`` / ``url`` / ``capabilities``."""
    items = src.sequence(node, f"devices of '{name}'")
    if items is None:
        return ()
    if not items.value:
        src.problem(node, f"devices of '{name}' is an empty list", fix="list one udid or URL per device")
    pool = [_pool_device(src, item, f"device {n} of '{name}'", base) for n, item in enumerate(items.value, 1)]
    return tuple(d for d in pool if d is not None)


def _pool_device(src: Source, node: Node, what: str, base: Path) -> PoolDevice | None:
    if isinstance(node, ScalarNode) and not is_null(node):
        text = str(node.value)
        if text.startswith(("http://", "https://")):
            url = _url(src, node, what)
            return PoolDevice(shown_url(url), url=url) if url else None
        return PoolDevice(text, capabilities={"appium:udid": text})
    body = src.mapping(node, what, fix="write a udid, a URL, or a map of `udid`, `url`, `capabilities`")
    if body is None:
        return None
    known = src.known_entries(body, DEVICE_KEYS, what)
    if not known:
        src.problem(node, f"{what} names no device", fix="give it a `udid:` or a `url:`")
        return None
    caps_node = known.get("capabilities")
    caps = src.mapping(caps_node, f"capabilities of {what}") if caps_node is not None else None
    capabilities = _capabilities(src, caps, base) if caps is not None else {}
    udid = src.text(known["udid"], f"udid of {what}") if "udid" in known else None
    if udid:
        capabilities["appium:udid"] = udid
    url = _url(src, known.get("url"), f"url of {what}")
    label = udid or (shown_url(url) if url else None) or what
    return PoolDevice(label, url=url, capabilities=capabilities)


def shown_url(url: str | None) -> str:
    """The URL without the credentials a farm URL carries (``https://user:key@hub/...``)."""
    return _USERINFO.sub(r"\1***@", url or "")


def shown_capabilities(capabilities: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Capabilities for a message: credential values (``accessKey``, ``password``...) as ``***``."""
    shown: dict[str, JsonValue] = {}
    for key, value in capabilities.items():
        if isinstance(value, Mapping):
            shown[key] = shown_capabilities(value)
        elif str(key).lower().endswith(CREDENTIAL_ENDINGS) and value not in (None, ""):
            shown[key] = "***"
        else:
            shown[key] = value
    return shown


def split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """``(address without credentials, user, password)``: the client sends them as Basic auth
    (selenium warns on every request when they stay in the URL)."""
    found = _USERINFO.match(url)
    if found is None:
        return url, None, None
    user, _, password = url[len(found.group(1)) : found.end() - 1].partition(":")
    return found.group(1) + url[found.end() :], unquote(user) or None, unquote(password) or None
