"""Reading files a stranger wrote: regular files only, within a size limit, inside a root.

Trails, tool files and workspace files come from pull requests and shared repositories, so
collection and ``trailblaze check`` read them with these rules instead of ``Path.read_text``:

- only a regular file is read: a named pipe (FIFO) would block the run until something writes
  to it, a device (``/dev/zero``) never ends, a folder is not text. The file is opened without
  blocking and checked again after opening, so a swap between the two looks cannot slip through;
- a file larger than the limit (10 MB unless configured) is refused before it is read: a 2 GB
  sparse file would otherwise cost gigabytes of memory to parse;
- a symbolic link that loops, or that leads outside the root it was found under, is refused
  with a located message: a trail folder must not be a way to read ``/etc/passwd``.

``walk`` is the folder walk ``trailblaze check`` uses: it never follows a link to a folder,
passes over folders that vanish or cannot be read while it walks (``/proc``), and does not
descend into pseudo file systems (proc, sysfs: no storage, no trails) or hidden, virtualenv and
``node_modules`` folders.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path

from ..errors import Problem, SourceSpan, TrailblazeError

#: Files above this size are refused unless the limit is raised (option or ini).
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
#: Folders a walk for trails never enters (besides hidden ones and virtualenvs).
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmg]?)(?:i?b)?\s*\Z", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


class FileRefused(TrailblazeError):
    """A file that is not read: why, and how to fix it, for a located problem."""

    def __init__(self, path: Path | str, what: str, why: str, fix: str) -> None:
        self.path = str(path)
        self.what, self.why, self.fix = what, why, fix
        super().__init__(f"{path}: {what}")

    def problem(self, shown: str | None = None) -> Problem:
        """The refusal as a problem at the file's first line (``shown``: the path as displayed)."""
        return Problem(SourceSpan(shown or self.path, 1, 1), self.what, self.why, self.fix)


def parse_size(text: str) -> int:
    """``10MB``, ``512k``, ``1048576`` -> bytes; ValueError for anything else or zero."""
    match = _SIZE.match(str(text))
    if match is None:
        raise ValueError(f"expects a size like 10MB, 512KB or a number of bytes, got {text!r}")
    size = int(float(match.group(1)) * _UNITS[match.group(2).lower()])
    if size <= 0:
        raise ValueError(f"expects a size above zero, got {text!r}")
    return size


def shown_size(size: int) -> str:
    """A byte count as people read it: ``12.3 MB``, ``2 KB``, ``17 bytes``."""
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}".replace(".0 ", " ")
    return f"{size} bytes"


#: One folder, or several (a file may lie in any of them).
Roots = Path | tuple[Path, ...]


def inside(path: Path, root: Roots) -> bool:
    """Whether ``path`` (links followed) lies in ``root`` (or one of several); a path that cannot be
    resolved does not."""
    roots = root if isinstance(root, tuple) else (root,)
    try:
        real = Path(os.path.realpath(path))
        return any(real.is_relative_to(os.path.realpath(r)) for r in roots)
    except (OSError, ValueError, RuntimeError):
        return False


def read_source(path: Path | str, *, limit: int = DEFAULT_MAX_BYTES, root: Roots | None = None) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes, inside ``root`` when given.

    Raises ``FileRefused`` (what, why, fix) for anything else: a pipe, a device, a folder, a link
    that loops or leaves ``root``, a file too big, an unreadable file or one that is not UTF-8.
    """
    path = Path(path)
    if root is not None and not inside(path, root):
        raise _outside(path, root)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _unopenable(path, exc) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        if info.st_size > limit:
            raise _too_big(path, info.st_size, limit)
        data = _read_at_most(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew after the look at its size
        raise _too_big(path, len(data), limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileRefused(
            path,
            f"cannot read {path.name}: it is not UTF-8 text (byte {exc.start})",
            "trail and workspace files are YAML text",
            "save the file as UTF-8",
        ) from None


def refusal(path: Path, *, limit: int = DEFAULT_MAX_BYTES, root: Roots | None = None) -> FileRefused | None:
    """Why ``read_source`` would refuse ``path`` by its kind, size or place (nothing is read)."""
    if root is not None and not inside(path, root):
        return _outside(path, root)
    try:
        info = path.stat()
    except OSError as exc:
        return _unopenable(path, exc)
    if not stat.S_ISREG(info.st_mode):
        return _not_regular(path, info.st_mode)
    if info.st_size > limit:
        return _too_big(path, info.st_size, limit)
    return None


def is_regular(path: Path) -> bool:
    """A regular file (links followed); False for pipes, devices, folders, loops, vanished paths."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def walk(top: Path, wanted: Callable[[str], bool]) -> Iterator[Path]:
    """Paths under ``top`` whose name is ``wanted``, in sorted order per folder, found without
    following a link to a folder, passing over what vanishes or cannot be read meanwhile, and never
    entering a pseudo file system, a hidden folder, a virtualenv or ``node_modules``.

    Whatever their kind is yielded (a folder or pipe with a trail's name is a mistake worth
    naming); ``read_source`` refuses what is not a regular file, with a message.
    """
    for folder, dirs, files in os.walk(top):  # onerror=None: unreadable or vanished folders are passed over
        here = Path(folder)
        yield from (here / name for name in sorted([*dirs, *files]) if wanted(name))
        dirs[:] = sorted(d for d in dirs if _enters(here, d))


