"""Discovery of a trailmap's TypeScript tools, read by the real TypeScript compiler (node +
typescript from node_modules): which files are tools, the schema and description each gets,
descriptors beside them, the names the trailmap lists, and errors located in the .ts files."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from pytest_trailblaze.core.errors import Problem
from pytest_trailblaze.session.workspaces import typescript_tools
from pytest_trailblaze.tools import builtin_tools
from pytest_trailblaze.typescript.ts_tools import TsTool
from pytest_trailblaze.workspace import Workspace, WorkspaceLoader

BUILTINS = frozenset(t.name for t in builtin_tools())

SEARCH = """
    import { trailblaze } from "@trailblaze/scripting";
    import { clean } from "./shop_shared";

    export interface Address {
      /** Street and number. */
      street: string;
      zip?: string;
    }

    export interface SearchArgs {
      /** Words to search for. */
      query: string;
      /** How many results to open. @default 1 */
      count?: number;
      /** Sort order. */
      order?: "price" | "name";
      tags?: string[];
      /** Where to ship. */
      shipTo?: Address;
      exact?: boolean;
    }

    /**
     * Search the shop and open the first results.
     * Use it for "look up X", "find Y".
     */
    export const shop_web_search = trailblaze.tool<SearchArgs>(
      { supportedPlatforms: ["web"], requiresContext: true },
      async (input, ctx) => {
        await ctx.tools.web_type({ ref: "css=#q", text: clean(input.query) });
        return `Searched for ${input.query}.`;
      },
    );
"""
SHARED = """
    export function clean(text: string): string {
      return text.trim();
    }
