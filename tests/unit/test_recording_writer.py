"""Recording write-back: only the device's slot changes, every other byte stays as written."""

from __future__ import annotations

import difflib
import threading
from pathlib import Path

import pytest

from pytest_trailblaze.core.trail.legacy import recording_file
from pytest_trailblaze.core.trail.parse import parse_trail
from pytest_trailblaze.core.trail.writeback import SlotUpdate, block, flow, merge_recordings, save_recordings

CLICK = ("web_click", {"ref": "e11", "nodeSelector": {"web": {"cssSelector": "#increment-btn"}}})

UNIFIED = """\
# header comment
config:
  id: demo   # trailing comment
  memory: { email: "qa@example.test" }

trail:
  - step: Click increment            # NL only
  - step: 'Type {{email}}'
    recording:
      android-phone:
        - tapOnElementWithText: { text: "+" }   # phone

      ios: []
  - verify: "Shown"
    recording: { android: [] }
  - step: Stale one
    recording:
      web:
        - web_click:
            ref: "css=#gone"   # old
        # a comment after the slot

  - step: Flow one
    recording:
      web: [{web_click: {ref: x}}]   # keep me
"""


def changed(before: str, after: str) -> list[str]:
    return [line for line in difflib.ndiff(before.splitlines(), after.splitlines()) if line[:1] in "+-"]


def merge(text: str, *updates: SlotUpdate, classifier: str = "web", path: str = "t.trail.yaml") -> str:
    merged, notes = merge_recordings(text, path, classifier, (classifier,), updates)
    assert notes == []
    return merged


def test_an_nl_only_step_gets_a_recording_block() -> None:
    after = merge(UNIFIED, SlotUpdate(1, "Click increment", (CLICK,)))
    assert changed(UNIFIED, after) == [
        "+     recording:",
        "+       web:",
        "+         - web_click:",
        '+             ref: "e11"',
        "+             nodeSelector:",
        "+               web:",
        '+                 cssSelector: "#increment-btn"',
    ]
    step = parse_trail(after, "t").steps[0]
    assert step.recording["web"][0].args == CLICK[1]


def test_a_new_classifier_joins_the_others_and_tokens_stay_tokens() -> None:
    after = merge(
        UNIFIED, SlotUpdate(2, "Type {{email}}", (("web_type", {"ref": "e9", "text": "{{email}}"}),))
    )
    assert changed(UNIFIED, after) == [
        "+       web:",
        "+         - web_type:",
        '+             ref: "e9"',
        '+             text: "{{email}}"',
    ]


def test_a_stale_slot_is_replaced_and_its_neighbours_kept() -> None:
    after = merge(UNIFIED, SlotUpdate(4, "Stale one", (("web_click", {"ref": "e3"}),)))
    assert changed(UNIFIED, after) == ['-             ref: "css=#gone"   # old', '+             ref: "e3"']


def test_flow_style_stays_flow_style() -> None:
    after = merge(
        UNIFIED,
        SlotUpdate(3, "Shown", (("web_verifyTextVisible", {"text": "Hi"}),)),
        SlotUpdate(5, "Flow one", (("web_click", {"ref": "e4"}),)),
    )
    assert changed(UNIFIED, after) == [
        "-     recording: { android: [] }",
        '+     recording: { android: [], web: [{web_verifyTextVisible: {text: "Hi"}}] }',
        "-       web: [{web_click: {ref: x}}]   # keep me",
        '+       web: [{web_click: {ref: "e4"}}]   # keep me',
    ]


def test_values_read_back_identically_under_any_yaml_reading() -> None:
    tricky = {
        "a": "yes",
        "b": "8:00",
        "c": "0o17",
        "d": "null",
        "e": 'é "q" \\ {{x}}',
        "f": 7,
        "g": True,
        "y": [1, "2"],
    }
    after = merge(UNIFIED, SlotUpdate(1, "Click increment", (("web_type", tricky),)))
    assert dict(parse_trail(after, "t").steps[0].recording["web"][0].args) == tricky


def test_crlf_files_keep_crlf_and_a_bom_is_kept() -> None:
    text = "\ufeff" + UNIFIED.replace("\n", "\r\n")
    merged, notes = merge_recordings(
        text, "t.trail.yaml", "web", ("web",), [SlotUpdate(1, "Click increment", (CLICK,))]
    )
    assert notes == [] and merged.startswith("\ufeff")
    assert "\n" not in merged.replace("\r\n", "")
    assert merged.replace("\r\n", "\n").lstrip("\ufeff") == merge(
        UNIFIED, SlotUpdate(1, "Click increment", (CLICK,))
    )


