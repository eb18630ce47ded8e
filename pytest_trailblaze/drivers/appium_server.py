"""A local Appium server for the run: started from a Node install, stopped with its process group.

``--trailblaze-appium-server DIR`` starts one per worker from ``DIR/node_modules/appium``; the
reaper kills its group even when no teardown runs.

Appium logs what it is sent: at ``info`` and below, the body of every request (the text typed
into a field, the selectors searched for), and drivers put the same values into their errors. So
the server's output never goes straight to a file: it comes through a pipe, and a thread writes it
to the log through the run's masker (``core.masking``), which holds back the end of a chunk that
may be the start of a secret until the next chunk shows whether it is one. Appium also spells
typed text out as a JSON list of characters (``"value":["s","e",...]``); that form is masked too.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from ..core.errors import DriverError
from ..core.masking import Masker
from ..core.system.node_cache import compile_cache_env
from ..core.system.reaper import REAPER

SERVER_START_S = 60.0
#: Appium's ``--log-level`` values the plugin offers (``--trailblaze-appium-log-level``).
APPIUM_LOG_LEVELS = ("error", "warn", "info", "debug")
#: How long stopping waits for the last of the server's output once its group is dead.
LOG_DRAIN_S = 5.0
_POLL_S = 0.2
_CHUNK = 65536
#: Once closing, at most this many more chunks are copied (a process outside the group may write on).
_CLOSING_CHUNKS = 64


class LocalAppiumServer:
    """An Appium server this run starts from a Node install, and stops at the end."""

    def __init__(
        self, home: Path, log_path: Path, masker: Masker | None = None, log_level: str = "warn"
    ) -> None:
        self.home = home
        self.log_path = log_path
        self.masker = masker or Masker()
        self.log_level = log_level
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""
        self._log: MaskedLog | None = None

    def start(self) -> str:
        entry = self.home / "node_modules" / "appium" / "index.js"
        if not entry.is_file():
            raise DriverError(
                f"no Appium in {self.home} (looked for {entry})\n"
                f"  fix: run `npm install appium@3 @appium/fake-driver` there, or point "
                f"--trailblaze-appium-server at the folder that has it"
            )
        port = _free_port()
        argv = ["node", str(entry), "server", "--address", "127.0.0.1", "--port", str(port)]
        argv += ["--log-level", self.log_level, "--log-no-colors"]
        log = MaskedLog(self.log_path, appium_masker(self.masker))
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=self.home,
                env={**os.environ, **compile_cache_env(), "APPIUM_HOME": str(self.home)},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            log.close()
            raise
        REAPER.watch(self.process.pid)  # the group dies with this process even if no teardown runs
        self._log = log.follow(self.process.stdout)
        self.url = f"http://127.0.0.1:{port}"
        self._wait_ready()
        return self.url

    def _wait_ready(self) -> None:
        """Poll ``/status`` until the server answers. ``urllib.request`` is imported here, not with
        the module: it pulls in ``http.client`` and ``ssl`` (10–30 ms), which a web-only run,
        whose options still name this module's log levels, should not pay for at start-up."""
        import urllib.request

        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                code = self.process.returncode
                self.stop()  # the log is complete (and masked) once the group is gone
                tail = self.log_path.read_text(errors="replace").strip().splitlines()[-8:]
                raise DriverError(
                    f"the local Appium server exited with code {code} while starting\n"
                    + "".join(f"    {line}\n" for line in tail)
                    + f"  log: {self.log_path}"
                )
            status = f"{self.url}/status"
            with contextlib.suppress(OSError), urllib.request.urlopen(status, timeout=1) as answer:
                if answer.status == 200:
                    return
            time.sleep(0.2)
        self.stop()
        raise DriverError(
            f"the local Appium server did not answer /status in {SERVER_START_S:g} s; log: {self.log_path}"
        )

    def stop(self) -> None:
        """SIGTERM the group, wait 5 s, SIGKILL the group (also children that outlived the server),
        then finish the log: what the server wrote last, masked, and the pipe closed."""
        process, self.process = self.process, None
        log, self._log = self._log, None
        if process is None:
            return
        if process.poll() is None:
            _signal_group(process.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
        _signal_group(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=5)
        REAPER.release(process.pid)
        if log is not None:
            log.close()


def appium_masker(masker: Masker) -> Masker:
    """The run's secrets plus the way Appium spells typed text: a JSON list of its characters."""
    values = list(masker.secrets)  # the new Masker adds their written forms again
    for secret in masker.secrets:
        if len(secret) > 1:
            letters = [json.dumps(c, ensure_ascii=False) for c in secret]
            values += [",".join(letters), ", ".join(letters)]
    return Masker({f"s{i}": value for i, value in enumerate(values)})


class MaskedLog:
    """A pipe copied into a log file through a masker, by a thread of its own.

    The thread ends at the pipe's end (every process holding it is gone), or, once ``close`` was
    called, as soon as nothing more is waiting: a process that left the server's group and keeps
    the pipe open cannot keep the thread alive. ``close`` leaves no thread and no descriptor.
    """

    def __init__(self, path: Path, masker: Masker) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._stream = masker.stream(path.open("w", encoding="utf-8"))
        self._pipe: IO[bytes] | None = None
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._pump, name="trailblaze-appium-log", daemon=True)

    def follow(self, pipe: IO[bytes] | None) -> MaskedLog:
        """Start copying ``pipe`` (the server's stdout and stderr)."""
        if pipe is not None:
            self._pipe = pipe
            self._thread.start()
        return self

    def _pump(self) -> None:
        """Copy until the end; a log that cannot be written is still drained, or the server would
        block on a full pipe."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        writable = True
        for chunk in self._chunks():
            writable = writable and self._write(decoder.decode(chunk))
        if writable:
            self._write(decoder.decode(b"", final=True))
        with contextlib.suppress(OSError, ValueError):
            self._stream.close()  # writes the held-back end, masked

    def _write(self, text: str) -> bool:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            return False
        return True

    def _chunks(self) -> Iterator[bytes]:
        assert self._pipe is not None
        fd, left = self._pipe.fileno(), _CLOSING_CHUNKS
        while left > 0:
            closing = self._closing.is_set()
            ready, _, _ = select.select([fd], [], [], 0 if closing else _POLL_S)
            if not ready:
                if closing:
                    return
                continue
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                return
            left -= 1 if closing else 0
            yield chunk

    def close(self, timeout: float = LOG_DRAIN_S) -> None:
        """Let the thread copy what is left (waiting up to ``timeout`` for the pipe's end), then
        stop it and close the pipe and the file."""
        if self._pipe is None:
            self._stream.close()  # never followed a pipe: only the file is open
            return
        self._thread.join(timeout)
        self._closing.set()
        self._thread.join()
        self._pipe.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
