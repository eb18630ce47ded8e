"""Running code that trails and tool files name: it may try to end the process its own way.

A module that calls ``sys.exit()`` when imported (``venv.__main__``) or a tool that raises
``SystemExit`` or ``KeyboardInterrupt`` itself would otherwise end collection or the run, with
pytest's exit code, no summary and no report (``trailblaze check`` even exited 0). Inside
``foreign_code()`` both become ``ForeignExit``, an ordinary error the caller reports as a failure
at the code's file or step.

A real Ctrl-C is told apart by its signal: while the block runs on the main thread, SIGINT and
SIGTERM (which the plugin turns into a ``KeyboardInterrupt`` too) are noted before the handler
that was installed (Python's, pytest's, ours) runs, and a ``KeyboardInterrupt`` after a noted
signal still stops the run.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

_RULE = "code that trails and tool files name must fail by raising an error, not end the process"


class ForeignExit(Exception):
    """The code raised ``SystemExit``, or ``KeyboardInterrupt`` without a Ctrl-C; the message says which."""


@contextmanager
def foreign_code() -> Iterator[None]:
    """A block that runs a stranger's code: its own ``SystemExit`` / ``KeyboardInterrupt`` are errors."""
    watch = _SignalWatch.install()
    try:
        yield
    except SystemExit as exc:
        raise ForeignExit(f"called sys.exit({exc.code!r}); {_RULE}") from None
    except KeyboardInterrupt:
        if watch is None or watch.received:
            raise
        raise ForeignExit(f"raised KeyboardInterrupt itself (no Ctrl-C was pressed); {_RULE}") from None
    finally:
        if watch is not None:
            watch.remove()


#: The signals that stop a run by raising ``KeyboardInterrupt`` (SIGTERM through the plugin's handler).
WATCHED = (signal.SIGINT, signal.SIGTERM)

Handler = Callable[[int, FrameType | None], object] | int | None


class _SignalWatch:
    """Notes a SIGINT or SIGTERM, then hands it to the handler that was there before."""

    def __init__(self) -> None:
        self.previous: dict[int, Handler] = {}
        self.received = False

    @classmethod
    def install(cls) -> _SignalWatch | None:
        if threading.current_thread() is not threading.main_thread():
            return None  # signals reach the main thread only; a KeyboardInterrupt here is the code's own
        watch = cls()
        try:
            for signum in WATCHED:
                watch.previous[signum] = signal.getsignal(signum)
                signal.signal(signum, watch.handle)
        except (ValueError, OSError, TypeError):
            watch.remove()
            return None
        return watch

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.received = True
        previous = self.previous.get(signum)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL and signum == signal.SIGINT:
            raise KeyboardInterrupt
        elif previous == signal.SIG_DFL:  # SIGTERM with no handler of anyone's: end as it would have
            self.remove()
            signal.raise_signal(signum)

    def remove(self) -> None:
        for signum, previous in self.previous.items():
            if signal.getsignal(signum) == self.handle:
                signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
