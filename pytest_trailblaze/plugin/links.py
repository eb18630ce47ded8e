"""Where collection may go: not through a link that leads out of the project.

pytest's directory walk follows a linked folder wherever it leads: ``tools/root -> /`` in a
stranger's trails folder walks the whole file system (and dies on a vanished ``/proc`` entry).
A linked folder whose target lies outside the rootdir and the paths the run was given is not
collected; a warning names it, so nothing is skipped in silence. A link pytest would pass over
anyway (a ``norecursedirs`` name such as a linked ``node_modules``, or a folder beside the paths the
run was given) gets no warning: nothing of it would have been collected. The same roots bound the
trail files collection reads (``core.system.files.read_source``).
"""

from __future__ import annotations

import fnmatch
import os
import warnings
from pathlib import Path

import pytest

from ..core.system.files import inside
from .collection import TrailblazeWarning
from .tags import trail_roots


@pytest.hookimpl(tryfirst=True)
def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A linked folder that leads outside the project is not walked: pytest would follow a link to
    ``/`` into the whole file system. It is named in a warning, once."""
    try:
        linked_folder = collection_path.is_symlink() and collection_path.is_dir()
    except OSError:
        return None
    if not linked_folder or inside(collection_path, trail_roots(config)):
        return None
    if not _walked(collection_path, config):
        return None
    warnings.warn_explicit(
        TrailblazeWarning(
            f"{_shown(collection_path, config)} is a link to {os.path.realpath(collection_path)}, "
            "outside the project: it is not collected (collection never follows a link out of the "
            "rootdir and the paths given; pass the folder itself to collect it)"
        ),
        TrailblazeWarning,
        str(collection_path),
        0,
    )
    return True


def _walked(path: Path, config: pytest.Config) -> bool:
    """Whether pytest would walk into ``path``: its name is not one of ``norecursedirs`` and it
    lies under a path the run was given (pytest also asks about the entries beside them)."""
    if any(fnmatch.fnmatch(path.name, pattern) for pattern in config.getini("norecursedirs")):
        return False
    here = Path(os.path.normpath(path))  # the link itself, not where it leads
    base = config.invocation_params.dir
    given = [Path(os.path.normpath(Path(base, arg.split("::", 1)[0]))) for arg in config.args]
    return any(here == folder or folder in here.parents for folder in given)


def _shown(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)
