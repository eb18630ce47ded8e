"""A lock on a folder, held while a file in it is rewritten: pytest-xdist workers recording two
platforms of one trail file (or two devices of one v1 folder) take turns."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on a folder (POSIX ``flock``; elsewhere a lock file in the temp folder)."""
    if sys.platform != "win32":
        import fcntl

        fd = os.open(folder, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock
        return
    import msvcrt

    name = "trailblaze-" + str(abs(hash(str(folder.resolve())))) + ".lock"
    with (Path(tempfile.gettempdir()) / name).open("a+b") as handle:
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
        try:
            yield
        finally:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
