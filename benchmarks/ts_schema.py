"""Reading a 10-tool trailmap's TypeScript tools: cold (the TypeScript compiler runs: schemas,
descriptions, type checks) against warm (the content cache answers; no TypeScript work), side by
side, each in a fresh workspace load. Goals: at most 1.5 s cold, under 50 ms warm.

    .venv/bin/python benchmarks/ts_schema.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from pytest_trailblaze.session.workspaces import typescript_tools
from pytest_trailblaze.tools import builtin_tools
from pytest_trailblaze.typescript import runtime
from pytest_trailblaze.typescript.clientdts import builtin_digest
from pytest_trailblaze.workspace import WorkspaceLoader

REPO = Path(__file__).resolve().parent.parent
TOOL = """import {{ trailblaze }} from "@trailblaze/scripting";
import {{ pageUrl }} from "./bench_shared";

export interface Args{n} {{
  /** Where to go. */
  path?: string;
  /** How many times. @default 1 */
  times?: number;
  /** Which way. */
  mode?: "fast" | "slow";
  tags?: string[];
}}

/** Tool number {n}: open a page and check it. */
export const bench_web_tool{n} = trailblaze.tool<Args{n}>(
  {{ supportedPlatforms: ["web"], requiresContext: true }},
  async (input, ctx) => {{
    await ctx.tools.web_navigate({{ action: "GOTO", url: pageUrl(input.path ?? "/") }});
    await ctx.tools.web_verifyTextVisible({{ text: "Page {n}" }});
    return `Opened {n}.`;
  }},
);
"""
SHARED = 'export function pageUrl(path: string): string {\n  return `http://bench.test${path}`;\n}\n'


def write(root: Path) -> Path:
    config = root / "trails" / "config"
    tools = config / "trailmaps" / "bench" / "tools"
    tools.mkdir(parents=True)
    (config / "trailblaze.yaml").write_text("targets: [bench]\n")
    listed = "".join(f"\n    - bench_web_tool{n}" for n in range(10))
    (config / "trailmaps/bench/trailmap.yaml").write_text(
        f"id: bench\ntarget:\n  display_name: Bench\n  tools:{listed}\n  platforms:\n    web: {{}}\n"
    )
    (tools / "bench_shared.ts").write_text(SHARED)
    for n in range(10):
        (tools / f"bench_web_tool{n}.ts").write_text(TOOL.format(n=n))
    return config


def load_seconds(config: Path, builtins: list[str]) -> float:
    began = time.perf_counter()
    ws = WorkspaceLoader(builtin_names=builtins, scripted_tools=typescript_tools).load(config)
    elapsed = time.perf_counter() - began
    assert not ws.errors and len(ws.ts_tools) == 10, [p.format() for p in ws.errors]
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    os.environ["PATH"] = f"{REPO / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}"
    runtime.forget()
    builtins = [t.name for t in builtin_tools()]
    builtin_digest()  # imported once per process anyway: not part of either figure
    cold, warm = [], []
    with tempfile.TemporaryDirectory(prefix="tb-ts-schema-") as tmp:
        config = write(Path(tmp))
        for number in range(options.rounds):
            os.environ["TRAILBLAZE_CACHE_DIR"] = str(Path(tmp) / f"cache-{number}")
            cold.append(load_seconds(config, builtins))
            warm.append(load_seconds(config, builtins))
    print(f"cold (TypeScript compiler runs): median {statistics.median(cold):.3f} s  (goal <= 1.5 s)")
    print(f"warm (content cache):            median {statistics.median(warm) * 1000:.1f} ms  (goal < 50 ms)")
    print(f"rounds: {options.rounds}; each a fresh workspace load of a 10-tool trailmap")


if __name__ == "__main__":
    main()