"""


def ts_loader(**options: Any) -> WorkspaceLoader:
    """A loader as the session makes one: the built-in tools known, TypeScript tools read."""
    return WorkspaceLoader(builtin_names=BUILTINS, scripted_tools=typescript_tools, **options)


def load(root: Path) -> Workspace:
    return ts_loader().load(root / "trails" / "config")


def workspace(tmp_path: Path, ts, files: dict[str, str], listed: list[str], extra: str = "") -> Workspace:
    base = tmp_path / "trails" / "config"
    ts.write_tree(
        base,
        {
            "trailblaze.yaml": "targets: [shop]\n",
            "trailmaps/shop/trailmap.yaml": ts.trailmap(listed, extra=extra),
        },
    )
    ts.write_tree(base / "trailmaps" / "shop" / "tools", files)
    return load(tmp_path)


def errors(ws: Workspace) -> list[str]:
    return [p.format() for p in ws.errors]


def at(problem: Problem) -> tuple[str, int, int]:
    assert problem.span is not None
    return Path(problem.span.path).name, problem.span.line, problem.span.col


def test_a_typed_export_is_a_tool_named_by_its_export_with_schema_and_tsdoc(tmp_path: Path, ts) -> None:
    ws = workspace(
        tmp_path, ts, {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED}, ["shop_web_search"]
    )
    assert errors(ws) == []
    assert list(ws.ts_tools) == ["shop_web_search"]
    [tool] = [t for t in ws.tools if isinstance(t, TsTool)]
    d = tool.descriptor
    assert d.description == 'Search the shop and open the first results. Use it for "look up X", "find Y".'
    assert d.platforms == frozenset({"web"}) and d.source == "typescript:shop_web_search.ts"
    assert tool.requires_context
    assert d.parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to search for."},
            "count": {"type": "number", "description": "How many results to open.", "default": 1},
            "order": {"type": "string", "enum": ["price", "name"], "description": "Sort order."},
            "tags": {"type": "array", "items": {"type": "string"}},
            "shipTo": {
                "type": "object",
                "properties": {
                    "street": {"type": "string", "description": "Street and number."},
                    "zip": {"type": "string"},
                },
                "required": ["street"],
                "additionalProperties": False,
                "description": "Where to ship.",
            },
            "exact": {"type": "boolean"},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert str(ws.ts_tools["shop_web_search"].span).endswith("shop_web_search.ts:27:14")


def test_helpers_tests_declarations_and_the_mcp_folder_are_not_tools(tmp_path: Path, ts) -> None:
    files = {
        "shop_web_search.ts": SEARCH,
        "shop_shared.ts": SHARED,
        "shop_web_search.test.ts": SEARCH.replace("shop_web_search", "shop_inTest"),
        "types.d.ts": "export declare const shop_declared: number;\n",
        "mcp/server.ts": SEARCH.replace("shop_web_search", "shop_inMcp"),
        "node_modules/x/index.ts": SEARCH.replace("shop_web_search", "shop_inModules"),
    }
    ws = workspace(tmp_path, ts, files, ["shop_web_search"])
    assert errors(ws) == []
    assert list(ws.ts_tools) == ["shop_web_search"]


def test_a_listed_name_no_file_exports_is_an_error_at_its_trailmap_line(tmp_path: Path, ts) -> None:
    ws = workspace(
        tmp_path,
        ts,
        {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED},
        ["shop_web_search", "shop_web_serch"],
    )
    assert ws.errors == [], "it fails the target's trails, not every trail of the workspace"
    [(platform, problem)] = ws.unlisted["shop"]
    assert platform is None
    assert at(problem) == ("trailmap.yaml", 6, 7)
    assert problem.what == "target.tools lists 'shop_web_serch', but no file of trailmap 'shop' provides it"
    assert problem.fix == "did you mean 'shop_web_search'?"


def test_an_exported_tool_the_trailmap_does_not_list_is_callable_but_not_offered(tmp_path: Path, ts) -> None:
    from pytest_trailblaze.core.tooling.registry import ToolRegistry
    from pytest_trailblaze.workspace import toolbox

    ws = workspace(tmp_path, ts, {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED}, [])
    assert errors(ws) == [] and "shop_web_search" in ws.ts_tools
    registry = ToolRegistry(platform="web", driver_key="playwright-native")
    registry.register_all([*builtin_tools(), *ws.tools])
    assert "shop_web_search" in registry
    assert "shop_web_search" not in {d.name for d in toolbox(ws, ws.targets["shop"], registry)}


def test_a_syntax_error_is_located_in_the_ts_file(tmp_path: Path, ts) -> None:
    broken = SEARCH.replace("return `Searched", "return (`Searched")
    ws = workspace(
        tmp_path, ts, {"shop_web_search.ts": broken, "shop_shared.ts": SHARED}, ["shop_web_search"]
    )
    [problem] = ws.errors
    assert at(problem)[:2] == ("shop_web_search.ts", 31)
    assert problem.what.startswith("TypeScript error TS1005: ')' expected")


def test_a_type_error_and_a_wrong_tool_argument_are_located(tmp_path: Path, ts) -> None:
    wrong = SEARCH.replace("text: clean(input.query)", "txt: clean(input.query)").replace(
        "return `Searched", "const n: number = input.query;\n    return `Searched"
    )
    ws = workspace(tmp_path, ts, {"shop_web_search.ts": wrong, "shop_shared.ts": SHARED}, ["shop_web_search"])
    found = sorted((at(p), p.what) for p in ws.errors)
    assert [where for where, _ in found] == [("shop_web_search.ts", 30, 47), ("shop_web_search.ts", 31, 11)]
    assert found[0][1].startswith("TypeScript error TS2561: Object literal may only specify known properties")
    assert "Did you mean to write 'text'?" in found[0][1]
    assert found[1][1] == "TypeScript error TS2322: Type 'string' is not assignable to type 'number'."


def test_a_helper_the_tool_imports_is_checked_too_but_unrelated_files_are_not(tmp_path: Path, ts) -> None:
    ws = workspace(
        tmp_path,
        ts,
        {
            "shop_web_search.ts": SEARCH,
            "shop_shared.ts": SHARED.replace("return text.trim();", "return text.trim() * 2;"),
            "_scratch.ts": "const broken: number = 'x';\n",
        },
        ["shop_web_search"],
    )
    assert ws.errors, "the helper's error is reported"
    assert {at(p)[:2] for p in ws.errors} == {("shop_shared.ts", 2)}


def test_spec_fields_are_read_as_literals_and_spec_description_and_schema_win(tmp_path: Path, ts) -> None:
    source = SEARCH.replace(
        '{ supportedPlatforms: ["web"], requiresContext: true }',
        '{ supportedPlatforms: PLATFORMS, description: "Spec words.", isRecordable: false,'
        " surfaceToLlm: false, requiresHost: true,"
        ' inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } }',
    ).replace(
        "export interface Address",
        'const PLATFORMS = ["web", "android"] as const;\n\n    export interface Address',
    )
    ws = workspace(
        tmp_path, ts, {"shop_web_search.ts": source, "shop_shared.ts": SHARED}, ["shop_web_search"]
    )
    assert errors(ws) == []
    [tool] = [t for t in ws.tools if isinstance(t, TsTool)]
    d = tool.descriptor
    assert (d.description, d.is_recordable, d.surface_to_llm, d.requires_host) == (
        "Spec words.",
        False,
        False,
        True,
    )
    assert d.platforms == frozenset({"web", "android"})
    assert d.parameters == {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def test_a_spec_value_the_file_computes_is_a_located_problem(tmp_path: Path, ts) -> None:
    source = SEARCH.replace("requiresContext: true", "requiresContext: Date.now() > 0")
    ws = workspace(
        tmp_path, ts, {"shop_web_search.ts": source, "shop_shared.ts": SHARED}, ["shop_web_search"]
    )
    [problem] = ws.errors
    assert at(problem) == ("shop_web_search.ts", 28, 51)
    assert "spec.requiresContext must be a literal value" in problem.what


LEGACY_JS = """
    /** Sign in. */
    export async function shop_login(args, ctx, client) {
      await client.tools.web_type({ ref: "css=#user", text: args.email });
      return `Signed in as ${args.email}.`;
    }
