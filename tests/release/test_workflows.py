"""The GitHub Actions workflows: each one is valid against GitHub's workflow schema (SchemaStore's,
vendored by check-jsonschema, so offline), and every command a job runs is a ``./dev`` command that
exists: CI, a developer and ``.ci/run`` run the same things."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
TEMPLATE = REPO / "docs" / "workflows" / "trailblaze-ci.yml"
CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"


def dev_commands() -> set[str]:
    """The subcommands ``./dev`` accepts: the labels of its ``case``."""
    return set(re.findall(r"^    ([a-z-]+)\)$", (REPO / "dev").read_text(), re.M))


def run_steps(path: Path) -> list[tuple[str, str]]:
    jobs = yaml.safe_load(path.read_text())["jobs"]
    return [(job, step["run"]) for job, spec in jobs.items() for step in spec["steps"] if "run" in step]


def validate(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.github-workflows", *map(str, paths)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_workflows_and_the_users_template_validate_against_the_schema() -> None:
    assert {p.name for p in WORKFLOWS} >= {"ci.yml", "docs.yml", "release.yml"}
    result = validate(*WORKFLOWS, TEMPLATE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_broken_workflow_is_rejected(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text(
        (REPO / ".github" / "workflows" / "ci.yml").read_text().replace("runs-on:", "run-on:", 1)
    )
    result = validate(broken)
    assert result.returncode == 1
    assert "broken.yml" in result.stdout


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_every_job_command_is_an_existing_dev_command(workflow: Path) -> None:
    known = dev_commands()
    steps = run_steps(workflow)
    assert steps
    for job, command in steps:
        words = command.split()
        assert words[0] == "./dev" and words[1] in known, f"{workflow.name} job {job} runs {command!r}"


def test_ci_runs_what_ci_run_runs_on_every_python() -> None:
    """The test matrix is ``./dev test`` (``.ci/run``) on 3.11, 3.12 and 3.13; lint, dist and docs
    are jobs of their own."""
    ci = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    assert ci["jobs"]["tests"]["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"]
    assert dict(run_steps(REPO / ".github" / "workflows" / "ci.yml")) == {
        "lint": "./dev lint",
        "tests": "./dev test",
        "dist": "./dev dist",
        "docs": "./dev docs",
    }
    assert "exec ./dev test" in (REPO / ".ci" / "run").read_text()


def test_the_release_publishes_with_trusted_publishing() -> None:
    release = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    publish = release["jobs"]["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    assert any(step.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for step in publish["steps"])
    assert not any("password" in step.get("with", {}) for step in publish["steps"])


def test_the_users_template_has_a_matrix_shards_and_artifacts() -> None:
    template = yaml.safe_load(TEMPLATE.read_text())
    job = template["jobs"]["trails"]
    assert job["strategy"]["matrix"]["platform"] == ["web", "android", "ios"]
    assert len(job["strategy"]["matrix"]["shard"]) >= 2
    upload = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert {"report.html", "trailblaze-output/"} <= set(upload["with"]["path"].split())


def test_release_check_compares_the_tag_the_version_and_the_changelog(tmp_path: Path) -> None:
    """``./dev release-check`` on a copy of the three files it reads."""
    (tmp_path / "pytest_trailblaze").mkdir()
    (tmp_path / "dev").write_text((REPO / "dev").read_text())
    (tmp_path / "dev").chmod(0o755)
    (tmp_path / "pytest_trailblaze" / "__init__.py").write_text('__version__ = "1.2.3"\n')
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text("# Changelog\n\n## [Unreleased]\n\n## [1.2.2] - 2026-01-01\n")

    def check(tag: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(tmp_path / "dev"), "release-check", tag], capture_output=True, text=True)

    wrong_tag = check("v1.2.2")
    assert wrong_tag.returncode == 1 and "is not v1.2.3" in wrong_tag.stderr
    unlisted = check("v1.2.3")
    assert unlisted.returncode == 1 and "no '## [1.2.3] - YYYY-MM-DD' section" in unlisted.stderr
    changelog.write_text("# Changelog\n\n## [1.2.3] - 2026-12-01\n")
    assert check("v1.2.3").returncode == 0


def test_the_release_notes_are_the_changelog_section_of_the_tag(tmp_path: Path) -> None:
    (tmp_path / "dev").write_text((REPO / "dev").read_text())
    (tmp_path / "dev").chmod(0o755)
    (tmp_path / "CHANGELOG.md").write_text(
        "# Changelog\n\n## [Unreleased]\n\n- next\n\n## [1.2.3] - 2026-12-01\n\n### Added\n\n"
        "- trails\n- tools\n\n## [1.2.2] - 2026-01-01\n\n- old\n\n"
        "[1.2.3]: https://example.invalid/compare/v1.2.2...v1.2.3\n"
    )

    def notes(tag: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(tmp_path / "dev"), "release-notes", tag], capture_output=True, text=True)

    assert notes("v1.2.3").stdout == "### Added\n\n- trails\n- tools\n"
    assert notes("v1.2.2").stdout == "- old\n"
    missing = notes("v9.9.9")
    assert missing.returncode == 1 and "no '## [9.9.9] - YYYY-MM-DD' section" in missing.stderr
    release = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    job = release["jobs"]["github-release"]
    assert job["needs"] == "publish" and job["permissions"] == {"contents": "write"}
    assert './dev release-notes "$GITHUB_REF_NAME" > release-notes.md' in [s.get("run") for s in job["steps"]]
