"""AgentsPane: the session's running agent commands (`ui.agent_cells`), in a bordered pane
that hides itself when none runs. `show(view, now)`; the screen calls it on every change and
every second (the heartbeat ages tick)."""

from __future__ import annotations

from datetime import datetime
from functools import partial

from textual.app import ComposeResult
from textual.containers import Vertical

from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.ocr.agents.cells import COLUMNS, FLEX, agent_rows, agents_title
from ocr_tui.ui.style import theme_style
from ocr_tui.ui.widgets.fit_table import FitTable


class AgentsPane(Vertical):
    def compose(self) -> ComposeResult:
        table = FitTable(COLUMNS, flex=FLEX, id="agents", hold=True)
        table.can_focus = False  # nothing to open: Tab goes past it, Enter does not lie
        yield table

    def on_mount(self) -> None:
        self.display = False

    def show(self, view: SessionView, now: datetime) -> None:
        agents = view.agents
        self.display = bool(agents)
        if not agents:
            return
        self.border_title = agents_title(agents)
        table = self.query_one(FitTable)
        table.sync_rows(agent_rows(agents, now, partial(theme_style, self)))
