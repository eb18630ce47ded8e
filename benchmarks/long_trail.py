"""Long trails cost linear time: the same run of a 5,000-step and a 20,000-step trail, side by side.

Every step is one memory assertion (no page work), so the time is the plugin's own: loading,
planning, running, step records, JUnit properties, ``record.json``. A linear plugin takes about 4x
as long for 4x the steps; before the step records and properties became lookups it took 14x
(6 s against 85 s).

    .venv/bin/python benchmarks/long_trail.py [--steps 5000 20000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def trail(steps: int) -> str:
    body = "".join(
        f"  - step: Step {n}\n    recording:\n      web:\n"
        f'        - assertEquals: {{ actual: "v{n}", expected: "v{n}" }}\n'
        for n in range(steps)
    )
    return f"config: {{ id: bench/long-{steps} }}\ntrail:\n{body}"


def run(steps: int) -> float:
    with tempfile.TemporaryDirectory(prefix="trailblaze-long-") as folder:
        (Path(folder) / "long.trail.yaml").write_text(trail(steps))
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "long.trail.yaml"],
            cwd=folder, capture_output=True, text=True, check=False,
        )  # fmt: skip
        took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stdout[-2000:] + done.stderr[-2000:])
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, nargs=2, default=[5_000, 20_000])
    small, large = parser.parse_args().steps
    short, long = run(small), run(large)
    print(f"{small:>6} steps: {short:6.1f} s")
    print(f"{large:>6} steps: {long:6.1f} s")
    times = large / small
    print(f"time ratio {long / short:.1f}x for {times:.0f}x the steps (linear: about {times:.0f}x)")


if __name__ == "__main__":
    main()
