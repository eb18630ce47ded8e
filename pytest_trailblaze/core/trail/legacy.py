"""Legacy per-device trail files (docs/upstream.md, Trail files): one trail spread over a directory.

Before the unified format, a trail was a directory: a natural-language definition (``trail.yaml``
in the v1 list format, or ``blaze.yaml``) and one v1 recording per device, named for the device's
classifier (``android-phone.trail.yaml``, ``web.trail.yaml``). Upstream runs, for a device, the most
specific file of the directory (``computePossibleFileNamesForDeviceClassifiers``):
``android-phone.trail.yaml``, then ``android.trail.yaml``, then ``trail.yaml``, then ``blaze.yaml``.

This module reads a directory's layout and answers which file an item runs and where a device's
recording is saved. It looks at file names, plus one content test per classifier-named file
(upstream's ``isUnifiedTrailContent``: a line starting ``trail:`` makes it a named unified trail,
not a device's recording). ``trailblaze.yaml`` is never a trail here: it is the workspace file.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..system.files import FileRefused, read_source
from .devices import platform_of
from .lineage import resolution_chain
from .parse import classifier_from_filename

DEFINITION = "trail.yaml"
BLAZE = "blaze.yaml"
SUFFIX = ".trail.yaml"
#: The device a platform's item is assumed to run on when no device profile says.
USUAL_FORM_FACTORS = {"android": "phone", "ios": "iphone"}


def is_unified_text(text: str) -> bool:
    """Whether a file's text is a unified trail: some line starts with ``trail:``."""
    return text.lstrip("\ufeff").startswith("trail:") or "\ntrail:" in text


def _read(path: Path) -> str | None:
    try:
        return read_source(path)
    except FileRefused:
        return None  # loading the file says why, with its path


def in_workspace_config(folder: Path) -> bool:
    """Whether ``folder`` is inside a ``trails/config`` folder (workspace files, never trails)."""
    return any(pair == ("trails", "config") for pair in itertools.pairwise(folder.parts))


@dataclass(frozen=True)
class TrailDir:
    """A directory's trail files: its definition and its per-device v1 recordings."""

    folder: Path
    #: ``trail.yaml``, else a ``blaze.yaml`` that is a v1 trail outside ``trails/config``.
    definition: Path | None = None
    #: classifier -> the v1 file named for it (``web.trail.yaml``).
    recordings: Mapping[str, Path] = field(default_factory=dict)

    @property
    def is_legacy(self) -> bool:
        """One trail over several files: there are per-device recordings."""
        return bool(self.recordings)

    def holds(self, path: Path) -> bool:
        return path == self.definition or path in self.recordings.values()

    def platforms_for(self, path: Path, own: Iterable[str]) -> set[str]:
        """The platforms ``path`` may serve: the definition any of the directory's (and ``own``,
        those of its content); a device's recording only that device's."""
        if path == self.definition:
            return {platform_of(key) for key in self.recordings} | set(own)
        return {platform_of(key) for key, file in self.recordings.items() if file == path}

    def file_for(self, platform: str, segments: tuple[str, ...] = ()) -> Path | None:
        """The file an item of ``platform`` runs; ``segments``: its device profile's classifier.

        A device profile that names a type (``android-tablet``) gets its own file, else a more
        general one, else the definition, as upstream does. Without one the device is known only
        at run time: the platform's usual device (a phone) is assumed, and any recording of the
        platform beats the definition; a recording for another type says so when it runs.
        """
        own = [self.recordings[k] for k in sorted(self.recordings) if platform_of(k) == platform]
        if len(segments) > 1:
            chain, rest = resolution_chain(segments), [self.definition, *own]
        else:
            usual = USUAL_FORM_FACTORS.get(platform)
            chain = resolution_chain((platform, usual) if usual else (platform,))
            rest = [*own, self.definition]
        for key in chain:
            if key in self.recordings:
                return self.recordings[key]
        return next((path for path in rest if path is not None), None)


def read_trail_dir(folder: Path) -> TrailDir:
    """The layout of ``folder``: one directory listing, and the text of classifier-named files."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries if entry.is_file())
    except OSError:
        return TrailDir(folder)
    recordings = {}
    for name in names:
        classifier = classifier_from_filename(name)
        if classifier is None:
            continue
        text = _read(folder / name)
        if text is not None and not is_unified_text(text):
            recordings[classifier] = folder / name
    definition = None
    if DEFINITION in names:
        definition = folder / DEFINITION
    elif BLAZE in names and not in_workspace_config(folder):
        text = _read(folder / BLAZE)
        definition = folder / BLAZE if text is None or not is_unified_text(text) else None
    return TrailDir(folder, definition, recordings)


def is_blaze_definition(path: Path) -> bool:
    """Whether ``path`` is a ``blaze.yaml`` that is its directory's v1 trail definition.

    Collection, the tag pre-read and ``trailblaze check`` share this rule: a ``blaze.yaml``
    outside ``trails/config``, in the v1 format, with no ``trail.yaml`` beside it.
    """
    return path.name == BLAZE and read_trail_dir(path.parent).definition == path


def recording_file(path: Path, is_v1: bool, classifier: str) -> Path:
    """Where a run of ``path`` on a ``classifier`` device saves what the agent did
    (docs/upstream.md, Recording write-back).

    A unified trail takes it into the device's slot of the file itself. A v1 definition
    (``trail.yaml``, ``blaze.yaml``) or a v1 file named for a device takes it into the device's own
    ``<classifier>.trail.yaml`` beside it (made from the run's file when it does not exist yet),
    which the directory lookup runs for that device from then on. Any other v1 file stays as it
    is: its recordings apply to every device, so one device's calls cannot go there.
    """
    if not is_v1 or not (path.name in (DEFINITION, BLAZE) or classifier_from_filename(path.name)):
        return path
    return path.with_name(f"{classifier}{SUFFIX}")
