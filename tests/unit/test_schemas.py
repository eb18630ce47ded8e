"""JSON Schemas for editors: shipped equal to generated, every real file valid, broken ones rejected.

Every YAML file of the upstream corpus and of ``examples/`` that this plugin reads is validated
with ``jsonschema`` against the schema of its kind. Broken files are rejected by the schema AND
by the plugin (the trail loader plus ``trailblaze check``, the workspace loader), so the two
cannot say different things about the same file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jsonschema
import pytest
from corpus import upstream_root

from pytest_trailblaze.cli import main
from pytest_trailblaze.core.trail.yamlsource import load_value
from pytest_trailblaze.schemas import KINDS, generate, kind_of, path_of, shipped
from pytest_trailblaze.workspace import load_file
from pytest_trailblaze.workspace.load_steps import read_yaml
from pytest_trailblaze.workspace.schema import WorkspaceConfig, validate

REPO = Path(__file__).resolve().parents[2]
CORPUS = upstream_root()


def _files() -> list[str]:
    roots = [("examples", REPO / "examples")] + ([("upstream", CORPUS)] if CORPUS else [])
    found = []
    for name, root in roots:
        for path in sorted(root.rglob("*.yaml")):
            if kind_of(path) is not None and "node_modules" not in path.parts:
                found.append(f"{name}/{path.relative_to(root).as_posix()}")
    return found


def _path(rel: str) -> Path:
    name, _, rest = rel.partition("/")
    return (REPO / "examples" if name == "examples" else CORPUS) / rest


_VALIDATORS: dict[str, jsonschema.Draft202012Validator] = {}


def schema_errors(kind: str, text: str) -> list[str]:
    if kind not in _VALIDATORS:
        schema = json.loads(shipped(kind))
        jsonschema.Draft202012Validator.check_schema(schema)
        _VALIDATORS[kind] = jsonschema.Draft202012Validator(schema)
    data, problems = load_value(text, "file.yaml")
    assert problems == [], problems
    return [f"{list(e.absolute_path)}: {e.message}" for e in _VALIDATORS[kind].iter_errors(data)]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_shipped_schema_is_the_generated_one(kind: str) -> None:
    """Run ``python -m pytest_trailblaze.schemas`` after changing a model or the loader's tables."""
    assert json.loads(path_of(kind).read_text()) == generate(kind)


def test_every_kind_of_file_is_covered() -> None:
    kinds = {kind_of(_path(rel)) for rel in _files()}
    assert kinds >= set(KINDS) - {"target"}  # legacy target files: only the corpus has one
    if CORPUS:
        assert kinds == set(KINDS)
        assert len([f for f in _files() if f.startswith("upstream/") and kind_of(Path(f)) == "trail"]) >= 119


@pytest.mark.parametrize("rel", _files())
def test_every_real_file_is_valid(rel: str) -> None:
    path = _path(rel)
    assert schema_errors(kind_of(path), path.read_text(encoding="utf-8")) == []


def _call(call: str) -> str:
    """A one-step trail whose web recording is ``- <call>``."""
    return f"trail:\n  - step: a\n    recording:\n      web:\n        - {call}\n"


BROKEN_TRAILS = {
    "unknown root key": "config: {id: x}\nsteps: []\n",
    "step and verify": "trail:\n  - step: a\n    verify: b\n",
    "no step text": "trail:\n  - recording: {web: []}\n",
    "empty step text": "trail:\n  - step: '  '\n",
    "no steps": "trail: []\n",
    "two keys in a call": _call("{web_click: {ref: e1}, wait: {}}"),
    "bad tool name": _call("web click: {}"),
    "reserved tool name": _call("tools: {}"),
    "unknown classifier": "trail:\n  - step: a\n    recording:\n      windows: []\n",
    "negative retries": "trail:\n  - step: a\n    maxRetries: -1\n",
    "recordable as text": "trail:\n  - step: a\n    recordable: 'no'\n",
    "recordable false, recorded": _call("wait: {}").replace("step: a", "step: a\n    recordable: false"),
    "trailhead list": "trailhead:\n  step: a\n  recording: {web: [{wait: {}}]}\ntrail:\n  - step: b\n",
    "trailhead without trail": "config: {id: x}\ntrailhead: {step: a}\n",
    "unknown config key": "config: {id: x, owner: me}\ntrail:\n  - step: a\n",
    "unknown arg type": "config:\n  args: {n: str}\ntrail:\n  - step: a\n",
    "bad arg name": "config:\n  args: {1n: string}\ntrail:\n  - step: a\n",
    "unknown driver pin": "config:\n  devices: {web: CHROME}\ntrail:\n  - step: a\n",
    "built-in: missing argument": _call("web_verifyTextVisible: {}"),
    "built-in: unknown argument": _call("web_click: {selector: '#x'}"),
    "built-in: wrong type": _call("web_wait: {seconds: [1]}"),
    "built-in: out of range": _call("wait: {timeToWaitInSeconds: -5}"),
    "built-in: unknown enum value": _call("web_scroll: {direction: sideways}"),
    "v1: maestro block": "- maestro: []\n",
    "v1: config not first": "- tools: []\n- config: {id: x}\n",
    "v1: unknown item": "- prompt:\n    - step: a\n",
    "v1: recording without tools": "- prompts:\n    - step: a\n      recording: {}\n",
    "v1: bad trailhead": "- trailhead: {maxRetries: 1}\n",
}


