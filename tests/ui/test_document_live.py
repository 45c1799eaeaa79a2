"""An open document follows edits to its file through the real watcher, at once: the app
publishes the sessions a batch touched even when their derived views stay equal (an edit
that changes no count), so the document screen does not wait for its slow safety poll."""

from __future__ import annotations

import os

from ocr_tui.cli import make_app
from ocr_tui.ui.screens.document.screen import DocumentScreen

from .builders import SIZE, fixed_clock, loaded, wait_until


async def test_edit_that_changes_no_count_reloads_the_open_document(project, monkeypatch):
    monkeypatch.setattr(DocumentScreen, "POLL_SECONDS", 3600.0)  # only the watcher can help
    app = make_app(project, clock=fixed_clock)
    sid, rel = "2026-03-10-feat-auth", "context.md"
    path = project.sessions_dir / sid / rel
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_document(sid, rel)
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        doc = app.screen
        await wait_until(
            pilot,
            lambda: doc.state is not None and doc.state.status == "ok",
            what="the document to be read",
        )
        before = app.sessions[sid]
        st = path.stat()
        path.write_text("# Context\n\nEdited while open.\n")
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # same time: the view stays equal
        await wait_until(
            pilot,
            lambda: "Edited while open." in (doc.text or ""),
            what="the open document to show the edit",
        )
        assert app.sessions[sid] == before  # the view did not change: the touch did it
