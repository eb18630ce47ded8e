"""``trail_validation: {exempt: "<reason>"}`` on a trailmap, as upstream documents it: the static
findings on its target's trails (unknown tools, wrong arguments) are still reported, but as
warnings that name the reason, so collection and ``trailblaze check`` do not fail on them."""

from __future__ import annotations

from dataclasses import replace

from ..core.errors import Problem
from .model import Target


def exempted(problems: list[Problem], target: Target | None) -> list[Problem]:
    """``problems`` of a trail of ``target``: errors become warnings when the target is exempt."""
    if target is None or not target.exempt:
        return problems
    note = f"target '{target.id}' is exempt from trail validation: {target.exempt}"
    return [
        replace(p, severity="warning", why=f"{p.why}\n  note: {note}" if p.why else note)
        if p.severity == "error"
        else p
        for p in problems
    ]
