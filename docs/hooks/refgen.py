"""The reference pages of the docs site, written from the code at build time so they cannot drift.

Each function reads what the plugin itself declares: its pytest options and ini keys (by calling
its ``pytest_addoption`` on a recorder), its fixtures (the ``@pytest.fixture`` functions of the
plugin package), its hooks (``plugin/hookspecs.py``), the built-in tools with their argument
schemas (the tool registry's own list), the ``trailblaze`` command (its argparse parser), the
public Python API and the JSON Schemas. ``pages()`` is what the mkdocs hook adds to the site;
the test suite reads it too, to prove nothing is missing.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GENERATED_NOTE = (
    "<!-- Generated at build time from the code (docs/hooks/refgen.py): edit the code, not this page. -->\n"
)
ENV_PREFIXES = ("TRAILBLAZE_", "OPENAI_", "ANTHROPIC_", "AZURE_OPENAI_", "GOOGLE_GEMINI_")
_ENV_NAME = re.compile(r"\b(?:CI|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b")


# --- options -------------------------------------------------------------------------------------


@dataclass
class Option:
    """One command-line option as declared, with the ini key declared right after it (if any)."""

    flags: tuple[str, ...]
    attrs: dict[str, Any]
    ini: str | None = None
    ini_type: str | None = None
    ini_default: Any = None

    @property
    def help(self) -> str:
        return str(self.attrs.get("help", ""))

    @property
    def is_flag(self) -> bool:
        return self.attrs.get("action") == "store_true"

    @property
    def repeatable(self) -> bool:
        return self.attrs.get("action") == "append"

    def env_vars(self) -> list[str]:
        """Environment variables the option's help names (``{{NAME}}`` tokens are trail syntax)."""
        text = re.sub(r"\{\{[^}]*\}\}", "", self.help)
        found = [m for m in _ENV_NAME.findall(text) if m == "CI" or m.startswith(ENV_PREFIXES)]
        return list(dict.fromkeys(found))

    def default(self) -> str:
        """The declared default (ini or command line), else the one its help states."""
        if self.ini_default not in (None, "", [], False):
            value = self.ini_default
            return " ".join(value) if isinstance(value, list) else str(value)
        if self.is_flag:
            return "off"
        cli = self.attrs.get("default")
        if cli not in (None, "", [], False):
            return str(cli)
        return _default_in_help(self.help)


@dataclass
class IniKey:
    name: str
    help: str
    type: str | None
    default: Any


def _default_in_help(text: str) -> str:
    """The default a help text states; an environment variable read instead is its own column."""
    return re.sub(r",? or [A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$", "", _stated_default(text)).strip()


def _stated_default(text: str) -> str:
    marked = re.search(r"(\S+) \(default\)", text)
    if marked:
        return marked.group(1)
    start = text.find("(default ")
    if start >= 0:
        depth, end = 0, start
        for end, char in enumerate(text[start:], start):  # noqa: B007 (the closing paren's index)
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                break
        return text[start + len("(default ") : end].strip()
    found = re.search(r"\bdefault:? (.+)$", text)
    return found.group(1).strip() if found else ""


class _Recorder:
    """Stands in for pytest's parser and its option group: keeps every declaration in order."""

    def __init__(self) -> None:
        self.declared: list[tuple[str, Any]] = []

    def getgroup(self, name: str, description: str = "") -> _Recorder:
        return self

    def addoption(self, *flags: str, **attrs: Any) -> None:
        self.declared.append(("option", Option(tuple(flags), attrs)))

    def addini(self, name: str, help: str, type: str | None = None, default: Any = None) -> None:
        self.declared.append(("ini", IniKey(name, help, type, default)))