def test_the_trailhead_slot_holds_one_call() -> None:
    text = "trailhead:\n  step: Start\ntrail:\n  - step: x\n    recording:\n      web: []\n"
    after = merge(text, SlotUpdate(0, "Start", (("web_navigate", {"url": "{{app}}/index.html"}),)))
    assert after == text.replace(
        "  step: Start\n",
        '  step: Start\n  recording:\n    web:\n      web_navigate:\n        url: "{{app}}/index.html"\n',
    )
    merged, notes = merge_recordings(text, "t", "web", ("web",), [SlotUpdate(0, "Start", (CLICK, CLICK))])
    assert merged == text and "a trailhead recording holds one tool call" in notes[0]


def test_steps_that_changed_or_are_not_recordable_are_not_written() -> None:
    text = "trail:\n  - step: Judge\n    recordable: false\n  - step: Two\n"
    merged, notes = merge_recordings(
        text, "t", "web", ("web",), [SlotUpdate(1, "Judge", (CLICK,)), SlotUpdate(2, "Renamed", (CLICK,))]
    )
    assert merged == text
    assert "step 1 not written: it is `recordable: false`" in notes[0]
    assert "step 2 not written: its text changed since the run ('Two')" in notes[1]


LEGACY = """\
- config:
    id: old
- prompts:
    - step: Click it
    - step: Done
      recording:
        tools: []
"""


def test_legacy_v1_files_get_recording_tools() -> None:
    after = merge(
        LEGACY,
        SlotUpdate(1, "Click it", (("web_click", {"ref": "e11"}),)),
        SlotUpdate(2, "Done", (("web_wait", {"seconds": 1}),)),
        path="web.trail.yaml",
    )
    assert changed(LEGACY, after) == [
        "+       recording:",
        "+         tools:",
        "+           - web_click:",
        '+               ref: "e11"',
        "-         tools: []",
        "+         tools: [{web_wait: {seconds: 1}}]",
    ]
    merged, notes = merge_recordings(
        LEGACY, "android-phone.trail.yaml", "web", ("web",), [SlotUpdate(1, "Click it", (CLICK,))]
    )
    assert merged == LEGACY and "this legacy file records 'android-phone', not this device" in notes[0]
    merged, notes = merge_recordings(
        LEGACY, "trail.yaml", "web", ("web",), [SlotUpdate(1, "Click it", (CLICK,))]
    )
    assert merged == LEGACY and "recordings apply to every device; name the file for the device" in notes[0]


def test_step_texts_compare_as_the_run_read_them() -> None:
    text = "trail:\n  - step: Open {{SITE}}\n"
    update = SlotUpdate(1, "Open shop", (("web_navigate", {"url": "{{SITE}}/x"}),))
    merged, notes = merge_recordings(text, "t", "web", ("web",), [update], env={"SITE": "shop"})
    assert notes == [] and 'url: "{{SITE}}/x"' in merged and "step: Open {{SITE}}" in merged


def test_emitters() -> None:
    assert flow({"a": [1, None, False], "true": "x"}) == '{a: [1, null, false], "true": "x"}'
    assert block([{"t": {"k": "v"}}], 4) == ["    - t:", '        k: "v"']


