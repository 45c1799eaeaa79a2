"""Why a key has nothing to open on a session, in the words every screen uses: the list's `F`,
the session screen's `c`, `F` and `l`. A key with nothing to open is dimmed in the Footer
with this reason, and pressed anyway says it."""

from __future__ import annotations

from ocr_tui.core.registry import is_host
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt


def no_round_reason(view: SessionView | None, keys: str, unread: str) -> str:
    """Why `keys` (`F`, or `c and F`), which open a review round, have none on `view`;
    `unread`: what to say when there is no session read to ask."""
    if view is None:
        return unread
    verb = "have" if " and " in keys else "has"
    if not is_host(view.framework):
        label = fmt.framework_label(view.framework)
        return f"{label} sessions have no review rounds: {keys} {verb} nothing to open."
    if view.workflow == "map":
        return f"This map session has no review round: {keys} {verb} nothing to open."
    return f"This session has no review round yet: {keys} {verb} nothing to open."


def events_reason(view: SessionView | None) -> str:
    """Why `l` (the event log) has nothing to show."""
    if view is None:
        return "This session is not read yet: it has no event log."
    if not is_host(view.framework):
        label = fmt.framework_label(view.framework)
        return f"{label} sessions have no event log: OCR's ocr.db (OCR 1.5+) records one."
    if view.source != "ocr.db":
        return f"Read from {view.source}: only OCR's ocr.db (OCR 1.5+) records an event log."
    return "OCR has recorded no event for this session yet."
