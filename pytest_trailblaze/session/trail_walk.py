"""Finding trail files and workspaces under the paths a run or a check was given."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from fnmatch import fnmatch
from pathlib import Path

from ..core.system.files import is_regular, walk
from ..core.trail.filenames import TRAIL_FILE_PATTERNS
from ..core.trail.legacy import BLAZE, is_blaze_definition
from ..workspace import find_config_dir


class EnvReads(Mapping[str, str]):
    """``os.environ`` as the ``{{NAME}}`` pass of a trail reads it, remembering each name it asked
    for with the value it found (None: unset), and the working folder (``{{CWD}}``)."""

    def __init__(self) -> None:
        self.seen: dict[str, str | None] = {}
        self.cwd = Path.cwd()
        #: Whether the whole environment was listed: then no name is known to be unread.
        self.listed = False

    def __getitem__(self, name: str) -> str:
        self.seen[name] = os.environ.get(name)
        return os.environ[name]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        self.seen[name] = os.environ.get(name)
        return name in os.environ

    def __iter__(self) -> Iterator[str]:
        self.listed = True
        return iter(dict(os.environ))

    def __len__(self) -> int:
        return len(os.environ)

    def unchanged(self) -> bool:
        """Whether every name read still has the value it had (and the working folder, if read)."""
        if self.listed or ("CWD" in self.seen and Path.cwd() != self.cwd):
            return False
        return all(os.environ.get(name) == value for name, value in self.seen.items())


def trail_paths(
    args: Iterable[str], base: Path, patterns: tuple[str, ...], skip: Callable[..., bool]
) -> Iterator[Path]:
    """Trail files under the run's arguments (``args``, relative to ``base``; a ``::`` test id
    names its file), skipping what ``skip(path, directory=False)`` says the run skips."""

    def wanted(path: Path) -> bool:
        # A file this process may not read, a pipe, a device or a link that loops is none of ours
        # here: collection says what it is (``collection.broken_trail_links``).
        try:
            return _is_trail(path, patterns) and is_regular(path) and not skip(path)
        except (OSError, RuntimeError):
            return False

    for arg in args:
        top = Path(base, arg.split("::", 1)[0])
        try:
            is_file = top.is_file()
        except OSError:
            continue
        if is_file:
            if wanted(top):
                yield top
            continue
        for folder, dirs, files in os.walk(top):  # unreadable folders are passed over
            here = Path(folder)
            dirs[:] = sorted(d for d in dirs if not skip(here / d, directory=True))
            yield from (here / name for name in sorted(files) if wanted(here / name))


def _is_trail(path: Path, patterns: tuple[str, ...]) -> bool:
    name = path.name
    if name == "trailblaze.yaml":
        return False
    return any(fnmatch(name, pattern) for pattern in patterns) or is_blaze_definition(path)


CONFIG_NAME = "trailblaze.yaml"


def workspaces_under(paths: Iterable[Path]) -> list[Path]:
    """Workspace config folders (``trails/config``) inside the given folders or above them
    (the walk is ``files.walk``: no links followed, no pseudo file systems, nothing that vanished)."""
    found = []
    for path in paths:
        if not path.is_dir():
            continue
        inside = [p.parent for p in walk(path, CONFIG_NAME.__eq__) if _is_config_dir(p.parent)]
        around = find_config_dir(path)
        found += [*inside, *([around] if around else [])]
        if (path / "trailblaze.yaml").is_file():
            found.append(path)
    return list(dict.fromkeys(p.resolve() for p in found))


def _is_config_dir(folder: Path) -> bool:
    return folder.name == "config" and folder.parent.name == "trails"


def trail_files(
    paths: Iterable[Path], patterns: tuple[str, ...] = TRAIL_FILE_PATTERNS
) -> Iterator[tuple[Path, Path | None]]:
    """Trail files under ``paths`` with the folder each was found in (None for a path given as a
    file, taken as given whatever its kind), never ``trailblaze.yaml``; a v1 ``blaze.yaml``
    definition counts (``core.trail.legacy``). Hidden folders are not searched."""

    def named(name: str) -> bool:
        return name != CONFIG_NAME and (name == BLAZE or any(fnmatch(name, p) for p in patterns))

    for path in paths:
        if not path.is_dir():
            yield path, None
            continue
        for found in walk(path, named):
            if found.name != BLAZE or is_blaze_definition(found):
                yield found, path
