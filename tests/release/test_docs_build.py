"""The docs site builds strict (``mkdocs build --strict``, what ``./dev docs`` runs): a warning, a
broken link or a missing anchor fails the build, and so this test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MKDOCS = Path(sys.executable).parent / "mkdocs"


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_docs_build_strict_with_the_generated_reference(tmp_path: Path) -> None:
    result = build(REPO / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stderr
    assert "WARNING" not in result.stderr
    site = tmp_path / "site"
    options = (site / "reference" / "options" / "index.html").read_text()
    assert "--trailblaze-appium-url" in options and "TRAILBLAZE_APPIUM_URL" in options
    assert "web_navigate" in (site / "reference" / "tools" / "index.html").read_text()
    assert (site / "reference" / "schemas" / "trail.schema.json").is_file()
    started = (site / "getting-started" / "index.html").read_text()
    assert "hello.trail.yaml" in started and "web_verifyTextVisible" in started  # from README.md
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text()
    assert (site / "workflows" / "trailblaze-ci.yml").is_file()


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    """The same configuration on a copy whose guide links to a page that does not exist."""
    copy = tmp_path / "repo"
    copy.mkdir()
    for name in ("mkdocs.yml", "README.md", "CHANGELOG.md"):
        shutil.copy(REPO / name, copy / name)
    shutil.copytree(REPO / "docs", copy / "docs", ignore=shutil.ignore_patterns("__pycache__"))
    guide = copy / "docs" / "guides" / "ci.md"
    guide.write_text(guide.read_text() + "\nSee [the missing page](no-such-page.md).\n")
    result = build(copy / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0
    assert "no-such-page.md" in result.stderr
