"""CI sharding with pytest-split: N machines run N disjoint shards that together are the whole run.

Items are trail x platform x device, so the shards are checked on such a matrix (web plus an
Android phone and tablet from a capabilities file). Each shard is collected as its own machine
would (``--collect-only``, nothing starts), with pytest-randomly shuffling differently on each
machine where the test says so.
"""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

SHARDS = 3
TRAIL = """
config:
  id: shard/trail-{n:02d}
trail:
  - step: Nothing to do
    recording:
      web: []
      android: []
"""
CAPS = """
android-phone: {platformName: Android}
android-tablet: {platformName: Android}
"""


@pytest.fixture
def matrix(pytester: pytest.Pytester, tb) -> Path:
    """Twelve trails on web, android-phone and android-tablet: 36 items."""
    for n in range(12):
        tb.write(pytester.path, f"trails/trail-{n:02d}.trail.yaml", TRAIL.format(n=n))
    tb.write(pytester.path, "caps.yaml", CAPS)
    return pytester.path


def collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest("--collect-only", "-q", "trails", "--trailblaze-appium-caps=caps.yaml", *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return [line for line in result.stdout.lines if "::" in line]


def assert_partition(whole: list[str], shards: list[list[str]]) -> None:
    """No item in two shards, none left out, and the shards about the same size."""
    for one, other in combinations(shards, 2):
        assert set(one).isdisjoint(other)
    assert sorted(item for shard in shards for item in shard) == sorted(whole)
    sizes = [len(shard) for shard in shards]
    assert max(sizes) - min(sizes) <= 1, sizes


def test_least_duration_shards_partition_the_matrix_whatever_each_machine_shuffles(
    matrix: Path, pytester: pytest.Pytester
) -> None:
    whole = collected(pytester, "-p", "no:randomly")
    assert len(whole) == 36 and any(item.endswith("[android-tablet]") for item in whole)
    shards = [
        collected(
            pytester,
            f"--splits={SHARDS}",
            f"--group={k}",
            "--splitting-algorithm=least_duration",
            "-p",
            "randomly",
            f"--randomly-seed={1000 + k}",  # each machine its own order
        )
        for k in range(1, SHARDS + 1)
    ]
    assert_partition(whole, shards)


def test_chunked_shards_partition_the_matrix_with_one_order_on_every_machine(
    matrix: Path, pytester: pytest.Pytester
) -> None:
    whole = collected(pytester, "-p", "no:randomly")
    for seed_args in (["-p", "no:randomly"], ["-p", "randomly", "--randomly-seed=42"]):
        shards = [
            collected(pytester, f"--splits={SHARDS}", f"--group={k}", *seed_args)
            for k in range(1, SHARDS + 1)
        ]
        assert_partition(whole, shards)


def test_recorded_durations_balance_the_shards(matrix: Path, pytester: pytest.Pytester) -> None:
    """With ``.test_durations`` from an earlier run, slow mobile items spread over the machines."""
    whole = collected(pytester, "-p", "no:randomly")
    durations = {item: (10.0 if "[android" in item else 1.0) for item in whole}
    (matrix / ".test_durations").write_text(json.dumps(durations), encoding="utf-8")
    shards = [
        collected(
            pytester,
            f"--splits={SHARDS}",
            f"--group={k}",
            "--splitting-algorithm=least_duration",
            f"--durations-path={matrix / '.test_durations'}",
            "-p",
            "no:randomly",
        )
        for k in range(1, SHARDS + 1)
    ]
    for one, other in combinations(shards, 2):
        assert set(one).isdisjoint(other)
    assert sorted(item for shard in shards for item in shard) == sorted(whole)
    seconds = [sum(durations[item] for item in shard) for shard in shards]
    assert max(seconds) - min(seconds) <= 10.0, seconds  # within one slow item of each other