def declared_options() -> tuple[list[Option], list[IniKey]]:
    """The plugin's options, each paired with the ini key declared right after it, and the ini
    keys no option declared (kept in declaration order)."""
    from pytest_trailblaze import plugin

    recorder = _Recorder()
    plugin.pytest_addoption(recorder)  # type: ignore[arg-type]
    options: list[Option] = []
    lone: list[IniKey] = []
    previous: str | None = None
    for kind, value in recorder.declared:
        if kind == "option":
            options.append(value)
        elif previous == "option" and options[-1].ini is None:
            options[-1].ini, options[-1].ini_type, options[-1].ini_default = (
                value.name,
                value.type,
                value.default,
            )
        else:
            lone.append(value)
        previous = kind
    return options, lone


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def options_page() -> str:
    options, lone = declared_options()
    lines = [
        GENERATED_NOTE,
        "# Options and ini keys\n",
        "Every `--trailblaze-*` option of `pytest`, with the ini key that sets it in `pytest.ini`, "
        "`pyproject.toml` (`[tool.pytest.ini_options]`) or `tox.ini`, the environment variables it "
        "reads, and its default. The command line wins over the ini file, which wins over the "
        "environment.\n",
    ]
    for opt in options:
        metavar = f" {opt.attrs['metavar']}" if "metavar" in opt.attrs else ""
        lines.append(f"## {' / '.join(f'`{flag}{metavar}`' for flag in opt.flags)}\n")
        lines.append(opt.help[:1].upper() + opt.help[1:] + ("." if not opt.help.endswith(".") else "") + "\n")
        facts = [f"ini key: `{opt.ini}`" if opt.ini else "ini key: none (command line only)"]
        env = opt.env_vars()
        if env:
            facts.append("environment: " + ", ".join(f"`{name}`" for name in env))
        default = opt.default()
        facts.append(f"default: {(_code(default) if len(default.split()) <= 2 else default) or 'none'}")
        choices = opt.attrs.get("choices")
        if choices:
            facts.append("one of: " + ", ".join(f"`{c}`" for c in choices))
        if opt.repeatable:
            facts.append("repeatable (the ini key takes one value a line)" if opt.ini else "repeatable")
        lines += [*(f"- {fact}" for fact in facts), ""]
    lines += [
        "## ini keys without an option\n",
        "| ini key | Type | Default | What it does |",
        "| --- | --- | --- | --- |",
    ]
    for key in lone:
        default = " ".join(key.default) if isinstance(key.default, list) else (key.default or "")
        lines.append(f"| `{key.name}` | {key.type or 'string'} | {_code(str(default))} | {_cell(key.help)} |")
    return "\n".join(lines) + "\n"


# --- fixtures ------------------------------------------------------------------------------------


@dataclass
class Fixture:
    name: str
    scope: str
    returns: str
    doc: str
    module: str


def _fixture_scope(decorator: ast.expr) -> str | None:
    """``function``/``session``... for ``@pytest.fixture`` / ``@pytest.fixture(scope=...)``, else None."""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if ast.unparse(target) not in ("pytest.fixture", "fixture"):
        return None
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == "scope" and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
    return "function"


def declared_fixtures() -> list[Fixture]:
    """The public fixtures (``trailblaze_*``) defined in the plugin package, read from its source."""
    import pytest_trailblaze.plugin as package

    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        path = Path(package.__path__[0], f"{info.name}.py")
        if not path.is_file():
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("trailblaze_"):
                continue
            scopes = [s for s in map(_fixture_scope, node.decorator_list) if s]
            if scopes:
                returns = ast.unparse(node.returns) if node.returns else ""
                doc = ast.get_docstring(node) or ""
                found.append(
                    Fixture(node.name, scopes[0], returns, doc, f"pytest_trailblaze.plugin.{info.name}")
                )
    return found


def fixtures_page() -> str:
    lines = [
        GENERATED_NOTE,
        "# Fixtures\n",
        "The plugin's public fixtures. Override any of them in a `conftest.py` (same name, same "
        "scope or narrower) to change what trails get.\n",
        "| Fixture | Scope | Gives |",
        "| --- | --- | --- |",
    ]
    fixtures = declared_fixtures()
    for fx in fixtures:
        first = fx.doc.split("\n\n", 1)[0].replace("\n", " ")
        lines.append(f"| [`{fx.name}`](#{fx.name}) | {fx.scope} | {_cell(first)} |")
    for fx in fixtures:
        lines += [
            f"\n## {fx.name}\n",
            f"Scope: **{fx.scope}**" + (f" · returns `{fx.returns}`" if fx.returns else ""),
        ]
        lines += ["", fx.doc or "(no description)", ""]
    return "\n".join(lines) + "\n"


# --- hooks ---------------------------------------------------------------------------------------


def declared_hooks() -> list[tuple[str, inspect.Signature, dict[str, Any], str]]:
    """(name, signature, hookspec options, docstring) of every ``pytest_trailblaze_*`` hook."""
    from pytest_trailblaze.plugin import hookspecs

    hooks = []
    for name, func in inspect.getmembers(hookspecs, inspect.isfunction):
        if name.startswith("pytest_trailblaze_"):
            spec = getattr(func, "pytest_spec", None) or {}
            hooks.append((name, inspect.signature(func), dict(spec), inspect.getdoc(func) or ""))
    order = list(vars(hookspecs))
    return sorted(hooks, key=lambda hook: order.index(hook[0]))