@pytest.mark.parametrize("case", sorted(BROKEN_TRAILS))
def test_a_broken_trail_is_rejected_by_the_schema_and_by_check(case: str, tmp_path: Path, capsys) -> None:
    text = BROKEN_TRAILS[case]
    assert schema_errors("trail", text), "the schema accepts it"
    (tmp_path / "broken.trail.yaml").write_text(text)
    assert main(["check", "--no-servers", str(tmp_path / "broken.trail.yaml")]) == 1, "check accepts it"
    assert "problem" in capsys.readouterr().out


def test_what_the_loader_reads_as_text_is_text_to_the_schema_too() -> None:
    """YAML 1.2 scalars bound to strings keep their source text: numbers are fine as step text and
    string arguments, enum values may be any case, and a token may stand for any value."""
    text = textwrap.dedent(
        """
        config: {id: 1.10, tags: [2024]}
        trail:
          - step: 8:00
            recording:
              web:
                - web_verifyTextVisible: {text: 017}
                - web_scroll: {direction: down}
                - web_wait: {seconds: "{{args.pause}}"}
                - myOwnTool: {anything: [1, 2]}
        """
    )
    assert schema_errors("trail", text) == []


BROKEN_WORKSPACE_FILES = {
    ("tool", "two bodies"): "id: t\ndescription: d\nparameters: []\ntools: []\nscript: a.py:f\n",
    ("tool", "class with description"): "id: t\nclass: a:b\ndescription: d\n",
    ("tool", "tools without parameters"): "id: t\ndescription: d\ntools: []\n",
    ("tool", "unknown key"): "id: t\nclass: a:b\nparams: []\n",
    ("tool", "no id"): "class: a:b\n",
    ("toolset", "no id"): "tools: [a]\n",
    ("toolset", "tools not a list"): "id: s\ntools: a\n",
    ("trailmap", "unknown key"): "id: m\nowner: me\n",
    ("trailmap", "server with script and command"): (
        "id: m\ntarget:\n  display_name: M\n  mcp_servers:\n    - {script: a.py, command: python}\n"
    ),
    ("trailmap", "unknown platform"): "id: m\nplatforms: {windows: {}}\n",
    ("target", "no id"): "display_name: T\n",
    ("workspace", "unknown key"): "targets: [a]\nowner: me\n",
    ("workspace", "targets not a list"): "targets: a\n",
}


@pytest.mark.parametrize(("kind", "case"), sorted(BROKEN_WORKSPACE_FILES))
def test_a_broken_workspace_file_is_rejected_by_the_schema_and_the_loader(
    kind: str, case: str, tmp_path: Path
) -> None:
    text = BROKEN_WORKSPACE_FILES[(kind, case)]
    assert schema_errors(kind, text), "the schema accepts it"
    path = tmp_path / ("trailblaze.yaml" if kind == "workspace" else f"x.{kind}.yaml")
    path.write_text(text)
    if kind == "workspace":
        src, node = read_yaml(path)
        accepted = validate(src, node, WorkspaceConfig, path.name) is not None and not src.problems
    else:
        value, problems = load_file(path, kind)
        accepted = value is not None and not [p for p in problems if p.severity == "error"]
    assert not accepted, "the loader accepts it"


def test_the_command_prints_a_schema_and_writes_them_all(tmp_path: Path) -> None:
    printed = subprocess.run(
        [sys.executable, "-m", "pytest_trailblaze.cli", "schema", "trail"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(printed.stdout) == generate("trail")
    assert main(["schema", "all", "--output", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(f"{k}.schema.json" for k in KINDS)
    assert main(["schema", "all"]) == 2
