"""The examples' set-up: serve the sample app on 127.0.0.1 and hand its URL to the trails.

Trails write ``{{baseUrl}}/index.html``; the plugin interpolates ``baseUrl`` from memory, which
the ``trailblaze_memory_defaults`` fixture seeds (``--trailblaze-memory baseUrl=...`` overrides
it, to run the same trails against another deployment).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

SAMPLE_APP = Path(__file__).parent / "sample-app"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Keep request lines out of the test output."""


@pytest.fixture(scope="session")
def sample_app_url() -> Iterator[str]:
    """The sample app, served from a thread on a free port of 127.0.0.1 for the session."""
    handler = functools.partial(_QuietHandler, directory=str(SAMPLE_APP))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="sample-app", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="session")
def trailblaze_memory_defaults(sample_app_url: str) -> dict[str, str]:
    return {"baseUrl": sample_app_url}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave trails tagged expected-failure out unless ``-m`` asks for them."""
    if "expected_failure" in (config.option.markexpr or ""):
        return
    kept = [item for item in items if item.get_closest_marker("expected_failure") is None]
    if len(kept) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in kept])
        items[:] = kept
