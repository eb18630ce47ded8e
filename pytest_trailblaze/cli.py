"""The ``trailblaze`` console command: ``check`` trails before a device starts, list the ``toolbox``,
print the JSON ``schema`` of a kind of file.

Exit codes: 0 clean, 1 findings, 2 usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from .check import Checker
from .core.errors import RegistryError, ToolServerError
from .core.system.files import DEFAULT_MAX_BYTES, parse_size
from .core.tooling.tooldef import ToolDescriptor
from .core.trail.devices import DRIVER_TYPES, PLATFORMS
from .core.trail.naming import category
from .core.trail.yamlsource import did_you_mean
from .drivers import ffmpeg
from .mcp.server import handshake_timeout_default
from .mcp.serverlog import CommandLogs
from .mcp.toolsets import McpToolsets
from .schemas import KINDS, path_of, shipped
from .session.registries import discovery_device, discovery_registry
from .session.workspaces import load_workspace, loader_of
from .tools import builtin_tools
from .typescript.checks import TsCheckOptions
from .workspace import Workspace, find_config_dir, toolbox
from .workspace.toolbox import callable_tools

_ALLOW_OUTSIDE_HELP = (
    "let trails and tool files name code outside the workspace root: Python files, installed modules, "
    "MCP server scripts (trusted code)"
)


_SIZE_HELP = "refuse trail and workspace files larger than SIZE (default 10MB; e.g. 512KB, 20MB)"


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trailblaze", description="Check Trailblaze trails and list tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser(
        "check", help="validate trails and workspaces without a device (exit 0 clean, 1 findings)"
    )
    check.add_argument("paths", nargs="+", type=Path, help="trail files or folders to search")
    check.add_argument("--strict", action="store_true", help="report naming and scoping warnings as findings")
    check.add_argument("--config-dir", type=Path, help="workspace config folder (holding trailblaze.yaml)")
    check.add_argument(
        "--no-servers",
        action="store_true",
        help="do not start targets' MCP servers; their tools are then not checked",
    )
    check.add_argument("--allow-outside-code", action="store_true", help=_ALLOW_OUTSIDE_HELP)
    check.add_argument(
        "--max-file-size", type=_size, default=DEFAULT_MAX_BYTES, metavar="SIZE", help=_SIZE_HELP
    )
    check.add_argument(
        "--no-tool-tests", action="store_true", help="do not run the *.test.ts of trailmaps' TypeScript tools"
    )
    check.add_argument(
        "--no-typecheck", action="store_true", help="do not type-check trailmaps' TypeScript tools"
    )
    box = sub.add_parser("toolbox", help="list the tools an agent is offered for a target and platform")
    box.add_argument("--target", help="target id (default: the workspace's default target)")
    box.add_argument("--platform", choices=PLATFORMS, default="web")
    box.add_argument("--driver", help="driver key, e.g. playwright-native")
    box.add_argument(
        "--config-dir", type=Path, help="workspace config folder (default: trails/config found walking up)"
    )
    box.add_argument(
        "--all",
        action="store_true",
        help="list every tool a recording can call, also those not offered to agents",
    )
    box.add_argument("--allow-outside-code", action="store_true", help=_ALLOW_OUTSIDE_HELP)
    box.add_argument(
        "--max-file-size", type=_size, default=DEFAULT_MAX_BYTES, metavar="SIZE", help=_SIZE_HELP
    )
    schema = sub.add_parser("schema", help="print the JSON Schema of a kind of file, for editors")
    schema.add_argument("kind", choices=(*KINDS, "all"), help="the kind of file (all: every schema)")
    schema.add_argument("--output", type=Path, metavar="DIR", help="write <kind>.schema.json files into DIR")
    sub.add_parser(
        "install-ffmpeg",
        help="link an installed ffmpeg (imageio-ffmpeg's, or one on PATH) where Playwright looks for "
        "its own, so --trailblaze-video works without `playwright install ffmpeg`",
    )
    return parser


def run_install_ffmpeg() -> int:
    try:
        path = ffmpeg.install()
    except FileNotFoundError as exc:
        print(f"trailblaze install-ffmpeg: {exc}", file=sys.stderr)
        return 1
    print(f"Playwright's ffmpeg: {path}")
    return 0


def run_schema(kind: str, output: Path | None) -> int:
    """Print a schema, or write the chosen schemas (``all``: every kind) into a folder."""
    kinds = list(KINDS) if kind == "all" else [kind]
    if output is None and len(kinds) > 1:
        print("trailblaze schema all: pass --output DIR to write every schema", file=sys.stderr)
        return 2
    if output is None:
        sys.stdout.write(shipped(kinds[0]))
        sys.stdout.flush()  # a full disk or a closed reader shows here, not at the interpreter's exit
        return 0
    try:
        output.mkdir(parents=True, exist_ok=True)
        for name in kinds:
            path = output / path_of(name).name
            path.write_text(shipped(name), encoding="utf-8")
            print(path)
    except OSError as exc:
        where = exc.filename or output
        print(
            f"trailblaze schema: cannot write {where}: {exc.strerror or exc}\n"
            "  fix: pass --output a folder you may create files in, on a disk with free space",
            file=sys.stderr,
        )
        return 1
    return 0


def run_check(
    paths: Sequence[Path],
    *,
    strict: bool,
    config_dir: Path | None,
    servers: bool = True,
    allow_outside_code: bool = False,
    max_file_bytes: int = DEFAULT_MAX_BYTES,
    typescript: TsCheckOptions | None = None,
) -> int:
    missing = [p for p in (*paths, *([config_dir] if config_dir else [])) if not p.exists()]
    if missing:
        print(f"trailblaze check: no such file or folder: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    if config_dir is not None and not (config_dir / "trailblaze.yaml").is_file():
        print(f"trailblaze check: --config-dir {config_dir}: no trailblaze.yaml there", file=sys.stderr)
        return 2
    checker = Checker(
        config_dir=config_dir,
        strict=strict,
        servers=servers,
        allow_outside_code=allow_outside_code,
        max_file_bytes=max_file_bytes,
        typescript=typescript,
    )
    report = checker.run(paths)
    for problem in report.problems:
        print(problem.format())
    findings = report.findings(strict=strict)
    warnings = len(report.problems) - len(findings)
    summary = (
        f"{report.trails} trail(s) in {report.files} file(s) and {report.workspaces} workspace(s) checked: "
    )
    summary += f"{len(findings)} problem(s)" if findings else "no problems"
    print(summary + (f", {warnings} warning(s)" if warnings else ""))
    return 1 if findings else 0


def run_toolbox(args: argparse.Namespace) -> int:
    known = {d.yaml_key for d in DRIVER_TYPES}
    if args.driver and args.driver not in known:
        print(
            f"trailblaze toolbox: unknown driver {args.driver!r}; known: {', '.join(sorted(known))}",
            file=sys.stderr,
        )
        return 2
    builtins = builtin_tools()
    config_dir = find_config_dir(Path.cwd(), args.config_dir)
    loader = loader_of(allow_outside_code=args.allow_outside_code, max_file_bytes=args.max_file_size)
    ws = load_workspace(loader, config_dir)[0] if config_dir else Workspace(None)
    if ws.errors:
        for problem in ws.errors:
            print(problem.format(), file=sys.stderr)
        return 1
    for problem in ws.warnings:  # e.g. no TypeScript compiler: .ts tools listed without descriptions
        print(problem.format(), file=sys.stderr)
    target = ws.resolve_target(args.target)
    if args.target and target is None:
        hint = did_you_mean(args.target, ws.targets)
        known_targets = ", ".join(sorted(ws.targets)) or "none (no workspace found)"
        print(
            f"trailblaze toolbox: unknown target {args.target!r}; known: {known_targets}"
            + (f"; {hint}" if hint else ""),
            file=sys.stderr,
        )
        return 2
    device = discovery_device(args.platform)
    device = replace(device, driver_key=args.driver or device.driver_key)
    logs = CommandLogs("toolbox")
    mcp = McpToolsets(
        logs.path, handshake_timeout=handshake_timeout_default(), call_timeout=30.0, worker="toolbox"
    )
    failure = ""
    try:
        registry, _ = discovery_registry(builtins, ws, target, device, lambda: mcp, "toolbox")
    except (ToolServerError, RegistryError) as exc:
        failure = f"trailblaze toolbox: {exc}"
        print(failure, file=sys.stderr)
        return 1
    finally:
        mcp.close()
        logs.finish([failure])
    offered = toolbox(ws, target, registry)
    listing = callable_tools(registry) if args.all else offered
    _print_tools(listing, {d.name for d in offered})
    where = f"target {target.id}" if target else "no target"
    if args.all:
        agents = f"{len(offered)} offered to agents"
        print(f"{len(listing)} callable tool(s) for {args.platform} ({where}), {agents}")
    else:
        print(f"{len(offered)} tool(s) for {args.platform} ({where})")
    return 0


def _print_tools(descriptors: Sequence[ToolDescriptor], offered: set[str]) -> None:
    """One line per tool: name, category, source, first sentence; tools agents are not offered say so."""
    for descriptor in descriptors:
        line = descriptor.description.split(". ")[0].rstrip(".")
        if descriptor.name not in offered:
            line = f"[not offered to agents] {line}"
        source = descriptor.source.split(" (")[0]
        print(f"{descriptor.name:<34} {category(descriptor.name):<13} {source:<24} {line}")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code not in (0, None) else 0
    try:
        if args.command == "check":
            return run_check(
                args.paths,
                strict=args.strict,
                config_dir=args.config_dir,
                servers=not args.no_servers,
                allow_outside_code=args.allow_outside_code,
                max_file_bytes=args.max_file_size,
                typescript=TsCheckOptions(tests=not args.no_tool_tests, typecheck=not args.no_typecheck),
            )
        if args.command == "schema":
            return run_schema(args.kind, args.output)
        if args.command == "install-ffmpeg":
            return run_install_ffmpeg()
        return run_toolbox(args)
    except BrokenPipeError:
        return _reader_went_away()
    except OSError as exc:  # stdout failed (a full disk: `> /dev/full`), or a file of ours could not be made
        what = f"{exc.filename}: " if exc.filename else "cannot write the output: "
        print(f"trailblaze {args.command}: {what}{exc.strerror or exc}", file=sys.stderr)
        if exc.filename is None:
            _silence_stdout()
        return 1


def _reader_went_away() -> int:
    """`trailblaze toolbox | head` closes the pipe early; that is the reader's choice, not an error.

    stdout is pointed at /dev/null so the interpreter's final flush does not raise a second time.
    """
    _silence_stdout()
    return 0


def _silence_stdout() -> None:
    """Point stdout at /dev/null, dropping what is buffered: its final flush must not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
