"""Ranges of the built-in tools' numeric arguments (and one conditional requirement), as parameter types.

A recorded ``wait: {timeToWaitInSeconds: .nan}`` or ``-5`` or ``1e300`` is a mistake in the
trail, not a value to clamp: these types make the tool's schema refuse it, so it is a collection
error at ``file:line`` (the schema is what dispatch validates too, and what agents are shown).
Upper bounds are far above any real recording; the docs' built-in tools reference lists them.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, ValidationInfo
from pydantic_core import PydanticCustomError

from ..core.trail.nodeselector import MAX_INDEX as MAX_INDEX
from ..core.trail.nodeselector import Index as Index

#: A fixed wait longer than this is a stuck trail, not a recording.
MAX_WAIT_SECONDS = 600
MAX_TIMEOUT_MS = 600_000
MAX_GESTURE_MS = 60_000
#: Screen coordinates and scroll distances, in pixels.
MAX_PIXELS = 100_000
MAX_VIEWPORT = 16_384
#: Characters to erase (``MAX_INDEX``, which of several matches, is the node selectors' own bound).
MAX_COUNT = 10_000
MAX_DIGITS = 18

Seconds = Annotated[float, Field(ge=0, le=MAX_WAIT_SECONDS, allow_inf_nan=False)]
WholeSeconds = Annotated[int, Field(ge=0, le=MAX_WAIT_SECONDS)]
TimeoutMs = Annotated[int, Field(ge=0, le=MAX_TIMEOUT_MS)]
#: Playwright reads a timeout of 0 as "wait forever".
PlaywrightTimeoutMs = Annotated[int, Field(ge=1, le=MAX_TIMEOUT_MS)]
DurationMs = Annotated[int, Field(ge=0, le=MAX_GESTURE_MS)]
Pixels = Annotated[int, Field(ge=0, le=MAX_PIXELS)]
ViewportPixels = Annotated[int, Field(ge=1, le=MAX_VIEWPORT)]
Count = Annotated[int, Field(ge=0, le=MAX_COUNT)]
Digits = Annotated[int, Field(ge=1, le=MAX_DIGITS)]
Percent = Annotated[int, Field(ge=0, le=100)]


def _url_for_goto(url: str, info: ValidationInfo) -> str:
    """``web_navigate`` goes to a URL unless it goes BACK or FORWARD: then the URL is required."""
    action = info.data.get("action")
    if action is not None and str(action).upper() == "GOTO" and not url.strip():
        raise PydanticCustomError("missing", "Field required")
    return url


#: ``web_navigate``'s ``url``: the default ``""`` is only valid with action BACK or FORWARD.
NavigationUrl = Annotated[str, Field(validate_default=True), AfterValidator(_url_for_goto)]
