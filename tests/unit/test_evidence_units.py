"""Step records, progress text, summaries and the HTML page, from runner events (no browser)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import ClassVar

from pytest_trailblaze.core.errors import StepFailure
from pytest_trailblaze.core.masking import Masker
from pytest_trailblaze.core.run.runner import ResolvedStep, TrailRunner, plan_trail
from pytest_trailblaze.core.tooling.context import DeviceInfo, ToolContext
from pytest_trailblaze.core.tooling.memory import Memory
from pytest_trailblaze.core.tooling.registry import ToolRegistry
from pytest_trailblaze.core.tooling.tooldef import ToolResult, tool
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.evidence.html import render
from pytest_trailblaze.evidence.progress import end_text, start_text, step_table
from pytest_trailblaze.evidence.records import StepRecorder
from pytest_trailblaze.evidence.summary import artifact_kind, list_artifacts, summary, write_json

TRAIL = """
config: { id: units }
trailhead:
  step: Start
  recording:
    web: { note: { text: start } }
trail:
  - step: Two notes
    recording:
      web:
        - note: { text: one }
        - note: { text: two }
  - step: Nothing to do
    recording:
      web: []
  - step: Ask the agent <b>politely</b>
  - step: Break
    recording:
      web:
        - boom: {}
"""


@tool(description="Note a text")
def note(ctx, text: str) -> ToolResult:
    return ToolResult(f"noted {text}")


@tool(description="Always fails")
def boom(ctx) -> ToolResult:
    raise AssertionError("boom went the tool")


class Recording:
    """A runner listener feeding a ``StepRecorder`` from the context's tool log."""

    def __init__(self, recorder: StepRecorder, ctx: ToolContext) -> None:
        self.recorder, self.ctx = recorder, ctx

    def step_started(self, step: ResolvedStep) -> None:
        self.recorder.started(step, self.ctx.tool_log)

    def step_finished(self, step: ResolvedStep, error: BaseException | None) -> None:
        self.recorder.finished(step, self.ctx.tool_log, error)


def _run() -> StepRecorder:
    trail = parse_trail(TRAIL, "units.trail.yaml")
    registry = ToolRegistry(platform="web")
    registry.register_all([note, boom])
    ctx = ToolContext(registry, Memory(), DeviceInfo("web", "playwright-native", 800, 600))
    ticks = iter(range(100))
    recorder = StepRecorder(trail, clock=lambda: float(next(ticks)))
    runner = TrailRunner(plan_trail(trail, ("web",)), ctx, agent=lambda step, ctx: "done")
    runner.listeners.append(Recording(recorder, ctx))
    runner.run_trailhead()
    try:
        runner.run_steps()
    except StepFailure:
        pass
    return recorder


def test_each_step_is_recorded_with_its_calls_mode_outcome_and_time() -> None:
    steps = _run().steps

    assert [s.label for s in steps] == ["trailhead", "step 1/4", "step 2/4", "step 3/4", "step 4/4"]
    assert [s.mode for s in steps] == ["replay", "replay", "no-op", "agent", "replay"]
    assert [s.outcome for s in steps] == ["passed"] * 4 + ["failed"]
    assert all(s.duration_s == 1.0 for s in steps)
    assert [(c.name, c.args, c.outcome) for c in steps[1].calls] == [
        ("note", {"text": "one"}, "passed"),
        ("note", {"text": "two"}, "passed"),
    ]
    assert steps[4].calls[0].outcome == "failed" and "boom went the tool" in steps[4].calls[0].message
    assert "step 4 of 4 failed: Break" in steps[4].error


def test_progress_text_and_the_step_table() -> None:
    steps = _run().steps

    assert start_text(steps[3], agent=True) == "step 3/4 Ask the agent <b>politely</b> [agent] … "
    assert end_text(steps[1]) == "✓ 1.00 s"
    assert end_text(steps[4]) == "✗ 1.00 s"
    table = step_table(steps).splitlines()
    assert table[0].split() == ["trailhead", "Start", "passed", "1.00", "s"]
    assert table[2].split() == ["step", "2/4", "Nothing", "to", "do", "no-op", "passed", "1.00", "s"]


def test_a_step_that_never_ran_stays_in_the_plan() -> None:
    trail = parse_trail(TRAIL, "units.trail.yaml")
    steps = StepRecorder(trail).steps
    assert [s.outcome for s in steps] == ["not run"] * 5
    assert step_table(steps).splitlines()[1].split()[-2:] == ["not", "run"]


