"""``python -m pytest_trailblaze.schemas``: regenerate the shipped JSON Schema files."""

from __future__ import annotations

import sys

from . import write_all

for path in write_all():
    sys.stdout.write(f"{path}\n")
