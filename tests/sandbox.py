"""What tests leave on the machine: the files they write and the processes they start.

Shared by every test folder (``pythonpath = ["tests"]``); the folders are not packages, so their
conftests import this module instead of each other.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

#: Conftest code for pytester dirs: ``descendants()`` lists (pid, command line) of every process
#: started below this pytest process, read from /proc.
PROCESS_PROBE = """
import os

def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""

def descendants(root=None):
    root = os.getpid() if root is None else root
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append((child, _cmdline(child)))
            todo.append(child)
    return found
"""


def write(base: Path, relpath: str, text: str) -> Path:
    """Write dedented ``text`` to ``base/relpath``, creating folders."""
    path = base / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def processes() -> dict[int, str]:
    """Every process of the machine: pid -> command line (``ps -ww -eo pid,args``)."""
    ps = ["ps", "-ww", "-eo", "pid=,args="]
    out = subprocess.run(ps, capture_output=True, text=True, check=True).stdout
    table = {}
    for line in out.splitlines():
        pid, _, args = line.strip().partition(" ")
        if pid.isdigit():
            table[int(pid)] = args.strip()
    return table


def matching(marker: str) -> dict[int, str]:
    """Processes whose command line contains ``marker`` (this process and ``ps`` excluded)."""
    me = os.getpid()
    return {
        pid: args
        for pid, args in processes().items()
        if marker in args and pid != me and not args.startswith("ps ")
    }


def alive(pid: int, cmdline: str) -> bool:
    """True while ``pid`` still runs the same command line (a reused pid does not count)."""
    return processes().get(pid) == cmdline
