"""A trail item's run under pytest: the session's ``TrailRun`` reports to the item's hooks, its
skips become pytest skips, its report properties go onto the item."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

from ..core.run.runner import ResolvedStep
from ..core.tooling.context import ToolContext
from ..session.properties import published
from ..session.settings import Settings
from ..session.trailrun import RunSetup, TrailSkipped
from .agent_settings import AGENT_KEY
from .evidence_options import evidence_of
from .output_masking import masker_of

if TYPE_CHECKING:  # collection runs its items through these: a loop at import time
    from .collection import TrailItem


#: Properties a trail run sets only when it has them (a failure's): gone from a rerun that passes.
RUN_FACTS = ("failing_step", "screenshot")


class ItemHooks:
    """A trail run's events as the ``pytest_trailblaze_*`` hooks of its item: the one step
    observer (progress, records, reports and other plugins all implement those hooks), the agent
    step, and the item's report properties."""

    def __init__(self, item: TrailItem) -> None:
        self.item = item
        self.hook = item.config.hook

    def step_started(self, step: ResolvedStep, ctx: ToolContext) -> None:
        self.hook.pytest_trailblaze_before_step(step=step, context=ctx, item=self.item)

    def step_finished(self, step: ResolvedStep, ctx: ToolContext, error: BaseException | None) -> None:
        if error is None:
            self.hook.pytest_trailblaze_after_step(step=step, context=ctx, item=self.item)
        else:
            self.hook.pytest_trailblaze_step_error(step=step, context=ctx, item=self.item, error=error)

    def has_agent(self) -> bool:
        return bool(self.item.config.pluginmanager.hook.pytest_trailblaze_agent_step.get_hookimpls())

    def agent_step(self, step: ResolvedStep, ctx: ToolContext) -> object:
        return self.hook.pytest_trailblaze_agent_step(step=step, context=ctx, item=self.item)

    def publish(self, properties: list[tuple[str, str]]) -> None:
        self.item.user_properties[:] = published(self.item.user_properties, properties, RUN_FACTS)


def run_setup(config: pytest.Config, settings: Settings) -> RunSetup:
    """What every trail run of this pytest run shares (``settings``: a fixture may override them)."""
    return RunSetup(
        settings,
        config.stash[AGENT_KEY],
        evidence_of(config),
        masker_of(config),
        config.rootpath,
        stops=(pytest.fail.Exception,),  # pytest-timeout's signal method, pytest.fail() in a tool
    )


@contextmanager
def skips_as_pytest() -> Iterator[None]:
    """A trail that does not run here is a pytest skip, with the run's reason."""
    try:
        yield
    except TrailSkipped as exc:
        pytest.skip(str(exc))
