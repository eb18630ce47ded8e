"""Command-line options and ini keys: declared to pytest from ``session.option_table``, read once
(CLI > ini > default) into ``Settings`` by ``session.run_options``; a bad value is a usage error."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import pytest

from ..core.errors import ConfigurationError
from ..session.option_table import RUN_OPTIONS, OptionSpec
from ..session.option_values import Given
from ..session.run_options import read_settings
from ..session.settings import Settings

SETTINGS_KEY = pytest.StashKey["Settings"]()
_T = TypeVar("_T")


def declare(parser: pytest.Parser, specs: Iterable[OptionSpec]) -> None:
    """Each option, then the ini keys that set it (the options reference reads them in this order)."""
    group = parser.getgroup("trailblaze", "Trailblaze trails")
    for spec in specs:
        if spec.flags:
            group.addoption(*spec.flags, dest=spec.dest, **spec.cli)
        for ini in spec.inis:
            parser.addini(ini.name, ini.help, **ini.extra)


def add_options(parser: pytest.Parser) -> None:
    declare(parser, RUN_OPTIONS)


def given(config: pytest.Config) -> Given:
    """What the user gave: ``--trailblaze-*`` options, else ``trailblaze_*`` ini keys."""
    return Given(
        lambda name: getattr(config.option, f"trailblaze_{name}", None),
        lambda key: config.getini(f"trailblaze_{key}"),
        config.invocation_params.dir,
        config.rootpath,
    )


def as_usage_error(read: Callable[[], _T]) -> _T:
    """``read()``; a bad option value is pytest's usage error: its message, no traceback."""
    try:
        return read()
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None


def resolve_settings(config: pytest.Config) -> Settings:
    """Read options and ini once; bad values are a ``pytest.UsageError`` naming the option."""
    return as_usage_error(lambda: read_settings(given(config)))


def worker_id(config: pytest.Config) -> str:
    """``gw0``, ``gw1``... under xdist, ``main`` otherwise: names per-worker logs, servers, records.

    Read from xdist's ``workerinput``, never from the environment: a pytest started inside an
    xdist worker (a test of a test suite) inherits ``PYTEST_XDIST_WORKER`` without being one.
    """
    return str(getattr(config, "workerinput", {}).get("workerid", "main"))