def test_two_writers_of_one_file_both_land(tmp_path: Path) -> None:
    path = tmp_path / "trail.yaml"
    path.write_text("trail:\n  - step: Tap it\n", encoding="utf-8")
    start = threading.Barrier(2)

    def write(classifier: str) -> None:
        start.wait()
        save_recordings(
            path,
            "trail.yaml",
            classifier,
            (classifier,),
            [SlotUpdate(1, "Tap it", ((f"{classifier}_tap", {}),))],
        )

    threads = [threading.Thread(target=write, args=(c,)) for c in ("web", "android")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    recording = parse_trail(path.read_text(encoding="utf-8"), "t").steps[0].recording
    assert sorted(recording) == ["android", "web"]
    assert [p.name for p in tmp_path.iterdir()] == ["trail.yaml"]  # no temp file left behind


def test_a_file_that_no_longer_loads_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "trail.yaml"
    path.write_text("trail: [\n", encoding="utf-8")
    written, notes = save_recordings(path, "trail.yaml", "web", ("web",), [SlotUpdate(1, "x", (CLICK,))])
    assert not written and "does not load any more" in notes[0]
    assert path.read_text(encoding="utf-8") == "trail: [\n"


@pytest.mark.parametrize("mode", [0o644, 0o600])
def test_the_file_mode_is_kept(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "trail.yaml"
    path.write_text("trail:\n  - step: Tap it\n", encoding="utf-8")
    path.chmod(mode)
    assert save_recordings(path, "trail.yaml", "web", ("web",), [SlotUpdate(1, "Tap it", (CLICK,))])[0]
    assert path.stat().st_mode & 0o777 == mode


def test_a_devices_own_file_is_made_from_the_definition_once(tmp_path: Path) -> None:
    """Two workers recording two steps of one device: the first makes ``web.trail.yaml`` from the
    definition, the second finds it (under the folder lock) and adds to it (docs/upstream.md,
    Recording write-back)."""
    definition = tmp_path / "trail.yaml"
    text = "- config:\n    id: old   # kept\n- prompts:\n    - step: One\n    - step: Two\n"
    definition.write_text(text, encoding="utf-8")
    definition.chmod(0o640)
    target = recording_file(definition, True, "web")
    assert target == tmp_path / "web.trail.yaml"
    start = threading.Barrier(2)

    def write(number: int, name: str) -> None:
        start.wait()
        update = SlotUpdate(number, name, ((f"web_{name.lower()}", {}),))
        assert save_recordings(target, "web.trail.yaml", "web", ("web",), [update], source=definition)[0]

    threads = [threading.Thread(target=write, args=args) for args in ((1, "One"), (2, "Two"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert definition.read_text(encoding="utf-8") == text
    trail = parse_trail(target.read_text(encoding="utf-8"), "web.trail.yaml", file_classifier="web")
    assert [s.recording["web"][0].name for s in trail.steps] == ["web_one", "web_two"]
    assert "id: old   # kept" in target.read_text(encoding="utf-8")
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trail.yaml", "web.trail.yaml"]


def test_nothing_to_write_makes_no_device_file(tmp_path: Path) -> None:
    definition = tmp_path / "blaze.yaml"
    definition.write_text("- prompts:\n    - step: One\n", encoding="utf-8")
    target = recording_file(definition, True, "android-phone")
    update = SlotUpdate(1, "Renamed since", (CLICK,))
    written, notes = save_recordings(
        target, "x", "android-phone", ("android-phone",), [update], source=definition
    )
    assert not written and "its text changed since the run" in notes[0] and not target.exists()


@pytest.mark.parametrize(
    ("name", "is_v1", "expected"),
    [
        ("trail.yaml", True, "ios-iphone.trail.yaml"),  # a v1 definition: the device's own file
        ("blaze.yaml", True, "ios-iphone.trail.yaml"),
        ("ios.trail.yaml", True, "ios-iphone.trail.yaml"),  # a broader device file: a file of its own
        ("ios-iphone.trail.yaml", True, "ios-iphone.trail.yaml"),
        ("login.trail.yaml", True, "login.trail.yaml"),  # any other v1 file: itself (and a note)
        ("trail.yaml", False, "trail.yaml"),  # unified: the device's slot of the file itself
        ("web.trail.yaml", False, "web.trail.yaml"),
    ],
)
def test_where_a_devices_recording_goes(name: str, is_v1: bool, expected: str) -> None:
    assert recording_file(Path("trails/x") / name, is_v1, "ios-iphone") == Path("trails/x") / expected


def test_a_named_unified_file_is_never_taken_for_a_devices_file(tmp_path: Path) -> None:
    definition = tmp_path / "trail.yaml"
    definition.write_text("- prompts:\n    - step: One\n", encoding="utf-8")
    named = tmp_path / "web.trail.yaml"
    named.write_text("trail:\n  - step: One\n", encoding="utf-8")
    update = SlotUpdate(1, "One", (CLICK,))
    written, notes = save_recordings(named, "web.trail.yaml", "web", ("web",), [update], source=definition)
    assert not written and "it is a unified trail of its own" in notes[0]
    assert named.read_text(encoding="utf-8") == "trail:\n  - step: One\n"
