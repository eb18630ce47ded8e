"""A run's options read without pytest: the command line over the ini file over the defaults, and
one ``ConfigurationError`` naming the option for a bad value (the plugin shows it as a usage error)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import ConfigurationError
from pytest_trailblaze.session.agent_options import AGENT_OPTIONS, read_agent
from pytest_trailblaze.session.option_table import EVIDENCE_OPTIONS, RUN_OPTIONS
from pytest_trailblaze.session.option_values import Given
from pytest_trailblaze.session.run_options import read_evidence, read_settings, unknown_args

SPECS = (*RUN_OPTIONS, *AGENT_OPTIONS, *EVIDENCE_OPTIONS)


def _ini_defaults() -> dict[str, Any]:
    """What pytest's ``getini`` returns for keys left unset: the declared default, else by type."""
    empty = {"linelist": [], "paths": [], "args": [], "bool": False}
    values = {}
    for spec in SPECS:
        for ini in spec.inis:
            declared = ini.extra.get("default", empty.get(ini.extra.get("type") or "", ""))
            values[ini.name.removeprefix("trailblaze_")] = declared
    return values


def given(tmp_path: Path, cli: dict[str, Any] | None = None, ini: dict[str, Any] | None = None) -> Given:
    inis = {**_ini_defaults(), **(ini or {})}
    return Given((cli or {}).get, inis.__getitem__, tmp_path, tmp_path)


def test_every_option_and_ini_key_is_declared_once() -> None:
    flags = [flag for spec in SPECS for flag in spec.flags]
    dests = [spec.dest for spec in SPECS if spec.flags]
    inis = [ini.name for spec in SPECS for ini in spec.inis]
    assert len(flags) == len(set(flags)) and len(dests) == len(set(dests)) and len(inis) == len(set(inis))
    assert all(flag.startswith("--trailblaze-") for flag in flags)
    assert all(name.startswith("trailblaze_") for name in inis)


def test_the_defaults_without_anything_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    settings = read_settings(given(tmp_path))
    assert settings.output_dir == tmp_path / "trailblaze-output"
    assert (settings.browser.browser, settings.browser.viewport) == ("chromium", (1280, 800))
    assert settings.browser.action_timeout_ms == 30_000 and settings.default_platform == "web"
    evidence = read_evidence(given(tmp_path), {})
    assert (evidence.screenshot, evidence.tracing, evidence.video, evidence.report) == (
        "only-on-failure", "off", "off", None
    )  # fmt: skip


def test_the_command_line_wins_over_the_ini_file(tmp_path: Path) -> None:
    ini = {"viewport": "800x600", "headed": True, "browser_args": ["--from-ini"]}
    settings = read_settings(given(tmp_path, {"viewport": "640x480", "headed": False}, ini))
    assert settings.browser.viewport == (640, 480) and settings.browser.headed is False
    assert settings.browser.launch_args == ("--from-ini",)
    assert read_settings(given(tmp_path, {"viewport": ""}, ini)).browser.viewport == (800, 600)
    evidence = read_evidence(given(tmp_path, ini={"screenshots": "on-failure"}), {"video": "on"})
    assert (evidence.screenshot, evidence.video) == ("only-on-failure", "on")


@pytest.mark.parametrize(
    ("cli", "message"),
    [
        ({"viewport": "wide"}, "--trailblaze-viewport expects WIDTHxHEIGHT like 1280x800, got 'wide'"),
        ({"settle_ms": "-1"}, "--trailblaze-settle-ms must not be negative, got -1"),
        ({"arg": ["novalue"]}, "--trailblaze-arg expects KEY=VALUE, got 'novalue'"),
        ({"cdp": "http://h:1", "connect": "ws://h:2"}, "--trailblaze-connect and --trailblaze-cdp exclude"),
        ({"config_dir": "nowhere"}, "--trailblaze-config-dir nowhere: no trailblaze.yaml in"),
        ({"driver": "SELENIUM"}, "--trailblaze-driver: unknown driver 'SELENIUM'"),
    ],
)
def test_a_bad_value_names_its_option(tmp_path: Path, cli: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        read_settings(given(tmp_path, cli))
    assert message in str(caught.value)


def test_a_bad_evidence_or_agent_value_names_its_option(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="trailblaze_tracing expects one of on, off, retain-on-fai"):
        read_evidence(given(tmp_path, ini={"tracing": "always"}), {})
    with pytest.raises(ConfigurationError, match="--trailblaze-max-llm-calls expects a whole number"):
        read_agent(given(tmp_path, {"max_llm_calls": "0"}))


def test_an_arg_no_trail_declares_is_named_with_the_declared_ones() -> None:
    assert unknown_args({"user": "x"}, {"user"}) is None
    problem = unknown_args({"usr": "x", "user": "y"}, {"user", "pin"})
    assert problem == (
        "unknown trail arg(s) usr: no collected trail declares them in config.args (declared: pin, user)"
    )


@pytest.mark.parametrize("ci", ["true", "1"])
def test_on_ci_the_timeouts_are_longer_and_navigations_get_twice_the_web_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    """Shared CI runners are slower: 45 s for actions by default, and navigations twice that."""
    monkeypatch.setenv("CI", ci)
    browser = read_settings(given(tmp_path)).browser
    assert (browser.action_timeout_ms, browser.navigation_timeout_ms) == (45_000, 90_000)
    browser = read_settings(given(tmp_path, {"web_timeout": "3000"})).browser
    assert (browser.action_timeout_ms, browser.navigation_timeout_ms) == (3_000, 6_000)
    monkeypatch.setenv("CI", "false")
    browser = read_settings(given(tmp_path, {"web_timeout": "3000"})).browser
    assert (browser.action_timeout_ms, browser.navigation_timeout_ms) == (3_000, 3_000)
