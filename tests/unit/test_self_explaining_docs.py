"""Docstrings, comments and messages explain themselves: none cites a document the repository does
not hold (a specification's sections, design decisions, issue numbers of a tracker), and every
citation of the repository's own docs (``docs/upstream.md, Element numbering``) names a page and a
heading that exist, so a reader can follow it.

Where the code follows upstream Trailblaze, the rule is written in ``docs/upstream.md`` (or a
guide) and the code points there; a rule stated only in an outside document is lost to whoever
carries the project on.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCANNED = ("pytest_trailblaze", "tests", "examples", "benchmarks", "docs/hooks")
SUFFIXES = {".py", ".mjs", ".js", ".ts", ".yaml", ".yml", ".sh", ".toml", ".cfg", ".ini"}
SKIPPED_DIRS = {"node_modules", "__pycache__", ".venv", "trailblaze-output"}

# Written in pieces, so that this file does not match itself.
SECTION = "\u00a7"
OUTSIDE_CITATIONS = {
    "a section sign (a section of an outside document)": re.compile(SECTION),
    "the product specification": re.compile(r"\b" + "SP" + r"EC\b"),
    "a design decision record": re.compile("decis" + r"ion 0\d\d\b", re.I),
    "a document outside the repository": re.compile(
        r"\b(" + "|".join(("upstream-" + "trailblaze", "real-" + "components", "des" + "ign")) + r")\.md\b"
    ),
    "an issue of the project's tracker": re.compile(r"(?<![\w/#.-])" + "iss" + r"ue \d+\b", re.I),
    "a development log": re.compile(r"\b" + "dev" + r"log\b", re.I),
}
DOCS_CITATION = re.compile(r"\bdocs/((?:[\w-]+/)*[\w-]+\.md)(?:, ([A-Z][^().;`]*?))?(?=[).;`]|$)", re.M)


def scanned_files() -> list[Path]:
    files = []
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and not SKIPPED_DIRS & set(path.parts):
                files.append(path)
    files.append(REPO / "conftest.py")
    return files


def test_the_scan_sees_the_code_and_the_tests() -> None:
    names = {p.relative_to(REPO).as_posix() for p in scanned_files()}
    assert "pytest_trailblaze/drivers/locators.py" in names
    assert "tests/unit/test_self_explaining_docs.py" in names
    assert "pytest_trailblaze/typescript/assets/host.mjs" in names
    assert not any("node_modules" in n for n in names)


def test_no_file_cites_a_document_outside_the_repository() -> None:
    found = []
    for path in scanned_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for what, pattern in OUTSIDE_CITATIONS.items():
                match = pattern.search(line)
                if match:
                    where = f"{path.relative_to(REPO)}:{number}:{match.start() + 1}"
                    found.append(f"{where}: cites {what} ({match.group(0)!r}): {line.strip()}")
    assert found == [], (
        "say the rule in place, or describe it in docs/ and cite the page (docs/upstream.md, Heading):\n"
        + "\n".join(found)
    )


def headings(page: Path) -> set[str]:
    return {
        line.lstrip("#").strip().lower()
        for line in page.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }


def flat(text: str) -> str:
    """The text with line breaks of docstrings and comments (``#``, ``#:``, ``//``) as spaces, so a
    citation wrapped over two lines reads as one."""
    return re.sub(r"[ \t]*\n[ \t]*(?:#:?|//)?[ \t]*", " ", text)


def docs_citations() -> list[tuple[str, str, str | None]]:
    cited = []
    for path in scanned_files():
        if path == Path(__file__).resolve():  # its examples of citations are made up
            continue
        for match in DOCS_CITATION.finditer(flat(path.read_text(encoding="utf-8"))):
            cited.append((path.relative_to(REPO).as_posix(), match.group(1), match.group(2)))
    return cited


def test_citations_of_the_docs_name_pages_and_headings_that_exist() -> None:
    cited = docs_citations()
    assert len(cited) > 20
    wrong = []
    for source, page, heading in cited:
        target = REPO / "docs" / page
        if not target.is_file():
            if not page.startswith("reference/"):  # generated at build time (docs/hooks/refgen.py)
                wrong.append(f"{source}: docs/{page} does not exist")
            continue
        if heading is None:
            continue
        known = headings(target)
        parts = [heading.strip().lower()]
        if parts[0] not in known:
            parts = [p.strip().lower() for p in heading.split(" and ")]
        missing = [p for p in parts if p not in known]
        if missing:
            wrong.append(f"{source}: docs/{page} has no heading {heading.strip()!r}")
    assert wrong == []


@pytest.mark.parametrize(
    "line",
    [
        "Element lookup follows U" + SECTION + "4.8 exactly",
        '"""Where secrets are masked (' + "SP" + "EC " + SECTION + '10)."""',
        "# composition (" + "decis" + "ion 037)",
        "see reference/" + "upstream-" + "trailblaze.md",
        "Hostile files (" + "iss" + "ue 20 " + SECTION + "3)",
    ],
)
def test_each_kind_of_outside_citation_is_caught(line: str) -> None:
    assert any(pattern.search(line) for pattern in OUTSIDE_CITATIONS.values())


@pytest.mark.parametrize(
    "line",
    [
        "SPEC_FLAGS = ['requiresContext']",
        "SPECIAL = 'Qx7'",
        "the tool's spec (its schema) is read without running it",
        "see https://github.com/microsoft/playwright/issues/1234",
        "a design choice: one host per trailmap",
    ],
)
def test_ordinary_words_are_not_citations(line: str) -> None:
    assert not any(pattern.search(line) for pattern in OUTSIDE_CITATIONS.values())


def test_a_wrapped_citation_of_a_missing_heading_is_found() -> None:
    text = '"""Closest wins (docs/upstream.md, Device\nclassifiers).\n\n(docs/upstream.md, No such heading).'
    found = [(m.group(1), m.group(2)) for m in DOCS_CITATION.finditer(flat(text))]
    assert found == [("upstream.md", "Device classifiers"), ("upstream.md", "No such heading")]
    known = headings(REPO / "docs" / "upstream.md")
    assert "device classifiers" in known and "no such heading" not in known
