"""Async tests before, between and after web trails in one run, on real Chromium.

pytest-asyncio (auto mode) and anyio's plugin (asyncio and trio backends) each need the main
thread free of a running loop; a web trail used to leave Playwright's marked there, and every
async test after it failed with "Runner.run() cannot be called from a running event loop". Each
run is a real ``python -m pytest``: in folder order, under pytest-randomly, and under xdist; with
pytest-playwright loaded (as installed) and without it.
"""

from __future__ import annotations

import json

import pytest

ASYNCIO_TEST = """
import asyncio

async def test_asyncio_{n}():
    assert await asyncio.sleep(0, result="ran") == "ran"
"""
ANYIO_TEST = """
import anyio
import pytest

@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request):
    return request.param

@pytest.mark.anyio
async def test_anyio_{n}(anyio_backend):
    await anyio.sleep(0)
"""
TRAIL = """
config:
  id: {name}
trail:
  - step: Open a page
    recording:
      web:
        - web_navigate: {{ url: "data:text/html,<h1>{name}</h1>" }}
        - web_verifyTextVisible: {{ text: {name} }}
"""
#: Records the order in which test calls ran, in ``order.json`` (xdist workers write their own).
ORDER_RECORDER = """
import json, os, pathlib

_ORDER = []

def pytest_runtest_logreport(report):
    if report.when == "call":
        _ORDER.append(report.nodeid)

def pytest_sessionfinish(session):
    worker = getattr(session.config, "workerinput", {}).get("workerid", "main")
    path = pathlib.Path(str(session.config.rootpath), f"order-{worker}.json")
    path.write_text(json.dumps(_ORDER))
"""
AUTO = [
    "-p",
    "no:cacheprovider",
    "-o",
    "asyncio_mode=auto",
    "-o",
    "asyncio_default_fixture_loop_scope=function",
]
#: Items per layout: 3 asyncio tests, 3 anyio tests on two backends each, 2 trails.
ITEMS = 3 + 3 * 2 + 2


def layout(pytester: pytest.Pytester, tb) -> None:
    """Async tests of both plugins, then a trail, async tests, a trail, async tests (folder order)."""
    pytester.makeconftest(ORDER_RECORDER)
    for n, folder in enumerate(("a_before", "c_between", "e_after")):
        tb.write(pytester.path, f"{folder}/test_asyncio_{n}.py", ASYNCIO_TEST.format(n=n))
        tb.write(pytester.path, f"{folder}/test_anyio_{n}.py", ANYIO_TEST.format(n=n))
    tb.write(pytester.path, "b_trails/one.trail.yaml", TRAIL.format(name="one"))
    tb.write(pytester.path, "d_trails/two.trail.yaml", TRAIL.format(name="two"))


def ran_after_a_trail(order: list[str]) -> list[str]:
    """The async tests that ran after some trail in this process."""
    first_trail = next((i for i, nodeid in enumerate(order) if ".trail.yaml" in nodeid), len(order))
    return [nodeid for nodeid in order[first_trail:] if ".trail.yaml" not in nodeid]


@pytest.mark.parametrize("playwright_plugin", ["with pytest-playwright", "without pytest-playwright"])
def test_async_tests_pass_before_between_and_after_trails(
    pytester: pytest.Pytester, tb, playwright_plugin: str
) -> None:
    layout(pytester, tb)
    disabled = ["-p", "no:playwright"] if playwright_plugin.startswith("without") else []

    result = pytester.runpytest_subprocess(*AUTO, "-p", "no:randomly", *disabled)

    result.assert_outcomes(passed=ITEMS)
    order = json.loads((pytester.path / "order-main.json").read_text())
    after = ran_after_a_trail(order)
    assert any("asyncio" in n for n in after) and any("trio" in n for n in after), order
    assert order.index("d_trails/two.trail.yaml::two[web]") < len(order) - 1, order


def test_async_tests_and_trails_in_random_order(pytester: pytest.Pytester, tb) -> None:
    layout(pytester, tb)

    result = pytester.runpytest_subprocess(*AUTO, "-p", "randomly", "--randomly-seed=7")

    result.assert_outcomes(passed=ITEMS)
    result.stdout.fnmatch_lines(["Using --randomly-seed=7"])
    order = json.loads((pytester.path / "order-main.json").read_text())
    assert len(ran_after_a_trail(order)) >= 3, order  # the seed puts several async tests after a trail


#: Under ``--dist loadgroup`` the two groups go one to each worker, each run in folder order:
#: both workers run a trail and then async tests of both plugins in the same process.
XDIST_GROUPS = """
import pytest

GROUPS = {"a_before": "first", "b_trails": "first", "c_between": "first",
          "d_trails": "second", "e_after": "second"}

@pytest.hookimpl(tryfirst=True)  # before xdist names the items by their group
def pytest_collection_modifyitems(items):
    for item in items:
        item.add_marker(pytest.mark.xdist_group(GROUPS[item.nodeid.split("/")[0]]))
"""


def test_async_tests_and_trails_under_xdist(pytester: pytest.Pytester, tb) -> None:
    layout(pytester, tb)
    conftest = pytester.path / "conftest.py"
    conftest.write_text(conftest.read_text() + XDIST_GROUPS)

    result = pytester.runpytest_subprocess(*AUTO, "-p", "no:randomly", "-n", "2", "--dist", "loadgroup")

    result.assert_outcomes(passed=ITEMS)
    orders = {p.name: json.loads(p.read_text()) for p in pytester.path.glob("order-gw*.json")}
    assert sorted(orders) == ["order-gw0.json", "order-gw1.json"], orders
    for order in orders.values():
        after = ran_after_a_trail(order)
        assert any("asyncio" in n for n in after) and any("trio" in n for n in after), orders
    assert sum(len(order) for order in orders.values()) == ITEMS, orders
