"""Conformance with the 119 real upstream trails of the corpus.

Each file is loaded by the loader and cross-checked against an independent oracle built from
``yaml.load`` output with the YAML 1.2 core schema written out here (upstream reads trails with
a YAML 1.2 reader), so a loader bug cannot hide behind its own bookkeeping.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml
from corpus import upstream_root

from pytest_trailblaze.core.trail.model import ArgDecl, Trail
from pytest_trailblaze.core.trail.parse import load_trail


def is_trail_file(path: Path) -> bool:
    return path.name == "trail.yaml" or path.name.endswith(".trail.yaml")


def trail_files(upstream: Path) -> list[str]:
    return sorted(p.relative_to(upstream).as_posix() for p in upstream.rglob("*") if is_trail_file(p))


_COLLECT_ROOT = upstream_root()
TRAIL_FILES = trail_files(_COLLECT_ROOT) if _COLLECT_ROOT else []


@pytest.fixture(scope="module")
def upstream(corpus_dir: Path) -> Path:
    return corpus_dir / "upstream"


@functools.cache
def loaded(path: Path) -> Trail:
    return load_trail(path)


class Yaml12Oracle(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader with the YAML 1.2 core schema's resolvers only."""

    yaml_implicit_resolvers: ClassVar[dict[Any, Any]] = {}


for _tag, _regexp, _first in (
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^(?:[-+]?[0-9]+)$", list("-+0123456789")),
    ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$", list("-+0123456789.")),
):
    Yaml12Oracle.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_regexp), _first)
Yaml12Oracle.add_constructor("tag:yaml.org,2002:int", lambda loader, node: int(node.value, 10))
Yaml12Oracle.add_constructor("tag:yaml.org,2002:float", lambda loader, node: float(node.value))


@functools.cache
def raw(path: Path) -> dict[str, Any]:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=Yaml12Oracle)


# --- the oracle: plain safe_load, no loader code ---------------------------------------------------------


