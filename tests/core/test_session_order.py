"""`newest_first` (two stable sorts) is exactly `activity_key`'s order (the one order of
`status`, `--json`, `watch` and the list)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ocr_tui.core.lenient import blank_view
from ocr_tui.core.order import activity_key, newest_first
from ocr_tui.core.view import SessionView

stamps = st.one_of(
    st.none(), st.just(""), st.sampled_from(["2026-11-28T18:00:00Z", "2026-11-28T18:00:00", "2026"])
)


def view(sid: str, last: str | None) -> SessionView:
    v = blank_view(sid, sid, "ocr", "review", source="files", problems=[])
    v.last_activity = last
    return v


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ab-1", max_size=4), stamps), max_size=12))
def test_newest_first_is_activity_keys_order(rows) -> None:
    views = [view(sid, last) for sid, last in rows]
    assert [v.id for v in newest_first(views)] == [v.id for v in sorted(views, key=activity_key)]
