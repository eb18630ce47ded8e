"""The generated reference pages list every option, ini key, fixture, hook, built-in tool and
command the plugin really has. What they must list is read here from a running pytest and the
tool registry, not from the generator, so a page that drops something fails."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "hooks"))
import refgen  # noqa: E402


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return refgen.pages()


def pytest_output(*args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TRAILBLAZE_"))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_every_option_and_ini_key_of_pytest_help_is_in_the_reference(pages, tmp_path) -> None:
    help_text = pytest_output("--help", cwd=tmp_path)
    options = set(re.findall(r"(--trailblaze-[a-z-]+)", help_text))
    ini_keys = set(re.findall(r"^\s+(trailblaze_[a-z_]+)\s", help_text, re.M))
    assert len(options) > 30 and len(ini_keys) > 30
    page = pages["reference/options.md"]
    assert sorted(o for o in options if f"`{o}" not in page) == []
    assert sorted(k for k in ini_keys if f"`{k}`" not in page) == []


def test_each_option_row_names_its_ini_key_environment_and_default(pages) -> None:
    rows = {section.split("\n", 1)[0]: section for section in pages["reference/options.md"].split("\n## ")}
    output = next(row for key, row in rows.items() if "--trailblaze-output" in key)
    assert "- ini key: `trailblaze_output`" in output and "- default: `trailblaze-output`" in output
    appium = next(row for key, row in rows.items() if "--trailblaze-appium-url" in key)
    assert "- environment: `TRAILBLAZE_APPIUM_URL`" in appium
    calls = next(row for key, row in rows.items() if "--trailblaze-max-llm-calls" in key)
    assert "`TRAILBLAZE_MAX_LLM_CALLS`" in calls and "- default: `50`" in calls
    headed = next(row for key, row in rows.items() if "--trailblaze-headed" in key)
    assert "- default: `off`" in headed


def test_an_option_declared_later_appears_in_the_reference(monkeypatch) -> None:
    """The page is written from the declarations: a new option shows up without editing docs."""
    from pytest_trailblaze.plugin import evidence_options

    declared = evidence_options.add_options

    def with_one_more(parser) -> None:
        declared(parser)
        parser.getgroup("trailblaze").addoption(
            "--trailblaze-brand-new", dest="trailblaze_brand_new", help="a new one (default 7)"
        )
        parser.addini("trailblaze_brand_new", "a new one")

    monkeypatch.setattr(evidence_options, "add_options", with_one_more)
    page = refgen.options_page()
    section = page.split("## `--trailblaze-brand-new`\n", 1)[1].split("\n## ", 1)[0]
    assert "- ini key: `trailblaze_brand_new`" in section and "- default: `7`" in section


def test_every_trailblaze_fixture_is_in_the_reference(pages, tmp_path) -> None:
    listed = pytest_output("--fixtures", cwd=tmp_path)
    fixtures = set(re.findall(r"^(trailblaze_[a-z_]+)\b", listed, re.M))
    assert {"trailblaze_run", "trailblaze_memory_defaults", "trailblaze_registry"} <= fixtures
    page = pages["reference/fixtures.md"]
    assert sorted(f for f in fixtures if f"## {f}\n" not in page) == []


def test_every_hook_is_in_the_reference(pages, pytester: pytest.Pytester) -> None:
    relay = pytester.parseconfig().pluginmanager.hook
    hooks = {name for name in dir(relay) if name.startswith("pytest_trailblaze_")}
    assert all(getattr(relay, name).spec is not None for name in hooks)
    assert len(hooks) >= 9
    page = pages["reference/hooks.md"]
    assert sorted(h for h in hooks if f"## {h}\n" not in page) == []


def test_every_built_in_tool_is_in_the_reference_with_its_arguments(pages) -> None:
    from pytest_trailblaze.tools import builtin_tools

    page = pages["reference/tools.md"]
    tools = builtin_tools()
    assert sorted(t.name for t in tools if f"### {t.name}\n" not in page) == []
    for tool in tools:
        section = page.split(f"### {tool.name}\n", 1)[1].split("\n### ", 1)[0]
        for argument in tool.descriptor.parameters.get("properties", {}):
            assert f"| `{argument}` |" in section, (tool.name, argument)
    wait = page.split("### wait\n", 1)[1].split("\n### ", 1)[0]
    assert re.search(r"\| `timeToWaitInSeconds` \|.*\| 0 – 600 \|", wait)


def test_every_command_and_schema_is_in_the_reference(pages) -> None:
    from pytest_trailblaze.cli import _parser
    from pytest_trailblaze.schemas import KINDS, generate

    commands = next(a for a in _parser()._actions if a.dest == "command").choices
    assert sorted(c for c in commands if f"## trailblaze {c}\n" not in pages["reference/cli.md"]) == []
    for kind in KINDS:
        assert f"## {kind}\n" in pages["reference/schemas.md"]
        assert (
            pages[f"reference/schemas/{kind}.schema.json"].strip()
            == refgen.schema_files()[f"reference/schemas/{kind}.schema.json"].strip()
        )
        assert generate(kind)  # the published file is what the CLI prints


def test_messages_and_metadata_send_users_to_the_same_docs_site() -> None:
    """The address messages point to is the package's Documentation URL and the mkdocs site_url."""
    import tomllib

    import yaml

    from pytest_trailblaze.core.docs import DOCS_URL

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["urls"]["Documentation"] == DOCS_URL
    assert yaml.safe_load((REPO / "mkdocs.yml").read_text())["site_url"] == DOCS_URL
