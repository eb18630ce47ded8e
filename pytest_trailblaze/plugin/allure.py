"""Trails in Allure reports, when allure-pytest writes results (``--alluredir``).

Without this, every trail's Allure result is named by its node id, described by the docstring of
the function that runs trails, and has no steps and no attachments. With it:

- the trail's ``config.title`` names the result (with the item's platform or device), and
  ``config.description`` describes it (else the trail's file);
- each step (the trailhead included, in the set-up fixture that runs it) is an Allure step, and
  each tool call a step inside it, with its masked arguments and its own duration; a failed step
  or call carries the failure's message;
- the files the run left in the trail's artifacts folder (failure screenshot, MCP server logs,
  snapshots, and whatever other evidence the run keeps there) are attached to the result.

Steps come from the ``pytest_trailblaze_*_step`` and ``*_tool`` hooks, the plugin's one
observer of steps and tool calls. Allure's result files are one more place where text leaves the
process, so with ``--trailblaze-secret`` the writer of those files is fronted by the run's masking
filter: results, containers, attachments and globals are masked on their way to disk.
"""

from __future__ import annotations

import time
from collections.abc import Generator, Mapping
from types import TracebackType
from typing import Protocol

import allure
import pytest

from ..compat import front_allure_file_writers
from ..core.masking import Masker
from ..core.run.runner import ResolvedStep
from ..evidence.allure_files import MaskedAllureFiles, attachments, readable, shown, step_title
from .collection import TrailItem
from .evidence import item_artifacts
from .output_masking import masker_of


def install(config: pytest.Config) -> None:
    """Report trails to allure-pytest when it writes results; call after it is configured."""
    if not config.pluginmanager.has_plugin("allure_listener"):
        return
    config.pluginmanager.register(AllureTrails(config), "trailblaze-allure")
    masker = masker_of(config)
    if masker:
        mask_result_files(config, masker)


class OpenStep(Protocol):
    """An Allure step being reported (what ``allure.step(title)`` gives): closed by ``__exit__``."""

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, frames: TracebackType | None
    ) -> object: ...


class AllureTrails:
    """Names, describes, steps and attaches trails in the Allure result of their item."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        #: Open Allure steps, innermost last: ("step" | "tool", name, the step's context).
        self._open: list[tuple[str, str, OpenStep]] = []
        self._started: dict[str, float] = {}

    # -- the result: name, description, attachments --------------------------------------------
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        """After allure-pytest named the result (it does so as setup ends), name it after the trail."""
        self._started[item.nodeid] = time.time()
        try:
            return (yield)
        finally:
            if isinstance(item, TrailItem):
                describe(item)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "teardown" and isinstance(item, TrailItem):
            self._close_all()
            self._attach_evidence(item)
        return report

    def _attach_evidence(self, item: TrailItem) -> None:
        since = self._started.pop(item.nodeid, 0.0)
        for path, name, kind, extension in attachments(item_artifacts(item), since):
            allure.attach.file(str(path), name, kind, extension)

    # -- steps and tool calls -----------------------------------------------------------------
    def pytest_trailblaze_before_step(self, step: ResolvedStep, item: pytest.Item) -> None:
        params = {"recording": step.matched or "(agent)", "tool calls": str(len(step.calls or ()))}
        self._start("step", step_title(step), params)

    def pytest_trailblaze_after_step(self, step: ResolvedStep) -> None:
        self._stop("step", step_title(step), None)

    def pytest_trailblaze_step_error(self, step: ResolvedStep, error: BaseException) -> None:
        self._stop("step", step_title(step), error)

    def pytest_trailblaze_before_tool(self, name: str, args: Mapping[str, object]) -> None:
        self._start("tool", name, {key: shown(value) for key, value in args.items()})

    def pytest_trailblaze_after_tool(self, name: str) -> None:
        self._stop("tool", name, None)

    def pytest_trailblaze_tool_error(
        self, name: str, args: Mapping[str, object], error: BaseException
    ) -> None:
        if not self._open or self._open[-1][:2] != ("tool", name):  # it failed before it started
            self._start("tool", name, {key: shown(value) for key, value in args.items()})
        self._stop("tool", name, error)

    def _start(self, kind: str, title: str, params: dict[str, str]) -> None:
        context = allure.step(title)
        context.params = params
        context.__enter__()
        self._open.append((kind, title, context))

    def _stop(self, kind: str, title: str, error: BaseException | None) -> None:
        """Close the step opened as (kind, title), and any left open inside it."""
        while self._open:
            open_kind, open_title, context = self._open.pop()
            done = (open_kind, open_title) == (kind, title)
            shown_error = readable(error)
            context.__exit__(type(shown_error) if shown_error else None, shown_error, None)  # no frames
            if done:
                return

    def _close_all(self) -> None:
        while self._open:
            self._open.pop()[2].__exit__(None, None, None)


def describe(item: TrailItem) -> None:
    """The trail's title and description on the item's Allure result."""
    config = item.trail.config
    if config.title:
        variant = item.name[item.name.rfind("[") :] if item.name.endswith("]") else ""
        allure.dynamic.title(f"{config.title} {variant}".strip())
    where = f"Trail file: {item.trail.path}"
    allure.dynamic.description(f"{config.description.strip()}\n\n{where}" if config.description else where)


# -- the masking door in front of Allure's result files -------------------------------------------
def mask_result_files(config: pytest.Config, masker: Masker) -> None:
    """Put a masking front before every Allure file writer, and take it away at the end."""
    undo = front_allure_file_writers(lambda writer: MaskedAllureFiles(writer, masker))
    config.add_cleanup(undo)  # before allure-pytest's own clean-up