def glob_inside(folder: Path, pattern: str, root: Path, refused: list[Path] | None = None) -> list[Path]:
    """The paths under ``folder`` that a relative glob (``*``, ``?``, ``[...]`` in a segment, ``**``
    for any number of folders) names, sorted, never leaving ``root``.

    ``Path.glob`` follows any linked folder a pattern's segment names (``tools/**`` with
    ``tools -> /`` walks the whole file system). Here a link to a folder is followed only when it
    leads to a folder inside ``root`` (each folder once, so a link cycle ends); one that leads out
    is added to ``refused`` instead. Links to files are listed as they are (``read_source`` refuses
    those that lead outside). Only folders the pattern can reach are walked.
    """
    parts = [p for p in pattern.replace("\\", "/").split("/") if p not in ("", ".")]
    found: list[Path] = []
    seen: set[str] = set()

    def visit(here: Path, relative: list[str]) -> None:
        real = os.path.realpath(here)
        if real in seen:
            return
        seen.add(real)
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            return  # vanished, or not ours to read
        for entry in entries:
            path = [*relative, entry.name]
            if _glob_match(parts, path):
                found.append(here / entry.name)
            if not _glob_prefix(parts, path) or not _is_folder(entry):
                continue
            if entry.is_symlink() and not inside(Path(entry.path), root):
                if refused is not None:
                    refused.append(Path(entry.path))
                continue
            visit(Path(entry.path), path)

    visit(folder, [])
    return sorted(found)


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _glob_match(pattern: list[str], path: list[str]) -> bool:
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(_glob_match(rest, path[skip:]) for skip in range(len(path) + 1))
    return bool(path) and fnmatchcase(path[0], head) and _glob_match(rest, path[1:])


def _glob_prefix(pattern: list[str], path: list[str]) -> bool:
    """Whether some path below ``path`` could match ``pattern``."""
    if not path:
        return True
    if not pattern:
        return False
    if pattern[0] == "**":
        return True
    return fnmatchcase(path[0], pattern[0]) and _glob_prefix(pattern[1:], path[1:])


def _enters(folder: Path, name: str) -> bool:
    if name.startswith(".") or name in SKIPPED_FOLDERS:
        return False
    child = folder / name
    try:
        info = os.lstat(child)
        if stat.S_ISLNK(info.st_mode) or (child / "pyvenv.cfg").exists():
            return False
        return info.st_dev == os.lstat(folder).st_dev or not _pseudo(child)
    except OSError:
        return False


def _pseudo(folder: Path) -> bool:
    """A file system without storage (proc, sysfs, cgroup): it holds no files anyone wrote."""
    try:
        return os.statvfs(folder).f_blocks == 0
    except OSError:
        return True


def _read_at_most(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left > 0:
        try:
            chunk = os.read(fd, min(left, 1 << 20))
        except BlockingIOError:  # only a pipe or device would block, and those were refused
            break
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _outside(path: Path, root: Roots) -> FileRefused:
    shown = " or ".join(os.path.realpath(r) for r in (root if isinstance(root, tuple) else (root,)))
    return FileRefused(
        path,
        f"{path.name} is a link that leads outside {shown}",
        f"it points to {os.path.realpath(path)}; files are read only inside the folder they were "
        "found in, so a trail folder cannot be a way to read other files of this machine",
        "copy the file into the folder instead of linking to it",
    )


def _unopenable(path: Path, exc: OSError) -> FileRefused:
    if exc.errno == errno.ELOOP:
        return FileRefused(
            path,
            f"{path.name} is a symbolic link that loops (it leads back to itself)",
            "a link cycle has no file at its end",
            "replace the link with the file it should point to, or remove it",
        )
    return FileRefused(
        path,
        f"cannot read {path.name}: {exc.strerror or exc}",
        "the file is missing or this process may not read it",
        "check that the file exists and is readable",
    )


def _not_regular(path: Path, mode: int) -> FileRefused:
    kind = (
        "a folder"
        if stat.S_ISDIR(mode)
        else "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "a device"
    )
    return FileRefused(
        path,
        f"{path.name} is {kind}, not a regular file",
        "only regular files are read: a pipe or device could keep the run waiting forever",
        "replace it with a regular file, or remove it",
    )


def _too_big(path: Path, size: int, limit: int) -> FileRefused:
    return FileRefused(
        path,
        f"{path.name} is {shown_size(size)}, more than the {shown_size(limit)} a file may have",
        "trail and workspace files are small text; a huge file is a mistake or an attack on memory",
        "split the file, or raise the limit (--trailblaze-max-file-size / ini trailblaze_max_file_size; "
        "trailblaze check --max-file-size)",
    )
