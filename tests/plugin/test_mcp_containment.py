"""An MCP server's ``script:`` must lie inside the workspace root (docs/guides/security.md, Code).

A workspace may come from a stranger, and a ``script:`` runs as soon as a session, ``trailblaze
check`` or ``trailblaze toolbox`` starts the target's servers. A script that leaves the root (a
``../`` path, an absolute path, or a symbolic link inside the root pointing out of it) is an error
at its line in pytest's collection, ``check`` and ``toolbox``, and is never started: the outside
script writes a marker file when it runs, and none appears. Scripts of an installed npm package
in a ``node_modules`` folder at or above the root count as inside; the allow option lifts the
limit. ``command:`` entries run as written (covered by the MCP tests).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CONSOLE = Path(sys.executable).parent / "trailblaze"
PY_SERVER = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "py_server.py"
CONFIG = "app/trails/config"
#: From a trailmap (``project/app/trails/config/trailmaps/<id>/``) up to ``project/`` and its parent.
TO_PROJECT = "../../../../.."
TO_OUTSIDE = f"{TO_PROJECT}/../outside"

#: Not a server at all: it only proves, on disk, that something started it.
MARKING_SERVER = """
from pathlib import Path

Path(__file__).with_name("STARTED-" + Path(__file__).stem).write_text("started")
"""

TRAIL = """
config:
  id: lab/echo
  target: {target}
trail:
  - step: Echo through the server
    recording:
      web:
        - pyfx_echo: {{ message: hi }}
"""


def trailmap(script: str) -> str:
    return f"id: lab\ntarget:\n  display_name: Lab\n  mcp_servers:\n    - script: {script}\n"


@pytest.fixture
def project(pytester: pytest.Pytester, tb) -> Path:
    """``project/`` holds ``app/`` (the workspace root) and ``node_modules/``; ``outside/`` is a
    sibling of ``project/``."""
    root = pytester.path / "project"
    tb.write(root, f"{CONFIG}/trailblaze.yaml", "targets: [lab]\n")
    tb.write(root, "app/trails/lab.trail.yaml", TRAIL.format(target="lab"))
    tb.write(pytester.path, "outside/evil.py", MARKING_SERVER)
    tb.write(pytester.path, "outside/server.py", PY_SERVER.read_text())
    return root


def started(pytester: pytest.Pytester) -> list[str]:
    return sorted(p.name for p in pytester.path.rglob("STARTED-*"))


def pytest_run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", *args, "trails"]
    return subprocess.run(argv, cwd=root / "app", capture_output=True, text=True, timeout=180, check=False)


def console(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE), *args], cwd=root / "app", capture_output=True, text=True, timeout=180, check=False
    )


def test_scripts_leaving_the_root_are_located_errors_and_never_start(
    project: Path, pytester: pytest.Pytester, tb
) -> None:
    evil = pytester.path / "outside" / "evil.py"
    tb.write(project, f"{CONFIG}/trailmaps/lab/trailmap.yaml", trailmap(f"{TO_OUTSIDE}/evil.py"))
    tb.write(
        project, f"{CONFIG}/trailmaps/linked/trailmap.yaml", trailmap("linked.py").replace("lab", "linked")
    )
    (project / CONFIG / "trailmaps" / "linked" / "linked.py").symlink_to(evil)  # inside, pointing out
    tb.write(project, f"{CONFIG}/targets/legacy.yaml", f"id: legacy\nmcp_servers:\n  - script: {evil}\n")
    tb.write(project, f"{CONFIG}/trailblaze.yaml", "targets: [lab, linked]\n")
    tb.write(project, "app/trails/legacy.trail.yaml", TRAIL.format(target="legacy"))
    expected = [
        "trails/config/trailmaps/lab/trailmap.yaml:5:15: MCP server "
        f"`script: {TO_OUTSIDE}/evil.py` is outside the workspace root",
        "trails/config/trailmaps/linked/trailmap.yaml:5:15: MCP server `script: linked.py` is outside",
        f"trails/config/targets/legacy.yaml:3:13: MCP server `script: {evil}` is outside",
        f"why: it resolves to {evil}; MCP server scripts run only from inside {project / 'app'}",
    ]

    run = pytest_run(project)
    check = console(project, "check", "trails")  # servers on: check starts a target's servers
    box = console(project, "toolbox", "--target", "lab")

    assert (run.returncode, check.returncode, box.returncode) == (2, 1, 1), run.stdout + check.stdout
    for output in (run.stdout, check.stdout, box.stderr):
        assert all(line in output for line in expected), output
        assert "--trailblaze-allow-outside-code" in output and "--allow-outside-code" in output
        assert "Traceback" not in output
    assert started(pytester) == [], "a script outside the root was started"


def test_a_script_of_an_installed_npm_package_above_the_root_counts_as_inside(
    project: Path, pytester: pytest.Pytester, tb
) -> None:
    package = "node_modules/@fixture/py-server"
    tb.write(project, f"{package}/server.py", PY_SERVER.read_text())
    tb.write(project, f"{CONFIG}/trailmaps/lab/trailmap.yaml", trailmap(f"{TO_PROJECT}/{package}/server.py"))

    run = pytest_run(project, "--collect-only", "-q")
    check = console(project, "check", "trails")
    box = console(project, "toolbox", "--target", "lab")

    assert run.returncode == 0 and "lab.trail.yaml::lab/echo[web]" in run.stdout, run.stdout + run.stderr
    assert check.returncode == 0, check.stdout + check.stderr
    assert box.returncode == 0 and "pyfx_echo" in box.stdout, box.stdout + box.stderr


def test_the_option_allows_a_script_outside_the_root(project: Path, pytester: pytest.Pytester, tb) -> None:
    tb.write(project, f"{CONFIG}/trailmaps/lab/trailmap.yaml", trailmap(f"{TO_OUTSIDE}/server.py"))

    refused = pytest_run(project, "--collect-only", "-q")
    run = pytest_run(project, "--collect-only", "-q", "--trailblaze-allow-outside-code")
    box = console(project, "toolbox", "--target", "lab", "--allow-outside-code")

    assert refused.returncode == 2 and "is outside the workspace root" in refused.stdout, refused.stdout
    assert run.returncode == 0, run.stdout + run.stderr
    assert box.returncode == 0 and "pyfx_echo" in box.stdout, box.stdout + box.stderr
