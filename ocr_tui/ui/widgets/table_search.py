"""The `/` search box over the session table."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class SearchBox(Input):
    """The `/` search. Enter is a priority binding (not the Submitted message) so it takes
    effect before the next key is dispatched: `/feat⏎j` typed fast moves the cursor."""

    BINDINGS = [
        Binding("enter", "screen.keep_search", "Keep search", show=False, priority=True),
        Binding("down", "screen.keep_search", "Keep search", show=False, priority=True),
    ]
