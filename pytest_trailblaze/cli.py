"""The ``trailblaze`` console command: ``check`` trails before a device starts, list the ``toolbox``.

Exit codes: 0 clean, 1 findings, 2 usage errors (like pytest's "usage" and upstream's misuse).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .check import check_paths
from .core.devices import DRIVER_TYPES, PLATFORMS
from .core.registry import ToolRegistry
from .tools import builtin_tools

DEFAULT_DRIVERS = {"web": "playwright-native", "android": "", "ios": "", "desktop": ""}


def session_registry(platform: str, driver_key: str | None = None, agent_mode: str = "host") -> ToolRegistry:
    """The tools a session of ``platform`` starts with (built-ins, for now)."""
    key = driver_key or DEFAULT_DRIVERS.get(platform, "")
    registry = ToolRegistry(platform=platform, driver_key=key, agent_mode=agent_mode)
    registry.register_all(builtin_tools())
    return registry


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trailblaze", description="Check Trailblaze trails and list tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="validate trail files without a device (exit 0 clean, 1 findings)")
    check.add_argument("paths", nargs="+", type=Path, help="trail files or folders to search")
    box = sub.add_parser("toolbox", help="list the tools an agent sees for a target and platform")
    box.add_argument("--platform", choices=PLATFORMS, default="web")
    box.add_argument("--driver", help="driver key, e.g. playwright-native")
    box.add_argument(
        "--all", action="store_true", help="include tools hidden from the agent (surface_to_llm false)"
    )
    return parser


def run_check(paths: Sequence[Path]) -> int:
    missing = [p for p in paths if not p.exists()]
    if missing:
        print(f"trailblaze check: no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    registries: dict[str, ToolRegistry] = {}
    report = check_paths(paths, lambda p: registries.setdefault(p, session_registry(p)))
    for problem in report.problems:
        print(problem.format())
    count = len(report.errors)
    summary = f"{report.trails} trail(s) in {report.files} file(s) checked: "
    print(summary + (f"{count} problem(s)" if count else "no problems"))
    return 1 if count else 0


def run_toolbox(platform: str, driver: str | None, show_all: bool) -> int:
    known = {d.yaml_key for d in DRIVER_TYPES}
    if driver and driver not in known:
        print(
            f"trailblaze toolbox: unknown driver {driver!r}; known: {', '.join(sorted(known))}",
            file=sys.stderr,
        )
        return 2
    registry = session_registry(platform, driver)
    shown = 0
    for descriptor in registry.descriptors():
        tool = registry.get(descriptor.name)
        if registry.unsupported_reason(tool) or not (descriptor.surface_to_llm or show_all):
            continue
        shown += 1
        print(f"{descriptor.name:<28} {descriptor.source:<10} {descriptor.description}")
    print(f"{shown} tool(s) for {platform}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code not in (0, None) else 0
    if args.command == "check":
        return run_check(args.paths)
    return run_toolbox(args.platform, args.driver, args.all)


if __name__ == "__main__":
    sys.exit(main())