"""
LEGACY_YAML = """
    script: ./shop_login.js
    name: shop_login
    description: Sign into the shop with the supplied credentials.
    _meta:
      trailblaze/supportedPlatforms: [web]
    inputSchema:
      email:
        type: string
        description: Email to enter.
      remember:
        type: boolean
        required: false
"""


def test_a_legacy_descriptor_makes_a_tool_of_a_plain_function(tmp_path: Path, ts) -> None:
    ws = workspace(tmp_path, ts, {"shop_login.js": LEGACY_JS, "shop_login.yaml": LEGACY_YAML}, ["shop_login"])
    assert errors(ws) == []
    definition = ws.ts_tools["shop_login"]
    assert not definition.typed and definition.file.name == "shop_login.js"
    assert definition.description == "Sign into the shop with the supplied credentials."
    assert definition.schema == {
        "type": "object",
        "properties": {
            "email": {"type": "string", "description": "Email to enter."},
            "remember": {"type": "boolean"},
        },
        "required": ["email"],
    }
    assert definition.spec["supportedPlatforms"] == ["web"]


def test_a_descriptor_wins_over_spec_description_which_wins_over_tsdoc(tmp_path: Path, ts) -> None:
    described = SEARCH.replace(
        "requiresContext: true", 'requiresContext: true, description: "From the spec."'
    )
    sidecar = "script: ./shop_web_search.ts\nname: shop_web_search\ndescription: From the descriptor.\n"
    by_spec = workspace(
        tmp_path / "a", ts, {"shop_web_search.ts": described, "shop_shared.ts": SHARED}, ["shop_web_search"]
    )
    assert by_spec.ts_tools["shop_web_search"].description == "From the spec."
    by_file = workspace(
        tmp_path / "b",
        ts,
        {"shop_web_search.ts": described, "shop_shared.ts": SHARED, "shop_web_search.yaml": sidecar},
        ["shop_web_search"],
    )
    assert errors(by_file) == []
    assert by_file.ts_tools["shop_web_search"].description == "From the descriptor."


def test_a_descriptor_naming_a_function_the_file_lacks_is_an_error(tmp_path: Path, ts) -> None:
    ws = workspace(
        tmp_path,
        ts,
        {"shop_login.js": LEGACY_JS.replace("shop_login", "shop_logon"), "shop_login.yaml": LEGACY_YAML},
        ["shop_login"],
    )
    [problem] = ws.errors
    assert at(problem) == ("shop_login.yaml", 2, 7)
    assert "shop_login.js does not export a function with that name" in problem.what


def test_a_descriptor_script_outside_tools_is_refused(tmp_path: Path, ts) -> None:
    (tmp_path / "elsewhere.js").write_text(LEGACY_JS)
    outside = LEGACY_YAML.replace("./shop_login.js", "../../../../../../elsewhere.js")
    ws = workspace(tmp_path, ts, {"shop_login.yaml": outside}, [])
    [problem] = ws.errors
    assert "is outside the trailmap's tools/ folder" in problem.what


def test_a_platform_list_needs_tools_of_that_platform_alone(tmp_path: Path, ts) -> None:
    base = tmp_path / "trails" / "config"
    manifest = (
        "id: shop\ntarget:\n  display_name: Shop\n  platforms:\n    web:\n      tools: [shop_web_search]\n"
        "    android:\n      tools: [shop_web_search]\n"
    )
    ts.write_tree(base, {"trailblaze.yaml": "targets: [shop]\n", "trailmaps/shop/trailmap.yaml": manifest})
    ts.write_tree(base / "trailmaps/shop/tools", {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED})
    ws = load(tmp_path)
    [problem] = ws.errors
    assert at(problem) == ("trailmap.yaml", 8, 15)
    assert problem.what == "tool 'shop_web_search' is listed under platforms.android.tools but supports web"


def test_a_tool_named_like_a_built_in_collides(tmp_path: Path, ts) -> None:
    source = SEARCH.replace("shop_web_search", "web_click")
    ws = workspace(tmp_path, ts, {"web_click.ts": source, "shop_shared.ts": SHARED}, [])
    [problem] = ws.errors
    assert problem.what == "tool 'web_click' collides with the built-in tool of that name"


def test_two_files_exporting_one_name_is_an_error(tmp_path: Path, ts) -> None:
    ws = workspace(
        tmp_path,
        ts,
        {"shop_web_search.ts": SEARCH, "shop_web_search2.ts": SEARCH, "shop_shared.ts": SHARED},
        ["shop_web_search"],
    )
    [problem] = ws.errors
    assert problem.what == "tool 'shop_web_search' is exported twice"


def test_a_warm_load_does_no_typescript_work(tmp_path: Path, ts, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED}
    cold = workspace(tmp_path, ts, files, ["shop_web_search"])

    def no_subprocess(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"TypeScript work on a warm load: {args}")

    monkeypatch.setattr(subprocess, "Popen", no_subprocess)
    warm = load(tmp_path)
    assert warm is not cold
    assert warm.ts_tools["shop_web_search"].schema == cold.ts_tools["shop_web_search"].schema
    # a changed file is analysed again
    (tmp_path / "trails/config/trailmaps/shop/tools/shop_shared.ts").write_text(SHARED + "\n// changed\n")
    with pytest.raises(AssertionError, match="TypeScript work on a warm load"):
        load(tmp_path)


def test_without_a_compiler_tools_are_found_by_shape_and_a_warning_says_what_to_install(
    tmp_path: Path, ts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_trailblaze.typescript.discovery.find_typescript", lambda starts: None)
    ws = workspace(
        tmp_path, ts, {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED}, ["shop_web_search"]
    )
    assert errors(ws) == []
    assert ws.ts_tools["shop_web_search"].schema == {"type": "object"}
    [warning] = ws.warnings
    assert "the TypeScript compiler was not found" in warning.what
    assert "npm install --save-dev typescript" in warning.fix


def test_the_corpus_playwright_trailmap_loads_unmodified(corpus_dir: Path, ts) -> None:
    ws = ts_loader().load(
        corpus_dir / ts.CORPUS_TRAILMAP
    )
    assert errors(ws) == []
    assert sorted(ws.ts_tools) == [
        "playwrightSample_web_incrementCounterToValue",
        "playwrightSample_web_openDuplicateProductDetail",
        "playwrightSample_web_openFixtureAndVerifyText",
        "playwrightSample_web_openFormIfNeeded",
        "playwrightSample_web_searchProductsAndOpenResult",
        "playwrightSample_web_submitContactForm",
    ]
    counter = ws.ts_tools["playwrightSample_web_incrementCounterToValue"]
    assert (
        counter.description
        == "Open the counter demo, click increment repeatedly, and verify the final value."
    )
    assert counter.schema["properties"]["increments"] == {
        "type": "number",
        "description": "How many times to click the increment button. Positive integer.",
    }


OUTSIDER = """
    import { trailblaze } from "@trailblaze/scripting";

    /** Code that lives outside the workspace. */
    export const shop_web_outsider = trailblaze.tool<{}>({}, async () => "ran outside code");
