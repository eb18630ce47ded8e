"""How long a tool server may take to start and to answer a call, by default.

A module of its own: the run's options read these defaults in every process, an xdist
controller too, which never starts a server and should not import the client to learn them.
"""

from __future__ import annotations

import os

DEFAULT_HANDSHAKE_S = 60.0
DEFAULT_CALL_S = 60.0


def handshake_timeout_default() -> float:
    """60 s, or ``TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS`` as upstream reads it."""
    raw = os.environ.get("TRAILBLAZE_MCP_SUBPROCESS_HANDSHAKE_TIMEOUT_MS", "")
    return int(raw) / 1000 if raw.strip().isdigit() else DEFAULT_HANDSHAKE_S
