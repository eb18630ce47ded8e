"""Reports: trail failures as plain trail text, secrets masked, notes about driver pins, unknown args."""

from __future__ import annotations

from collections.abc import Generator

import pytest

from ..core.errors import TrailblazeError
from ..session.run_options import unknown_args
from .options import SETTINGS_KEY
from .output_masking import mask_report, mask_streams, release_terminal


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Setup and teardown errors of our own kind read like trail failures, without plugin frames;
    a failed trail's report points at the failing step's line (see ``failures``).

    The outermost wrapper, so the report it masks is the one every reader gets.
    """
    from .collection import TrailItem  # the modules of the processes that run items, not a controller's
    from .failures import report_location

    report = yield
    excinfo = call.excinfo
    if (
        call.when != "call"
        and excinfo is not None
        and isinstance(excinfo.value, TrailblazeError)
        and not item.config.stash[SETTINGS_KEY].full_trace
    ):
        shown = item.trail_repr(excinfo, failure=False) if isinstance(item, TrailItem) else None
        report.longrepr = shown or str(excinfo.value)
    if report.failed and excinfo is not None and isinstance(item, TrailItem):
        report_location(report, item.failed_step_line(excinfo.value))
    return mask_report(item.config, report, trail_text=isinstance(item, TrailItem))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Collection errors quote trail text, which may hold a secret read from the environment."""
    from .collection import TrailFile

    report = yield
    return mask_report(collector.config, report, trail_text=isinstance(collector, TrailFile))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    mask_streams(session.config)
    if session.config.pluginmanager.has_plugin("allure_listener"):  # allure-pytest with --alluredir
        from . import allure  # imports allure only when it reports

        allure.install(session.config)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    release_terminal(config)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config) -> None:
    """A ``--trailblaze-arg`` that no collected trail declares is a usage error, before anything runs."""
    from .collection import DECLARED_ARGS_KEY

    problem = unknown_args(config.stash[SETTINGS_KEY].args, config.stash.get(DECLARED_ARGS_KEY, set()))
    if problem:
        raise pytest.UsageError(problem)


def pytest_report_collectionfinish(config: pytest.Config) -> list[str]:
    """One line per upstream driver pin this plugin replaces with its own driver."""
    from ..session.trail_items import pin_notes
    from .collection import PIN_NOTES_KEY

    return pin_notes(config.stash.get(PIN_NOTES_KEY, {}))