def hooks_page() -> str:
    lines = [
        GENERATED_NOTE,
        "# Hooks\n",
        "Implement these in a `conftest.py` or a plugin; pytest passes the arguments you name. "
        "*firstresult* hooks stop at the first implementation that returns something other than "
        "`None`; a *historic* hook is replayed for plugins registered later.\n",
    ]
    for name, signature, spec, doc in declared_hooks():
        kinds = [kind for kind in ("firstresult", "historic") if spec.get(kind)]
        params = ", ".join(signature.parameters)
        lines += [f"## {name}\n", f"```python\ndef {name}({params}): ...\n```\n"]
        if kinds:
            lines.append(f"*{', '.join(kinds)}*\n")
        lines += [doc, ""]
    return "\n".join(lines) + "\n"


# --- built-in tools ------------------------------------------------------------------------------


def _tool_group(platforms: frozenset[str]) -> str:
    if not platforms:
        return "Every platform"
    if platforms == {"web"}:
        return "Web (Playwright)"
    if platforms == {"android"}:
        return "Android only (Appium)"
    return "Mobile (Appium)" if "web" not in platforms else "Every platform"


def _schema_type(prop: dict[str, Any]) -> str:
    if "enum" in prop:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in prop["enum"])
    if "type" in prop:
        kind = prop["type"]
        return " \\| ".join(kind) if isinstance(kind, list) else str(kind)
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return " \\| ".join(dict.fromkeys(_schema_type(p) for p in prop[key]))
    if "$ref" in prop:
        return prop["$ref"].rsplit("/", 1)[-1]
    return "any"


def _range(prop: dict[str, Any]) -> str:
    low = prop.get("minimum", prop.get("exclusiveMinimum"))
    high = prop.get("maximum", prop.get("exclusiveMaximum"))
    if low is None and high is None:
        return ""
    return f"{'' if low is None else low} – {'' if high is None else high}"


def tools_page() -> str:
    from pytest_trailblaze.tools import builtin_tools

    tools = builtin_tools()
    groups: dict[str, list[Any]] = {}
    for tool in tools:
        groups.setdefault(_tool_group(tool.descriptor.platforms), []).append(tool.descriptor)
    lines = [
        GENERATED_NOTE,
        "# Built-in tools\n",
        "Every tool a recording can call without adding any, with its arguments as the registry "
        "validates them (the same schemas `trailblaze check`, collection and the editor schemas "
        "use). `trailblaze toolbox --platform web --all` lists them for a session.\n",
    ]
    for group in ("Web (Playwright)", "Mobile (Appium)", "Android only (Appium)", "Every platform"):
        descriptors = sorted(groups.get(group, []), key=lambda d: d.name)
        if not descriptors:
            continue
        lines.append(f"## {group}\n")
        lines.append(", ".join(f"[`{d.name}`](#{d.name.lower()})" for d in descriptors) + "\n")
        for d in descriptors:
            lines += _tool_section(d)
    return "\n".join(lines) + "\n"


