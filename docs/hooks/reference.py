"""mkdocs hook: add the generated reference pages (``refgen.pages()``) to the site's files."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import refgen
from mkdocs.structure.files import File, Files


def on_files(files: Files, config: Any) -> Files:
    for path, content in refgen.pages().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files
