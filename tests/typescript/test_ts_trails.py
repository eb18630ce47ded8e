"""TypeScript tools in real pytest runs on headless Chromium: upstream's six playwright-native tools
against our sample app in upstream's layout, thrown errors in the failure report, collection errors
located in .ts files, a missing runtime, xdist, recordings made by the agent, and a secret sweep.

Runs are pytest subprocesses (each drives its own browser); PATH carries bun and tsx from the
repository's node_modules (see conftest)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from llm_server import call, done, serve

REPO = Path(__file__).resolve().parents[2]
FAST = ("-p", "no:cacheprovider", "--trailblaze-screenshots=off")

SIX_TOOLS = """
config:
  id: upstream/six-tools
  target: playwrightSample
trail:
  - step: Open the fixture and verify its heading
    recording:
      web:
        - playwrightSample_web_openFixtureAndVerifyText: {}
  - step: Count to four
    recording:
      web:
        - playwrightSample_web_incrementCounterToValue: { increments: 4 }
  - step: Submit the contact form
    recording:
      web:
        - playwrightSample_web_submitContactForm: { name: Ada Lovelace, category: sales }
  - step: Open the form only if needed
    recording:
      web:
        - playwrightSample_web_openFormIfNeeded: {}
  - step: Open an office product
    recording:
      web:
        - playwrightSample_web_openDuplicateProductDetail:
            itemId: office-2
            expectedCategory: Office Supplies
  - step: Search and open a result
    recording:
      web:
        - playwrightSample_web_searchProductsAndOpenResult:
            query: keyboard
            resultId: "6"
            expectedDetailText: "Membrane, Compact"
"""


@pytest.fixture
def upstream(pytester: pytest.Pytester, corpus_dir: Path, ts) -> Path:
    """Upstream's example layout: examples/playwright-native/{trails,sample-app}, run from the root."""
    base = pytester.path / "examples" / "playwright-native"
    shutil.copytree(corpus_dir / ts.CORPUS_TRAILMAP.parent, base / "trails")
    shutil.copytree(REPO / "examples" / "sample-app", base / "sample-app")
    return base / "trails"


def test_upstreams_six_typescript_tools_pass_against_the_sample_app(
    pytester: pytest.Pytester, upstream: Path, ts
) -> None:
    ts.write_tree(upstream, {"ts-tools/trail.yaml": SIX_TOOLS})
    result = pytester.runpytest_subprocess(*FAST, "-v", "-rA", str(upstream / "ts-tools"))
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*step 6/6  Search and open a result*passed*"])
    assert ts.left_running() == {}


OWN_TOOL = """
import { trailblaze } from "@trailblaze/scripting";

export interface CheckArgs {
  /** Text the heading must have. */
  heading: string;
}

/** Check the page heading; fail loudly when it differs. */
export const shop_web_checkHeading = trailblaze.tool<CheckArgs>(
  { supportedPlatforms: ["web"] },
  async ({ heading }, ctx) => {
    const shown = await ctx.tools.web_evaluate("document.querySelector('h1').textContent");
    if (shown !== heading) {
      throw new Error(`the heading is '${shown}', not '${heading}'`);
    }
    return `Heading is ${shown}.`;
  },
);
"""


def own_workspace(
    pytester: pytest.Pytester,
    ts,
    tool: str = OWN_TOOL,
    trails: int = 1,
    heading: str = "Trailblaze Test Fixture",
) -> Path:
    ts.write_tree(
        pytester.path,
        {
            "trails/config/trailblaze.yaml": "targets: [shop]\n",
            "trails/config/trailmaps/shop/trailmap.yaml": ts.trailmap(["shop_web_checkHeading"]),
            "trails/config/trailmaps/shop/tools/shop_web_checkHeading.ts": tool,
        },
    )
    for n in range(trails):
        ts.write_tree(
            pytester.path,
            {
                f"trails/heading-{n}.trail.yaml": f"""
                    config:
                      id: heading/{n}
                      target: shop
                    trail:
                      - step: Open the app
                        recording:
                          web:
                            - web_navigate: {{ url: "{(REPO / "examples/sample-app/index.html").as_uri()}" }}
                      - step: Check the heading
                        recording:
                          web:
                            - shop_web_checkHeading: {{ heading: "{heading}" }}
                """
            },
        )
    return pytester.path / "trails"


def test_a_thrown_error_fails_the_step_with_the_tool_the_message_and_the_ts_line(
    pytester: pytest.Pytester, ts
) -> None:
    trails = own_workspace(pytester, ts, heading="Something else")
    result = pytester.runpytest_subprocess(*FAST, str(trails))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*heading-0.trail.yaml:9:5: step 2 of 2 failed: Check the heading",
            '  tool 1 of 1 (line 12): shop_web_checkHeading {"heading": "Something else"}',
            "  cause: tool 'shop_web_checkHeading' threw Error: the heading is 'Trailblaze Test Fixture', "
            "not 'Something else'",
            "      at trails/config/trailmaps/shop/tools/shop_web_checkHeading.ts:14:*",
        ]
    )


