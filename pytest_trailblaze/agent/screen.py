"""What the model sees of the device: a text picture of the screen with refs, and a screenshot.

Web: the page's ARIA snapshot (the driver's own ``hierarchy()``) with ``[ref=eN]`` after each line
the driver numbers (``aria.number_elements``; docs/upstream.md, Element numbering), so a ref the
model passes to ``web_click`` resolves through the driver exactly as a recorded ``ref: eN`` does.
Mobile: a compact list of the view hierarchy's meaningful nodes, each with a content-derived ref
the ``tap`` tool resolves. Every string is masked with the trail's secrets before the loop sends
it anywhere, and no picture is taken while the text shows a secret.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable
from pathlib import Path

from ..core.errors import UnsupportedToolError
from ..core.run.driver import Hierarchy, MobileScreen, Screenshots, VisionImages, WebNavigation
from ..core.screen import aria
from ..core.screen.hierarchy import Node, is_text_field
from ..core.tooling.context import ToolContext


def web_screen_text(snapshot: str) -> str:
    """The ARIA snapshot with ``[ref=eN]`` on the lines the driver numbers."""
    elements = list(aria.number_elements(snapshot).values())
    out, position = [], 0
    for line in snapshot.splitlines():
        parsed = aria.parse_line(line)
        if parsed is not None and position < len(elements):
            element = elements[position]
            if parsed == (element.role, element.name, element.from_text):
                line = _with_ref(line, element.ref)
                position += 1
        out.append(line)
    return "\n".join(out)


def _with_ref(line: str, ref: str) -> str:
    """``- button "Go": +`` -> ``- button "Go" [ref=e3]: +`` (after the role, name and attributes)."""
    head = _HEAD.match(line)
    if head is None:
        return f"{line} [ref={ref}]"
    return f"{head.group(1)} [ref={ref}]{line[head.end(1) :]}"


_HEAD = re.compile(r'^(\s*-\s[A-Za-z][\w-]*(?:\s+"(?:[^"\\]|\\.)*")?(?:\s*\[[^\]]*\])*)')


# -- mobile ------------------------------------------------------------------------------------------
def mobile_refs(nodes: Iterable[Node]) -> dict[str, Node]:
    """Refs of the nodes worth showing, derived from their content so they survive small changes.

    A ref is ``y`` plus a number from the node's class, id, texts and bounds; two nodes with the
    same content get the next free number, in document order, so the mapping is deterministic.
    """
    refs: dict[str, Node] = {}
    for node in nodes:
        if not _worth_showing(node):
            continue
        key = "|".join((node.kind, *(node.get(a) or "" for a in _IDENTITY), str((node.x, node.y))))
        number = zlib.crc32(key.encode()) % 9000 + 1000
        while f"y{number}" in refs:
            number = number + 1 if number < 9999 else 1000
        refs[f"y{number}"] = node
    return refs


_IDENTITY = ("resource-id", "name", "text", "label", "content-desc", "hint", "placeholderValue")
_TEXTS = ("text", "label", "value", "content-desc", "name", "hint", "placeholderValue")


def _worth_showing(node: Node) -> bool:
    if not node.visible or node.parent is None:
        return False
    if is_text_field(node) or any(node.flag(f) for f in ("clickable", "checkable", "focusable")):
        return True
    return any(node.get(a) for a in ("text", "label", "content-desc", "value"))


def mobile_screen_text(nodes: list[Node], width: int, height: int) -> str:
    """One line per meaningful node: ref, class, texts, id, flags and bounds."""
    lines = [f"screen {width}x{height} px; elements (tap one with `tap` and its ref):"]
    for ref, node in mobile_refs(nodes).items():
        lines.append(f"[{ref}] {_describe(node)}")
    return "\n".join(lines)


def _describe(node: Node) -> str:
    parts = [node.kind.rsplit(".", 1)[-1]]
    shown: set[str] = set()
    for attr in _TEXTS:
        value = node.get(attr)
        if value and value not in shown:
            shown.add(value)
            parts.append(f'{attr}="{value}"')
    resource = node.get("resource-id")
    if resource and resource not in shown:
        parts.append(f"id={resource}")
    flags = [f for f in ("clickable", "checked", "selected", "focused") if node.flag(f)]
    if is_text_field(node):
        flags.append("editable")
    if node.flag("enabled") is False:
        flags.append("disabled")
    parts.extend(flags)
    parts.append(f"@({node.x},{node.y} {node.width}x{node.height})")
    return " ".join(parts)


def capture_text(ctx: ToolContext) -> str:
    """The current screen of the context's driver as text with refs (one snapshot).

    A driver that can show neither (a hook's driver without ``hierarchy``/``nodes``) fails the
    step with what it cannot do.
    """
    driver = ctx.driver
    if ctx.platform == "web" and isinstance(driver, WebNavigation) and isinstance(driver, Hierarchy):
        return f"page {driver.current_url()}\n" + web_screen_text(driver.hierarchy())
    if isinstance(driver, MobileScreen):
        device = ctx.device
        return mobile_screen_text(driver.nodes(), device.width, device.height)
    raise UnsupportedToolError(f"the {ctx.platform} driver cannot show the screen's elements")


def capture_image(ctx: ToolContext, artifact: Path) -> tuple[bytes, str] | None:
    """A picture of the screen for a vision model, and its media type; kept as ``artifact``
    (a path in the trail's artifacts folder, which ``ctx.artifact`` made).

    A driver with ``screen_image()`` (the web driver: a JPEG at CSS pixels) hands the bytes over;
    any other driver writes its PNG ``screenshot`` to ``artifact`` and it is read back.
    """
    driver = ctx.driver
    if isinstance(driver, VisionImages):
        data, media_type = driver.screen_image()
        artifact.with_suffix(".jpg" if media_type == "image/jpeg" else artifact.suffix).write_bytes(data)
        return data, media_type
    if not isinstance(driver, Screenshots):
        return None
    return driver.screenshot(artifact).read_bytes(), "image/png"
