"""Process groups that die with this process, however it ends.

Teardown stops what the plugin started (the local Appium server, MCP servers and whatever they
spawned in their process groups) when a run ends, fails or is interrupted. A hard end runs no
teardown at all: SIGKILL, ``os._exit`` (pytest-timeout's ``thread`` method), a crash. For those,
each process group the plugin starts is handed to a small watcher process. The watcher reads the
groups from a pipe; when the pipe closes, which the kernel does however this process ends, it
stops every group still handed to it (SIGTERM, up to 2 s, SIGKILL) and exits. Teardown takes a
group back once it has reaped it, so a clean run leaves the watcher nothing to do.

A group number is a pid, and pids are reused (a busy machine with the default ``pid_max`` of
32768 goes round in minutes). Linux hands out no pid that still names a process group, so a
number can only be reused once its group is empty, by a process of its own: the watcher is told
when the leader started (``/proc``'s start time, read while the leader is this process's unreaped
child, so it is surely the leader's) and leaves a number whose process started at another time
alone. A group whose leader is gone but whose children live is still the watcher's to stop.

Why a watcher and not ``PR_SET_PDEATHSIG``: the parent-death signal reaches one process, not its
group, it fires when the spawning *thread* ends (MCP servers are spawned from a background
thread), and a server's own children never get it. The watcher runs in a session of its own, so
a terminal's Ctrl-C (sent to pytest's process group) does not stop it before it has done its job.
The browser needs no watcher: Playwright's driver exits when its pipe to this process closes, and
Chromium exits when its pipe to the driver closes.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

#: The watcher, run with ``python -I -S -c``: standard library only, nothing of the project.
WATCHER = """
import os, signal, sys, time

def alive(group):
    try:
        os.killpg(group, 0)
    except OSError:
        return False
    return True

def started(pid):
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""

def ours(group, start):
    # False when the number now names a process that started at another time than the leader
    return not start or started(group) in ("", start)

def stop(held):
    groups = [group for group, start in sorted(held.items()) if ours(group, start)]
    for group in groups:
        try:
            os.killpg(group, signal.SIGTERM)
        except OSError:
            pass
    deadline = time.monotonic() + 2.0
    while groups and time.monotonic() < deadline:
        groups = [g for g in groups if alive(g)]
        time.sleep(0.05)
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except OSError:
            pass

signal.signal(signal.SIGINT, signal.SIG_IGN)
held = {}
for line in sys.stdin.buffer:
    op, number, start = (line.decode().split() + ["", "", ""])[:3]
    if number.isdigit() and int(number) > 1:
        if op == "+":
            held[int(number)] = start
        else:
            held.pop(int(number), None)
stop(held)
"""
#: How long the exit of this process waits for the watcher to finish stopping leftovers.
EXIT_WAIT_S = 5.0


class Reaper:
    """This process's watcher: started on first use, one per process (a forked child gets its own)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = 0
        self._process: subprocess.Popen[bytes] | None = None

    def watch(self, group: int) -> None:
        """Stop process group ``group`` when this process ends without having called ``release``.

        ``group`` is the pid of a child this process started and has not reaped yet.
        """
        self._send(f"+ {group} {start_time(group)}\n")

    def release(self, group: int) -> None:
        """``group`` was stopped and reaped by teardown; its number may be reused from now on."""
        self._send(f"- {group}\n")

    def _send(self, line: str) -> None:
        with self._lock:
            pipe = self._pipe()
            if pipe is None:
                return
            try:
                pipe.write(line.encode())
                pipe.flush()
            except OSError:  # the watcher is gone (killed by someone): nothing left to do for it
                self._process = None

    def _pipe(self) -> IO[bytes] | None:
        if self._process is None or self._pid != os.getpid():
            self._process = _start_watcher()
            self._pid = os.getpid()
            if self._process is not None:
                atexit.register(_close, self._process, self._pid)
        return self._process.stdin if self._process is not None else None


def start_time(pid: int) -> str:
    """When process ``pid`` started (clock ticks since boot), or "" where there is no ``/proc``.

    The watcher reads the same field the same way to tell a reused number from the group it holds.
    """
    try:
        return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def _close(process: subprocess.Popen[bytes], owner: int) -> None:
    """At a normal exit: close the pipe and reap the watcher once it has stopped any leftovers."""
    if owner != os.getpid():
        return  # a forked child's copy: the watcher belongs to its parent
    try:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=EXIT_WAIT_S)
    except (OSError, subprocess.TimeoutExpired):
        pass


def _start_watcher() -> subprocess.Popen[bytes] | None:
    try:
        return subprocess.Popen(
            # one line on the command line (``exec`` of the source's repr), named for ``ps`` readers
            [sys.executable, "-I", "-S", "-c", f"exec({WATCHER!r})", "trailblaze-reaper"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:  # no watcher is no reason to fail a run: teardown still stops everything
        return None


REAPER = Reaper()