def test_typescript_tools_run_under_xdist_and_no_host_survives(pytester: pytest.Pytester, ts) -> None:
    trails = own_workspace(pytester, ts, trails=4)
    result = pytester.runpytest_subprocess(*FAST, "-n", "2", str(trails))
    result.assert_outcomes(passed=4)
    assert ts.left_running() == {}


def test_a_syntax_error_in_a_tool_file_is_a_collection_error_at_its_line(
    pytester: pytest.Pytester, ts
) -> None:
    trails = own_workspace(
        pytester, ts, tool=OWN_TOOL.replace("if (shown !== heading) {", "if (shown !== heading {")
    )
    result = pytester.runpytest_subprocess(*FAST, "--collect-only", str(trails))
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        [
            "*trails/config/trailmaps/shop/tools/shop_web_checkHeading.ts:13:27: "
            "TypeScript error TS1005: ')' expected."
        ]
    )


def test_without_a_runtime_the_step_says_what_to_install(
    pytester: pytest.Pytester, ts, monkeypatch: pytest.MonkeyPatch
) -> None:
    trails = own_workspace(pytester, ts)
    # the analysis is cached first (it needs node); then no bun, no tsx, and node out of reach
    assert pytester.runpytest_subprocess(*FAST, "--collect-only", str(trails)).ret == 0
    keep = [
        p
        for p in os.environ["PATH"].split(os.pathsep)
        if p and not (Path(p) / "bun").exists() and not (Path(p) / "node").exists()
    ]
    python_bin = Path(os.sys.executable).parent
    monkeypatch.setenv("PATH", os.pathsep.join([str(python_bin), *keep]))
    result = pytester.runpytest_subprocess(*FAST, str(trails))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*no runtime for TypeScript tools: neither bun nor node with tsx was found",
            "*fix: install bun (https://bun.sh)*",
        ]
    )


def test_the_agent_records_a_typescript_tool_call_and_the_recording_replays(
    pytester: pytest.Pytester, ts
) -> None:
    trails = own_workspace(pytester, ts)
    trail = trails / "heading-0.trail.yaml"
    text = trail.read_text()
    trail.write_text(
        text.split("  - step: Check the heading")[0]
        + "  - step: Check that the heading says Trailblaze Test Fixture\n"
    )
    moves = {
        "Check that the heading says Trailblaze Test Fixture": [
            call("shop_web_checkHeading", heading="Trailblaze Test Fixture"),
            done(),
        ]
    }
    with serve(moves) as model:
        llm = ["--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}"]
        result = pytester.runpytest_subprocess(*FAST, *llm, "--trailblaze-save-recordings", str(trails))
        offered = model.bodies[0].decode()
    result.assert_outcomes(passed=1)
    assert (
        "shop_web_checkHeading" in offered
        and "Check the page heading; fail loudly when it differs." in offered
    )
    recorded = trail.read_text()
    assert '        - shop_web_checkHeading:\n            heading: "Trailblaze Test Fixture"\n' in recorded
    assert "web_evaluate" not in recorded, "the tool is recorded, not what it called"
    pytester.runpytest_subprocess(*FAST, str(trails)).assert_outcomes(passed=1)


def test_a_tool_that_is_not_recordable_records_the_calls_it_made(pytester: pytest.Pytester, ts) -> None:
    tool = OWN_TOOL.replace(
        '{ supportedPlatforms: ["web"] }', '{ supportedPlatforms: ["web"], isRecordable: false }'
    ).replace(
        "const shown = await ctx.tools.web_evaluate(\"document.querySelector('h1').textContent\");",
        "const shown = heading;\n    await ctx.tools.web_verifyTextVisible({ text: heading });",
    )
    assert "web_verifyTextVisible" in tool
    trails = own_workspace(pytester, ts, tool=tool)
    trail = trails / "heading-0.trail.yaml"
    trail.write_text(
        trail.read_text().split("  - step: Check the heading")[0] + "  - step: Check the heading\n"
    )
    moves = {"Check the heading": [call("shop_web_checkHeading", heading="Trailblaze Test Fixture"), done()]}
    with serve(moves) as model:
        llm = ["--trailblaze-llm=openai/scripted-1", f"--trailblaze-llm-base-url={model.openai_url}"]
        result = pytester.runpytest_subprocess(*FAST, *llm, "--trailblaze-save-recordings", str(trails))
    result.assert_outcomes(passed=1)
    recorded = trail.read_text()
    assert "shop_web_checkHeading" not in recorded
    assert '        - web_verifyTextVisible:\n            text: "Trailblaze Test Fixture"\n' in recorded


SECRET = "Qx7tsSweep4e2c9SECRET"

LEAKY = """
import { trailblaze } from "@trailblaze/scripting";

/** Leaks its argument everywhere it can. */
export const shop_web_leak = trailblaze.tool<{ value: string }>(async ({ value }, ctx) => {
  console.log(`stdout ${value}`);
  console.error(`stderr ${value}`);
  ctx.logger.warn(`logger ${value}`);
  ctx.memory.set("leaked", value);
  const reference = ctx.memory.get("token") ?? "";
  await ctx.tools.web_evaluate(`document.title = ${JSON.stringify(reference)}`);
  if (value.length > 0) {
    throw new Error(`failing with ${value} and ${reference}`);
  }
  return value;
});
"""


