"""Trail tags become markers, registered before anything is collected.

pytest checks a marker's name when code reads ``pytest.mark.<name>``: for a Python test, while
its module is imported. Under ``--strict-markers``, a ``@pytest.mark.smoke`` test collected before
the trail that declares the ``smoke`` tag would fail, and pass the other way round. So before
collection starts, the trail files under the run's paths are read and their tags registered.

Collection then takes the trails read here instead of reading them again, unless the file
changed or an environment variable its ``{{NAME}}`` tokens read has changed since (a
``conftest.py`` collected later may set one; the names read are remembered with their values).
A trail this walk does not see (a path only a plugin adds) still registers its tags when it is
collected.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fnmatch import fnmatch
from pathlib import Path

import pytest

from ..core.errors import TrailblazeError
from ..core.system.files import read_source
from ..core.trail.model import Trail
from ..core.trail.parse import classifier_from_filename, parse_trail
from ..session.trail_walk import EnvReads, trail_paths
from .options import SETTINGS_KEY

_TAGS_KEY = pytest.StashKey[set[str]]()


#: Trails read before collection: path -> (size and modification time, trail, environment read).
_READ_KEY = pytest.StashKey[dict[Path, tuple[tuple[int, int], Trail, EnvReads]]]()


def marker_name(tag: str) -> str:
    """Characters a ``-m`` expression cannot hold turn into ``_``; pytest marker names may not
    start with ``_`` or a digit, so such tags get a ``tag_`` prefix."""
    name = re.sub(r"\W", "_", tag.strip())
    if not name or name[0] == "_" or name[0].isdigit():
        name = f"tag_{name.lstrip('_')}"
    return name


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
    read = config.stash.setdefault(_READ_KEY, {})
    settings = config.stash[SETTINGS_KEY]
    limit, roots = settings.max_file_bytes, trail_roots(config)
    found = trail_paths(config.args, config.invocation_params.dir, settings.patterns, _skipper(config))
    for path in found:
        env = EnvReads()
        try:
            text = read_source(path, limit=limit, root=roots)
            classifier = classifier_from_filename(path.name)
            trail = parse_trail(text, shown(path), file_classifier=classifier, env=env)
        except (OSError, UnicodeDecodeError, TrailblazeError):
            continue  # collection reports it (a file refused here included), with every problem of the file
        for tag in trail.config.tags:
            register_tag(config, tag)
        read[path] = (_stamp(path), trail, env)


def trail_roots(config: pytest.Config) -> tuple[Path, ...]:
    """Where a collected trail file may lie once links are followed: the rootdir, and the paths
    the run was given (a file or folder named on the command line is the user's own choice)."""
    base = config.invocation_params.dir
    given = (Path(base, arg.split("::", 1)[0]) for arg in config.args)
    folders = (p if p.is_dir() else p.parent for p in given)
    return tuple(dict.fromkeys([Path(config.rootpath), *folders]))


def read_before(config: pytest.Config, path: Path) -> Trail | None:
    """The trail read before collection, if neither its file nor the environment it read changed
    (taken once)."""
    entry = config.stash.get(_READ_KEY, {}).pop(path, None)
    if entry is None:
        return None
    stamp, trail, env = entry
    try:
        return trail if _stamp(path) == stamp and env.unchanged() else None
    except OSError:
        return None


def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def _skipper(config: pytest.Config) -> Callable[..., bool]:
    base = config.invocation_params.dir
    ignored = {Path(base, p).resolve() for p in config.getoption("ignore") or ()}
    globs = [str(Path(base, g)) for g in config.getoption("ignore_glob") or ()]
    norecurse = config.getini("norecursedirs")
    in_venvs = config.getoption("collect_in_virtualenv")

    def skip(path: Path, directory: bool = False) -> bool:
        if _resolved(path) in ignored or any(fnmatch(str(path), g) for g in globs):
            return True
        if not directory:
            return False
        if any(fnmatch(path.name, pattern) for pattern in norecurse):
            return True
        try:
            return not in_venvs and (path / "pyvenv.cfg").is_file()
        except OSError:  # a folder this process may not look into (/proc/1/fdinfo, another user's)
            return True

    return skip


def _resolved(path: Path) -> Path:
    """``path`` with its links followed; a link that loops stays as it is (it is nobody's to skip)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