"""


def test_a_tool_file_linking_outside_the_workspace_is_refused_at_the_link(tmp_path: Path, ts) -> None:
    """A stranger's pull request adds tools/shop_web_outsider.ts -> a file elsewhere on the machine:
    the plugin must not read it as a tool (a trail calling it would run that code)."""
    elsewhere = ts.write_tree(tmp_path / "elsewhere", {"shop_web_outsider.ts": OUTSIDER})
    project = tmp_path / "project"
    workspace(project, ts, {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED}, ["shop_web_search"])
    tools = project / "trails/config/trailmaps/shop/tools"
    (tools / "shop_web_outsider.ts").symlink_to(elsewhere / "shop_web_outsider.ts")

    ws = load(project)
    [problem] = ws.errors
    assert at(problem) == ("shop_web_outsider.ts", 1, 1)
    assert problem.span is not None and Path(problem.span.path).parent.name == "tools", (
        "the link, not its target"
    )
    assert "is a link that leads outside the workspace root" in problem.what
    assert str(elsewhere / "shop_web_outsider.ts") in problem.why
    assert "--trailblaze-allow-outside-code" in problem.fix
    assert "shop_web_outsider" not in ws.ts_tools and "shop_web_search" in ws.ts_tools

    trusted = WorkspaceLoader(
        builtin_names=BUILTINS, allow_outside_code=True, scripted_tools=typescript_tools
    ).load(project / "trails/config")
    assert trusted.errors == [] and "shop_web_outsider" in trusted.ts_tools


def test_a_linked_tools_folder_or_descriptor_leading_outside_brings_no_tool(tmp_path: Path, ts) -> None:
    elsewhere = ts.write_tree(
        tmp_path / "elsewhere",
        {"shop_web_outsider.ts": OUTSIDER, "shop_login.js": LEGACY_JS, "shop_login.yaml": LEGACY_YAML},
    )
    project = tmp_path / "project"
    workspace(project, ts, {}, [])
    trailmap_dir = project / "trails/config/trailmaps/shop"
    (trailmap_dir / "tools").symlink_to(elsewhere)
    ws = load(project)
    assert ws.ts_tools == {}
    # one problem at the link: the folder is neither walked nor read
    assert sorted(at(p) for p in ws.errors) == [
        ("tools", 1, 1),
        ("trailmap.yaml", 1, 1),  # its tool-file pattern reaches the linked folder
    ]
    assert all("outside" in p.what for p in ws.errors)

    (trailmap_dir / "tools").unlink()
    (trailmap_dir / "tools").mkdir()
    (trailmap_dir / "tools" / "shop_login.yaml").symlink_to(elsewhere / "shop_login.yaml")
    ws = load(project)
    assert ws.ts_tools == {}
    [problem] = ws.errors
    assert at(problem) == ("shop_login.yaml", 1, 1) and "leads outside" in problem.what


NODE_API_TOOL = """
    import { trailblaze } from "@trailblaze/scripting";
    import { readFileSync } from "node:fs";
    import path from "path";

    interface WriteArtifactArgs {
      /** Where to write. */
      path: string;
      /** What to write. */
      body: string;
    }

    /** Write a text artifact on the host. */
    export const shop_writeArtifact = trailblaze.tool<WriteArtifactArgs>(async (input) => {
      const fs = await import("node:fs/promises");
      await fs.writeFile(path.resolve(input.path), input.body + (process.env.SUFFIX ?? ""));
      return `Wrote ${readFileSync(input.path, "utf8").length} characters.`;
    });
