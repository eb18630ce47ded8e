"""Trails read before collection, for their tags, and taken again by collection when unchanged.

Collection takes a trail read here instead of reading it again, unless the file changed or an
environment variable its ``{{NAME}}`` tokens read has changed since (a ``conftest.py`` collected
later may set one; the names read are remembered with their values).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from fnmatch import fnmatch
from pathlib import Path

from ..core.errors import TrailblazeError
from ..core.system.files import read_source
from ..core.trail.model import Trail
from ..core.trail.parse import classifier_from_filename, parse_trail
from .trail_items import is_trail_name
from .trail_walk import EnvReads


def marker_name(tag: str) -> str:
    """Characters a ``-m`` expression cannot hold turn into ``_``; pytest marker names may not
    start with ``_`` or a digit, so such tags get a ``tag_`` prefix."""
    name = re.sub(r"\W", "_", tag.strip())
    if not name or name[0] == "_" or name[0].isdigit():
        name = f"tag_{name.lstrip('_')}"
    return name


class ReadAhead:
    """Trails read ahead: path -> (size and modification time, trail, environment read)."""

    def __init__(self) -> None:
        self._read: dict[Path, tuple[tuple[int, int], Trail, EnvReads]] = {}

    def read(
        self, paths: Iterable[Path], shown: Callable[[Path], str], limit: int, roots: tuple[Path, ...]
    ) -> Iterator[Trail]:
        """Each trail of ``paths`` that reads without a problem (``shown`` names a path in messages,
        exactly as collection names it); the others are left to collection to report."""
        for path in paths:
            env = EnvReads()
            try:
                text = read_source(path, limit=limit, root=roots)
                classifier = classifier_from_filename(path.name)
                trail = parse_trail(text, shown(path), file_classifier=classifier, env=env)
            except (OSError, UnicodeDecodeError, TrailblazeError):
                continue  # collection reports it (a file refused here included), with every problem
            self._read[path] = (_stamp(path), trail, env)
            yield trail

    def take(self, path: Path) -> Trail | None:
        """The trail read ahead, if neither its file nor the environment it read changed (once)."""
        entry = self._read.pop(path, None)
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


def trail_roots(base: Path, args: Iterable[str], rootpath: Path) -> tuple[Path, ...]:
    """Where a collected trail file may lie once links are followed: the rootdir, and the paths
    the run was given (a file or folder named on the command line is the user's own choice)."""
    given = (Path(base, arg.split("::", 1)[0]) for arg in args)
    folders = (p if p.is_dir() else p.parent for p in given)
    return tuple(dict.fromkeys([Path(rootpath), *folders]))


def skipper(
    base: Path, ignore: Iterable[str], ignore_glob: Iterable[str], norecurse: list[str], in_venvs: bool
) -> Callable[..., bool]:
    """Whether the walk skips a path as pytest's collection would: ``--ignore``, ``--ignore-glob``,
    ``norecursedirs``, and virtual environments unless ``--collect-in-virtualenv``."""
    ignored = {Path(base, p).resolve() for p in ignore}
    globs = [str(Path(base, g)) for g in ignore_glob]

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


def walked(path: Path, norecurse: Iterable[str], base: Path, args: Iterable[str]) -> bool:
    """Whether pytest would walk into ``path``: its name is not one of ``norecursedirs`` and it
    lies under a path the run was given (pytest also asks about the entries beside them)."""
    if any(fnmatch(path.name, pattern) for pattern in norecurse):
        return False
    here = Path(os.path.normpath(path))  # the link itself, not where it leads
    given = [Path(os.path.normpath(Path(base, arg.split("::", 1)[0]))) for arg in args]
    return any(here == folder or folder in here.parents for folder in given)


def shown_from(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` (where the run started) when it lies inside it."""
    try:
        return str(path.relative_to(base))
    except ValueError:
        return str(path)


def uncollectable_trails(folder: Path, patterns: Iterable[str]) -> list[Path]:
    """Entries of ``folder`` named like trails that pytest's walk passes over in silence: broken
    links, link loops, pipes and devices (each is an error of its own at collection)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:  # a folder that vanished meanwhile: pytest's own walk says what it saw
        return []
    return [Path(e.path) for e in entries if is_trail_name(e.name, patterns) and not _collectable(e)]


def _collectable(entry: os.DirEntry[str]) -> bool:
    """A regular file or a folder (links followed): pytest's walk takes those itself."""
    try:
        return entry.is_file() or entry.is_dir()
    except OSError:  # a link that loops
        return False
