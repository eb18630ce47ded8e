"""Who owns SIGTERM: the plugin's handler goes in only over the default action and comes out again.

Each case runs ``pytest.main`` in a fresh Python process (the pytest running this file has
installed its own handler already), twice in a row as an embedding program may, and prints what
SIGTERM's handler was before, during (from inside a test) and after each run.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Sets SIGTERM's handler to argv[1] ("default", "ignore" or "mine"), runs pytest twice, reports.
EMBEDDER = """
import json, signal, sys
import pytest

def mine(signum, frame):
    pass

def name(handler):
    if handler is mine:
        return "mine"
    if handler is signal.SIG_DFL:
        return "default"
    if handler is signal.SIG_IGN:
        return "ignore"
    return "trailblaze" if getattr(handler, "trailblaze", False) else repr(handler)

START = {"default": signal.SIG_DFL, "ignore": signal.SIG_IGN, "mine": mine}
signal.signal(signal.SIGTERM, START[sys.argv[1]])
seen = []

class Probe:
    def pytest_runtest_call(self, item):
        seen.append(name(signal.getsignal(signal.SIGTERM)))

for _ in range(2):
    pytest.main(["-q", "-p", "no:cacheprovider", "test_x.py"], plugins=[Probe()])
    seen.append(name(signal.getsignal(signal.SIGTERM)))
print("SEEN " + json.dumps(seen))
"""


def handlers_seen(pytester: pytest.Pytester, start: str) -> list[str]:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    script = pytester.path / "embed.py"
    script.write_text(EMBEDDER)
    out = subprocess.run(
        [sys.executable, str(script), start], cwd=pytester.path, capture_output=True, text=True, timeout=120
    ).stdout
    line = next((line for line in out.splitlines() if line.startswith("SEEN ")), None)
    assert line is not None, out
    return json.loads(line.removeprefix("SEEN "))


def test_the_handler_is_installed_over_the_default_and_removed_after_each_run(pytester) -> None:
    assert handlers_seen(pytester, "default") == ["trailblaze", "default", "trailblaze", "default"]


@pytest.mark.parametrize("start", ["mine", "ignore"])
def test_a_handler_of_the_users_own_or_an_inherited_ignore_stays(pytester, start: str) -> None:
    assert handlers_seen(pytester, start) == [start] * 4


def test_a_run_that_ignores_sigint_says_ctrl_c_will_not_stop_it(pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    run = "import signal, sys, pytest; signal.signal(signal.SIGINT, signal.{}); sys.exit(pytest.main())"
    ignoring, default = run.format("SIG_IGN"), run.format("default_int_handler")

    outputs = [
        subprocess.run(
            [sys.executable, "-c", code, "-p", "no:cacheprovider"],
            cwd=pytester.path,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        for code in (ignoring, default)
    ]

    assert "this process ignores SIGINT" in outputs[0] and "SIGTERM will" in outputs[0], outputs[0]
    assert "ignores SIGINT" not in outputs[1], outputs[1]
