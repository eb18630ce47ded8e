"""What an MCP server writes, kept within bounds: its log file, and the lines of its pipes.

A server may write without end: 375 MB of stderr in 20 s, copied into each failing trail's
artifacts again, or one stdout line of hundreds of megabytes. So:

- ``ServerLog`` writes each line to the server's log file as it comes (``tail -f`` works), and
  keeps the file to about its last ``LOG_LIMIT`` bytes: past twice the limit it is rewritten as a
  note of what was dropped (bytes and lines) followed by the most recent lines;
- ``LineSplitter`` cuts a pipe's stream into lines in linear time (joining a growing buffer
  with every chunk was quadratic: a 100 MB line took minutes, and read as a server that did not
  answer) and reports a line longer than its limit instead of holding it: a stderr line is
  kept cut, with the size of the rest; a stdout message past ``MAX_MESSAGE_CHARS`` means the
  server's answer is too big, which the connection reports as that, not as a timeout.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: The log file keeps about this much of the most recent output.
LOG_LIMIT = 1024 * 1024
#: A stderr line longer than this is cut (the rest is counted, not kept).
LINE_LIMIT = 16 * 1024
#: A JSON-RPC message on stdout longer than this is refused: the server is stopped.
MAX_MESSAGE_CHARS = 32 * 1024 * 1024


class ServerLog:
    """A server's log file, written line by line and kept to its last ``limit`` bytes."""

    def __init__(self, path: Path, limit: int = LOG_LIMIT) -> None:
        self.path = path
        self.limit = limit
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = path.open("a", encoding="utf-8")
        self._size = self._handle.tell()
        self._recent: deque[str] = deque()
        self._recent_size = 0
        self._note_size = 0  # the note at the top of the file, after a rewrite
        self._popped = 0  # lines out of ``_recent`` since the last rewrite
        self.dropped_bytes = 0
        self.dropped_lines = 0

    def write(self, line: str) -> None:
        data = line + "\n"
        with self._lock:
            if self._handle.closed:
                return
            self._handle.write(data)
            self._size += len(data)
            self._recent.append(data)
            self._recent_size += len(data)
            while self._recent_size > self.limit and len(self._recent) > 1:
                self._recent_size -= len(self._recent.popleft())
                self._popped += 1
            if self._size > 2 * self.limit:
                self._rewrite()

    def flush(self) -> None:
        with self._lock:
            if not self._handle.closed:
                self._handle.flush()

    def close(self) -> None:
        with self._lock:
            if not self._handle.closed:
                self._handle.close()

    def _rewrite(self) -> None:
        """The file becomes: what was dropped, then the recent lines (a fresh file, renamed in)."""
        self.dropped_bytes += self._size - self._recent_size - self._note_size
        self.dropped_lines += self._popped
        self._popped = 0
        self._handle.close()
        temp = self.path.with_name(self.path.name + ".tmp")
        note = self._note()
        with temp.open("w", encoding="utf-8") as out:
            out.write(note)
            out.writelines(self._recent)
        temp.replace(self.path)
        self._handle = self.path.open("a", encoding="utf-8")
        self._note_size = len(note)
        self._size = self._note_size + self._recent_size

    def _note(self) -> str:
        dropped = f"{self.dropped_bytes:,} characters ({self.dropped_lines:,} lines)"
        return f"[trailblaze: {dropped} of earlier output dropped; this log keeps the last {self.limit:,}]\n"


class CommandLogs:
    """The server logs of one command (``trailblaze check``, ``toolbox``): a fresh folder of its
    own, so runs never mix and none is left behind; ``finish`` removes it unless what the command
    printed names it (a server that failed to start is reported with its log, which must stay)."""

    def __init__(self, command: str) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=f"trailblaze-{command}-logs-"))

    def finish(self, printed: Iterable[str]) -> None:
        if not any(str(self.path) in text for text in printed):
            shutil.rmtree(self.path, ignore_errors=True)


@dataclass
class Overlong:
    """A line longer than the splitter's limit: its start, and its whole length."""

    start: str
    length: int

    def cut(self) -> str:
        return f"{self.start}… [line cut: {self.length - len(self.start):,} more characters]"


class LineSplitter:
    """Whole lines from a stream of text chunks, in linear time, none held past ``limit`` characters."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._parts: list[str] = []
        self._size = 0
        self._start: str | None = None  # the kept start of a line already past the limit

    def feed(self, chunk: str) -> list[str | Overlong]:
        """The lines ``chunk`` completes (an ``Overlong`` for a line past the limit)."""
        pieces = chunk.split("\n")
        done: list[str | Overlong] = []
        for piece in pieces[:-1]:
            done.append(self._complete(piece))
        self._add(pieces[-1])
        return done

    def pending(self) -> int:
        """How many characters of an unfinished line have arrived."""
        return self._size

    def _add(self, piece: str) -> None:
        if not piece:
            return
        self._size += len(piece)
        if self._start is not None:
            return  # past the limit: counted, not kept
        self._parts.append(piece)
        if self._size > self.limit:
            self._start = "".join(self._parts)[: self.limit]
            self._parts = []

    def _complete(self, piece: str) -> str | Overlong:
        self._add(piece)
        size, start = self._size, self._start
        line = "".join(self._parts)
        self._parts, self._size, self._start = [], 0, None
        return Overlong(start, size) if start is not None else line
