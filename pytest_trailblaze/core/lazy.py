"""Public names of a package imported on first use (PEP 562), so importing the package is cheap.

The root package and ``agent`` name what users import from them; most runs (an xdist
controller, ``trailblaze --help``) use few or none of those names, and their modules pull in
pydantic, the runner or a provider's SDK.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """The package's ``__getattr__``: imports a name's module (``homes``: name -> relative module)
    on first use, then keeps the name in ``namespace`` so later reads are plain."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, package), name)
        namespace[name] = value
        return value

    return __getattr__
