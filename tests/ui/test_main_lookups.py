"""Bounded memory: the main screen looks its parts up once. Textual's `query_one`
caches its answers by the DOM's generation, which every toast shown or gone moves on, so a
look-up of the list's parts per refresh filled that cache (1,024 entries) while the
dashboard was left open beside busy agents."""

from __future__ import annotations

from ocr_tui.cli import make_app

from .builders import SIZE, fixed_clock, loaded, sample_project, wait_until


async def test_refreshes_between_toasts_do_not_fill_textuals_lookup_cache(tmp_path) -> None:
    app = make_app(sample_project(tmp_path), clock=fixed_clock)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await loaded(pilot)
        screen = app.main_screen
        screen.refresh_view()
        before = len(screen._query_one_cache)
        for k in range(30):  # a toast up (the DOM changes), then the list refreshed
            app.notify(f"note {k}")
            await wait_until(
                pilot,
                lambda k=k: len(app._notifications) == k + 1,
                what=f"toast {k} shown",
            )
            screen.refresh_view()
        assert len(screen._query_one_cache) <= before + 5
