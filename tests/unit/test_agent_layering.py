"""Where the agent lives: ``core/`` stays pure and the provider SDKs load only when a request is sent.

Checked in a fresh interpreter, so what other tests imported cannot hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import importlib, json, pkgutil, sys
import pytest_trailblaze.agent as agent
import pytest_trailblaze.core as core
for package in (core, agent):
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
from pytest_trailblaze.agent import LlmSpec, make_provider
make_provider(LlmSpec("openai", "m", "http://127.0.0.1:9/v1"))
make_provider(LlmSpec("anthropic", "m", "http://127.0.0.1:9"))
heavy = ("pytest", "_pytest", "playwright", "appium", "selenium", "mcp", "openai", "anthropic")
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules} & set(heavy))))
"""


def test_core_and_the_agent_import_no_pytest_driver_or_provider_sdk() -> None:
    """Importing every module of ``core`` and ``agent``, and making both providers, loads none
    of pytest, Playwright, Appium, MCP or the provider SDKs (those load on the first request)."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert json.loads(out.splitlines()[-1]) == []
