"""A browser that never finishes starting: the message, and making sure it is gone.

Playwright waits for a launched browser to open its DevTools connection; a program that hangs
instead (a wrapper script waiting on something, a browser that cannot start headless) would hold
the run for Playwright's default 180 s. ``BrowserHost`` bounds that wait by the launch timeout;
this module turns Playwright's call log (``<launching> <command>``, ``<launched> pid=N``) into a
message that says what was started, and kills what is left of it.
"""

from __future__ import annotations

import os
import re
import signal
from contextlib import suppress
from pathlib import Path

_LAUNCHING = re.compile(r"<launching> (.+)")
_LAUNCHED_PID = re.compile(r"<launched> pid=(\d+)")


def launched_command(log: str) -> str:
    """The command line Playwright's call log says it launched ('' when it launched nothing)."""
    found = _LAUNCHING.search(log)
    return found.group(1).strip() if found else ""


def shorten(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def launch_timeout_message(browser: str, waited_s: float, log: str, executable: str) -> str:
    """What was started, that it never answered, and the two ways out."""
    launched = launched_command(log) or executable or browser
    return (
        f"could not start {browser}: the browser did not start within {waited_s:g} s\n"
        f"  why: launched {shorten(launched)}; it never opened its DevTools connection, "
        f"so it was stopped\n"
        f"  fix: point --trailblaze-browser-path at a working {browser} build (it must start with "
        f"--headless --remote-debugging-pipe), or raise --trailblaze-browser-launch-timeout "
        f"(ini trailblaze_browser_launch_timeout) on a slow machine"
    )


def kill_launched(log: str) -> None:
    """Kill the browser a failed launch left running, with its process group.

    Stopping Playwright's driver stops what it launched; this makes sure of it for a program that
    hung (the pid is checked to still run the launched executable before anything is killed).
    """
    pid_found, command = _LAUNCHED_PID.search(log), launched_command(log)
    if pid_found is None or not command:
        return
    pid = int(pid_found.group(1))
    try:
        running = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return  # gone already (or no /proc to check it against)
    if command.split(" ", 1)[0].encode() not in running:
        return
    with suppress(ProcessLookupError, PermissionError):
        if os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            os.kill(pid, signal.SIGKILL)
