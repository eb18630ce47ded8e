"""Collection speed: 5,000 generated trails against 5,000 trivial pytest tests, side by side.

Both trees have 5,000 files with one test each (trail files vs ``test_*.py`` modules), so the
comparison is per-file work against per-file work. Each ``pytest --collect-only -q`` runs in its
own process, alternating between the two trees; the medians are compared. A one-module baseline
(5,000 functions in a single file) is printed too, for context.

    .venv/bin/python benchmarks/collect.py [--count 5000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRAIL = """config:
  id: generated/trail-{n}
  tags: [generated]
trail:
  - step: Open page {n}
    recording:
      web:
        - web_navigate: {{ url: "https://example.test/{n}" }}
  - verify: Page {n} shows its title
    recording:
      web:
        - web_verifyTextVisible: {{ text: "Page {n}" }}
"""
TEST = "def test_{n}():\n    assert {n} == {n}\n"


def write_trees(root: Path, count: int) -> dict[str, Path]:
    trees = {"trails": root / "trails", "python files": root / "pyfiles", "one module": root / "onemodule"}
    for tree in trees.values():
        tree.mkdir()
        (tree / "pytest.ini").write_text("[pytest]\n")
    for n in range(count):
        sub = trees["trails"] / f"d{n // 500}"
        sub.mkdir(exist_ok=True)
        (sub / f"t{n}.trail.yaml").write_text(TRAIL.format(n=n))
        pysub = trees["python files"] / f"d{n // 500}"
        pysub.mkdir(exist_ok=True)
        (pysub / f"test_{n}.py").write_text(TEST.format(n=n))
    (trees["one module"] / "test_all.py").write_text("".join(TEST.format(n=n) for n in range(count)))
    return trees


def collect_seconds(tree: Path, expected: int) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(tree)],
        cwd=tree, capture_output=True, text=True, check=False,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    if f"{expected} tests collected" not in done.stdout:
        raise SystemExit(f"collection of {tree} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tb-collect-") as tmp:
        trees = write_trees(Path(tmp), options.count)
        for tree in trees.values():  # warm-up: bytecode caches, filesystem caches
            collect_seconds(tree, options.count)
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(options.rounds):
            for name, tree in trees.items():
                times[name].append(collect_seconds(tree, options.count))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"{name:>13}: median {median:6.2f} s over {options.rounds} rounds ({options.count} tests)")
    ratio = medians["trails"] / medians["python files"]
    print(f"ratio trails / python files: {ratio:.2f}  (goal <= 1.10) {'OK' if ratio <= 1.10 else 'MISSED'}")
    print(f"ratio trails / one module:   {medians['trails'] / medians['one module']:.2f}  (context only)")


if __name__ == "__main__":
    main()
