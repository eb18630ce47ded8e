"""Trail tags become markers, registered before anything is collected.

pytest checks a marker's name when code reads ``pytest.mark.<name>``: for a Python test, while
its module is imported. Under ``--strict-markers``, a ``@pytest.mark.smoke`` test collected before
the trail that declares the ``smoke`` tag would fail, and pass the other way round. So before
collection starts, the trail files under the run's paths are read and their tags registered
(``session.read_ahead``); collection takes those trails instead of reading them again, when
unchanged. A trail this walk does not see (a path only a plugin adds) still registers its tags
when it is collected.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ..core.trail.model import Trail
from ..session import read_ahead
from ..session.read_ahead import ReadAhead, marker_name
from ..session.trail_walk import trail_paths
from .options import SETTINGS_KEY

_TAGS_KEY = pytest.StashKey[set[str]]()
_READ_KEY = pytest.StashKey[ReadAhead]()


def register_tag(config: pytest.Config, tag: str) -> str:
    """Register ``tag`` as a marker (once) and return the marker's name."""
    name = marker_name(tag)
    known = config.stash.setdefault(_TAGS_KEY, set())
    if name not in known:
        known.add(name)
        config.addinivalue_line("markers", f"{name}: trails tagged '{tag}' (config.tags)")
    return name


def register_all_tags(config: pytest.Config, shown: Callable[[Path], str]) -> None:
    """Read every trail under the run's paths and register its tags (``shown`` names a path in
    messages, exactly as collection names it)."""
    settings = config.stash[SETTINGS_KEY]
    base = config.invocation_params.dir
    skip = read_ahead.skipper(
        base,
        config.getoption("ignore") or (),
        config.getoption("ignore_glob") or (),
        config.getini("norecursedirs"),
        config.getoption("collect_in_virtualenv"),
    )
    found = trail_paths(config.args, base, settings.patterns, skip)
    reader = config.stash.setdefault(_READ_KEY, ReadAhead())
    for trail in reader.read(found, shown, settings.max_file_bytes, trail_roots(config)):
        for tag in trail.config.tags:
            register_tag(config, tag)


def trail_roots(config: pytest.Config) -> tuple[Path, ...]:
    """Where a collected trail file may lie once links are followed: the rootdir and the paths given."""
    return read_ahead.trail_roots(config.invocation_params.dir, config.args, config.rootpath)


def read_before(config: pytest.Config, path: Path) -> Trail | None:
    """The trail read before collection, if neither its file nor the environment it read changed."""
    reader = config.stash.get(_READ_KEY, None)
    return reader.take(path) if reader is not None else None
