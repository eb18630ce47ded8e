"""Where the documentation lives, for messages that send a user to a page of it."""

from __future__ import annotations

DOCS_URL = "https://pytest-trailblaze.github.io/pytest-trailblaze/"


def docs_page(path: str) -> str:
    """The address of a page of the docs site, e.g. ``docs_page("guides/tools/")``."""
    return DOCS_URL + path