"""
NODE_API_DESCRIPTOR = """
    script: ./shop_writeArtifact.ts
    name: shop_writeArtifact
    description: Write a text artifact on the host.
    runtime: subprocess
    requiresHost: true
"""


def test_a_tool_using_node_built_ins_compiles_without_node_typings(tmp_path: Path, ts) -> None:
    """Upstream's documented Node-API tool (`await import("node:fs/promises")` behind a
    `runtime: subprocess` descriptor) and `process.env` are what tools run with here (Bun or Node):
    no `@types/node` is installed, and none is needed to collect them."""
    assert not (ts.REPO / "node_modules/@types/node").exists()
    ws = workspace(
        tmp_path,
        ts,
        {"shop_writeArtifact.ts": NODE_API_TOOL, "shop_writeArtifact.yaml": NODE_API_DESCRIPTOR},
        ["shop_writeArtifact"],
    )
    assert errors(ws) == []
    assert ws.ts_tools["shop_writeArtifact"].description == "Write a text artifact on the host."

    broken = NODE_API_TOOL.replace("input.body +", "input.bodyy +")
    ws = workspace(tmp_path, ts, {"shop_writeArtifact.ts": broken}, ["shop_writeArtifact"])
    [problem] = ws.errors
    assert "Property 'bodyy' does not exist" in problem.what, "the tool's own code is still type-checked"


def test_a_tool_file_above_the_size_limit_is_refused_unread(tmp_path: Path, ts) -> None:
    """A stranger's 2 GB sparse `.ts` once cost 4 GB of memory and ended in the analyzer's own
    stack trace, taking every tool of the trailmap with it."""
    ws = workspace(
        tmp_path, ts, {"shop_web_search.ts": SEARCH, "shop_shared.ts": SHARED}, ["shop_web_search"]
    )
    tools = tmp_path / "trails/config/trailmaps/shop/tools"
    with (tools / "shop_huge.ts").open("wb") as sparse:
        sparse.truncate(2 * 1024**3)
    (tools / "shop_huge.yaml").write_text("script: ./shop_huge.ts\nname: shop_huge\n")

    ws = load(tmp_path)
    [problem] = ws.errors
    assert at(problem) == ("shop_huge.ts", 1, 1)
    assert problem.what == "shop_huge.ts is 2 GB, more than the 10 MB a file may have"
    assert sorted(ws.ts_tools) == ["shop_web_search"], "the other tools are still there"

    (tools / "shop_huge.ts").unlink()
    (tools / "shop_big.ts").write_text(SEARCH.replace("shop_web_search", "shop_big") + "//" + "x" * 3000)
    small_limit = WorkspaceLoader(
        builtin_names=BUILTINS, max_file_bytes=2048, scripted_tools=typescript_tools
    ).load(tmp_path / "trails/config")
    assert [at(p) for p in small_limit.errors] == [("shop_big.ts", 1, 1)]
    assert "more than the 2 KB a file may have" in small_limit.errors[0].what


def test_the_readmes_typescript_tool_is_a_tool_as_the_readme_says(tmp_path: Path, ts) -> None:
    from release.readme_blocks import section

    ws = workspace(tmp_path, ts, {"shop_web_countTo.ts": section("ts-tool")}, ["shop_web_countTo"])
    assert errors(ws) == []
    tool = ws.ts_tools["shop_web_countTo"]
    assert tool.description == "Click Increment until the counter shows `target`."
    assert tool.schema["properties"]["target"] == {
        "type": "number",
        "description": "The number the counter should show.",
    }
    assert tool.schema["required"] == ["target"] and tool.spec["supportedPlatforms"] == ["web"]
