"""The line over the session list: what is shown (filter, format, search, sort) and how many."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ocr_tui.ui import fmt
from ocr_tui.ui.contract import Dashboard
from ocr_tui.ui.listing import SORTS, ListQuery
from ocr_tui.ui.style import KEY
from ocr_tui.ui.widgets.static_update import update_static


class FilterBar(Static):
    """`Filter: active · search: 'auth' · sort: last activity · 3 of 12 sessions`."""

    _key: tuple = ()

    def show(
        self,
        app: Dashboard,
        query: ListQuery,
        *,
        shown: int,
        several_formats: bool,
        several_projects: bool = False,
    ) -> None:
        """`shown`: how many sessions the list shows."""
        total, unread = len(app.sessions), app.unread
        parts: list[str | tuple[str, str]] = [("Filter: ", "$text-muted"), (query.filter, KEY)]
        if query.format != "all" or several_formats:
            name = "all" if query.format == "all" else fmt.framework_label(query.format)
            parts += [(" · format: ", "$text-muted"), (name, KEY)]
        if query.project != "all" or several_projects:
            parts += [(" · project: ", "$text-muted"), (fmt.safe(query.project, 30), KEY)]
        if query.search:
            search = fmt.safe(query.search, 40)
            parts += [(" · search: ", "$text-muted"), (f"'{search}'", KEY)]
        order = SORTS[query.sort] + (", reversed" if query.reverse else "")
        parts += [(" · sort: ", "$text-muted"), (order, KEY)]
        noun = "session" if total == 1 else "sessions"
        parts += [(" · ", "$text-muted"), f"{shown} of {total} {noun}"]
        if unread > 0:
            parts += [(" · ", "$text-muted"), (f"reading {unread:,} more…", KEY)]
        content = Content.assemble(*parts)
        key = (content.plain, tuple(content.spans))  # Content's == compares text only
        if key != self._key:
            self._key = key
            update_static(self, content)
