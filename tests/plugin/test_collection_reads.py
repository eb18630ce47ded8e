"""A trail file is read once per run: the tag pre-read hands its trail to collection, unless the
environment its ``{{NAME}}`` tokens read changed in between."""

from __future__ import annotations

import json

import pytest

from pytest_trailblaze.session.trail_walk import EnvReads

#: Records every opening of a trail file (an audit hook: it sees pytest's and the plugin's reads).
READS = """
import json, os, pathlib, sys

_READS = {}

def _audit(event, args):
    if event == "open" and args and str(args[0]).endswith(".trail.yaml"):
        mode = args[1] if len(args) > 1 else None
        if mode is None or "r" in str(mode):
            name = pathlib.Path(str(args[0])).name
            _READS[name] = _READS.get(name, 0) + 1

sys.addaudithook(_audit)

def pytest_sessionfinish(session):
    pathlib.Path(str(session.config.rootpath), "reads.json").write_text(json.dumps(_READS))
"""
TRAIL = """config:
  id: "{id}"
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {{ url: "{{{{baseUrl}}}}/index.html" }}
"""


def reads(pytester: pytest.Pytester) -> dict[str, int]:
    return json.loads((pytester.path / "reads.json").read_text())


def test_a_trail_with_memory_tokens_is_read_once(pytester: pytest.Pytester, tb) -> None:
    pytester.makeconftest(READS)
    tb.write(pytester.path, "trails/a.trail.yaml", TRAIL.format(id="shop/a"))
    tb.write(pytester.path, "trails/b.trail.yaml", TRAIL.format(id="shop/b-{{TB_READS_SUFFIX}}"))

    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider")

    result.stdout.fnmatch_lines(["*shop/a*", "*shop/b-{{TB_READS_SUFFIX}}*", "*2 tests collected*"])
    assert reads(pytester) == {"a.trail.yaml": 1, "b.trail.yaml": 1}


def test_a_variable_a_conftest_sets_during_collection_reaches_the_trail(
    pytester: pytest.Pytester, tb, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TB_READS_SUFFIX", "before")
    pytester.makeconftest(READS)
    tb.write(pytester.path, "trails/later/conftest.py", "import os\nos.environ['TB_READS_SUFFIX'] = 'set'\n")
    tb.write(pytester.path, "trails/later/b.trail.yaml", TRAIL.format(id="shop/b-{{TB_READS_SUFFIX}}"))
    tb.write(pytester.path, "trails/later/c.trail.yaml", TRAIL.format(id="shop/c-{{TB_OTHER}}"))

    result = pytester.runpytest_subprocess("--collect-only", "-q", "-p", "no:cacheprovider")

    result.stdout.fnmatch_lines(["*shop/b-set*", "*shop/c-{{TB_OTHER}}*", "*2 tests collected*"])
    assert reads(pytester) == {"b.trail.yaml": 2, "c.trail.yaml": 1}  # only b's variable changed


def test_the_environment_a_trail_read_is_compared_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TB_READS_NAME", "one")
    monkeypatch.delenv("TB_READS_UNSET", raising=False)
    env = EnvReads()
    assert env.get("TB_READS_NAME") == "one" and "TB_READS_UNSET" not in env
    assert env.unchanged()
    monkeypatch.setenv("TB_READS_OTHER", "not read")
    assert env.unchanged()
    monkeypatch.setenv("TB_READS_UNSET", "now set")
    assert not env.unchanged()


def test_an_environment_listed_whole_is_never_taken_as_unchanged() -> None:
    env = EnvReads()
    assert list(env)
    assert not env.unchanged()
