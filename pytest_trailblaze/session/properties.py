"""A test item's report properties (JUnit's ``<property>`` elements) as a run sets them.

Several parts of the run set properties on one item (the trail run's facts, the device that ran
it, the agent's usage), and an item may run again (pytest-rerunfailures): each part replaces its
own earlier properties and leaves everyone else's where they are.
"""

from __future__ import annotations

from collections.abc import Iterable


def published(
    current: list[tuple[str, object]], properties: list[tuple[str, str]], replacing: Iterable[str] = ()
) -> list[tuple[str, object]]:
    """``current`` without its properties of the names in ``properties`` and in ``replacing``,
    then ``properties``."""
    ours = {name for name, _ in properties}.union(replacing)
    return [*((k, v) for k, v in current if k not in ours), *properties]
