"""Each use of another library's unpublished parts still works with the installed versions.

One test per function of ``pytest_trailblaze.compat`` and ``core.trail.yaml_compat``, through what
the plugin needs from it (a report that survives serialization, a terminal line that really goes
through the wrapper, ...). An upgrade that breaks one fails here with the function's name, so the
fix starts at the right place: that function, its docstring's "public interface to switch to".
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import allure_commons
import pytest
import yaml
from allure_commons.logger import AllureFileLogger

from pytest_trailblaze import compat
from pytest_trailblaze.core.trail import yaml_compat


@contextmanager
def shim(name: str) -> Iterator[None]:
    """A failure in the block names the shim that no longer works, and what it was tested on."""
    try:
        yield
    except Exception as error:
        pytest.fail(
            f"{name} no longer works with the installed versions (tested with {compat.TESTED_WITH}, "
            f"PyYAML 6.0): {type(error).__name__}: {error}. Fix it there (its docstring says what "
            "it relies on and what to switch to).",
        )


# -- pytest -----------------------------------------------------------------------------------------
def test_plain_longrepr_keeps_its_crash_line_through_serialization(pytestconfig: pytest.Config) -> None:
    with shim("compat.plain_longrepr"):
        text = "trail.yaml:5:3: step 2/3 failed\n"
        longrepr = compat.plain_longrepr(text, "trail.yaml", 5, "Oops: it failed")
        report = pytest.TestReport("t.py::t", ("t.py", 0, "t"), {}, "failed", longrepr, "call")
        hook = pytestconfig.hook
        data = hook.pytest_report_to_serializable(config=pytestconfig, report=report)
        back = hook.pytest_report_from_serializable(config=pytestconfig, data=json.loads(json.dumps(data)))
        crash = back.longrepr.reprcrash
        assert (crash.path, crash.lineno, crash.message) == ("trail.yaml", 5, "Oops: it failed")
        assert back.longreprtext.splitlines() == ["trail.yaml:5:3: step 2/3 failed"]
        assert compat.plain_longrepr(None, "trail.yaml", 5, "Oops").reprtraceback.reprentries == []


#: A conftest for the inner runs below: a stream wrapper that shows which text went through it.
WRAPPER = """
import pytest
from pytest_trailblaze import compat

class Marked:
    def __init__(self, wrapped):
        self.wrapped = wrapped
    def write(self, text):
        return self.wrapped.write(text.replace("plain", "WRAPPED"))
    def __getattr__(self, name):
        return getattr(self.wrapped, name)
"""


def test_wrap_terminal_stream_sees_everything_pytest_prints(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        WRAPPER
        + "@pytest.hookimpl(tryfirst=True)\n"
        + "def pytest_sessionstart(session):\n"
        + "    session.config.wrapped = compat.wrap_terminal_stream(session.config, Marked)\n"
        + "def pytest_report_header(config):\n"
        + "    return ['a plain header', f'wrapped: {type(config.wrapped).__name__}']\n"
    )
    pytester.makepyfile(test_x="def test_x():\n    print('plain words')\n    assert 0\n")
    with shim("compat.wrap_terminal_stream"):
        result = pytester.runpytest_inprocess("-p", "no:randomly")
        result.assert_outcomes(failed=1)
        out = result.stdout.str()
        assert "a WRAPPED header" in out and "wrapped: Marked" in out
        assert "WRAPPED words" in out and "plain" not in out  # a report's captured output too
        # without a terminal reporter there is no stream to wrap
        none = pytester.runpytest_inprocess("-p", "no:terminal", "-p", "no:randomly")
        assert none.ret == 1


def test_wrap_log_file_stream_sees_every_record(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        WRAPPER
        + "def pytest_sessionstart(session):\n"
        + "    assert compat.wrap_log_file_stream(session.config, Marked)\n"
    )
    pytester.makepyfile(
        test_x="import logging\ndef test_x():\n    logging.getLogger('x').warning('plain record')\n"
    )
    with shim("compat.wrap_log_file_stream"):
        result = pytester.runpytest_inprocess("--log-file=run.log", "--log-file-level=INFO")
        result.assert_outcomes(passed=1)
        log = (pytester.path / "run.log").read_text()
        assert "WRAPPED record" in log and "plain" not in log


def test_wrap_log_file_stream_without_a_log_file_wraps_nothing(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        WRAPPER
        + "def pytest_sessionstart(session):\n"
        + "    assert not compat.wrap_log_file_stream(session.config, Marked)\n"
    )
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    with shim("compat.wrap_log_file_stream"):
        pytester.runpytest_inprocess("-p", "no:logging").assert_outcomes(passed=1)


#: A conftest that writes a line of its own while a test runs, as live step progress does.
LIVE_LINE = """
import sys
import pytest
from pytest_trailblaze import compat

@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    reporter = item.config.pluginmanager.get_plugin("terminalreporter")
    with compat.capture_suspended(item.config):
        reporter.write("\\n    a live line")
        reporter.flush()
        print("printed while suspended")
    FORGET
    return (yield)
