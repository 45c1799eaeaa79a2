"""A change to one session draws its row again, and only its row: the list
used to re-render every visible row's every cell through Rich on any change (DataTable's
`update_cell` invalidated every cached cell), most of what a change cost on screen. The
drawn row must still show each new value, change after change, on screen."""

from __future__ import annotations

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.widgets.line_table import LineTable

from .builders import NOW, SIZE, fixed_clock, iso, loaded, wait_until
from .test_live import set_state

AUTH = "2026-03-10-feat-auth"
PHASES = ("analysis", "reviews", "aggregation", "discourse", "synthesis", "reviews")
WORDS = {"analysis": "Tech Lead Analysis", "reviews": "Parallel Reviews",
         "aggregation": "Aggregate Findings", "discourse": "Reviewer Discourse",
         "synthesis": "Final Synthesis"}  # fmt: skip


async def test_a_change_draws_its_row_alone_and_every_time(project: Project, monkeypatch):
    rendered: list[int] = []
    original = LineTable._draw

    def counting(self, row, *args, **kw):
        rendered.append(row)
        return original(self, row, *args, **kw)

    monkeypatch.setattr(LineTable, "_draw", counting)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.main_screen.table
        await pilot.pause()
        for i, phase in enumerate(PHASES):
            rendered.clear()
            set_state(project, AUTH, current_phase=phase, updated_at=iso(NOW))

            def shown(phase=phase) -> bool:  # as drawn, not only in the data
                y = table.get_row_index(AUTH) + (table.header_height if table.show_header else 0)
                return WORDS[phase] in table.render_line(y).text

            await wait_until(pilot, shown, what="the row to show its new phase")
            await pilot.pause()
            if i == 0:
                continue  # the first change moves the row to the top (sorted by activity)
            row = table.get_row_index(AUTH)
            others = {r for r in rendered if r not in (row, -1)}
            assert not others, f"rows {sorted(others)} drawn again for a change to row {row}"
