"""The tools as the model sees them: a one-line purpose and short, described arguments.

A tool's published JSON Schema serves trail authors and validation; sent to a model as it is, it
would cost most of every request (a web element tool's ``nodeSelector`` alone is ~10 KB of
matchers for four platforms) and teach the model nothing. What the model gets instead:

* the purpose: the first sentence of the description (a clearer one for a few built-ins);
* each argument with a type and a description; enums and limits kept, pydantic's ``title``,
  ``$defs`` and ``anyOf [X, null]`` / ``default: null`` noise dropped;
* no ``nodeSelector``: the model names elements by the refs of the screen it sees, and the
  durable selector is computed for the recording (``selectors``) as the call runs;
* an optional ``reasoning`` argument on every tool, which the registry strips before the tool
  runs (it is an annotation, as in recorded trails) and the recording keeps;
* no plumbing the model has no use for on the platform (cookies, storage state, viewport size,
  snapshots into the artifacts, launching an app on the web).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.jsondata import JsonObject
from ..core.tooling.tooldef import ToolDescriptor
from .wire import ToolSpec

REASONING = "reasoning"
REASONING_SCHEMA = {"type": "string", "description": "Why, in a few words (optional)."}
HIDDEN_ARGUMENTS = frozenset({"nodeSelector", "reason", "reasoning"})

#: Tools kept from the model: they set up or record a session, they do not work a screen.
PLUMBING: dict[str, frozenset[str]] = {
    "web": frozenset(
        {
            "web_applyCookies",
            "web_getStorageState",
            "web_resize",
            "web_snapshot",
            "web_fillSecret",  # for scripts: the model passes a secret's token to web_type
            "web_currentUrl",  # every screen starts with the URL
            "launchApp",  # a no-op on the web
            "takeSnapshot",
            "wait",  # web_wait does the same on the web
            "dumpMemory",  # remembered values come with every turn
        }
    ),
    "mobile": frozenset(
        {"takeSnapshot", "dumpMemory", "mobile_listInstalledApps", "mobile_listInstalledAppsDetailed"}
    ),
}

#: Purposes clearer than a built-in's own first sentence, for the model's eyes.
PURPOSES = {
    "web_click": "Click the element with this ref.",
    "web_hover": "Move the mouse over the element with this ref.",
    "web_type": "Type text into the field with this ref (replacing its content unless clearFirst is false).",
    "web_verifyElementVisible": "Check that the element with this ref is visible.",
    "web_verifyValue": "Check an element's text (contains), input value or attribute.",
    "web_verifyListVisible": "Check that a container shows every listed item.",
    "web_verifyTextVisible": "Check that a text (any case, a substring) is visible on the page.",
    "objectiveStatus": "Report on the objective: COMPLETED when all of it is done, FAILED when it "
    "cannot be done (say why), IN_PROGRESS to note progress.",
}

#: Descriptions of arguments that built-in tools share, by name.
ARGUMENTS = {
    "ref": "The element's ref on the current screen, e.g. e7.",
    "text": "The text.",
    "url": "The URL (or a path relative to the trail).",
    "action": "GOTO opens url; BACK and FORWARD move in the history.",
    "key": "A key or chord, e.g. Enter, Tab, Control+A.",
    "values": "Option values or labels to select.",
    "direction": "Which way to scroll or swipe.",
    "amount": "How far, in pixels.",
    "seconds": "How many seconds.",
    "pattern": "A regular expression the URL must match.",
    "timeoutMs": "How long to wait at most, in milliseconds.",
    "expected": "The expected value.",
    "attribute": "The attribute to check when type is ATTRIBUTE.",
    "items": "Texts that must all be shown.",
    "eventName": "A text the request URL or body contains.",
    "clearFirst": "Replace the field's content (true) or type after it (false).",
    "explanation": "What was done, or why it cannot be done.",
    "status": "How the objective stands.",
    "actual": "The value to check, usually a {{token}}.",
    "expression": "An arithmetic expression, may hold {{tokens}}.",
    "prompt": "What to look for on the screen, in words.",
    "variable": "The name to remember the value under (then usable as {{name}}).",
    "longPress": "Hold instead of a short tap.",
    "appId": "The app's id.",
    "x": "X in pixels.",
    "y": "Y in pixels.",
    "id": "The element's resource id.",
    "index": "Which match to take when several do (0 = the first).",
    "enabled": "Only an element that is enabled (true) or disabled (false).",
    "selected": "Only an element that is selected (true) or not (false).",
    "textRegex": "A regular expression the whole text must match.",
    "charactersToErase": "How many characters; leave out to erase all.",
    "hideKeyboardAfter": "Hide the keyboard afterwards.",
    "prefix": "The text before the random digits.",
    "digitCount": "How many random digits.",
    "launchMode": "REINSTALL clears the app's state, FORCE_RESTART stops it first, RESUME just opens it.",
    "keyCode": "The key.",
    "centerElement": "Scroll on until the element is in the middle.",
    "scrollStartPosition": "Where on the screen the scroll gesture starts.",
    "visibilityPercentage": "How much of the element must show.",
    "swipeOnElementText": "Swipe over the element showing this text; leave out to swipe the screen.",
    "timeToWaitInSeconds": "How many seconds.",
}

#: Per-tool descriptions where the shared one would mislead.
TOOL_ARGUMENTS = {
    ("web_verifyTextVisible", "text"): "Text that must be visible (any case, a substring).",
    ("web_type", "text"): "The text to type; a remembered value as its {{token}}.",
    ("inputText", "text"): "The text to type; a remembered value as its {{token}}.",
    ("web_verifyValue", "type"): "TEXT (contains), VALUE (an input's value) or ATTRIBUTE.",
    ("web_scroll", "ref"): "Scroll over this element; leave out to scroll the page.",
    ("web_verifyListVisible", "ref"): "The container's ref.",
    ("tap", "ref"): "The element's ref on the current screen, e.g. y1234.",
    ("assertEquals", "expected"): "The value it must equal.",
    ("assertNotEquals", "expected"): "The value it must differ from.",
}

#: Web tools whose element is not optional for the model (the hidden nodeSelector was the other way).
_NEEDS_REF = frozenset(
    {"web_click", "web_hover", "web_type", "web_selectOption", "web_verifyElementVisible", "web_verifyValue"}
)


def offered(descriptors: Iterable[ToolDescriptor], platform: str) -> list[ToolDescriptor]:
    """The descriptors without the platform's plumbing."""
    hidden = PLUMBING["web" if platform == "web" else "mobile"]
    return [d for d in descriptors if d.name not in hidden]