"""


def live_run(pytester: pytest.Pytester, *, forget: bool) -> str:
    forgetting = "compat.forget_report_location(reporter)" if forget else "pass"
    pytester.makeconftest(LIVE_LINE.replace("FORGET", forgetting))
    pytester.makepyfile(test_x="def test_a():\n    print('captured as usual')\n")
    result = pytester.runpytest_inprocess("-v")
    result.assert_outcomes(passed=1)
    return result.stdout.str()


def test_capture_suspended_lets_a_line_through_while_a_test_runs(pytester: pytest.Pytester) -> None:
    with shim("compat.capture_suspended"):
        out = live_run(pytester, forget=True)
        assert "    a live line" in out and "printed while suspended" in out
        assert "captured as usual" not in out


def test_forget_report_location_writes_the_test_location_again(pytester: pytest.Pytester) -> None:
    with shim("compat.forget_report_location"):
        lines = live_run(pytester, forget=True).splitlines()
        assert any(re.fullmatch(r"test_x\.py::test_a PASSED\s+\[100%\]", line) for line in lines), lines
        # the check can fail: without the shim, the result word lands after our line
        kept = live_run(pytester, forget=False).splitlines()
        assert not any(line.startswith("test_x.py::test_a PASSED") for line in kept), kept


# -- pytest-xdist and execnet ---------------------------------------------------------------------
def test_xdist_worker_pids_are_the_workers_processes(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "import json, os\n"
        "from pytest_trailblaze import compat\n"
        "def pytest_xdist_node_collection_finished(node, ids):\n"
        "    pids = compat.xdist_worker_pids(node.config)\n"
        "    (node.config.rootpath / 'seen.json').write_text(json.dumps(pids))\n"
    )
    pytester.makepyfile(
        test_x="import os, pathlib\n"
        "def test_a(worker_id):\n    pathlib.Path(f'{worker_id}.pid').write_text(str(os.getpid()))\n"
        "def test_b(worker_id):\n    pathlib.Path(f'{worker_id}.pid').write_text(str(os.getpid()))\n"
    )
    with shim("compat.xdist_worker_pids"):
        result = pytester.runpytest_subprocess("-n", "2", "-p", "xdist", "--dist", "each")
        result.assert_outcomes(passed=4)
        workers = {int(p.read_text()) for p in pytester.path.glob("gw*.pid")}
        assert len(workers) == 2 and os.getpid() not in workers
        assert set(json.loads((pytester.path / "seen.json").read_text())) == workers


def test_xdist_worker_pids_outside_a_controller_are_none(pytestconfig: pytest.Config) -> None:
    """This suite's own process is a worker or runs without xdist: it has no workers of its own."""
    with shim("compat.xdist_worker_pids"):
        assert compat.xdist_worker_pids(pytestconfig) == []


# -- asyncio --------------------------------------------------------------------------------------
def in_thread(check: Callable[[], None]) -> None:
    """Run ``check`` in a thread of its own: the loop marks it sets never touch the test's thread."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            check()
        except BaseException as error:  # handed to the test's thread
            failures.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    if failures:
        raise failures[0]


def test_running_loop_and_mark_running_loop_are_what_asyncio_sees() -> None:
    def check() -> None:
        loop = asyncio.new_event_loop()
        try:
            assert compat.running_loop() is None
            compat.mark_running_loop(loop)
            assert compat.running_loop() is loop and asyncio.get_running_loop() is loop
            pending = asyncio.sleep(0)
            with pytest.raises(RuntimeError):  # asyncio.run refuses to start inside a marked loop
                asyncio.run(pending)
            pending.close()
            compat.mark_running_loop(None)
            assert compat.running_loop() is None
            asyncio.run(asyncio.sleep(0))
        finally:
            compat.mark_running_loop(None)
            loop.close()

    with shim("compat.running_loop / compat.mark_running_loop"):
        in_thread(check)


def test_has_ready_callbacks_sees_a_queued_callback() -> None:
    loop = asyncio.new_event_loop()
    try:
        with shim("compat.has_ready_callbacks"):
            assert not compat.has_ready_callbacks(loop)
            loop.call_soon(lambda: None)
            assert compat.has_ready_callbacks(loop)
            loop.run_until_complete(asyncio.sleep(0))
            assert not compat.has_ready_callbacks(loop)
    finally:
        loop.close()


# -- allure-python-commons --------------------------------------------------------------------------
class Front:
    """What the masking front does: sees attachments before the writer, and passes them on."""

    def __init__(self, writer: AllureFileLogger, seen: list[str]) -> None:
        self.writer = writer
        self.seen = seen

    @allure_commons.hookimpl
    def report_attached_data(self, body: str | bytes, file_name: str) -> None:
        self.seen.append(file_name)
        self.writer.report_attached_data(body.upper() if isinstance(body, str) else body, file_name)


def test_front_allure_file_writers_puts_a_front_before_every_writer(tmp_path: Path) -> None:
    manager = allure_commons.plugin_manager
    writer = AllureFileLogger(str(tmp_path))
    manager.register(writer, "trailblaze-compat-test")
    seen: list[str] = []
    try:
        with shim("compat.front_allure_file_writers"):
            undo = compat.front_allure_file_writers(lambda w: Front(w, seen))
            assert writer not in manager.get_plugins()
            manager.hook.report_attached_data(body="through the front", file_name="a.txt")
            assert seen == ["a.txt"] and (tmp_path / "a.txt").read_text() == "THROUGH THE FRONT"
            undo()
            assert manager.get_plugin("trailblaze-compat-test") is writer
            manager.hook.report_attached_data(body="direct", file_name="b.txt")
            assert seen == ["a.txt"] and (tmp_path / "b.txt").read_text() == "direct"
    finally:
        if manager.is_registered(writer):
            manager.unregister(writer)
        for plugin in [p for p in manager.get_plugins() if isinstance(p, Front)]:
            manager.unregister(plugin)


# -- PyYAML (core/trail/yaml_compat.py) -------------------------------------------------------------
LOADERS = [yaml.SafeLoader] + ([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])


@pytest.mark.parametrize("base", LOADERS, ids=lambda base: base.__name__)
def test_without_implicit_resolvers_reads_every_plain_scalar_as_text(base: type[Any]) -> None:
    with shim("core.trail.yaml_compat.without_implicit_resolvers"):
        loader = yaml_compat.without_implicit_resolvers(type("Plain", (base,), {}))
        assert yaml.load("[8:00, 017, no, ~, 1.5]", Loader=loader) == ["8:00", "017", "no", "~", "1.5"]
        loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"[0-9]+\Z"), list("0123456789"))
        assert yaml.load("[12, no]", Loader=loader) == [12, "no"]
        assert yaml.load("[8:00, no]", Loader=base) == [480, False]  # the base class is untouched


class Depths:
    """A ``ComposerDepth`` loader that records the depth of each node as it is entered."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.depths: list[int] = []

    def node_entered(self, parent: Any) -> None:
        self.depths.append(self.depth)
        if self.depth > 4:
            raise ValueError(f"too deep under the node at line {parent.start_mark.line + 1}")


