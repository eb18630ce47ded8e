"""``file://`` URLs stay inside the trail's workspace and the rootdir (docs/guides/security.md, URLs).

A stranger's trail that opens ``file:///etc/passwd``, or a page of its own that sends the browser
to a file outside the project or frames one, would copy that file into the failure snapshot, the
screenshot and the trace: artifacts a CI uploads. Each is refused with a located failure naming
the flag that widens the roots (``--trailblaze-allow-file-urls`` / ini
``trailblaze_allow_file_urls``), and no byte of the file reaches any output.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

#: The content of a file outside the project: it must not appear anywhere the run writes.
OUTSIDE_TEXT = f"outside-file-{uuid.uuid4().hex[:10]}"


def _trail(url: str, name: str) -> str:
    return f"""
config: {{ id: {name} }}
trail:
  - step: Open the page
    recording:
      web:
        - web_navigate: {{ url: "{url}" }}
  - step: Look at it
    recording:
      web:
        - web_verifyTextVisible: {{ text: "nothing like this" }}
"""


@pytest.fixture
def outside(pytester: pytest.Pytester) -> Path:
    """A page beside the project (not in it), and a project page that sends the browser there."""
    folder = pytester.path.parent / f"outside-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    page = folder / "secret.html"
    page.write_text(f"<h1>{OUTSIDE_TEXT}</h1>")
    return page


def _leaks(root: Path) -> list[str]:
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            data = Path(folder, name).read_bytes()
            if OUTSIDE_TEXT.encode() in data or b"root:x:0:0" in data:
                found.append(str(Path(folder, name).relative_to(root)))
    return found


@pytest.mark.timeout(300)
def test_file_urls_outside_the_project_are_refused_and_never_captured(
    pytester: pytest.Pytester, tb, outside: Path
) -> None:
    project_page = pytester.path / "pages" / "redirect.html"
    project_page.parent.mkdir()
    project_page.write_text(f"<p>moving</p><script>location.href = {outside.as_uri()!r}</script>")
    framing_page = pytester.path / "pages" / "frame.html"
    framing_page.write_text(f"<p>framing</p><iframe src={outside.as_uri()!r}></iframe>")
    (pytester.path / "pages" / "plain.html").write_text("<p>our own page</p>")
    tb.write(pytester.path, "trails/passwd.trail.yaml", _trail("file:///etc/passwd", "passwd"))
    tb.write(pytester.path, "trails/redirect.trail.yaml", _trail("../pages/redirect.html", "redirect"))
    tb.write(pytester.path, "trails/frame.trail.yaml", _trail("../pages/frame.html", "frame"))
    tb.write(
        pytester.path,
        "trails/own.trail.yaml",
        _trail("../pages/plain.html", "own").split("  - step: Look")[0],
    )

    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--junitxml=junit.xml", "--trailblaze-report=report.html",
        "--trailblaze-tracing=on", "-rA", timeout=240,
    )  # fmt: skip

    out = result.stdout.str()
    assert "trails/passwd.trail.yaml:3:5: step 1 of 2 failed: Open the page" in out
    assert "refused to open file:///etc/passwd is outside the folders web trails may open files from" in out
    assert "fix: open pages of the project, or allow the folder with --trailblaze-allow-file-urls PATH" in out
    assert f"the page went to {outside.as_uri()} is outside the folders" in out
    assert "the page was blanked" in out
    result.assert_outcomes(failed=3, passed=1)
    assert _leaks(pytester.path) == []
    assert OUTSIDE_TEXT not in out + result.stderr.str()


@pytest.mark.timeout(300)
def test_the_flag_and_the_ini_key_widen_the_roots(pytester: pytest.Pytester, tb, outside: Path) -> None:
    tb.write(
        pytester.path, "trails/open.trail.yaml", _trail(outside.as_uri(), "open").split("  - step: Look")[0]
    )

    refused = pytester.runpytest_subprocess("-p", "no:randomly", timeout=240)
    by_flag = pytester.runpytest_subprocess(
        "-p", "no:randomly", f"--trailblaze-allow-file-urls={outside.parent}", timeout=240
    )
    (pytester.path / "pytest.ini").write_text(f"[pytest]\ntrailblaze_allow_file_urls = {outside.parent}\n")
    by_ini = pytester.runpytest_subprocess("-p", "no:randomly", timeout=240)

    refused.assert_outcomes(failed=1)
    by_flag.assert_outcomes(passed=1)
    by_ini.assert_outcomes(passed=1)
