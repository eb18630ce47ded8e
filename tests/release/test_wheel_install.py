"""What a stranger gets from PyPI: the sdist and the wheel built from it, installed into a fresh
venv outside the checkout, run a trail and ``trailblaze check`` with no repository file reachable.

The distributions and the venv are made once per test run (shared by xdist workers under a lock).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

import pytest
from readme_blocks import REPO, write_first_trail


@dataclass(frozen=True)
class Installed:
    sdist: Path
    wheel: Path
    venv: Path

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)


def clean_env() -> dict[str, str]:
    """The environment of a user's shell: nothing that points into this checkout or this venv."""
    drop = ("PYTHONPATH", "PYTEST_", "TRAILBLAZE_", "VIRTUAL_ENV", "PYTHONHOME")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if str(REPO) not in p)
    return env


def run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout)


def _build_and_install(root: Path) -> Installed:
    dist = root / "dist"
    built = run([sys.executable, "-m", "build", "--outdir", str(dist), str(REPO)], cwd=root)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    venv = root / "venv"
    made = run([sys.executable, "-m", "venv", str(venv)], cwd=root)
    assert made.returncode == 0, made.stderr
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    installed = run([*pip, "-c", str(REPO / "constraints.txt"), str(wheel)], cwd=root)
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    return Installed(sdist, wheel, venv)


@pytest.fixture(scope="session")
def installed(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Installed]:
    """Built and installed once for the whole run: xdist workers share the folder under a lock."""
    base = tmp_path_factory.getbasetemp()
    # a worker's base is a folder of the run's; without xdist the base is the run's own folder
    # (its parent is shared by every run, where an earlier run's build would be found)
    run_root = base.parent if hasattr(request.config, "workerinput") else base
    root = run_root / "release-wheel"
    root.mkdir(exist_ok=True)
    with (root.parent / "release-wheel.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "installed.json"
        if done.exists():
            paths = json.loads(done.read_text())
            yield Installed(Path(paths["sdist"]), Path(paths["wheel"]), Path(paths["venv"]))
            return
        result = _build_and_install(root)
        done.write_text(json.dumps({k: str(v) for k, v in vars(result).items()}))
    yield result


def test_the_wheel_runs_a_trail_and_check_outside_the_checkout(installed: Installed, tmp_path: Path) -> None:
    where = run(
        [
            installed.bin("python"),
            "-c",
            "import json, sys, pytest_trailblaze as p; print(json.dumps([p.__file__, sys.path]))",
        ],
        cwd=tmp_path,
    )
    module, path = json.loads(where.stdout)
    assert module.startswith(str(installed.venv)), module
    assert not any(entry and str(REPO) in entry for entry in path), path

    write_first_trail(tmp_path)
    result = run([installed.bin("pytest"), "trails/", "-v", "-p", "no:cacheprovider"], cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "hello.trail.yaml::hello[web] PASSED" in result.stdout
    assert "plugins: trailblaze-" in result.stdout

    checked = run([installed.bin("trailblaze"), "check", "trails/"], cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    trail = tmp_path / "trails" / "hello.trail.yaml"
    trail.write_text(trail.read_text().replace("web_click:", "web_clik:"))
    broken = run([installed.bin("trailblaze"), "check", "trails/"], cwd=tmp_path)
    assert broken.returncode == 1
    assert "unknown tool 'web_clik'" in broken.stdout


def test_the_wheel_carries_the_license_the_types_and_clean_metadata(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
        (metadata_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(wheel.read(metadata_name).decode())
    assert "pytest_trailblaze/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert {"pytest_trailblaze/schemas/trail.schema.json", "pytest_trailblaze/evidence/report.css"} <= names
    assert not any(n.startswith(("tests/", "examples/", "docs/")) for n in names)
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata["Requires-Python"] == ">=3.11"
    import pytest_trailblaze

    assert metadata["Version"] == pytest_trailblaze.__version__
    urls = dict(value.split(", ", 1) for value in metadata.get_all("Project-URL"))
    assert {"Documentation", "Source", "Issues", "Changelog"} <= set(urls)
    assert all(url.startswith("https://") for url in urls.values())
    classifiers = set(metadata.get_all("Classifier"))
    assert {"Framework :: Pytest", "Programming Language :: Python :: 3.13", "Typing :: Typed"} <= classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)
    assert sorted(metadata.get_all("Provides-Extra")) == [
        "agent",
        "agent-anthropic",
        "agent-google",
        "agent-openai",
        "video",
    ]
    requires = " ".join(metadata.get_all("Requires-Dist"))
    assert "ruff" not in requires and "mcp-server-time" not in requires and "pytest-xdist" not in requires


def test_the_sdist_holds_the_tests_the_examples_and_the_license(installed: Installed) -> None:
    with tarfile.open(installed.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"LICENSE", "README.md", "CHANGELOG.md", "pyproject.toml", "constraints.txt", "dev"} <= names
    # every file of the checkout's top level that ./dev reads (constraints-llm.txt for ./dev test)
    read_by_dev = set(re.findall(r"\b[\w.-]+\.(?:txt|json|toml|yml)\b", (REPO / "dev").read_text()))
    on_top = {name for name in read_by_dev if (REPO / name).is_file()}
    assert "constraints-llm.txt" in on_top and on_top <= names, sorted(on_top - names)
    assert {"tests/release/test_wheel_install.py", "examples/trails/web/counter.trail.yaml"} <= names
    assert {"docs/hooks/refgen.py", "mkdocs.yml", "package-lock.json"} <= names
    assert not any(
        part in name.split("/") for name in names for part in ("node_modules", ".venv", "__pycache__")
    )


def test_twine_accepts_both_distributions(installed: Installed) -> None:
    twine = Path(sys.executable).parent / "twine"
    result = run(
        [str(twine), "check", "--strict", str(installed.sdist), str(installed.wheel)], cwd=installed.venv
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("PASSED") == 2