@pytest.mark.parametrize("base", LOADERS, ids=lambda base: base.__name__)
def test_composer_depth_follows_the_composer_into_every_node(base: type[Any]) -> None:
    with shim("core.trail.yaml_compat.ComposerDepth"):
        loader: Any = type("Counting", (Depths, yaml_compat.ComposerDepth, base), {})
        assert yaml_compat.composer_reports_depth(loader)
        probe = loader("a: [1, {b: 2}]\nc: 3\n")
        try:
            assert probe.get_single_node() is not None
            # root; a, [..]; 1, {..}; b, 2; c, 3 (keys are nodes too)
            assert (probe.depths, probe.deepest, probe.depth) == ([1, 2, 2, 3, 3, 4, 4, 2, 2], 4, 0)
        finally:
            probe.dispose()
        deep = loader("a:\n  - b:\n    - [1]\n")
        try:
            with pytest.raises(ValueError, match="too deep under the node at line 3"):
                deep.get_single_node()  # stopped before the composer went further
        finally:
            deep.dispose()


# -- nothing else reaches past a library's published interface -------------------------------------
PACKAGE = Path(compat.__file__).parent
COMPAT_MODULES = {PACKAGE / "compat.py", PACKAGE / "core" / "trail" / "yaml_compat.py"}
#: Underscored names that are published: the standard library's documented ``_thread`` module.
PUBLISHED = {"_thread"}
#: Attributes of our own that the plugin keeps on another library's objects (a cache per session).
OWN_PREFIX = "_trailblaze_"


def unpublished_uses(path: Path) -> Iterator[str]:
    """``line: what`` for each import of an underscored module and each underscored attribute
    read or written on anything but ``self`` / ``cls`` (directly or by ``getattr`` and kin)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        for name in imported(node):
            if name not in PUBLISHED and any(unpublished(part) for part in name.split(".")):
                yield f"{node.lineno}: import {name}"
        attribute = attribute_of(node)
        if attribute and unpublished(attribute) and not attribute.startswith(OWN_PREFIX):
            yield f"{node.lineno}: {ast.unparse(node)}"


def unpublished(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module]
    return []


def attribute_of(node: ast.AST) -> str | None:
    """The attribute ``node`` reaches on something other than ``self`` / ``cls``, if any."""
    if isinstance(node, ast.Attribute):
        own = isinstance(node.value, ast.Name) and node.value.id in {"self", "cls"}
        return None if own else node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) > 1:
        named = node.args[1]
        if node.func.id in {"getattr", "setattr", "hasattr"} and isinstance(named, ast.Constant):
            return named.value if isinstance(named.value, str) else None
    return None


def test_unpublished_parts_are_used_only_in_the_compat_modules() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{use}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path not in COMPAT_MODULES
        for use in unpublished_uses(path)
    ]
    assert found == [], "put these behind a function of pytest_trailblaze/compat.py:\n" + "\n".join(found)
