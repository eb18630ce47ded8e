"""Node's compile cache: a private folder of the user's, or none; the user's own choice stands."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pytest_trailblaze.core.system.node_cache import (
    CACHE_VARIABLE,
    FOLDER,
    cache_folder,
    compile_cache_env,
    compile_cache_for_children,
)


def test_the_folder_is_made_private_in_the_users_cache(tmp_path: Path) -> None:
    env = compile_cache_env({"XDG_CACHE_HOME": str(tmp_path), "HOME": "/nonexistent"})
    folder = tmp_path / FOLDER
    assert env == {CACHE_VARIABLE: str(folder)}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_without_xdg_the_folder_is_under_home(tmp_path: Path) -> None:
    assert cache_folder({"HOME": str(tmp_path)}) == tmp_path / ".cache" / FOLDER


@pytest.mark.parametrize("variable", [CACHE_VARIABLE, "NODE_DISABLE_COMPILE_CACHE"])
def test_a_users_own_setting_stands(tmp_path: Path, variable: str) -> None:
    assert compile_cache_env({"XDG_CACHE_HOME": str(tmp_path), variable: "1"}) == {}
    assert not (tmp_path / FOLDER).exists()


def test_a_folder_others_can_write_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / FOLDER
    folder.mkdir(parents=True)
    folder.chmod(0o777)
    assert compile_cache_env({"XDG_CACHE_HOME": str(tmp_path)}) == {}


def test_a_link_in_place_of_the_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (tmp_path / FOLDER.parent).mkdir()
    (tmp_path / FOLDER).symlink_to(elsewhere)
    assert compile_cache_env({"XDG_CACHE_HOME": str(tmp_path)}) == {}


@pytest.mark.parametrize(
    "environ",
    [{}, {"XDG_CACHE_HOME": "relative/cache"}, {"HOME": ""}],
    ids=["no home", "relative cache folder", "empty home"],
)
def test_no_usable_base_means_no_cache(environ: dict[str, str]) -> None:
    assert compile_cache_env(environ) == {}


def test_a_folder_that_cannot_be_made_means_no_cache(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    assert compile_cache_env({"XDG_CACHE_HOME": str(tmp_path / "file")}) == {}


def test_the_environment_is_put_back_after_the_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    monkeypatch.delenv("NODE_DISABLE_COMPILE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with compile_cache_for_children():
        assert os.environ[CACHE_VARIABLE] == str(tmp_path / FOLDER)
    assert CACHE_VARIABLE not in os.environ