def test_artifacts_are_listed_by_kind(tmp_path: Path) -> None:
    for name in (
        "failure.png",
        "steps/step-01.png",
        "trace.zip",
        "video.webm",
        "failure-source.xml",
        "x.bin",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    kinds = {a["path"]: a["kind"] for a in list_artifacts(tmp_path)}
    assert kinds == {
        "failure.png": "failure screenshot",
        "failure-source.xml": "page source",
        "steps/step-01.png": "step screenshot",
        "trace.zip": "trace",
        "video.webm": "video",
        "x.bin": "file",
    }
    assert artifact_kind("mcp-main-1.log") == "tool server log"


def test_records_are_written_masked_and_summarised(tmp_path: Path) -> None:
    steps = [s.as_dict() for s in _run().steps]
    record = {"nodeid": "t::units[web]", "outcome": "failed", "steps": steps, "failure": "key hunter2 typed"}
    path = write_json(tmp_path / "record.json", record, Masker({"password": "hunter2"}))

    assert json.loads(path.read_text())["failure"] == "key ******** typed"
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind
    data = summary([record], started_at="now", duration_s=2.0, report=None, output_dir="out")
    assert data["totals"] == {"failed": 1}
    assert data["trails"][0]["failing_step"] == "step 4/4: Break"
    assert data["trails"][0]["steps_passed"] == 4


def test_the_page_escapes_every_text_it_shows(tmp_path: Path) -> None:
    steps = [s.as_dict() for s in _run().steps]
    record = {
        "nodeid": "t::<i>x</i>",
        "name": "<script>alert(1)</script>",
        "outcome": "failed",
        "steps": steps,
    }
    page = render([record], report_path=tmp_path / "r.html", title="T", meta="m")
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "Ask the agent &lt;b&gt;politely&lt;/b&gt;" in page
    assert page.count("<script>") == 1  # the filter script only


def test_a_step_the_agent_repaired_is_marked_self_healed() -> None:
    trail = parse_trail(
        "trail:\n  - step: Break\n    recording:\n      web:\n        - boom: {}\n", "h.trail.yaml"
    )
    registry = ToolRegistry(platform="web")
    registry.register_all([boom])
    ctx = ToolContext(registry, Memory(), DeviceInfo("web", "playwright-native", 800, 600))
    recorder = StepRecorder(trail)
    runner = TrailRunner(plan_trail(trail, ("web",)), ctx, agent=lambda step, ctx: "healed", self_heal=True)
    runner.listeners.append(Recording(recorder, ctx))
    runner.run_steps()

    (step,) = recorder.steps
    assert (step.mode, step.outcome) == ("self-healed", "passed")
    assert end_text(step).endswith("(self-healed)")


class _RecordingSession:
    """An Appium session of a driver that records the screen (the fake driver cannot: see
    tests/mobile/test_evidence_mobile.py for the refusal on the real server)."""

    capabilities: ClassVar[dict[str, str]] = {"appium:automationName": "UiAutomator2"}
    video = b"\x00\x00\x00\x18ftypmp42 a screen recording"

    def start_recording_screen(self) -> None:
        self.started = True

    def stop_recording_screen(self) -> str:
        return base64.b64encode(self.video).decode()


def test_a_driver_that_records_the_screen_leaves_video_mp4(tmp_path: Path) -> None:
    from pytest_trailblaze.drivers.appium_recording import ScreenRecording

    recording = ScreenRecording()
    recording.session, recording.platform = _RecordingSession(), "android"
    assert recording.start_recording(video=True, tracing=True) == []
    assert recording.stop_recording(tmp_path / "kept") == [tmp_path / "kept" / "video.mp4"]
    assert (tmp_path / "kept" / "video.mp4").read_bytes() == _RecordingSession.video

    assert recording.start_recording(video=True, tracing=False) == []
    assert recording.stop_recording(None) == []  # retain-on-failure of a passing trail: dropped
    assert recording.stop_recording(tmp_path) == [] and not (tmp_path / "video.mp4").exists()


class _CountingList(list):
    """A list that counts how often it is walked (``for``, ``enumerate``, comprehensions)."""

    walks = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        type(self).walks += 1
        return super().__iter__()


def test_recording_a_long_trail_looks_each_step_up_instead_of_scanning_the_plan() -> None:
    """A 20,000-step trail took 85 s: every step scanned the whole plan and copied the JUnit
    properties. Both are lookups now: the work per step does not grow with the trail."""
    from pytest_trailblaze.session.run_evidence import ItemEvidence

    count = 20_000
    text = "trail:\n" + "".join(f"  - step: Step {n}\n    recording:\n      web: []\n" for n in range(count))
    trail = parse_trail(text, "long.trail.yaml")
    recorder = StepRecorder(trail, clock=lambda: 0.0)
    recorder.steps = _CountingList(recorder.steps)
    evidence = ItemEvidence(recorder, Path("out"))
    properties = _CountingList([("trail_id", "long")])
    _CountingList.walks = 0

    for resolved in plan_trail(trail, ("web",)).steps:
        recorder.started(resolved, [])
        record = recorder.finished(resolved, [], None)
        evidence.step_property(properties, f"step_{record.number}", record.outcome)

    assert _CountingList.walks <= 2, f"the plan or the properties were walked {_CountingList.walks} times"
    assert len(properties) == count + 1 and properties[-1] == (f"step_{count}", "passed")
    assert all(s.outcome == "passed" for s in recorder.steps)


def test_a_property_list_rebuilt_by_someone_else_is_indexed_again() -> None:
    from pytest_trailblaze.session.run_evidence import ItemEvidence

    evidence = ItemEvidence(StepRecorder(parse_trail("trail:\n  - step: a\n", "t.trail.yaml")), Path("out"))
    properties = [("trail_id", "t")]
    evidence.step_property(properties, "step_1", "running")
    properties[:] = [("other", "x"), *reversed(properties)]  # as TrailRun.publish rebuilds it
    evidence.step_property(properties, "step_1", "passed")
    evidence.step_property(properties, "step_2", "passed")

    assert properties == [("other", "x"), ("step_1", "passed"), ("trail_id", "t"), ("step_2", "passed")]
