"""Readers of single option values: numbers, pairs, files, sizes, driver names.

Each turns what a user typed (on the command line or in an ini file) into a typed value, or
raises ``ConfigurationError`` naming the option and the expected form (the pytest plugin shows
it as a usage error), so ``run_options`` only wires options to ``Settings``. ``Given`` is where
the values come from: the command line over the ini file.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import ConfigurationError
from ..core.jsondata import JsonObject
from ..core.system.files import DEFAULT_MAX_BYTES, FileRefused, parse_size, read_source
from ..core.trail.devices import DRIVER_TYPES, driver_type

if TYPE_CHECKING:  # the YAML readers load with the first file an option names: most runs name none
    from ..drivers.profiles import DeviceProfile


@dataclass(frozen=True)
class Given:
    """What the user gave for the options of a run: the command line wins over the ini file.

    ``cli(name)`` is the value of ``--trailblaze-<name>`` (by its destination, ``-`` as ``_``;
    None when not given), ``ini(key)`` the value of ini key ``trailblaze_<key>``. ``base`` is where
    the run started (paths given on the command line are relative to it), ``root`` the project's
    root folder.
    """

    cli: Callable[[str], object]
    ini: Callable[[str], object]
    base: Path
    root: Path

    def pick(self, name: str, ini: str | None = None) -> str:
        """The text of ``--trailblaze-<name>``, else of ini ``trailblaze_<ini or name>`` (empty counts
        as not given; "" when neither is)."""
        return self.option(name) or self.text(ini or name)

    def option(self, name: str) -> str | None:
        """The text of ``--trailblaze-<name>`` (None when not given)."""
        value = self.cli(name)
        return value if isinstance(value, str) else None

    def text(self, key: str) -> str:
        """The text of ini key ``trailblaze_<key>`` ("" when not set)."""
        value = self.ini(key)
        return value if isinstance(value, str) else ""

    def many(self, name: str) -> list[str]:
        """The values of a repeatable ``--trailblaze-<name>`` (none given: empty)."""
        return _strings(self.cli(name))

    def lines(self, key: str) -> list[str]:
        """The lines of ini key ``trailblaze_<key>`` (a ``linelist``)."""
        return _strings(self.ini(key))

    def paths(self, key: str) -> list[Path]:
        """The paths of ini key ``trailblaze_<key>`` (of type ``paths``: relative to the ini file)."""
        value = self.ini(key)
        return [Path(p) for p in value if isinstance(p, (str, Path))] if isinstance(value, list) else []

    def flag(self, name: str) -> bool:
        """An on/off option: the command line when given (``None`` is not given), else the ini."""
        cli = self.cli(name)
        return bool(cli if cli is not None else self.ini(name))


def _strings(value: object) -> list[str]:
    """A list option's values (pytest gives a list of text, or None when not given)."""
    return [str(v) for v in value] if isinstance(value, (list, tuple)) else []


def existing_dir(value: str, option: str, base: Path) -> Path:
    path = Path(base, value).resolve()
    if not path.is_dir():
        raise ConfigurationError(f"{option} {value}: no such folder")
    return path


def load_profiles(path: Path) -> dict[str, DeviceProfile]:
    """The devices of a capabilities file (``drivers.profiles``); every problem in one usage error."""
    from ..drivers.profiles import read_profiles

    try:
        text = read_source(path)
    except FileRefused as exc:
        raise ConfigurationError(f"--trailblaze-appium-caps {path}: {exc.what}\n  fix: {exc.fix}") from None
    profiles, problems = read_profiles(text, path)
    if problems:
        listed = "\n".join(p.format() for p in problems)
        raise ConfigurationError(f"--trailblaze-appium-caps {path}:\n{listed}")
    return profiles


def seconds_value(text: str | None, option: str, default: float) -> float:
    if text in (None, ""):
        return default
    try:
        value = float(str(text).strip())
    except ValueError:
        raise ConfigurationError(f"{option} expects a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):  # NaN fails every comparison
        raise ConfigurationError(f"{option} must be a positive number of seconds, got {text!r}")
    return value


def size_value(text: str | None, option: str) -> int:
    """A file size such as ``10MB`` or ``512KB`` (bytes when bare); the default when not given."""
    if text in (None, ""):
        return DEFAULT_MAX_BYTES
    try:
        return parse_size(str(text))
    except ValueError as exc:
        raise ConfigurationError(f"{option} {exc}") from None


def key_value_pairs(values: list[str] | None, option: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values or []:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip():
            raise ConfigurationError(f"{option} expects KEY=VALUE, got {value!r}")
        pairs[key.strip()] = rest
    return pairs


def secret_pairs(values: list[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` pairs; a bare ``NAME`` reads environment variable NAME, so the value stays off
    the command line and every ``{{NAME}}`` that reads it is known to be secret."""
    secrets: dict[str, str] = {}
    for value in values or []:
        name = value.strip()
        if "=" in value or not name:
            secrets.update(key_value_pairs([value], "--trailblaze-secret"))
        elif name in os.environ:
            secrets[name] = os.environ[name]
        else:
            raise ConfigurationError(
                f"--trailblaze-secret {name}: no environment variable {name} is set; "
                f"set it, or pass --trailblaze-secret {name}=VALUE"
            )
    return secrets


def args_file(path: str | None) -> JsonObject:
    return yaml_map(Path(path), "--trailblaze-args-file") if path else {}


def yaml_map(path: Path, option: str) -> JsonObject:
    """A YAML or JSON file holding a map, read like trails (YAML 1.2 scalars: ``017`` stays text
    for a string arg); anything else is a usage error naming the option."""
    from ..core.trail.yamlsource import load_value

    try:
        text = read_source(path)
    except FileRefused as exc:
        raise ConfigurationError(f"{option} {path}: {exc.what}\n  fix: {exc.fix}") from None
    data, problems = load_value(text, str(path))
    if problems:
        listed = "\n".join(p.format() for p in problems)
        raise ConfigurationError(f"{option} {path}: not valid YAML or JSON:\n{listed}")
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigurationError(f"{option} {path}: expected a map")
    return {str(k): v for k, v in data.items()}


def viewport_size(text: str) -> tuple[int, int]:
    width, sep, height = str(text).lower().partition("x")
    if sep and width.strip().isdigit() and height.strip().isdigit() and int(width) > 0 and int(height) > 0:
        return int(width), int(height)
    raise ConfigurationError(f"--trailblaze-viewport expects WIDTHxHEIGHT like 1280x800, got {text!r}")


def milliseconds(text: str | None, option: str, default: int = 0) -> int:
    if text in (None, ""):
        return default
    try:
        value = int(str(text).strip())
    except ValueError:
        raise ConfigurationError(f"{option} expects a whole number of milliseconds, got {text!r}") from None
    if value < 0:
        raise ConfigurationError(f"{option} must not be negative, got {value}")
    return value


def driver_name(name: str | None) -> str | None:
    if not name:
        return None
    found = driver_type(name) or next((d for d in DRIVER_TYPES if d.yaml_key == name.strip().lower()), None)
    if found is None:
        names = ", ".join(d.name for d in DRIVER_TYPES)
        raise ConfigurationError(f"--trailblaze-driver: unknown driver {name!r}; known drivers: {names}")
    return found.name
