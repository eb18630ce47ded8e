"""Collecting the upstream corpus (119 trails and the workspaces beside them) with this checkout
against a baseline commit of the plugin, side by side: TypeScript tool discovery must not make
collection slower by more than 10 %.

Each round runs ``pytest --collect-only`` over ``../shared/corpus/upstream`` (or
``TRAILBLAZE_CORPUS``) twice, once per version, alternating which goes first; the baseline is the
given commit exported into a temporary folder and put first on ``PYTHONPATH``. Medians compared.

    .venv/bin/python benchmarks/collect_corpus.py [--baseline eab8016] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def corpus() -> Path:
    chosen = os.environ.get("TRAILBLAZE_CORPUS")
    root = Path(chosen) if chosen else REPO.parent / "shared" / "corpus"
    if not (root / "upstream").is_dir():
        raise SystemExit(f"no corpus at {root} (set TRAILBLAZE_CORPUS)")
    return root / "upstream"


def export(commit: str, into: Path) -> Path:
    """The plugin package of ``commit``, unpacked into ``into``."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit, "pytest_trailblaze"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def collect(cwd: Path, target: Path, pythonpath: Path | None) -> float:
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
               "-p", "pytest_trailblaze.plugin", "--rootdir", str(cwd), str(target)]  # fmt: skip
    began = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - began
    if "collected" not in done.stdout and "error" not in done.stdout:
        raise SystemExit(f"collection failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="eab8016", help="the commit to compare with")
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    target = corpus()
    with tempfile.TemporaryDirectory(prefix="tb-collect-corpus-") as tmp:
        base = export(options.baseline, Path(tmp) / "baseline")
        work = Path(tmp) / "run"
        work.mkdir()
        (work / "pytest.ini").write_text("[pytest]\n")
        os.environ["TRAILBLAZE_CACHE_DIR"] = str(Path(tmp) / "cache")
        versions = {"baseline": base, "this checkout": None}
        for path in versions.values():  # warm-up: bytecode, filesystem and analysis caches
            collect(work, target, path)
        times: dict[str, list[float]] = {name: [] for name in versions}
        for number in range(options.rounds):
            order = list(versions.items()) if number % 2 == 0 else list(versions.items())[::-1]
            for name, path in order:
                times[name].append(collect(work, target, path))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        print(f"{name:>13}: median {median:.2f} s over {options.rounds} rounds")
    ratio = medians["this checkout"] / medians["baseline"]
    print(f"ratio this checkout / baseline ({options.baseline}): {ratio:.3f} (goal <= 1.10)")


if __name__ == "__main__":
    main()
