"""The first trail of README.md, read the way a reader copies it: the fenced blocks between the
``--8<-- [start:NAME]`` / ``[end:NAME]`` markers (the docs site includes the same sections)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def section(name: str, text: str | None = None) -> str:
    """The code inside the fenced block of README section ``name``."""
    text = README.read_text(encoding="utf-8") if text is None else text
    found = re.search(rf"\[start:{name}\].*?\n```\w*\n(.*?)\n```\n.*?\[end:{name}\]", text, re.S)
    assert found, f"README.md has no section '{name}' with a fenced block"
    return found.group(1) + "\n"


def write_first_trail(folder: Path) -> Path:
    """Lay out the README's first trail in ``folder`` as the README says: ``trails/hello.html``
    and ``trails/hello.trail.yaml``. Returns the trails folder."""
    trails = folder / "trails"
    trails.mkdir(parents=True, exist_ok=True)
    (trails / "hello.html").write_text(section("first-page"), encoding="utf-8")
    (trails / "hello.trail.yaml").write_text(section("first-trail"), encoding="utf-8")
    return trails


def first_run_commands() -> list[list[str]]:
    """The README's commands for the first trail, each split into argv (comments dropped)."""
    commands = []
    for line in section("first-run").splitlines():
        words = line.split("#", 1)[0].split()
        if words:
            commands.append(words)
    return commands
