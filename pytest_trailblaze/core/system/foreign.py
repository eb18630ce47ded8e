"""Running code that trails and tool files name: it may try to end the process its own way.

A module that calls ``sys.exit()`` when imported (``venv.__main__``) or a tool that raises
``SystemExit`` or ``KeyboardInterrupt`` itself would otherwise end collection or the run, with
pytest's exit code, no summary and no report (``trailblaze check`` even exited 0). Inside
``foreign_code()`` both become ``ForeignExit``, an ordinary error the caller reports as a failure
at the code's file or step.

A real Ctrl-C is told apart by its signal: while the block runs on the main thread, SIGINT is
noted before the handler that was installed (Python's, pytest's, ours) runs, and a
``KeyboardInterrupt`` after a noted SIGINT still stops the run.
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
    watch = _SigintWatch.install()
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


class _SigintWatch:
    """Notes a SIGINT, then hands it to the handler that was there before."""

    def __init__(self, previous: Callable[[int, FrameType | None], object] | int | None) -> None:
        self.previous = previous
        self.received = False

    @classmethod
    def install(cls) -> _SigintWatch | None:
        if threading.current_thread() is not threading.main_thread():
            return None  # signals reach the main thread only; a KeyboardInterrupt here is the code's own
        try:
            watch = cls(signal.getsignal(signal.SIGINT))
            signal.signal(signal.SIGINT, watch.handle)
        except (ValueError, OSError, TypeError):
            return None
        return watch

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.received = True
        if callable(self.previous):
            self.previous(signum, frame)
        elif self.previous == signal.SIG_DFL:
            raise KeyboardInterrupt

    def remove(self) -> None:
        if signal.getsignal(signal.SIGINT) == self.handle:
            signal.signal(signal.SIGINT, self.previous if self.previous is not None else signal.SIG_DFL)
