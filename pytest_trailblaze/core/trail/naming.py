"""Tool and trailmap naming rules (decisions "Tool Naming Convention" and "Trailmap-scoped tool naming").

A tool name is lowerCamelCase words joined by single underscores and fits the wire rule
of OpenAI / MCP function names (``^[a-zA-Z0-9_-]{1,64}$``). Its first segments say what kind of
tool it is (universal, platform, org, app); device types never appear in it, and breaking
changes append ``_v2``. A non-framework trailmap owns the tools named ``<trailmapId>_...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

NAME_RE = re.compile(r"^[a-z][a-zA-Z0-9]*(_[a-z][a-zA-Z0-9]*)*$")
WIRE_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TRAILMAP_ID_RE = re.compile(r"^[a-z][a-zA-Z0-9]*$")
WIRE_LIMIT = 64
WARN_LENGTH = 60
RESERVED_NAMES = frozenset({"config", "prompts", "tools", "trailhead"})
PLATFORM_PREFIXES = ("android", "ios", "web", "desktop", "mobile")
DEVICE_TYPES = ("phone", "tablet", "iphone", "ipad")
FRAMEWORK_TRAILMAP = "trailblaze"
SCOPING_TAG = "[TrailmapScopingCheck]"
_VERSION = re.compile(r"^v\d+$")
_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*|\d+")


@dataclass(frozen=True, slots=True)
class NameFinding:
    """A problem with a name: ``severity`` is ``error`` or ``warning``."""

    severity: str
    what: str
    why: str
    fix: str


def category(name: str) -> str:
    """Which row of the naming table ``name`` belongs to.

    ``universal`` (``tap``), ``platform`` (``android_adbShell``, ``mobile_setClipboard``),
    ``org`` (``org_resetBackend``), ``org-platform`` (``org_ios_configureUser``), ``app``
    (``shop_applyCoupon``) or ``app-platform`` (``shop_ios_scroll``). A trailing ``_v2`` is a
    version and does not change the category.
    """
    segments = name.split("_")
    if len(segments) > 1 and _VERSION.match(segments[-1]):
        segments = segments[:-1]
    if len(segments) == 1:
        return "universal"
    head, second = segments[0], segments[1] if len(segments) > 2 else None
    if head in PLATFORM_PREFIXES:
        return "platform"
    if head == "org":
        return "org-platform" if second in PLATFORM_PREFIXES else "org"
    return "app-platform" if second in PLATFORM_PREFIXES else "app"


def check_tool_name(name: str) -> list[NameFinding]:
    """Everything wrong with a tool name; an empty list when it follows the convention."""
    if name in RESERVED_NAMES:
        return [
            NameFinding(
                "error",
                f"'{name}' is a reserved word, not a tool name",
                "config, prompts, tools and trailhead are trail keywords",
                "choose another name",
            )
        ]
    if not WIRE_RE.match(name):
        return [_wire_problem(name)]
    findings = []
    if not NAME_RE.match(name):
        findings.append(
            NameFinding(
                "error",
                f"tool name '{name}' does not follow the naming convention",
                f"names are lowerCamelCase words joined by single underscores ({NAME_RE.pattern})",
                f"rename it, e.g. '{suggest(name)}'",
            )
        )
    device = device_type_in(name)
    if device:
        findings.append(
            NameFinding(
                "error",
                f"tool name '{name}' names a device type ('{device}')",
                "a tool runs on every device of its platform; the device type comes from the session",
                f"drop '{device}' from the name and branch on ctx.device inside the tool",
            )
        )
    if len(name) > WARN_LENGTH:
        findings.append(
            NameFinding(
                "warning",
                f"tool name '{name}' is {len(name)} characters long",
                f"the wire limit is {WIRE_LIMIT}; names past {WARN_LENGTH} leave no room for prefixes",
                f"rename the local half '{local_half(name)}' to something shorter",
            )
        )
    return findings


def _wire_problem(name: str) -> NameFinding:
    if len(name) > WIRE_LIMIT:
        return NameFinding(
            "error",
            f"tool name '{name[:40]}...' is {len(name)} characters long",
            f"tool names travel as OpenAI / MCP function names, at most {WIRE_LIMIT} characters",
            f"rename the local half '{local_half(name)}' to something shorter",
        )
    return NameFinding(
        "error",
        f"tool name '{name}' cannot travel as a function name",
        "OpenAI / MCP function names are 1 to 64 characters of letters, digits, '_' and '-'",
        f"rename it, e.g. '{suggest(name)}'",
    )


def device_type_in(name: str) -> str | None:
    """The device-type word in a name (``iphone`` in ``shop_iphone_scroll``), if any."""
    for segment in name.split("_"):
        words = [w.lower() for w in _WORDS.findall(segment)]
        # camelCase splits ``iPhone`` into ``i`` + ``phone``: join neighbours so it reads ``iphone``.
        pairs = [a + b for a, b in pairwise(words)]
        for device in sorted(DEVICE_TYPES, key=len, reverse=True):
            if segment.lower() == device or device in words or device in pairs:
                return device
    return None


def local_half(name: str) -> str:
    """The part after the owner prefix (``openMainPage`` of ``wikipedia_web_openMainPage``)."""
    segments = name.split("_")
    keep = 1 if len(segments) < 3 or segments[1] not in PLATFORM_PREFIXES else 2
    return "_".join(segments[keep:]) or name


def suggest(name: str) -> str:
    """A conforming spelling of a malformed name: lowerCamelCase words, single underscores."""
    fixed: list[str] = []
    for part in (p for p in re.split(r"[^A-Za-z0-9]+", name) if p):
        part = part[0].lower() + part[1:]
        if part[0].isdigit():  # a segment cannot start with a digit: join it to the word before
            if fixed:
                fixed[-1] += part
                continue
            part = f"tool{part}"
        fixed.append(part)
    return "_".join(fixed) or "toolName"


def check_trailmap_id(trailmap_id: str) -> str | None:
    """Why a trailmap id breaks the scoping rule, or None."""
    if TRAILMAP_ID_RE.match(trailmap_id):
        return None
    return f"trailmap id '{trailmap_id}' must be one lowerCamelCase word (^[a-z][a-zA-Z0-9]*$)"


def unscoped_tools(trailmap_id: str, tools: list[str]) -> list[str]:
    """Tools a non-framework trailmap lists in ``target.tools`` that lack its ``<id>_`` prefix."""
    if trailmap_id == FRAMEWORK_TRAILMAP:
        return []
    return [t for t in tools if not t.startswith(f"{trailmap_id}_")]