def lean_spec(descriptor: ToolDescriptor) -> ToolSpec:
    """What the model sees of one tool."""
    purpose = PURPOSES.get(descriptor.name) or first_sentence(descriptor.description) or descriptor.name
    return ToolSpec(descriptor.name, purpose, lean_parameters(descriptor.name, descriptor.parameters))


def first_sentence(text: str) -> str:
    """The description up to its first full stop followed by a space (or all of its first line)."""
    line = " ".join((text or "").split())
    match = re.search(r"(?<=[.!?])\s", line)
    return line[: match.start()] if match else line


def lean_parameters(tool: str, schema: Mapping[str, Any]) -> JsonObject:
    """The argument schema, trimmed and described, with the optional ``reasoning``."""
    defs = schema.get("$defs") or schema.get("definitions") or {}
    props = schema.get("properties") or {}
    required = [r for r in schema.get("required") or () if r not in HIDDEN_ARGUMENTS]
    out: JsonObject = {}
    for name, prop in props.items():
        if name in HIDDEN_ARGUMENTS:
            continue
        lean = _lean(prop, defs, depth=0)
        if "description" not in lean:
            text = TOOL_ARGUMENTS.get((tool, name)) or ARGUMENTS.get(name)
            if text:
                lean = {"description": text, **lean}
        out[name] = lean
    if tool in _NEEDS_REF and "ref" in out and "ref" not in required:
        required.append("ref")
    out[REASONING] = dict(REASONING_SCHEMA)
    lean_schema: JsonObject = {"type": "object", "properties": out}
    if required:
        lean_schema["required"] = required
    return lean_schema


_DROPPED = frozenset({"title", "$defs", "definitions", "additionalProperties", "examples"})


def _lean(schema: Any, defs: Mapping[str, Any], depth: int) -> Any:
    """One (sub)schema without titles, local ``$ref``s inlined, ``X | None`` as ``X``."""
    if not isinstance(schema, Mapping) or depth > 8:
        return schema if isinstance(schema, Mapping) else {}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        # an enum class's docstring speaks to programmers; the argument's own words come instead
        target = {k: v for k, v in defs.get(ref.rsplit("/", 1)[-1], {}).items() if k != "description"}
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return _lean({**target, **rest}, defs, depth + 1)
    options = schema.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if not (isinstance(o, Mapping) and o.get("type") == "null")]
        if len(kept) == 1:
            rest = {k: v for k, v in schema.items() if k != "anyOf"}
            return _lean({**kept[0], **rest}, defs, depth + 1)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED or (key == "default" and value is None):
            continue
        if key == "properties" and isinstance(value, Mapping):
            out[key] = {k: _lean(v, defs, depth + 1) for k, v in value.items()}
        elif key in ("items", "additionalItems") and isinstance(value, Mapping):
            out[key] = _lean(value, defs, depth + 1)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            out[key] = [_lean(v, defs, depth + 1) for v in value]
        else:
            out[key] = value
    return out


def specs_for(descriptors: Iterable[ToolDescriptor], platform: str) -> tuple[ToolSpec, ...]:
    """Lean specs of the descriptors the model is offered on ``platform``."""
    return tuple(lean_spec(d) for d in offered(descriptors, platform))
