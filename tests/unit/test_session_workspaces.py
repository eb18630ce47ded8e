"""A workspace's ``llm:`` models are judged where both the workspace and the agent are known:
the workspace package keeps where they are written, the session reports them there, once."""

from __future__ import annotations

from pathlib import Path

from pytest_trailblaze.session.workspaces import load_workspace
from pytest_trailblaze.workspace import WorkspaceLoader

CONFIG = """\
# models
llm:
  models:
    openai/x: {price: {input: -1, output: 1}}
  defaults:
    model: mistral/large
"""


def _config(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "trails" / "config"
    folder.mkdir(parents=True)
    (folder / "trailblaze.yaml").write_text(text, encoding="utf-8")
    return folder


def test_the_loader_keeps_where_models_are_written_and_judges_none(tmp_path: Path) -> None:
    ws = WorkspaceLoader().load(_config(tmp_path, CONFIG))
    assert ws.errors == []
    spans = {path: (span.line, span.col) for path, span in ws.llm_spans.items()}
    assert spans[("llm", "defaults", "model")] == (6, 12)
    assert spans[("llm", "models", "openai/x")] == (4, 15)


def test_the_session_reports_bad_models_at_their_lines_once(tmp_path: Path) -> None:
    loader = WorkspaceLoader()
    ws, fresh = load_workspace(loader, _config(tmp_path, CONFIG))
    assert fresh
    shown = [p.format().splitlines()[0] for p in ws.errors]
    price = "llm.models.openai/x.price.input: expected dollars per million tokens, got -1"
    assert shown[0].endswith(f":4:15: {price}")
    assert shown[1].endswith(":6:12: llm.defaults.model: unknown LLM provider 'mistral' in 'mistral/large'")
    again, fresh = load_workspace(loader, ws.config_dir)
    assert again is ws and not fresh and len(again.errors) == 2


def test_a_usable_model_is_no_problem(tmp_path: Path) -> None:
    config = _config(tmp_path, "llm:\n  defaults:\n    model: openai/gpt-4.1\n")
    ws, _ = load_workspace(WorkspaceLoader(), config)
    assert ws.problems == []
