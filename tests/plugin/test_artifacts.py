"""Per-test artifact folders: unique for every item, the same on every run."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_trailblaze.session.artifacts import SLUG_CHARS, artifacts_dir

LONG = "x" * 200


def test_two_long_ids_that_differ_only_at_the_start_get_two_folders(tmp_path: Path) -> None:
    settings = SimpleNamespace(output_dir=tmp_path)
    first = artifacts_dir(settings, f"trails/a.trail.yaml::a{LONG}[web]")
    second = artifacts_dir(settings, f"trails/b.trail.yaml::b{LONG}[web]")
    assert first != second
    assert first.parent == second.parent == tmp_path
    assert len(first.name) <= SLUG_CHARS + 11
    assert first.name.endswith(f"{LONG[:50]}-web-{first.name[-10:]}")


def test_ids_that_one_slug_folds_together_stay_apart(tmp_path: Path) -> None:
    spaced, slashed = (
        artifacts_dir(SimpleNamespace(output_dir=tmp_path), f"t.trail.yaml::a{c}b[web]") for c in " /"
    )
    assert spaced != slashed


def test_a_folder_name_is_the_same_on_every_run(tmp_path: Path) -> None:
    nodeid = "trails/checkout.trail.yaml::shop/checkout[web]"
    digest = hashlib.sha256(nodeid.encode()).hexdigest()[:10]
    folder = artifacts_dir(SimpleNamespace(output_dir=tmp_path), nodeid)
    assert folder.name == f"trails-checkout.trail.yaml-shop-checkout-web-{digest}"


TRAIL = """
config: {{ id: "{prefix}{long}" }}
trail:
  - step: Compare
    recording:
      web:
        - assertEquals: {{ actual: "1", expected: "2" }}
"""


def test_two_failing_trails_with_long_ids_keep_a_screenshot_each(pytester: pytest.Pytester, tb) -> None:
    for prefix in "ab":
        tb.write(pytester.path, f"trails/{prefix}.trail.yaml", TRAIL.format(prefix=prefix, long=LONG))

    result = pytester.runpytest("-p", "no:randomly")

    result.assert_outcomes(failed=2)
    shots = sorted((pytester.path / "trailblaze-output").rglob("failure.png"))
    assert len(shots) == 2, shots
    quoted = re.findall(r"screenshot: (\S+)", result.stdout.str())
    assert sorted(Path(q).parent.name for q in quoted) == sorted(s.parent.name for s in shots)
