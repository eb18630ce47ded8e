"""Trails in a run that also has pytest-playwright: its settings apply to trails, ours win.

When pytest-playwright is active (installed, not ``-p no:playwright``), the browser that trails
launch follows it: ``--browser`` (the first one given), ``--headed``, ``--browser-channel``,
``--slowmo`` and whatever a user's override of its ``browser_type_launch_args`` fixture adds
(``executable_path``, ``args``, ``env``...). ``--trailblaze-*`` options said on purpose still win:
a ``--trailblaze-browser`` other than the default, ``--trailblaze-headed``,
``--trailblaze-browser-path``; browser arguments of both are passed.

Its ``browser_context_args`` fixture applies to the contexts of trails when a ``conftest.py``
overrides it or its ``--device`` is given (``record_video_dir`` aside: videos follow
``--trailblaze-video``); ``trailblaze_browser_context_args`` wins over it. Reading it starts
pytest-playwright's Playwright, whose start marks its loop on the main thread: the mark is taken off
again (``ForeignLoop``) and put back only before a test that uses pytest-playwright's fixtures, so
async tests after a trail still pass. Without any of these, that Playwright is not started at all.

Trails keep a browser of their own rather than pytest-playwright's ``browser`` fixture: that one
lives on pytest-playwright's Playwright, whose loop stays marked on the main thread for the rest
of the session once a page test used it, so async tests after a trail would fail as they do after
a page test. A user who wants trails inside pytest-playwright's browser, with its artifacts,
hands its ``context`` to trails through ``trailblaze_browser_context``.

``browser_name`` is read from the option, not requested as a fixture: pytest-playwright
parametrizes that fixture per page test, and a request without the parameter would make pytest
tear it down (and the browser built on it) between page tests and trails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from ..core.jsondata import JsonValue
from ..drivers.browser_options import BrowserOptions

if TYPE_CHECKING:
    from ..drivers.loopstate import ForeignLoop

#: pytest-playwright's plugin name (its ``pytest11`` entry point).
PLUGIN = "playwright"
#: pytest-playwright's evidence options, by the name of the trailblaze setting they default.
EVIDENCE_OPTIONS = ("tracing", "video", "screenshot")
#: pytest-playwright's option that its ``browser_context_args`` turns into context arguments
#: trails can use (``--base-url`` is not: ``web_navigate`` resolves relative URLs as files).
CONTEXT_OPTIONS = ("device",)
#: pytest-playwright's loop, when reading its context arguments for a trail started it.
FOREIGN_LOOP_KEY: pytest.StashKey[ForeignLoop] = pytest.StashKey()


def active(config: pytest.Config) -> bool:
    """Whether pytest-playwright takes part in this run."""
    return config.pluginmanager.hasplugin(PLUGIN)


def browser_options(request: pytest.FixtureRequest, options: BrowserOptions) -> BrowserOptions:
    """``options`` with pytest-playwright's browser and launch settings where ours say nothing."""
    from ..session.driver_choice import merged  # a session's module: the evidence options are read without it

    config = request.config
    if not active(config):
        return options
    browsers = config.getoption("browser", default=None) or []
    launch_args = request.getfixturevalue("browser_type_launch_args")
    return merged(options, browsers[0] if browsers else None, launch_args or {})


def evidence_defaults(config: pytest.Config) -> dict[str, str]:
    """pytest-playwright's ``--tracing`` / ``--video`` / ``--screenshot`` values that ask for evidence.

    Defaults for the matching ``--trailblaze-*`` evidence settings where those are not given
    (the values are spelled alike); ``off`` (their default) asks for nothing and is left out.
    """
    if not active(config):
        return {}
    found = {name: config.getoption(name, default=None) for name in EVIDENCE_OPTIONS}
    return {name: str(value) for name, value in found.items() if value not in (None, "", "off")}


def context_args_asked(config: pytest.Config) -> bool:
    """Whether trails read pytest-playwright's ``browser_context_args``: a conftest overrides it, or
    an option it reads is given. Otherwise it would only start a second Playwright for nothing."""
    if not active(config):
        return False
    if any(config.getoption(name, default=None) for name in CONTEXT_OPTIONS):
        return True
    theirs = config.pluginmanager.get_plugin(PLUGIN)
    return any(
        plugin is not theirs and callable(getattr(plugin, "browser_context_args", None))
        for plugin in config.pluginmanager.get_plugins()
    )


@pytest.fixture(scope="session")
def _trailblaze_playwright_context_args(
    request: pytest.FixtureRequest,
) -> Iterator[dict[str, JsonValue]]:
    """pytest-playwright's ``browser_context_args`` for trail contexts ({} when not asked for).

    Depending on it, this fixture is torn down before pytest-playwright's Playwright stops: the
    parked loop is marked again first, as that Playwright's stop expects.
    """
    if not context_args_asked(request.config):
        yield {}
        return
    from ..drivers.loopstate import ForeignLoop  # asyncio: not for the options an xdist controller reads

    foreign = request.config.stash.setdefault(FOREIGN_LOOP_KEY, ForeignLoop())
    with foreign.parked():
        args = dict(request.getfixturevalue("browser_context_args") or {})
    args.pop("record_video_dir", None)
    try:
        yield args
    finally:
        foreign.resume()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test on pytest-playwright's fixtures finds its loop marked, as after its own tests."""
    foreign = item.config.stash.get(FOREIGN_LOOP_KEY, None)
    if foreign is not None and "playwright" in getattr(item, "fixturenames", ()):
        foreign.resume()


def resume_theirs(config: pytest.Config) -> None:
    """Mark pytest-playwright's parked loop again: a trail is about to use its fixtures."""
    foreign = config.stash.get(FOREIGN_LOOP_KEY, None)
    if foreign is not None:
        foreign.resume()
