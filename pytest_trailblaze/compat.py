"""Every place the plugin uses a part of another library that the library does not publish.

Where no published interface does the job, pytest-trailblaze reaches into pytest, pytest-xdist
(execnet), asyncio or allure-python-commons. Each reach is here, behind one function whose
docstring says what it replaces, the versions it was tested with, and the published interface to
switch to once there is one. An upgrade that removes or changes what a function relies on fails
``tests/unit/test_compat.py`` with that function's name, instead of a run failing far from the cause.

The one such use inside ``core/`` (PyYAML's resolver hooks) lives in
``core/trail/yaml_compat.py``, because ``core`` imports nothing outside itself.

This module imports nothing of the package. pytest, asyncio and allure are imported by the
functions that use them: ``drivers/`` (asyncio's loop mark) and the ``trailblaze`` command load
this module without pytest, an xdist controller loads it for the terminal and needs no asyncio
(about 10 ms to import), and allure is an optional extra.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

if TYPE_CHECKING:
    import asyncio

    import pytest
    from _pytest._code.code import ReprExceptionInfo as ReprExceptionInfo
    from _pytest._code.code import TerminalRepr as TerminalRepr

Stream = TypeVar("Stream")

#: The versions every function below was tested with (the pins of constraints.txt).
TESTED_WITH = "CPython 3.11-3.13, pytest 9.0, pytest-xdist 3.8, execnet 2.1, allure-python-commons 2.16"


# -- pytest ---------------------------------------------------------------------------------------
def plain_longrepr(text: str | None, path: str, line: int, crash: str) -> ReprExceptionInfo:
    """A failure report made of ``text`` (shown as it is) and a crash line ``path:line: crash``.

    Replaces: building ``_pytest._code.code.ReprExceptionInfo`` with one ``ReprEntryNative``
    entry, the only report shape whose crash line pytest serializes (so it reaches the terminal,
    ``--tb=line``, the short summary and JUnit's ``message`` through pytest-xdist and through a
    rebuild from the serialized form). A plain string report would lose the crash line.
    Tested on pytest 9.0. Public interface to switch to: none; pytest publishes
    ``ExceptionInfo.getrepr`` for exceptions with frames only.
    """
    from _pytest._code.code import ReprEntryNative, ReprExceptionInfo, ReprFileLocation, ReprTraceback

    entries = [ReprEntryNative([text.rstrip("\n") + "\n"])] if text is not None else []
    return ReprExceptionInfo(
        reprtraceback=ReprTraceback(entries, None, "native"),
        reprcrash=ReprFileLocation(path, line, crash),
    )


def wrap_terminal_stream(config: pytest.Config, wrap: Callable[[TextIO], Stream]) -> Stream | None:
    """Make pytest's terminal writer write through ``wrap(its stream)``; the new stream, or None
    when there is no terminal reporter of pytest's kind (``-p no:terminal``, a replacement).

    Replaces: the terminal writer's ``_file`` attribute (``terminalreporter._tw._file``), the
    stream everything pytest prints goes to, reports or not (warnings, notes, headers).
    Tested on pytest 9.0. Public interface to switch to: none; ``Config.get_terminal_writer()``
    gives the writer, but its stream is set only when the writer is made, before any plugin runs.
    """
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    writer: Any = getattr(reporter, "_tw", None)
    stream = getattr(writer, "_file", None)
    if stream is None:
        return None
    wrapped = wrap(stream)
    writer._file = wrapped
    return wrapped


def wrap_log_file_stream(config: pytest.Config, wrap: Callable[[TextIO], object]) -> bool:
    """Make ``--log-file`` records go through ``wrap(its stream)``; False when there is no such
    file stream (logging plugin disabled, replaced, or its handler not writing a text file).

    Replaces: the logging plugin's ``log_file_handler`` attribute (the handler pytest makes for
    ``--log-file``, a ``logging.FileHandler``); its stream is then swapped with the public
    ``logging.StreamHandler.setStream``. Tested on pytest 9.0. Public interface to switch to:
    none for the handler.
    """
    handler = getattr(config.pluginmanager.get_plugin("logging-plugin"), "log_file_handler", None)
    if not isinstance(handler, logging.StreamHandler) or not isinstance(handler.stream, io.TextIOWrapper):
        return False
    handler.setStream(wrap(handler.stream))
    return True


def capture_suspended(config: pytest.Config) -> AbstractContextManager[None]:
    """A block during which pytest's output capturing is off (global and fixture capture), so a
    line written in it reaches the terminal while a test runs, as live logging does.

    Replaces: ``CaptureManager.global_and_fixture_disabled()`` of the ``capturemanager`` plugin.
    Tested on pytest 9.0. Public interface to switch to: ``capsys.disabled()`` does the same but
    only inside a test that requested the fixture; there is none for plugin code.
    """
    capture = config.pluginmanager.get_plugin("capturemanager")
    if capture is None:  # -p no:capture
        return nullcontext()
    suspended: AbstractContextManager[None] = capture.global_and_fixture_disabled()
    return suspended


#: Any value the terminal reporter never holds as a location (a path or None).
_NOT_A_LOCATION = -2


def forget_report_location(reporter: Any) -> None:
    """Make the terminal reporter write the test's location again before its next result word.

    After a line of our own below ``path::name``, the reporter's ``PASSED`` would land after
    that line; with the location forgotten it starts a fresh ``path::name PASSED`` line.
    Replaces: setting ``TerminalReporter.currentfspath`` (the location the reporter believes
    it wrote last) to a value no location has. Tested on pytest 9.0. Public interface to switch
    to: none; ``TerminalReporter.ensure_newline()`` only ends the line.
    """
    reporter.currentfspath = _NOT_A_LOCATION


# -- pytest-xdist and execnet ---------------------------------------------------------------------
def xdist_worker_pids(config: pytest.Config) -> list[int]:
    """The process ids of an xdist controller's local workers (none in a worker, or without xdist).

    Replaces: the ``dsession`` plugin's ``nodemanager.group`` (the execnet gateways of the
    workers) and each popen gateway's ``_io.popen.pid``. Workers on other hosts (``--tx ssh``)
    have no local process and are left out. Tested on pytest-xdist 3.8 with execnet 2.1. Public
    interface to switch to: none; xdist's worker info has no process id.
    """
    session = config.pluginmanager.get_plugin("dsession")
    group = getattr(getattr(session, "nodemanager", None), "group", None)
    pids = []
    for gateway in list(group or ()):
        pid = getattr(getattr(getattr(gateway, "_io", None), "popen", None), "pid", None)
        if isinstance(pid, int):
            pids.append(pid)
    return pids


# -- asyncio ----------------------------------------------------------------------------------------
def running_loop() -> asyncio.AbstractEventLoop | None:
    """The loop this thread marks as running, or None.

    Replaces: ``asyncio._get_running_loop()``, which Playwright's sync API uses for the same
    purpose. Tested on CPython 3.11-3.13. Public interface to switch to: ``get_running_loop()``
    does the same but raises when no loop is marked, which is the common case here.
    """
    import asyncio

    return asyncio._get_running_loop()


def mark_running_loop(loop: asyncio.AbstractEventLoop | None) -> None:
    """Mark ``loop`` as this thread's running loop (None: no loop), without running it.

    Playwright's sync API marks its loop this way after every call; the plugin puts marks back
    around trails so other libraries' loops work between them (see ``drivers/loopstate.py``).
    Replaces: ``asyncio._set_running_loop()``. Tested on CPython 3.11-3.13. Public interface to
    switch to: none.
    """
    import asyncio

    asyncio._set_running_loop(loop)


def has_ready_callbacks(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether ``loop`` has callbacks queued for its next turn (an answer on its way to a caller).

    Replaces: the ``_ready`` queue of asyncio's ``BaseEventLoop`` (the loops of every event
    loop policy in the standard library). A loop without one reads as having none queued.
    Tested on CPython 3.11-3.13. Public interface to switch to: none.
    """
    return bool(getattr(loop, "_ready", None))


# -- allure-python-commons -------------------------------------------------------------------------
def front_allure_file_writers(front: Callable[[Any], object]) -> Callable[[], None]:
    """Put ``front(writer)`` in place of every Allure result file writer; returns the undo.

    Allure's result files are written by ``AllureFileLogger`` plugins registered in
    allure-python-commons' own plugin manager; each is unregistered and its front registered
    under the writer's name, so every result, container and attachment passes the front first.
    Replaces: ``allure_commons.plugin_manager`` (the module-level pluggy manager allure-pytest
    registers its writer in). Tested on allure-python-commons 2.16 with allure-pytest 2.16.
    Public interface to switch to: none; a listener of our own would see results only after
    they were written.
    """
    import allure_commons
    from allure_commons.logger import AllureFileLogger

    manager = allure_commons.plugin_manager
    swapped = []
    for writer in [p for p in manager.get_plugins() if isinstance(p, AllureFileLogger)]:
        name = manager.get_name(writer)
        stand_in = front(writer)
        manager.unregister(writer)
        manager.register(stand_in, name)
        swapped.append((writer, stand_in, name))

    def undo() -> None:
        for writer, stand_in, name in swapped:
            manager.unregister(stand_in)
            manager.register(writer, name)

    return undo
