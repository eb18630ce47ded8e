"""The parts of PyYAML's loaders that PyYAML does not publish, which the YAML 1.2 reader needs.

``yamlcore.CoreLoader`` is PyYAML's safe loader (libyaml's C composer when present) with two
changes that PyYAML offers no published way to make: its plain scalars resolve by the YAML 1.2
core schema instead of PyYAML's YAML 1.1 table, and it counts nesting while composing (the
composer recurses per level, so an unbounded depth would crash the process). Both are done here,
each behind one name whose docstring says what it relies on; ``tests/unit/test_compat.py`` fails,
naming it, when a PyYAML release changes that. Tested on PyYAML 6.0 (with and without libyaml).

The package's other such uses (pytest, xdist, asyncio, allure) are in ``pytest_trailblaze.compat``;
this one stays in ``core`` because ``core`` imports nothing outside itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from yaml.nodes import Node
from yaml.resolver import BaseResolver

Loader = TypeVar("Loader", bound=type[BaseResolver])


def without_implicit_resolvers(loader: Loader) -> Loader:
    """``loader`` (a subclass made for this) with no implicit resolvers: every plain scalar is a
    string until resolvers are added with the published ``add_implicit_resolver``.

    Relies on: the ``yaml_implicit_resolvers`` class attribute, the table ``add_implicit_resolver``
    copies from the base class and ``resolve`` reads. Public interface to switch to: a loader
    class built on ``yaml.resolver.BaseResolver`` (which has none) would do, but PyYAML builds its
    C-speed loaders on ``Resolver`` only; if it ever offers a YAML 1.2 resolver, use that.
    """
    loader.yaml_implicit_resolvers = {}
    return loader


class ComposerDepth:
    """A loader mixin that counts how deep the composer is: ``depth`` while composing a node
    (1 for the document's root), ``deepest`` of the whole document.

    ``node_entered`` is called before each node is composed, with the collection that holds it,
    and may raise to stop composition before the composer recurses any deeper.

    Relies on: the composers (PyYAML's and libyaml's) calling the resolver's
    ``descend_resolver(parent, index)`` before and ``ascend_resolver()`` after every node, a hook
    meant for PyYAML's path resolvers (unused here: this mixin takes the hook over). Public
    interface to switch to: none; ``composer_reports_depth`` tells whether the hook still works,
    and the caller has a slower way (the event stream) when it does not.
    """

    depth = 0
    deepest = 0

    def node_entered(self, parent: Node | None) -> None:
        """A node inside ``parent`` (None: the root) is about to be composed at ``self.depth``."""

    def descend_resolver(self, parent: Node | None, index: object) -> None:
        self.depth += 1
        self.deepest = max(self.deepest, self.depth)
        self.node_entered(parent)

    def ascend_resolver(self) -> None:
        self.depth -= 1


class _DepthLoader(Protocol):
    """A loader with ``ComposerDepth`` mixed in, as ``composer_reports_depth`` uses one."""

    deepest: int

    def get_single_node(self) -> Node | None: ...

    def dispose(self) -> None: ...


def composer_reports_depth(loader: Callable[[str], _DepthLoader]) -> bool:
    """Whether ``loader``'s composer calls the hooks ``ComposerDepth`` relies on, for every node."""
    probe = loader("[[[0]]]")  # a loader class: it takes the text
    try:
        probe.get_single_node()
        return bool(probe.deepest == 4)
    finally:
        probe.dispose()
