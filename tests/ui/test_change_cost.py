"""A change on the dashboard costs the same at any history size: once the
list is steady, a change of one session builds that session's row alone, and neither re-counts
nor re-sorts the others (`ListModel.update`, `SessionTable.sync_changes`), with 10 sessions or
with 3,000; what the screen shows is still the query's sessions, in its order."""

from __future__ import annotations

from ocr_tui.ui.screens.sessions import session_rows
from ocr_tui.ui.screens.sessions.model import ListModel
from ocr_tui.ui.screens.sessions.row_order import RowOrder

from .builders import make_project, wait_until
from .test_list_truth import SIZE, check_screen, settle, start


async def one_change_costs(tmp_path, n: int, monkeypatch) -> dict[str, int]:
    """Work done for one change of the newest session among `n` (steady, scrolled or not)."""
    project = make_project(tmp_path / f"proj{n}")
    app, terminal, model, first = await start(project, n)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.status == "ready", what="the empty project watched")
        app.post_message(model.message(project, ("new", n, True, 3, "closed")))
        table = app.main_screen.table
        await wait_until(pilot, lambda: table.row_count == n, what="every row")
        await settle(pilot)
        assert isinstance(table.row_keys, RowOrder), "steady: the rows kept by bisection"
        work = {"row cells": 0, "sorts": 0, "recounts": 0}

        def counting(name, real):
            def wrapped(*args, **kwargs):
                work[name] += 1
                return real(*args, **kwargs)

            return wrapped

        monkeypatch.setattr(
            session_rows, "row_cells", counting("row cells", session_rows.row_cells)
        )
        monkeypatch.setattr(RowOrder, "rebuild", counting("sorts", RowOrder.rebuild))
        monkeypatch.setattr(ListModel, "reset", counting("recounts", ListModel.reset))
        newest = sorted(model.sessions)[-1]
        which = sorted(model.sessions).index(newest)
        for phase, status in ((1, "active"), (2, "active"), (3, "closed")):
            app.post_message(model.message(project, ("change", which, True, phase, status)))
            await settle(pilot)
            check_screen(app, terminal, model, f"phase {phase}")
            assert table.row_keys[0] == newest
        monkeypatch.undo()
        return work


async def test_one_change_builds_one_row_whatever_the_history(tmp_path, monkeypatch):
    for n in (10, 3000):
        work = await one_change_costs(tmp_path, n, monkeypatch)
        assert work == {"row cells": 3, "sorts": 0, "recounts": 0}, (n, work)