def _tool_section(d: Any) -> list[str]:
    schema = dict(d.parameters)
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    traits = []
    if d.is_verification:
        traits.append("verification")
    if not d.surface_to_llm:
        traits.append("not offered to agents")
    if not d.is_recordable:
        traits.append("not recorded")
    if d.requires_host:
        traits.append("needs the host")
    platforms = ", ".join(sorted(d.platforms)) or "all"
    lines = [
        f"### {d.name}\n",
        d.description or "",
        "",
        f"Platforms: {platforms}" + (f" · {', '.join(traits)}" if traits else "") + "\n",
    ]
    if props:
        lines += [
            "| Argument | Type | Required | Default | Range | Description |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for name, prop in props.items():
            default = _cell(_code(json.dumps(prop["default"]))) if "default" in prop else ""
            needed = "yes" if name in required else ""
            lines.append(
                f"| `{name}` | {_schema_type(prop)} | {needed} | {default} "
                f"| {_range(prop)} | {_cell(prop.get('description', ''))} |"
            )
        lines.append("")
    else:
        lines.append("No arguments.\n")
    lines += [
        '??? note "JSON Schema of the arguments"',
        "",
        *("    " + line for line in json.dumps(schema, indent=2, sort_keys=True).splitlines()),
        "",
    ]
    # indented code inside the admonition needs a fence
    start = lines.index('??? note "JSON Schema of the arguments"')
    lines[start + 2 : start + 2] = ["    ```json"]
    lines.insert(len(lines) - 1, "    ```")
    return lines


# --- the trailblaze command ----------------------------------------------------------------------


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _fixed_width(parser: argparse.ArgumentParser) -> None:
    formatter: Callable[[str], argparse.HelpFormatter] = lambda prog: argparse.HelpFormatter(  # noqa: E731
        prog, width=100, max_help_position=32
    )
    parser.formatter_class = formatter  # type: ignore[assignment]


def cli_page() -> str:
    from pytest_trailblaze import cli

    parser = cli._parser()
    _fixed_width(parser)
    lines = [
        GENERATED_NOTE,
        "# The `trailblaze` command\n",
        (cli.__doc__ or "").strip() + "\n",
        "```text",
        parser.format_help().rstrip(),
        "```\n",
    ]
    for name, sub in _subparsers(parser).items():
        _fixed_width(sub)
        lines += [
            f"## trailblaze {name}\n",
            (sub.description or "") + "\n" if sub.description else "",
            "```text",
            sub.format_help().rstrip(),
            "```\n",
        ]
    return "\n".join(lines) + "\n"


def cli_commands() -> list[str]:
    from pytest_trailblaze import cli

    return list(_subparsers(cli._parser()))


# --- public API ----------------------------------------------------------------------------------


def api_page() -> str:
    import pytest_trailblaze

    lines = [
        GENERATED_NOTE,
        "# Python API\n",
        "What `from pytest_trailblaze import ...` offers to authors of tools, drivers and agents "
        "(the package is typed: it ships `py.typed`). Everything else is internal.\n",
    ]
    for name in pytest_trailblaze.__all__:
        obj = getattr(pytest_trailblaze, name)
        if name == "__version__":
            lines += ["## `__version__`\n", f"The installed version, `{obj}`.\n"]
            continue
        kind = "class" if inspect.isclass(obj) else "function"
        doc = inspect.getdoc(obj) or ""
        try:
            signature = str(inspect.signature(obj)) if kind == "function" else ""
        except (TypeError, ValueError):
            signature = ""
        lines += [
            f"## `{name}`\n",
            f"*{kind}*" + (f" `{name}{signature}`" if signature else "") + "\n",
            doc,
            "",
        ]
    return "\n".join(lines) + "\n"


# --- JSON Schemas --------------------------------------------------------------------------------


def schema_files() -> dict[str, str]:
    """``reference/schemas/<kind>.schema.json`` files of the site, generated like the shipped ones."""
    from pytest_trailblaze.schemas import KINDS, generate, text_of

    return {f"reference/schemas/{kind}.schema.json": text_of(generate(kind)) for kind in KINDS}


def schemas_page() -> str:
    from pytest_trailblaze.schemas import KINDS, generate

    lines = [
        GENERATED_NOTE,
        "# JSON Schemas\n",
        "One schema per kind of file, generated from what validates those files. "
        "`trailblaze schema KIND` prints one, `trailblaze schema all --output .schemas` writes them "
        "all; they also ship inside the package (`pytest_trailblaze/schemas/`). See "
        "[Editor support](../guides/editor-support.md) for wiring them into an editor.\n",
        "| Kind | Files | Schema |",
        "| --- | --- | --- |",
    ]
    for kind, patterns in KINDS.items():
        names = ", ".join(f"`{p}`" for p in patterns)
        lines.append(f"| `{kind}` | {names} | [{kind}.schema.json](schemas/{kind}.schema.json) |")
    for kind in KINDS:
        schema = generate(kind)
        lines += [f"\n## {kind}\n", _cell(schema.get("description", schema.get("title", ""))) + "\n"]
        props = _top_level_properties(schema)
        if props:
            lines += ["| Key | Type | Description |", "| --- | --- | --- |"]
            for key, prop in props.items():
                lines.append(f"| `{key}` | {_schema_type(prop)} | {_cell(prop.get('description', ''))} |")
    return "\n".join(lines) + "\n"


def _top_level_properties(schema: dict[str, Any]) -> dict[str, Any]:
    if "properties" in schema:
        return dict(schema["properties"])
    for key in ("oneOf", "anyOf"):
        for option in schema.get(key, ()):
            resolved = _resolve(schema, option)
            if "properties" in resolved:
                return dict(resolved["properties"])
    return {}


def _resolve(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if not ref or not ref.startswith("#/"):
        return node
    for part in ref[2:].split("/"):
        root = root[part]
    return root


# --- all pages -----------------------------------------------------------------------------------


def pages() -> dict[str, str]:
    """Path (relative to docs/) -> content of every generated file."""
    importlib.import_module("pytest_trailblaze")
    generated = {
        "reference/options.md": options_page(),
        "reference/fixtures.md": fixtures_page(),
        "reference/hooks.md": hooks_page(),
        "reference/tools.md": tools_page(),
        "reference/cli.md": cli_page(),
        "reference/api.md": api_page(),
        "reference/schemas.md": schemas_page(),
    }
    generated.update(schema_files())
    return generated
