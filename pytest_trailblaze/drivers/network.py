"""The requests a trail's pages sent, for ``web_assertNetworkEvent`` (docs/guides/trails.md).

Upstream captures every exchange of the browser context from the start of the session (method,
URL, request body; status of the response) and the assertion scans the outgoing requests for an
event name, in the URL or the body, case-insensitively. Analytics beacons are the usual target,
so the request body matters more than the response: response bodies are never fetched (that would
cost a round trip per response and can block on a slow stream), request bodies are read lazily
from what Playwright already holds, and only once per request.

Listeners sit on the browser context, so popups and frames of the trail count too; one context
lives exactly as long as one trail, or, for a context a user handed in, the listeners come off
when the trail ends. The same listeners feed the settle's count of the trail page's requests
(``NetworkTracker``), which has none of its own: each listener costs a subscription round trip
when the context is made, and a message per request for as long as the context lives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Frame, Page, Request, Response

#: Resource types whose requests an action's settle waits for.
TRACKED_RESOURCES = frozenset({"document", "stylesheet", "script", "xhr", "fetch"})
#: How much of a request body is searched (a multi-megabyte upload is not an analytics event).
MAX_BODY_BYTES = 1 << 20


@dataclass(slots=True)
class CapturedRequest:
    """One request as it left the page, and what came back (status, or the failure text)."""

    method: str
    url: str
    request: Request = field(repr=False)
    status: int | None = None
    failure: str | None = None
    _haystack: str | None = field(default=None, repr=False)

    def mentions(self, needle: str) -> bool:
        """Whether ``needle`` (lower case) is in the URL or the body, ignoring case."""
        if self._haystack is None:
            self._haystack = f"{self.url}\n{self.body()}".lower()
        return needle in self._haystack

    def body(self) -> str:
        """The request body as text (invalid UTF-8 replaced); empty when there is none."""
        try:
            data = self.request.post_data_buffer
        except ValueError:  # not base64 after all: a body Playwright cannot decode is none to search
            return ""
        return data[:MAX_BODY_BYTES].decode("utf-8", "replace") if data else ""

    def describe(self) -> str:
        outcome = str(self.status) if self.status is not None else (self.failure or "no response yet")
        return f"{self.method} {self.url} -> {outcome}"


class NetworkCapture:
    """Records the requests of one browser context from the moment it is attached, and tells the
    page's tracker which of them started and ended."""

    def __init__(self, context: BrowserContext, tracker: NetworkTracker) -> None:
        self.requests: list[CapturedRequest] = []
        self._by_request: dict[Request, CapturedRequest] = {}
        self._context = context
        self._tracker = tracker
        context.on("request", self._on_request)
        context.on("response", self._on_response)
        context.on("requestfinished", self._on_finished)
        context.on("requestfailed", self._on_failed)

    def detach(self) -> None:
        """Stop listening: the context outlives the trail (one a user handed in)."""
        self._context.remove_listener("request", self._on_request)
        self._context.remove_listener("response", self._on_response)
        self._context.remove_listener("requestfinished", self._on_finished)
        self._context.remove_listener("requestfailed", self._on_failed)

    def _on_request(self, request: Request) -> None:
        captured = CapturedRequest(request.method, request.url, request)
        self.requests.append(captured)
        self._by_request[request] = captured
        self._tracker.request_started(request)

    def _on_response(self, response: Response) -> None:
        captured = self._by_request.get(response.request)
        if captured is not None:
            captured.status = response.status

    def _on_finished(self, request: Request) -> None:
        self._tracker.request_ended(request)

    def _on_failed(self, request: Request) -> None:
        captured = self._by_request.get(request)
        if captured is not None:
            captured.failure = request.failure or "failed"
        self._tracker.request_ended(request)

    def search(self, event_name: str, start: int = 0) -> tuple[CapturedRequest | None, int]:
        """The first request from index ``start`` that mentions ``event_name``, and where to go on."""
        needle = event_name.lower()
        requests = self.requests
        for index in range(start, len(requests)):
            if requests[index].mentions(needle):
                return requests[index], index + 1
        return None, len(requests)


class NetworkTracker:
    """Counts the requests of one page that matter for settling, as its context's capture sees them."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.pending: set[Request] = set()
        self.started = 0
        self.navigations = 0

    def request_started(self, request: Request) -> None:
        if request.resource_type not in TRACKED_RESOURCES:
            return
        frame = _frame_of(request)
        if frame is None or frame.page != self.page:
            return  # a popup's, another page's or a service worker's request
        self.pending.add(request)
        self.started += 1
        if request.is_navigation_request() and frame == self.page.main_frame:
            self.navigations += 1

    def request_ended(self, request: Request) -> None:
        self.pending.discard(request)


def _frame_of(request: Request) -> Frame | None:
    """The frame that sent ``request``; None for a service worker's (Playwright raises for those)."""
    from playwright.sync_api import Error

    try:
        return request.frame
    except Error:
        return None
