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

import os
import warnings
from pathlib import Path

import pytest

from ..core.system.files import inside
from ..session.read_ahead import shown_from, walked
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
    norecurse, base = config.getini("norecursedirs"), config.invocation_params.dir
    if not walked(collection_path, norecurse, base, config.args):
        return None
    warnings.warn_explicit(
        TrailblazeWarning(
            f"{shown_from(collection_path, base)} is a link to {os.path.realpath(collection_path)}, "
            "outside the project: it is not collected (collection never follows a link out of the "
            "rootdir and the paths given; pass the folder itself to collect it)"
        ),
        TrailblazeWarning,
        str(collection_path),
        0,
    )
    return True