def oracle_steps(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return list(doc.get("trail") or [])


def oracle_classifiers(doc: dict[str, Any]) -> set[str]:
    keys: set[str] = set()
    for step in oracle_steps(doc):
        keys.update((step.get("recording") or {}).keys())
    keys.update(((doc.get("trailhead") or {}).get("recording") or {}).keys())
    keys.update(((doc.get("config") or {}).get("devices") or {}).keys())
    return keys


def oracle_platforms(doc: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted({key.split("-")[0] for key in oracle_classifiers(doc)}))


def oracle_recording(recording: dict[str, Any] | None) -> dict[str, list[tuple[str, Any]]] | None:
    """Step recording as ``{classifier: [(tool, args), ...]}``."""
    if recording is None:
        return None
    out = {}
    for key, calls in recording.items():
        out[key] = [(name, args or {}) for call in calls for name, args in call.items()]
    return out


def loader_recording(recording) -> dict[str, list[tuple[str, Any]]] | None:
    if recording is None:
        return None
    return {key: [(c.name, dict(c.args)) for c in calls] for key, calls in recording.items()}


# --- per file --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rel", TRAIL_FILES)
def test_trail_loads_and_matches_the_oracle(upstream: Path, rel: str) -> None:
    path = upstream / rel
    trail = loaded(path)
    doc = raw(path)
    assert trail.format == "unified"
    assert len(trail.steps) == len(oracle_steps(doc))
    assert trail.platforms() == oracle_platforms(doc)
    assert set(trail.classifiers()) == oracle_classifiers(doc)


@pytest.mark.parametrize("rel", TRAIL_FILES)
def test_steps_and_recordings_match_the_oracle(upstream: Path, rel: str) -> None:
    path = upstream / rel
    trail, doc = loaded(path), raw(path)
    for step, expected in zip(trail.steps, oracle_steps(doc), strict=True):
        kind = "verify" if "verify" in expected else "step"
        assert (step.kind, step.text) == (kind, expected[kind])
        assert loader_recording(step.recording) == oracle_recording(expected.get("recording"))
        assert step.recordable is expected.get("recordable", True)
        assert step.max_retries == expected.get("maxRetries")
        assert step.span.path == str(path) and step.span.line >= 1
    head = doc.get("trailhead")
    if head is None:
        assert trail.trailhead is None
    else:
        assert trail.trailhead.text == head["step"]
        expected = head.get("recording")
        wrapped = None if expected is None else {k: [v] if v else [] for k, v in expected.items()}
        assert loader_recording(trail.trailhead.recording) == oracle_recording(wrapped)


@pytest.mark.parametrize("rel", TRAIL_FILES)
def test_config_matches_the_oracle(upstream: Path, rel: str) -> None:
    path = upstream / rel
    config, expected = loaded(path).config, raw(path).get("config") or {}
    for key in ("id", "target", "title", "description"):
        assert getattr(config, key) == expected.get(key)
    assert dict(config.devices) == {k: v.upper() for k, v in (expected.get("devices") or {}).items()}
    assert list(config.tags) == [str(t) for t in expected.get("tags") or []]
    assert dict(config.skip) == expected.get("skip", {})
    assert set(config.args) == set(expected.get("args") or {})


# --- the whole corpus ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(upstream: Path) -> dict[str, Trail]:
    return {rel: loaded(upstream / rel) for rel in trail_files(upstream)}


def named(corpus: dict[str, Trail], want_named: bool) -> dict[str, Trail]:
    return {rel: t for rel, t in corpus.items() if (not rel.endswith("/trail.yaml")) == want_named}


def test_inventory_file_counts(corpus: dict[str, Trail]) -> None:
    assert len(corpus) == 119
    assert len(named(corpus, True)) == 38
    assert len(named(corpus, False)) == 81
    assert all(rel.endswith(".trail.yaml") for rel in named(corpus, True))
    assert {t.format for t in corpus.values()} == {"unified"}
    assert sorted(corpus) == TRAIL_FILES


def shape(trail: Trail) -> str:
    return "config+trailhead+trail" if trail.trailhead is not None else "config+trail"


def step_shape(trail: Trail) -> Counter:
    return Counter(f"{s.kind}{'+recording' if s.recording is not None else ''}" for s in trail.steps)


def recording_keys(trails: dict[str, Trail]) -> Counter:
    return Counter(key for t in trails.values() for s in t.steps if s.recording for key in s.recording)


def trailhead_keys(trails: dict[str, Trail]) -> Counter:
    return Counter(
        key for t in trails.values() if t.trailhead and t.trailhead.recording for key in t.trailhead.recording
    )


def test_inventory_named_trail_files(corpus: dict[str, Trail]) -> None:
    files = named(corpus, True)
    assert Counter(shape(t) for t in files.values()) == {"config+trailhead+trail": 31, "config+trail": 7}
    assert sum((step_shape(t) for t in files.values()), Counter()) == {
        "step+recording": 76,
        "step": 54,
        "verify+recording": 23,
        "verify": 7,
    }
    assert recording_keys(files) == {"android-phone": 73, "android": 26}
    assert trailhead_keys(files) == {"android-phone": 19, "android": 12}
    assert Counter(c.name for t in files.values() if t.trailhead for c in t.trailhead.calls()) == {
        "launchApp": 31
    }
    configs = [t.config for t in files.values()]
    assert sum(c.id is not None for c in configs) == 38
    assert sum(c.target is not None for c in configs) == 33
    assert sum(bool(c.devices) for c in configs) == 25
    assert sum(bool(c.args) for c in configs) == 1
    assert sum(c.description is not None for c in configs) == 1
    assert {v for c in configs for v in c.devices.values()} == {
        "ANDROID_ONDEVICE_ACCESSIBILITY",
        "ANDROID_ONDEVICE_INSTRUMENTATION",
    }
    tools = Counter(c.name for t in files.values() for s in t.steps for c in s.calls())
    assert tools == {
        "tapOnElementBySelector": 58,
        "assertVisibleBySelector": 45,
        "assertNotVisibleWithText": 8,
        "swipe": 6,
        "launchApp": 5,
        "scrollUntilTextIsVisible": 4,
        "inputText": 4,
        "mobile_maestro": 1,
        "findMatches": 1,
        "clock_android_launchApp": 1,
        "generateTestUser": 1,
        "currentEpochMillis": 1,
    }


def test_inventory_unified_trail_yaml_files(corpus: dict[str, Trail]) -> None:
    files = named(corpus, False)
    assert Counter(shape(t) for t in files.values()) == {"config+trail": 77, "config+trailhead+trail": 4}
    assert sum((step_shape(t) for t in files.values()), Counter()) == {"step+recording": 185, "step": 154}
    assert recording_keys(files) == {
        "web": 120,
        "ios-iphone": 23,
        "desktop": 22,
        "android-phone": 13,
        "android": 7,
    }
    configs = [t.config for t in files.values()]
    assert sum(bool(c.devices) for c in configs) == 77
    assert sum(c.title is not None for c in configs) == 71
    assert sum(c.target is not None for c in configs) == 54
    assert sum(bool(c.tags) for c in configs) == 32
    assert sum(c.id is not None for c in configs) == 13
    assert sum(c.description is not None for c in configs) == 13
    assert sum(bool(c.skip) for c in configs) == 3
    pins = Counter((k, v) for c in configs for k, v in c.devices.items())
    assert pins[("web", "PLAYWRIGHT_NATIVE")] == 45
    assert pins[("web", "PLAYWRIGHT_ELECTRON")] == 4
    assert pins[("ios-iphone", "IOS_HOST")] == 18
    assert sum(n for (k, _), n in pins.items() if k.startswith("android")) == 12
    tools = Counter(c.name for t in files.values() for s in t.steps for c in s.calls())
    listed = {
        "web_click": 46,
        "web_verifyTextVisible": 40,
        "tapOnElementBySelector": 30,
        "assertVisibleBySelector": 19,
        "web_verifyElementVisible": 14,
        "compose_click": 12,
        "web_navigate": 12,
        "web_type": 10,
        "compose_verify_text_visible": 8,
        "compose_type": 6,
        "web_scroll": 5,
        "web_verifyValue": 3,
        "web_selectOption": 2,
        "tapOnPoint": 2,
        "launchApp": 2,
        "web_snapshot": 1,
        "contacts_android_launchApp": 1,
    }
    assert {name: tools[name] for name in listed} == listed
    assert sum(n for name, n in tools.items() if name.startswith("contacts_ios_")) == 20


def test_inventory_across_all_files(corpus: dict[str, Trail]) -> None:
    steps = [s for t in corpus.values() for s in t.steps]
    assert all(s.recordable for s in steps)
    assert all(s.max_retries is None for s in steps)
    empty = [rel for rel, t in corpus.items() for s in t.steps if s.recording and () in s.recording.values()]
    assert empty == [
        "examples/android-sample-app/trails/android-ondevice-accessibility/"
        "taps/no-navigation-needed.trail.yaml"
    ]
    reasoning = sum("reasoning" in c.args for s in steps for c in s.calls())
    assert reasoning == 138
    assert {p for t in corpus.values() for p in t.platforms()} == {"android", "ios", "web", "desktop"}


def test_nl_only_trailhead_is_kept(corpus: dict[str, Trail]) -> None:
    goose = corpus["trails/goose-desktop/trail.yaml"]
    assert goose.trailhead is not None
    assert goose.trailhead.recording is None
    assert goose.trailhead.text.startswith("Launch the Goose desktop application")
    assert goose.platforms() == ("web",)
    assert dict(goose.config.devices) == {"web": "PLAYWRIGHT_ELECTRON"}


def test_skip_maps_of_the_corpus(corpus: dict[str, Trail]) -> None:
    skipped = {rel: dict(t.config.skip) for rel, t in corpus.items() if t.config.skip}
    assert set(skipped) == {
        "trails/ios-contacts/test-search-autocomplete/trail.yaml",
        "trails/ios-contacts/test-dismiss-keyboard/trail.yaml",
        "trails/wikipedia/test-search-autocomplete/trail.yaml",
    }
    assert set(skipped["trails/wikipedia/test-search-autocomplete/trail.yaml"]) == {"web"}
    assert all(reason.strip() for skip in skipped.values() for reason in skip.values())


def test_parameterized_trail_yields_typed_arg_decls(corpus: dict[str, Trail]) -> None:
    rel = "examples/android-sample-app/trails/forms/text-input-args.trail.yaml"
    trail = corpus[rel]
    args = dict(trail.config.args)
    assert list(args) == ["name", "email"]
    assert all(isinstance(decl, ArgDecl) for decl in args.values())
    name, email = args["name"], args["email"]
    assert (name.type, name.required, name.default) == ("string", False, "Jane Doe")
    assert (email.type, email.required, email.default) == ("string", False, "jane@example.com")
    assert name.span.path.endswith(rel) and name.span.line == 10
    assert [rel for rel, t in corpus.items() if t.config.args] == [rel]
    assert any("{{args.name}}" in s.text for s in trail.steps)


def test_trailhead_recordings_are_single_launch_calls(corpus: dict[str, Trail]) -> None:
    for rel, trail in corpus.items():
        head = trail.trailhead
        if head is None or head.recording is None:
            continue
        for key, calls in head.recording.items():
            assert len(calls) <= 1, (rel, key)


@pytest.mark.parametrize(
    ("rel", "tool", "path", "written"),
    [
        ("trails/clock/assert-mixed-visibility.trail.yaml", "assertVisibleBySelector", "textRegex", "8:00"),
        ("trails/clock/set-alarm-730am/trail.yaml", "assertVisibleBySelector", "textRegex", "7:30.AM"),
        ("trails/clock/set-alarm-730am/trail.yaml", "assertNotVisibleWithText", "text", "7:30"),
    ],
)
def test_clock_times_stay_text(upstream: Path, rel: str, tool: str, path: str, written: str) -> None:
    """YAML 1.1 read ``8:00`` as the sexagesimal number 480; upstream (YAML 1.2) reads text."""
    calls = [c for s in loaded(upstream / rel).steps for c in s.calls() if c.name == tool]
    values = [v for c in calls for v in _values_named(c.args, path)]
    assert written in values
    assert all(isinstance(v, str) for v in values)


def _values_named(value: Any, key: str) -> list[Any]:
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k == key]
        return found + [x for v in value.values() for x in _values_named(v, key)]
    if isinstance(value, list):
        return [x for v in value for x in _values_named(v, key)]
    return []
