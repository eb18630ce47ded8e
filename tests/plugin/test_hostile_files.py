"""Hostile files in a trails folder: pipes, walks of ``/``, link loops, unwritable
outputs, toolset patterns that leave the workspace, and the file-size limit.

A stranger's pull request can add a named pipe, a link that loops, a link to ``/etc/passwd``, a
2 GB sparse file or a toolset glob that climbs out of the workspace. Collection and
``trailblaze check`` read only regular files within the size limit and never leave the root: each
of these is one located message, nothing blocks, nothing is read from outside.

Every run is a subprocess with a timeout: a regression that blocks on the pipe fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CONSOLE = Path(sys.executable).with_name("trailblaze")
GOOD = "trail:\n  - step: Nothing to do\n    recording:\n      web: []\n"
#: Text of a file outside the project: it must never show in any output.
OUTSIDE_SECRET = "root:x:0:0:outside-file-content-7c1f"


def console(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CONSOLE), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


def collect(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


@pytest.fixture
def hostile_tree(tmp_path: Path) -> Path:
    """A project whose ``trails/`` holds one good trail and every kind of file that is not one."""
    project = tmp_path / "project"
    trails = project / "trails"
    trails.mkdir(parents=True)
    (trails / "good.trail.yaml").write_text(GOOD)
    os.mkfifo(trails / "fifo.trail.yaml")
    (trails / "self.trail.yaml").symlink_to("self.trail.yaml")
    with (trails / "sparse.trail.yaml").open("wb") as sparse:
        sparse.truncate(2 * 1024**3)  # 2 GB that take no disk
    outside = tmp_path / "passwd"
    outside.write_text(OUTSIDE_SECRET + "\n")
    (trails / "passwd.trail.yaml").symlink_to(outside)
    return project


EXPECTED = [
    "trails/fifo.trail.yaml:1:1: a named pipe (FIFO) named like a trail file",
    "trails/self.trail.yaml:1:1: a symbolic link that loops (it leads back to itself)",
    "trails/sparse.trail.yaml:1:1: sparse.trail.yaml is 2 GB, more than the 10 MB a file may have",
    "trails/passwd.trail.yaml:1:1: passwd.trail.yaml is a link that leads outside ",
]


def test_collection_names_each_file_it_will_not_read_and_collects_the_rest(hostile_tree: Path) -> None:
    result = collect(hostile_tree, "-q")

    output = result.stdout + result.stderr
    for line in EXPECTED:
        assert line in output, f"{line!r} missing from:\n{output}"
    assert "fix: replace it with a regular trail file, or remove it" in output
    assert "fix: split the file, or raise the limit (--trailblaze-max-file-size" in output
    assert "it points to " in output and "copy the file into the folder instead of linking to it" in output
    assert "trails/good.trail.yaml::good[web]" in output
    assert OUTSIDE_SECRET not in output
    assert "Traceback" not in output and "INTERNALERROR" not in output
    assert result.returncode == 2  # collection errors


def test_check_names_each_file_it_will_not_read(hostile_tree: Path) -> None:
    result = console("check", "--no-servers", "trails", cwd=hostile_tree)

    for line in EXPECTED:
        assert line in result.stdout, f"{line!r} missing from:\n{result.stdout}"
    assert OUTSIDE_SECRET not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    summary = "1 trail(s) in 5 file(s) and 0 workspace(s) checked: 4 problem(s)"
    assert result.stdout.splitlines()[-1] == summary
    assert result.returncode == 1


def test_a_pipe_named_on_the_command_line_is_refused_not_waited_on(hostile_tree: Path) -> None:
    result = console("check", "--no-servers", "trails/fifo.trail.yaml", cwd=hostile_tree, timeout=60)

    assert "trails/fifo.trail.yaml:1:1: a named pipe (FIFO) named like a trail file" in result.stdout
    assert result.returncode == 1


def test_the_size_limit_is_an_option_an_ini_key_and_a_check_flag(tmp_path: Path) -> None:
    trail = GOOD + "".join(f"  - step: Step {n}\n    recording:\n      web: []\n" for n in range(60))
    (tmp_path / "trails").mkdir()
    (tmp_path / "trails" / "long.trail.yaml").write_text(trail)  # about 2.8 KB
    refused = "trails/long.trail.yaml:1:1: long.trail.yaml is 2.8 KB, more than the 1 KB a file may have"

    by_option = collect(tmp_path, "-q", "--trailblaze-max-file-size=1KB")
    (tmp_path / "pytest.ini").write_text("[pytest]\ntrailblaze_max_file_size = 1kb\n")
    by_ini = collect(tmp_path, "-q")
    raised = collect(tmp_path, "-q", "--trailblaze-max-file-size=3KB")
    by_check = console("check", "--no-servers", "--max-file-size", "1KB", "trails", cwd=tmp_path)
    bad_value = collect(tmp_path, "-q", "--trailblaze-max-file-size=lots")

    assert refused in by_option.stdout
    assert refused in by_ini.stdout
    assert "long[web]" in raised.stdout and "error" not in raised.stdout
    assert refused in by_check.stdout and by_check.returncode == 1
    assert "--trailblaze-max-file-size expects a size like 10MB" in bad_value.stderr


def test_check_of_the_whole_file_system_ends_with_its_summary(tmp_path: Path) -> None:
    """``/proc`` entries vanish while the walk runs and pseudo file systems are not entered; the
    walk never follows a link to a folder. It ends with a summary, never a traceback.

    The walk is what is tested: the tool tests and type checks of every workspace on the machine
    (other checkouts, other runs' temporary folders) are neither run nor this test's business,
    and check writes no editor files outside the folder it runs in."""
    result = console(
        "check", "--no-servers", "--no-tool-tests", "--no-typecheck", "/", cwd=tmp_path, timeout=300
    )

    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.stdout.splitlines()[-1].endswith(("checked: no problems", "warning(s)", "problem(s)"))
    assert result.returncode in (0, 1)


def test_proc_can_be_checked_while_its_entries_vanish(tmp_path: Path) -> None:
    churn = [subprocess.Popen([sys.executable, "-c", "pass"]) for _ in range(20)]  # pids come and go
    result = console("check", "--no-servers", "/proc", cwd=tmp_path, timeout=120)
    for process in churn:
        process.wait(timeout=60)

    assert result.stdout.splitlines()[-1] == "0 trail(s) in 0 file(s) and 0 workspace(s) checked: no problems"
    assert result.returncode == 0 and not result.stderr


# -- globs and references of workspace files ------------------------------------------------------
TRAILMAP = """\
id: shop
toolsets:
  - "../../../../../../../../outside/*.yaml"
  - "/etc/*.yaml"
  - "linked/*.yaml"
  - "own/*.yaml"
"""


@pytest.fixture
def escaping_workspace(tmp_path: Path) -> Path:
    """A workspace whose toolset globs climb out (``..``, absolute, a linked folder) and one that stays."""
    project = tmp_path / "project"
    trailmap = project / "trails" / "config" / "trailmaps" / "shop"
    (trailmap / "own").mkdir(parents=True)
    (project / "trails" / "config" / "trailblaze.yaml").write_text(
        "targets: [shop]\ntoolsets:\n  - ref: ../../../outside/leak.yaml\n"
    )
    (trailmap / "trailmap.yaml").write_text(TRAILMAP)
    (trailmap / "own" / "mine.yaml").write_text("id: shop_mine\ntools: [web_click]\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.yaml").write_text(f"id: [{OUTSIDE_SECRET}\n")  # malformed: a problem would quote it
    (trailmap / "linked").symlink_to(outside)
    (trailmap / "tools").mkdir()
    (trailmap / "tools" / "root").symlink_to("/")  # `tools/**/*.tool.yaml` must not walk the machine
    (project / "trails" / "shop.trail.yaml").write_text("config:\n  target: shop\n" + GOOD)
    return project


GLOB_PROBLEMS = [
    "trails/config/trailmaps/shop/trailmap.yaml:3:5: toolsets pattern "
    "'../../../../../../../../outside/*.yaml' leaves the trailmap folder",
    "trails/config/trailmaps/shop/trailmap.yaml:4:5: toolsets pattern '/etc/*.yaml' leaves the "
    "trailmap folder",
    "trails/config/trailmaps/shop/trailmap.yaml:5:5: toolsets pattern 'linked/*.yaml' reaches linked, a link "
    "to a folder outside the workspace",
    "trails/config/trailblaze.yaml:3:5: `ref: ../../../outside/leak.yaml` leaves the workspace",
]


def test_toolset_globs_and_refs_that_leave_the_workspace_are_refused_in_check(
    escaping_workspace: Path,
) -> None:
    result = console("check", "--no-servers", "trails", cwd=escaping_workspace, timeout=120)

    for line in GLOB_PROBLEMS:
        assert line in result.stdout, f"{line!r} missing from:\n{result.stdout}"
    assert "fix: write a pattern relative to the trailmap folder, like `toolsets/*.yaml`" in result.stdout
    assert (
        "tool files pattern 'tools/**/*.tool.yaml' reaches root, a link to a folder outside" in result.stdout
    )
    assert OUTSIDE_SECRET not in result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "NotImplementedError" not in result.stdout
    assert result.returncode == 1


def test_toolset_globs_that_leave_the_workspace_are_collection_errors(escaping_workspace: Path) -> None:
    result = collect(escaping_workspace, "-q")

    output = result.stdout + result.stderr
    for line in GLOB_PROBLEMS:
        assert line in output, f"{line!r} missing from:\n{output}"
    assert (
        "trails/config/trailmaps/shop/tools/root is a link to /, outside the project: it is not collected"
        in output
    )
    assert OUTSIDE_SECRET not in output
    assert "Traceback" not in output and "INTERNALERROR" not in output


@pytest.mark.parametrize("where", ["/", "outside"])
def test_a_tools_folder_linked_from_outside_is_refused_at_the_link_unwalked(
    tmp_path: Path, where: str
) -> None:
    """A trailmap whose ``tools/`` is itself a link out (to ``/``, or to a folder of code beside
    the project) is one located problem in check and at collection, found without walking it."""
    project = tmp_path / "project"
    trailmap = project / "trails" / "config" / "trailmaps" / "shop"
    trailmap.mkdir(parents=True)
    (project / "trails" / "config" / "trailblaze.yaml").write_text("targets: [shop]\n")
    (trailmap / "trailmap.yaml").write_text("id: shop\ntarget:\n  display_name: Shop\n")
    (project / "trails" / "shop.trail.yaml").write_text("config:\n  target: shop\n" + GOOD)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "shop_leak.ts").write_text(f"// {OUTSIDE_SECRET}\nexport const shop_leak = 1;\n")
    (trailmap / "tools").symlink_to("/" if where == "/" else outside)
    problem = "trails/config/trailmaps/shop/tools:1:1: tools is a link that leads outside the workspace root"

    checked = console(
        "check", "--no-servers", "--no-tool-tests", "--no-typecheck", "trails", cwd=project, timeout=60
    )
    collected = collect(project, "-q", timeout=60)

    assert problem in checked.stdout, checked.stdout + checked.stderr
    assert checked.returncode == 1 and checked.stdout.splitlines()[-1].endswith("problem(s)"), checked.stdout
    output = collected.stdout + collected.stderr
    assert problem in output, output
    for out in (checked.stdout + checked.stderr, output):
        assert OUTSIDE_SECRET not in out and "Traceback" not in out and "INTERNALERROR" not in out
        assert "/proc/" not in out


def test_a_link_pytest_would_pass_over_anyway_gets_no_warning(tmp_path: Path) -> None:
    """A linked `node_modules` (pytest's `norecursedirs`) or a linked folder beside the paths given
    is never walked: warning about it would only teach people to ignore the warning."""
    project = tmp_path / "project"
    (project / "trails" / "web").mkdir(parents=True)
    (project / "trails" / "web" / "good.trail.yaml").write_text(GOOD)
    (project / "node_modules").symlink_to("/")
    (project / "trails" / "linked").symlink_to("/")

    beside = collect(project, "-q", "trails/web")
    everything = collect(project, "-q")

    assert "good[web]" in beside.stdout and "is a link to" not in beside.stdout, beside.stdout
    assert "trails/linked is a link to /, outside the project: it is not collected" in everything.stdout
    assert "node_modules is a link" not in everything.stdout, everything.stdout


# -- where `trailblaze schema` writes -------------------------------------------------------------
@pytest.mark.parametrize(
    ("output", "why"),
    [
        ("/proc/self/x", "No such file or directory"),
        ("/dev/full", "File exists"),
        ("{file}/under", "Not a directory"),
    ],
)
def test_schema_output_that_cannot_be_written_is_one_message(tmp_path: Path, output: str, why: str) -> None:
    (tmp_path / "file").write_text("x")
    target = output.format(file=tmp_path / "file")

    result = console("schema", "all", "--output", target, cwd=tmp_path)

    assert result.returncode == 1
    assert result.stderr.startswith(f"trailblaze schema: cannot write {target}: {why}\n  fix: ")
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", [["schema", "trail"], ["toolbox"]])
def test_stdout_on_a_full_disk_is_one_message(tmp_path: Path, command: list[str]) -> None:
    with Path("/dev/full").open("w") as full:
        argv = [str(CONSOLE), *command]
        result = subprocess.run(
            argv, cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120
        )

    assert result.returncode == 1
    assert result.stderr == f"trailblaze {command[0]}: cannot write the output: No space left on device\n"
