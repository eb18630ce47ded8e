"""JSON Schemas for editors: trail files, tool files, trailmaps, toolsets, ``trailblaze.yaml``.

Each schema is generated from what validates that kind of file (the trail loader's grammar
tables, the workspace's pydantic models) and shipped in this package as ``<kind>.schema.json``
(a test keeps the shipped files equal to the generated ones). ``trailblaze schema KIND``
prints one; ``python -m pytest_trailblaze.schemas`` regenerates the shipped files.
"""

from __future__ import annotations

import json
from fnmatch import fnmatch
from pathlib import Path

from ..core.jsondata import JsonObject

HERE = Path(__file__).resolve().parent

#: Kinds, and the files each one describes (``fnmatch`` patterns on the path's tail).
KINDS: dict[str, tuple[str, ...]] = {
    "trail": ("*.trail.yaml", "trail.yaml"),
    "tool": ("*.tool.yaml", "*.trailhead.yaml", "*.shortcut.yaml"),
    "trailmap": ("*/trailmaps/*/trailmap.yaml", "trailmap.yaml"),
    "toolset": ("*/toolsets/*.yaml",),
    "workspace": ("trailblaze.yaml",),
    "target": ("*/targets/*.yaml",),
}


def generate(kind: str) -> JsonObject:
    """The schema of ``kind``, built now from the code that validates such files."""
    if kind == "trail":
        from .trail import trail_schema

        return trail_schema()
    from .workspace import workspace_schema

    return workspace_schema(kind)


def path_of(kind: str) -> Path:
    """Where the shipped schema of ``kind`` is (inside the installed package)."""
    if kind not in KINDS:
        raise KeyError(kind)
    return HERE / f"{kind}.schema.json"


def text_of(schema: JsonObject) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def shipped(kind: str) -> str:
    """The shipped schema's text; generated when the file is missing (a source checkout)."""
    path = path_of(kind)
    return path.read_text(encoding="utf-8") if path.is_file() else text_of(generate(kind))


def kind_of(path: Path) -> str | None:
    """The kind of a YAML file from its name and folder, or None for other files."""
    shown = path.as_posix()
    for kind, patterns in KINDS.items():
        if any(fnmatch(shown, pattern) or fnmatch(path.name, pattern) for pattern in patterns):
            return kind
    return None


def write_all() -> list[Path]:
    """Regenerate every shipped schema file."""
    written = []
    for kind in KINDS:
        path = path_of(kind)
        path.write_text(text_of(generate(kind)), encoding="utf-8")
        written.append(path)
    return written
