"""Collection, ``--collect-only``, ``trailblaze check`` and ``toolbox`` run no code they do not need,
and never code outside the workspace root unless the user allows it
(docs/guides/security.md, Code).

Every Python file here writes a marker file when it is imported or called, so "nothing ran" is
a fact on disk. ``outside/`` sits next to the workspace, not inside it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CONSOLE = Path(sys.executable).parent / "trailblaze"
TOOLS = "trails/config/trailmaps/shop/tools"

MARKING = """
from pathlib import Path

Path(__file__).with_name("IMPORTED-{name}").write_text("imported")


def fn(*args, **kwargs):
    Path(__file__).with_name("CALLED-{name}").write_text("called")
    return "ran"
"""


@pytest.fixture
def project(pytester: pytest.Pytester, tb) -> Path:
    """A workspace (root: the pytester folder) with an in-root script tool and a trail calling it."""
    root = pytester.path / "project"
    tb.write(root, "trails/config/trailblaze.yaml", "targets: [shop]\n")
    tb.write(root, "trails/config/trailmaps/shop/trailmap.yaml", "id: shop\ntarget:\n  display_name: Shop\n")
    tb.write(root, f"{TOOLS}/local.py", MARKING.format(name="local"))
    tb.write(
        root,
        f"{TOOLS}/shop_local.tool.yaml",
        "id: shop_local\ndescription: In-root script.\nparameters: []\nscript: local.py:fn\n",
    )
    tb.write(
        root,
        "trails/uses.trail.yaml",
        "trail:\n  - step: s\n    recording:\n      web:\n        - shop_local: {}\n",
    )
    tb.write(pytester.path, "outside/evil.py", MARKING.format(name="evil"))
    return root


ESCAPING_SCRIPT = "script: ../../../../../../outside/evil.py:fn"
ESCAPING_CALL = "        - script: {function: ../../outside/evil.py:fn}\n"
ESCAPING_TRAIL = "trail:\n  - step: s\n    recording:\n      web:\n" + ESCAPING_CALL


def add_outside_tools(root: Path, tb) -> None:
    evil = (root.parent / "outside" / "evil.py").resolve()
    escaping = f"id: shop_evil\ndescription: Escapes.\nparameters: []\n{ESCAPING_SCRIPT}\n"
    tb.write(root, f"{TOOLS}/shop_evil.tool.yaml", escaping)
    tb.write(root, f"{TOOLS}/shop_abs.tool.yaml", f"id: shop_abs\nclass: {evil}:fn\n")


def markers(pytester: pytest.Pytester) -> list[str]:
    return sorted(p.name for p in pytester.path.rglob("*") if p.name.startswith(("IMPORTED-", "CALLED-")))


def collect_only(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "--collect-only", "-q", *args, "trails"]
    return subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=180, check=False)


def console(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE), *args], cwd=root, capture_output=True, text=True, timeout=180, check=False
    )


def test_static_facts_need_no_import(project: Path, pytester: pytest.Pytester) -> None:
    """A ``script:`` tool's description and parameters are in its YAML: its module is not imported."""
    done = collect_only(project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "uses[web]" in done.stdout
    check = console(project, "check", "trails", "--no-servers")
    assert check.returncode == 0, check.stdout + check.stderr
    box = console(project, "toolbox", "--target", "shop")
    assert box.returncode == 0, box.stdout + box.stderr
    assert "shop_local" in box.stdout
    assert markers(pytester) == []


def test_tool_files_naming_code_outside_the_root_are_located_errors(
    project: Path, pytester: pytest.Pytester, tb
) -> None:
    add_outside_tools(project, tb)
    tools = Path(TOOLS)
    expected = [
        f"{tools / 'shop_abs.tool.yaml'}:2:8: `class: ",
        f"{tools / 'shop_evil.tool.yaml'}:4:9: `{ESCAPING_SCRIPT}` is outside the workspace root",
    ]
    done = collect_only(project)
    check = console(project, "check", "trails", "--no-servers")
    box = console(project, "toolbox", "--target", "shop")
    assert (done.returncode, check.returncode, box.returncode) == (2, 1, 1)
    for output in (done.stdout, check.stdout, box.stderr):
        assert all(where in output for where in expected), output
        assert "--trailblaze-allow-outside-code" in output and "Traceback" not in output
    assert markers(pytester) == []


def test_a_trail_naming_a_script_outside_the_root_is_a_located_error(
    project: Path, pytester: pytest.Pytester, tb
) -> None:
    tb.write(project, "trails/escape.trail.yaml", ESCAPING_TRAIL)
    where = "trails/escape.trail.yaml:5:20: `script` function ../../outside/evil.py:fn is outside the"
    done = collect_only(project)
    check = console(project, "check", "trails", "--no-servers")
    assert (done.returncode, check.returncode) == (2, 1)
    assert where in done.stdout and where in check.stdout
    assert markers(pytester) == []


def test_the_option_allows_code_outside_the_root(project: Path, pytester: pytest.Pytester, tb) -> None:
    add_outside_tools(project, tb)
    tb.write(project, "trails/escape.trail.yaml", ESCAPING_TRAIL)
    done = collect_only(project, "--trailblaze-allow-outside-code")
    assert done.returncode == 0, done.stdout + done.stderr
    check = console(project, "check", "trails", "--no-servers", "--allow-outside-code")
    assert check.returncode == 0, check.stdout + check.stderr
    # a class: tool's parameters are in its code, so allowing it means importing it
    assert markers(pytester) == ["IMPORTED-evil"]


# -- installed modules, and code that ends the process its way -----------------------------------------
#: A stand-in web browser: antigravity would run it. It must never run.
FAKE_BROWSER = '#!/bin/sh\necho opened > "$(dirname "$0")/BROWSER-OPENED"\n'
INSTALLED = {"shop_gravity": "antigravity:fly", "shop_zen": "this:s", "shop_venv": "venv.__main__:main"}


@pytest.fixture
def harmless_browser(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$BROWSER`` points at a script that only leaves a marker, in case anything opens one."""
    browser = pytester.path / "fake-browser"
    browser.write_text(FAKE_BROWSER)
    browser.chmod(0o755)
    monkeypatch.setenv("BROWSER", str(browser))
    return browser


def test_installed_modules_named_by_class_are_refused_without_being_imported(
    project: Path, pytester: pytest.Pytester, tb, harmless_browser: Path
) -> None:
    for name, spec in INSTALLED.items():
        tb.write(project, f"{TOOLS}/{name}.tool.yaml", f"id: {name}\nclass: {spec}\n")
    expected = [
        f"{Path(TOOLS) / f'{name}.tool.yaml'}:2:8: `class: {spec}` is outside the workspace root"
        for name, spec in INSTALLED.items()
    ]

    done = collect_only(project)
    check = console(project, "check", "trails", "--no-servers")
    box = console(project, "toolbox", "--target", "shop")

    assert (done.returncode, check.returncode, box.returncode) == (2, 1, 1)
    for output in (done.stdout, check.stdout, box.stderr):
        assert all(where in output for where in expected), output
        assert "why: it names module antigravity, installed at " in output
        assert "Beautiful is better than ugly" not in output  # `this` prints the Zen when imported
        assert "Traceback" not in output and "INTERNALERROR" not in output
    assert not (pytester.path / "BROWSER-OPENED").exists()
    assert not list(pytester.path.rglob("pyvenv.cfg")), "venv.__main__ ran and made virtualenvs"
    assert markers(pytester) == []


EXITS_ON_IMPORT = "import sys\nsys.exit(0)\n"
INTERRUPTS_ON_IMPORT = "raise KeyboardInterrupt\n"


@pytest.mark.parametrize(
    ("source", "cause"),
    [
        (EXITS_ON_IMPORT, "ForeignExit: called sys.exit(0)"),
        (INTERRUPTS_ON_IMPORT, "ForeignExit: raised KeyboardInterrupt itself (no Ctrl-C was pressed)"),
    ],
)
def test_an_import_that_ends_the_process_is_a_failure_at_its_tool_file(
    project: Path, pytester: pytest.Pytester, tb, source: str, cause: str
) -> None:
    tb.write(project, f"{TOOLS}/quitter.py", source)
    tb.write(project, f"{TOOLS}/shop_quit.tool.yaml", "id: shop_quit\nclass: quitter:fn\n")
    where = f"{Path(TOOLS) / 'shop_quit.tool.yaml'}:1:5: tool 'shop_quit': cannot load `class:`: importing "

    done = collect_only(project)
    check = console(project, "check", "trails", "--no-servers")

    assert check.returncode == 1, check.stdout + check.stderr
    assert where in check.stdout and cause in check.stdout
    assert done.returncode == 2
    assert where in done.stdout and cause in done.stdout
    assert "INTERNALERROR" not in done.stdout + done.stderr and "Traceback" not in check.stderr


QUITTING_TOOL = """
import sys


def fn(ctx):
    sys.exit(0)
"""


def test_a_tool_that_calls_sys_exit_fails_its_step_and_the_run_goes_on(
    project: Path, pytester: pytest.Pytester, tb
) -> None:
    tb.write(project, f"{TOOLS}/quitter.py", QUITTING_TOOL)
    tb.write(project, f"{TOOLS}/shop_quit.tool.yaml", "id: shop_quit\nclass: quitter:fn\n")
    tb.write(
        project,
        "trails/quits.trail.yaml",
        "trail:\n  - step: Quit\n    recording:\n      web:\n        - shop_quit: {}\n",
    )
    tb.write(
        project, "trails/after.trail.yaml", "trail:\n  - step: Still here\n    recording:\n      web: []\n"
    )
    argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "trails"]

    done = subprocess.run(argv, cwd=project, capture_output=True, text=True, timeout=240, check=False)

    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 2 passed" in done.stdout  # the project's own trail, and the one after
    assert "trails/quits.trail.yaml:2:5: step 1 of 1 failed: Quit" in done.stdout
    assert (
        "shop_quit called sys.exit(0); code that trails and tool files name must fail by raising"
        in done.stdout
    )
