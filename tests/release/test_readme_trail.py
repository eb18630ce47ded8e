"""The README is what PyPI shows and what a stranger copies: its first trail must run as written,
its commands must be the real ones, and nothing in it may point at a file PyPI does not have."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from readme_blocks import README, first_run_commands, section, write_first_trail

BIN = Path(sys.executable).parent


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """One README command as a user types it, with this environment's ``pytest`` / ``trailblaze``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TRAILBLAZE_"))}
    env["PYTEST_ADDOPTS"] = "-p no:randomly -p no:cacheprovider"
    executable = str(BIN / argv[0])
    return subprocess.run(
        [executable, *argv[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
    )


def test_the_readme_first_trail_runs_as_written(tmp_path: Path) -> None:
    write_first_trail(tmp_path)
    commands = first_run_commands()
    assert [argv[0] for argv in commands] == ["pytest", "trailblaze"]
    result = run(commands[0], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"hello\.trail\.yaml::hello\[web\] PASSED", result.stdout), result.stdout
    assert "step 2/2 The page greets Ada … ✓" in result.stdout
    assert "1 passed" in result.stdout
    checked = run(commands[1], tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "1 trail(s) in 1 file(s)" in checked.stdout and "no problems" in checked.stdout


def test_the_readme_first_trail_fails_when_the_page_does_not_greet(tmp_path: Path) -> None:
    """The trail checks the page: a page that greets someone else fails at the verify step."""
    trails = write_first_trail(tmp_path)
    page = trails / "hello.html"
    page.write_text(page.read_text().replace("'Hi '", "'Bye '"))
    result = run(["pytest", "trails/"], tmp_path)
    assert result.returncode == 1, result.stdout
    assert "step 2 of 2 failed: The page greets Ada" in result.stdout
    assert "1 failed" in result.stdout


def test_the_readme_fits_pypi() -> None:
    """Under 250 lines; every link and picture absolute (PyPI has no repository files); the
    install line, the browser, the run command and the clone's two commands are there."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 250
    targets = re.findall(r"\]\(([^)\s]+)", text) + re.findall(r'src="([^"]+)"', text)
    assert targets, "no links found"
    relative = [t for t in targets if not t.startswith(("https://", "http://"))]
    assert relative == []
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert all(url.startswith("https://") for url in images)
    for must in (
        "pip install pytest-trailblaze",
        "playwright install --with-deps chromium",
        "pytest trails/",
        "./dev examples",
        "./dev test",
    ):
        assert must in text, must


def test_ci_runs_the_readme_test_command() -> None:
    """``.ci/run`` is the README's ``./dev test``."""
    ci = (README.parent / ".ci" / "run").read_text()
    assert re.search(r"^exec \./dev test$", ci, re.M)


@pytest.mark.parametrize("name", ["first-page", "first-trail", "first-run"])
def test_the_getting_started_page_includes_the_readme_sections(name: str) -> None:
    section(name)  # the section exists
    page = (README.parent / "docs" / "getting-started.md").read_text()
    assert f'--8<-- "README.md:{name}"' in page


def test_the_readme_links_into_pages_the_docs_site_has() -> None:
    """Every link to the docs site names a page of the site's navigation (its URLs are the pages'
    paths); the generated reference pages are in the navigation too."""
    site = "https://pytest-trailblaze.github.io/pytest-trailblaze/"
    links = re.findall(re.escape(site) + r"([^)\s*]*)", README.read_text(encoding="utf-8"))
    pages = [link.strip("/") for link in links if link.strip("/")]
    assert len(pages) >= 10
    nav = json.dumps(yaml.safe_load((README.parent / "mkdocs.yml").read_text())["nav"])
    assert [p for p in pages if f'"{p}.md"' not in nav] == []
