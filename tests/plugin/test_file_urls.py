"""``file://`` URLs stay inside the trail's workspace and the rootdir (docs/guides/security.md, URLs).

A stranger's trail that opens ``file:///etc/passwd`` (also as ``view-source:``), or a page of its
own that sends the browser to a file outside the project, frames one (even for a moment) or opens
one in a popup, would copy that file into the failure snapshot, the screenshot, the trace and the
video: artifacts a CI uploads. Each is refused with a located failure naming the flag that widens
the roots (``--trailblaze-allow-file-urls`` / ini ``trailblaze_allow_file_urls``), the trace and
the video of such a trail are not kept, and no byte of the file reaches any output (inside the
trace archive's compressed members neither).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
import zipfile
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
    """Files under ``root`` holding the outside file's text, archives' members read unpacked."""
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            for where, data in _contents(path):
                if OUTSIDE_TEXT.encode() in data or b"root:x:0:0" in data:
                    found.append(f"{path.relative_to(root)}{where}")
    return found


def _contents(path: Path) -> list[tuple[str, bytes]]:
    data = path.read_bytes()
    if not zipfile.is_zipfile(path):
        return [("", data)]
    with zipfile.ZipFile(path) as archive:
        return [("", data), *((f"!{n}", archive.read(n)) for n in archive.namelist())]


def _evidence(root: Path) -> dict[str, tuple[set[str], list[str]]]:
    """Per trail id: the files of its artifacts folder and the notes of its record."""
    out = {}
    for record in (root / "trailblaze-output").glob("*/record.json"):
        data = json.loads(record.read_text())
        out[data["trail_id"]] = ({p.name for p in record.parent.iterdir()}, data.get("notes", []))
    return out


@pytest.mark.timeout(300)
def test_file_urls_outside_the_project_are_refused_and_never_captured(
    pytester: pytest.Pytester, tb, outside: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    project_page = pytester.path / "pages" / "redirect.html"
    project_page.parent.mkdir()
    project_page.write_text(f"<p>moving</p><script>location.href = {outside.as_uri()!r}</script>")
    framing_page = pytester.path / "pages" / "frame.html"
    framing_page.write_text(f"<p>framing</p><iframe src={outside.as_uri()!r}></iframe>")
    flashing = pytester.path / "pages" / "flash.html"  # frames the file, then drops the frame
    flashing.write_text(f"<p>flash</p><iframe src={outside.as_uri()!r} onload='this.remove()'></iframe>")
    popup = pytester.path / "pages" / "popup.html"
    popup.write_text(f"<p>popping</p><script>window.open({outside.as_uri()!r})</script>")
    (pytester.path / "pages" / "plain.html").write_text("<p>our own page</p>")
    tb.write(pytester.path, "trails/passwd.trail.yaml", _trail("file:///etc/passwd", "passwd"))
    tb.write(pytester.path, "trails/source.trail.yaml", _trail("view-source:file:///etc/passwd", "source"))
    tb.write(pytester.path, "trails/flash.trail.yaml", _trail("../pages/flash.html", "flash"))
    tb.write(pytester.path, "trails/popup.trail.yaml", _trail("../pages/popup.html", "popup"))
    tb.write(pytester.path, "trails/redirect.trail.yaml", _trail("../pages/redirect.html", "redirect"))
    tb.write(pytester.path, "trails/frame.trail.yaml", _trail("../pages/frame.html", "frame"))
    tb.write(
        pytester.path,
        "trails/own.trail.yaml",
        _trail("../pages/plain.html", "own").split("  - step: Look")[0],
    )

    # videos too: Playwright's ffmpeg linked into a browsers folder of this test's own
    browsers = tmp_path / "browsers"
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(browsers))
    trailblaze = Path(sys.executable).parent / "trailblaze"
    subprocess.run([trailblaze, "install-ffmpeg"], capture_output=True, text=True, check=True)
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "--junitxml=junit.xml", "--trailblaze-report=report.html",
        "--trailblaze-tracing=on", "--trailblaze-video=on", "-rA", timeout=240,
    )  # fmt: skip

    out = result.stdout.str()
    assert "trails/passwd.trail.yaml:3:5: step 1 of 2 failed: Open the page" in out
    assert "refused to open file:///etc/passwd is outside the folders web trails may open files from" in out
    assert "refused to open view-source:file:///etc/passwd is outside the folders" in out
    assert "fix: open pages of the project, or allow the folder with --trailblaze-allow-file-urls PATH" in out
    assert f"the page went to {outside.as_uri()} is outside the folders" in out
    assert "the page was blanked" in out
    assert "the page was a popup: it was closed" in out
    assert "it showed that file for a moment (the trace and the video of this trail are not kept)" in out
    result.assert_outcomes(failed=6, passed=1)
    assert _leaks(pytester.path) == []
    assert OUTSIDE_TEXT not in out + result.stderr.str()
    evidence = _evidence(pytester.path)
    for shown in ("redirect", "frame", "flash", "popup"):
        files, notes = evidence[shown]
        assert not files & {"trace.zip", "video.webm"}, (shown, files)
        assert any(n.startswith("trace / video: not kept: a page showed file://") for n in notes), notes
    assert {"trace.zip", "video.webm"} <= evidence["own"][0]  # a trail that kept inside keeps both


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
