"""Node's compile cache for the Node.js processes a run starts: Playwright's driver, Appium, MCP servers.

Node compiles the JavaScript of a program every time it starts unless ``NODE_COMPILE_CACHE``
names a folder where it keeps the compiled code (Node 22.1 and later; older versions ignore the
variable). Playwright's driver is such a program, started once per process: measured on a 2-core
VM, its start took 270-310 ms, 190-210 ms with the cache, and each xdist worker pays it before its
first trail.

The cache is code Node runs, so it lives in a folder only this user can write: the user's cache
folder (``$XDG_CACHE_HOME``, else ``~/.cache``), ``pytest-trailblaze/node-compile-cache``, made
with mode 0700. A folder there that others can write, or that another user owns, is not used, and
nor is any when the folder cannot be made (a read-only home): the process then starts as it
would have. Node keeps a subfolder per Node version and checks each entry against the source it
was compiled from, so an upgrade of Playwright or Node does not run stale code.

A user who set ``NODE_COMPILE_CACHE`` (a folder of their own) or ``NODE_DISABLE_COMPILE_CACHE``
keeps their choice.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

CACHE_VARIABLE = "NODE_COMPILE_CACHE"
OPT_OUT_VARIABLE = "NODE_DISABLE_COMPILE_CACHE"
FOLDER = Path("pytest-trailblaze", "node-compile-cache")


def cache_folder(environ: Mapping[str, str]) -> Path | None:
    """Our private compile-cache folder, made if missing; None when none can be had safely."""
    home = environ.get("HOME")
    base = environ.get("XDG_CACHE_HOME") or (str(Path(home, ".cache")) if home else "")
    if not base or not Path(base).is_absolute():
        return None
    folder = Path(base, FOLDER)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if not private or info.st_uid != getattr(os, "getuid", lambda: info.st_uid)():
        return None
    return folder


def compile_cache_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variable to add to a Node process's environment, or nothing (the user's choice stands)."""
    environ = os.environ if environ is None else environ
    if CACHE_VARIABLE in environ or OPT_OUT_VARIABLE in environ:
        return {}
    folder = cache_folder(environ)
    return {CACHE_VARIABLE: str(folder)} if folder is not None else {}


@contextmanager
def compile_cache_for_children() -> Iterator[None]:
    """The cache in this process's environment for the block, for a library that starts Node with
    a copy of ``os.environ`` (Playwright's driver); the environment is put back after."""
    added = compile_cache_env()
    os.environ.update(added)
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)
