"""The README says first what a user needs first: what the plugin does (its feature list names the
model providers and TypeScript tools), how to install it with the extra for their provider, and,
for someone who cloned the repository, exactly the two commands that set everything up."""

from __future__ import annotations

import re

from readme_blocks import README


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _section(title: str) -> str:
    """The README's ``## title`` section, up to the next ``## ``."""
    found = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", _text(), re.M | re.S)
    assert found, f"README.md has no section '## {title}'"
    return found.group(1)


def test_the_feature_list_names_providers_and_typescript_tools() -> None:
    features = _text().split("## Install", 1)[0]
    bullets = re.findall(r"^- \*\*.*?(?=^- \*\*|^\*\*Documentation|\Z)", features, re.M | re.S)
    assert len(bullets) >= 4
    listed = " ".join(bullets)
    for name in ("OpenAI", "Anthropic", "Gemini", "OpenAI-compatible", "TypeScript"):
        assert name in listed, name


def test_the_install_section_names_every_agent_extra() -> None:
    install = _section("Install")
    for extra in ("agent-openai", "agent-anthropic", "agent-google", "[agent]", "[video]"):
        assert extra in install, extra


def test_the_clone_section_has_exactly_the_two_commands() -> None:
    clone = _section("Working on pytest-trailblaze")
    assert sorted(set(re.findall(r"\./dev (\w[\w-]*)", clone))) == ["examples", "test"]
    block = re.search(r"```bash\n(.*?)```", clone, re.S)
    assert block, "the clone section has no bash block"
    commands = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()]
    assert [c for c in commands if c] == ["./dev examples", "./dev test"]
