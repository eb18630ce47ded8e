"""The files a workspace's globs name (``toolsets:`` of a trailmap, its tool folders): never outside it.

A pattern is relative to the trailmap folder. An absolute pattern or one with a ``..`` segment is
refused at its line: a workspace names its own files, and ``../../../../outside/*.yaml`` made a
stranger's workspace read (and report problems inside) YAML anywhere on the machine. The walk
(``files.glob_inside``) never follows a link to a folder outside the workspace, and a matched
file that a link leads outside is refused too; each is a problem at the pattern's line.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from ..core.errors import Problem, SourceSpan
from ..core.system.files import glob_inside, inside, is_regular, refusal


def workspace_matches(
    folder: Path, pattern: str, root: Path, at: SourceSpan, what: str
) -> tuple[list[Path], list[Problem]]:
    """The regular files under ``folder`` that ``pattern`` names inside ``root``, and the problems
    (located at ``at``; ``what`` names the kind of files, ``toolsets``)."""
    parts = PurePosixPath(pattern.replace("\\", "/")).parts
    absolute = pattern.startswith(("/", "~")) or Path(pattern).is_absolute()
    if not pattern.strip() or absolute or ".." in parts:
        why = (
            f"patterns are relative to the trailmap folder and stay inside the workspace root {root}: "
            "an absolute path or a `..` segment would read files of anyone's machine"
        )
        fix = (
            "write a pattern relative to the trailmap folder, like `toolsets/*.yaml`, and move shared "
            "files inside the workspace"
        )
        return [], [Problem(at, f"{what} pattern {pattern!r} leaves the trailmap folder", why, fix)]
    found: list[Path] = []
    problems: list[Problem] = []
    links: list[Path] = []
    for match in (p for p in glob_inside(folder, pattern, root, links) if is_regular(p)):
        refused = None if inside(match, root) else refusal(match, root=root)
        if refused is None:
            found.append(match)
        else:
            problems.append(
                Problem(at, f"{what} pattern {pattern!r} matches {refused.what}", refused.why, refused.fix)
            )
    for link in links:
        problems.append(
            Problem(
                at,
                f"{what} pattern {pattern!r} reaches {link.name}, a link to a folder outside the workspace",
                why=f"it points to {os.path.realpath(link)}; patterns do not follow links out of {root}",
                fix="copy the files into the workspace instead of linking to them",
            )
        )
    return found, problems