def test_a_secret_never_leaves_through_a_typescript_tool(
    pytester: pytest.Pytester, ts, monkeypatch: pytest.MonkeyPatch
) -> None:
    ts.write_tree(
        pytester.path,
        {
            "trails/config/trailblaze.yaml": "targets: [shop]\n",
            "trails/config/trailmaps/shop/trailmap.yaml": ts.trailmap(["shop_web_leak"]),
            "trails/config/trailmaps/shop/tools/shop_web_leak.ts": LEAKY,
            "trails/leak.trail.yaml": f"""
                config:
                  id: leak
                  target: shop
                trail:
                  - step: Open the app
                    recording:
                      web:
                        - web_navigate: {{ url: "{(REPO / "examples/sample-app/index.html").as_uri()}" }}
                  - step: Leak the token
                    recording:
                      web:
                        - shop_web_leak: {{ value: "{{{{token}}}}" }}
            """,
        },
    )
    cache = pytester.path / "cache"
    monkeypatch.setenv("TRAILBLAZE_CACHE_DIR", str(cache))  # swept with the rest of the tree
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", f"--trailblaze-secret=token={SECRET}", "-rA", "-l", "--junitxml=report.xml",
        "--trailblaze-report=report.html", str(pytester.path / "trails"),
    )  # fmt: skip
    result.assert_outcomes(failed=1)
    output = "\n".join([*result.outlines, *result.errlines])
    assert "failing with ******** and {{token}}" in output, "the error still says what happened, masked"
    assert SECRET not in output
    found = [p for p in pytester.path.rglob("*") if SECRET in p.name]
    for path in pytester.path.rglob("*"):
        if path.is_file() and SECRET.encode() in path.read_bytes():
            found.append(path)
    assert found == []
    logs = [p for p in pytester.path.rglob("*.log") if "ts-shop" in p.name]
    assert logs and all("stderr ********" in p.read_text() for p in logs[:1])


def test_a_listed_tool_no_file_provides_fails_that_targets_trails_where_they_run(
    pytester: pytest.Pytester, ts
) -> None:
    shop = (
        "id: shop\ntarget:\n  display_name: Shop\n  tools: [shop_web_missing]\n"
        "  platforms:\n    web: {}\n    android:\n      tools: [shop_android_missing]\n"
    )
    bank = "id: bank\ntarget:\n  display_name: Bank\n  platforms:\n    web: {}\n"
    step = (
        "trail:\n  - step: Wait\n    recording:\n      {platform}:\n"
        "        - wait: {{ timeToWaitInSeconds: 1 }}\n"
    )
    ts.write_tree(
        pytester.path,
        {
            "trails/config/trailblaze.yaml": "targets: [shop, bank]\n",
            "trails/config/trailmaps/shop/trailmap.yaml": shop,
            "trails/config/trailmaps/bank/trailmap.yaml": bank,
            "trails/shop-web.trail.yaml": "config:\n  target: shop\n" + step.format(platform="web"),
            "trails/shop-android.trail.yaml": "config:\n  target: shop\n" + step.format(platform="android"),
            "trails/bank-web.trail.yaml": "config:\n  target: bank\n" + step.format(platform="web"),
        },
    )
    result = pytester.runpytest_subprocess(*FAST, "--collect-only", "-q", "trails")
    out = result.stdout.str()
    assert "trails/bank-web.trail.yaml::bank-web[web]" in out
    assert "trails/shop-android.trail.yaml::shop-android[android]" in out, (
        "android cannot run here: not judged"
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting trails/shop-web.trail.yaml*",
            "trails/config/trailmaps/shop/trailmap.yaml:4:11: target.tools lists 'shop_web_missing', "
            "but no file of trailmap 'shop' provides it",
        ]
    )
    assert "shop_android_missing" not in out
    checked = pytester.run(sys.executable, "-m", "pytest_trailblaze.cli", "check", "trails")
    assert checked.ret == 1
    checked.stdout.fnmatch_lines(
        [
            "trails/config/trailmaps/shop/trailmap.yaml:4:11: target.tools lists 'shop_web_missing'*",
            "trails/config/trailmaps/shop/trailmap.yaml:8:15: target.platforms.android.tools lists "
            "'shop_android_missing'*",
        ]
    )


def test_trail_arguments_are_checked_against_the_ts_schema_at_collection(
    pytester: pytest.Pytester, ts
) -> None:
    trails = own_workspace(pytester, ts, heading="x")
    trail = trails / "heading-0.trail.yaml"
    trail.write_text(trail.read_text().replace('{ heading: "x" }', "{ headng: x }"))
    result = pytester.runpytest_subprocess(*FAST, "--collect-only", str(trails))
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*heading-0.trail.yaml:12:*shop_web_checkHeading*", "*headng*"])
