"""A local Appium server for the run: started from a Node install, stopped with its process group.

``--trailblaze-appium-server DIR`` starts one per worker from ``DIR/node_modules/appium``; the
reaper kills its group even when no teardown runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

from ..core.errors import DriverError
from ..core.reaper import REAPER

SERVER_START_S = 60.0


class LocalAppiumServer:
    """An Appium server this run starts from a Node install, and stops at the end."""

    def __init__(self, home: Path, log_path: Path) -> None:
        self.home = home
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> str:
        entry = self.home / "node_modules" / "appium" / "index.js"
        if not entry.is_file():
            raise DriverError(
                f"no Appium in {self.home} (looked for {entry})\n"
                f"  fix: run `npm install appium@3 @appium/fake-driver` there, or point "
                f"--trailblaze-appium-server at the folder that has it"
            )
        port = _free_port()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("wb")
        argv = [
            "node",
            str(entry),
            "server",
            "--address",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warn",
        ]
        env = {**os.environ, "APPIUM_HOME": str(self.home)}
        self.process = subprocess.Popen(
            argv,
            cwd=self.home,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        REAPER.watch(self.process.pid)  # the group dies with this process even if no teardown runs
        log.close()
        self.url = f"http://127.0.0.1:{port}"
        self._wait_ready()
        return self.url

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + SERVER_START_S
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                tail = self.log_path.read_text(errors="replace").strip().splitlines()[-8:]
                self.stop()
                raise DriverError(
                    f"the local Appium server exited with code {self.process.returncode} while starting\n"
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
        """SIGTERM the group, wait 5 s, SIGKILL the group (also children that outlived the server)."""
        process, self.process = self.process, None
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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
