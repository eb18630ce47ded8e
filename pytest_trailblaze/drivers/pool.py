"""Device pools: each pytest-xdist worker leases one device of a pool for its whole session.

A lease is an exclusive ``flock`` on ``<run folder>/<profile>-<n>.lock``. The kernel drops it
when the holder exits, however it exits, so a crashed worker frees its device, and two workers
never hold one device. The run folder is made for one run (by xdist's controller, or by the
only process) and removed at its end, so the leases of two runs on one machine never meet.

Lock files are never removed while the run goes on: removing a file another worker has just
opened would let two workers lock two different files of the same name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..core.errors import DriverError
from .profiles import DeviceProfile, PoolDevice


@dataclass
class Lease:
    """A device this process holds until ``release`` (or until it exits)."""

    profile: str
    index: int
    device: PoolDevice
    handle: IO[str]

    def release(self) -> None:
        with contextlib.suppress(OSError):
            self.handle.close()


def lease_device(profile: DeviceProfile, run_dir: Path, holder: str, start: int = 0) -> Lease:
    """The first free device of the pool, trying from ``start`` (a worker's number) round the pool.

    Starting at the worker's number gives ``gw0`` the first device and ``gw1`` the second when
    both are free, so the same worker tends to get the same device run after run.
    """
    import fcntl  # POSIX only; imported here so the plugin loads where pools are not used

    run_dir.mkdir(parents=True, exist_ok=True)
    size = len(profile.devices)
    for step in range(size):
        index = (start + step) % size
        handle = lock_path(run_dir, profile.name, index).open("a+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by another worker
            handle.close()
            continue
        handle.seek(0)
        handle.truncate()
        handle.write(f"{holder} (pid {os.getpid()}) holds {profile.devices[index].label}\n")
        handle.flush()
        return Lease(profile.name, index, profile.devices[index], handle)
    raise DriverError(exhausted(profile, run_dir))


def lock_path(run_dir: Path, profile: str, index: int) -> Path:
    return run_dir / f"{profile}-{index + 1}.lock"


def exhausted(profile: DeviceProfile, run_dir: Path) -> str:
    """Why no device is free: who holds each one, and the ways out."""
    holders = []
    for index in range(len(profile.devices)):
        with contextlib.suppress(OSError):
            holders.append(lock_path(run_dir, profile.name, index).read_text(encoding="utf-8").strip())
    size = len(profile.devices)
    listed = "".join(f"\n    {line}" for line in holders if line)
    return (
        f"every device of the pool '{profile.name}' is held by another worker ({size} "
        f"device{'s' if size != 1 else ''}):{listed}\n"
        f"  why: a worker keeps its device for its whole session, so at most {size} worker"
        f"{'s' if size != 1 else ''} can run '{profile.name}' items\n"
        f"  fix: run with `--dist loadgroup` (each device of a pool becomes one xdist group), "
        f"or with at most -n {size}, or list more devices under `devices:`"
    )


class DevicePools:
    """The pool devices this worker leased, by profile: each leased on first use, kept to the end."""

    def __init__(self, run_dir: Path | None, worker: str = "main") -> None:
        self.worker = worker
        self._run_dir = run_dir
        self._own_dir: Path | None = None
        self._leases: dict[str, Lease] = {}

    def device(self, profile: DeviceProfile) -> PoolDevice | None:
        """The profile's device for this worker (None for a profile without ``devices:``)."""
        if not profile.is_pool:
            return None
        if profile.name not in self._leases:
            start = int(self.worker[2:]) if self.worker[2:].isdigit() else 0  # gw3 -> 3
            self._leases[profile.name] = lease_device(profile, self._dir(), self.worker, start)
        return self._leases[profile.name].device

    def _dir(self) -> Path:
        """The run's lease folder; a process outside a pytest run (a script) makes its own."""
        if self._run_dir is None:
            self._own_dir = self._run_dir = Path(tempfile.mkdtemp(prefix="trailblaze-leases-"))
        return self._run_dir

    def release(self) -> None:
        for lease in self._leases.values():
            lease.release()
        self._leases.clear()
        if self._own_dir is not None:
            shutil.rmtree(self._own_dir, ignore_errors=True)
            self._own_dir = self._run_dir = None
