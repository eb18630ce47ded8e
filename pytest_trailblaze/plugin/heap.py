"""The heap import and collection built, frozen for the garbage collector while the session runs.

What a session imports and collects (pytest, pydantic, Playwright's client, the plugin, the
items and their trails) stays alive to its end and is most of the heap: every full collection of
the cyclic garbage collector walks all of it again, and pytest itself runs five at the end of the
session (to surface exceptions raised in ``__del__``). Measured on 20 web trails, those walks cost
about 0.2 CPU-seconds per process, a sixth of what it spends in Python. Frozen
(``gc.freeze``) when the test loop starts, that heap is left out of them; what the tests create is
collected as before, pytest's last collections included. The heap is unfrozen once pytest's own
clean-up has run, so a process that goes on (``pytest.main()`` called in a loop, pytester) keeps no
frozen objects.

When the interpreter exits, it is frozen once more. CPython's shutdown runs full collections
while it tears the modules down, walking the whole heap to free memory the operating system takes
back anyway: measured after 20 web trails, 0.20-0.27 s between the first exit handler and the end
of the process, against 0.02-0.03 s frozen. Each xdist worker pays it again, and the controller
waits for them. What this gives up is finalizing garbage in reference cycles at exit, which the
language does not promise either (``__del__`` may not be called for objects alive at exit); exit
handlers (``atexit``, ``weakref.finalize``, logging's flush) still run as before.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Generator

import pytest


def freeze_start_up(config: pytest.Config) -> None:
    """Freeze what pytest and the plugins loaded before the plugin's own modules load (loading them
    set off a full collection that walked it too: about 30 ms per process), and register the
    unfreeze that ends every freeze of the session at once, so a configure that fails undoes it."""
    gc.freeze()
    # Clean-ups run last-registered first: registered before pytest's own (the unraisable-exception
    # check, whose collections should not walk the frozen heap), this one runs after them.
    config.add_cleanup(gc.unfreeze)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:  # registered where freeze_start_up ran
    # Once per process however many sessions ``pytest.main()`` runs; it runs after the exit
    # handlers registered later (last in, first out).
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> Generator[None, object, object]:
    """Freeze what import and collection left, without a collection first: one costs as much as
    the walks saved later, for the few dozen unreachable objects measured at that point (kept
    until the session ends)."""
    gc.freeze()
    return (yield)
