"""TypeScript tools of trailmaps, as upstream writes them (``trailblaze.tool<I, O>(spec, handler)``).

- ``discovery``: which files of ``trailmaps/<id>/tools/`` hold tools, sidecars, listed names;
- ``analysis``: their schemas, descriptions and errors, read by the TypeScript compiler in a
  Node (or Bun) subprocess without running the tools, cached by file content;
- ``tools``: the registry's view of them; ``hosts``: the Bun / Node+tsx subprocess that runs them,
  started through the MCP machinery, with ``ctx.tools`` calling back over the same pipe;
- ``clientdts``: the typings ``trailblaze check`` writes for editors; ``checks``: tool tests,
  type checks and those files, for ``trailblaze check``.

The JavaScript side (our own ``@trailblaze/scripting``, the host, the analyzer) is in ``assets/``.
"""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).resolve().parent / "assets"
