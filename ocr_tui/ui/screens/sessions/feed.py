"""How the session list keeps up with the data: the sessions published (merged, newest wins:
`ui/latest.py`) are counted by delta (`ListModel`) and noted for the table; at start-up, while
thousands arrive in slices, the list is refreshed a few times a second. A mixin of `MainScreen`
(`self` is the screen)."""

from __future__ import annotations

from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.sessions.model import ListModel


class ListFeed:
    """The list's side of the sessions signal, the status and the headers."""

    def _on_sessions(self, payload: tuple[list[SessionView], list[str]]) -> None:
        self._absorb(payload)
        if bool(self.app.sessions) != self._had_sessions:
            self._had_sessions = bool(self.app.sessions)
            self.refresh_bindings()  # the list's keys apply once there is a session
        if not self.app.unread or not self.table.row_count:
            self.refresh_view()  # at start-up, the first rows at once
        elif not self._refresh_due:
            # Start-up: thousands of rows arrive in slices; re-sorting the table for each
            # would starve the keys. Refresh a few times a second instead.
            self._refresh_due = True
            self.set_timer(self.LOADING_REFRESH_S, self._deferred_refresh)

    def _deferred_refresh(self) -> None:
        self._refresh_due = False
        self.refresh_view()

    def _on_status(self, _status: str) -> None:
        self.refresh_bindings()
        self.refresh_view()

    def _on_headers(self, _headers: tuple) -> None:
        self.refresh_view()

    def _absorb(self, payload: tuple[list[SessionView], list[str]]) -> None:
        """The sessions that changed, counted (`ListModel`) and noted for the table."""
        model = self._model
        if model.query is None:
            return  # (counted whole at the next refresh)
        shown, hidden = model.update(*payload)
        for sid in hidden:
            self._shown.pop(sid, None)
            self._hidden.add(sid)
        for view in shown:
            self._hidden.discard(view.id)
            self._shown[view.id] = view

    def _counted(self) -> ListModel:
        """The model as the sessions are now (what was published and not delivered yet
        counted too) and for the query as it is now."""
        if self._latest is not None:
            self._absorb(self._latest.take())
        query = self.list_query
        if self._model.query != query:
            self._model.reset(query, self.app.sessions)
            self._shown, self._hidden = {}, set()
            self._full = True
        return self._model

    def formats(self) -> list[str]:
        return self._counted().formats()

    def projects(self) -> list[str]:
        return self._counted().projects()
