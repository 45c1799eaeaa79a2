"""The list kept by delta is the list computed whole: after any run of
changes, new sessions and removals, the order a `RowOrder` keeps by bisection is what sorting
every session gives, for every sort and direction; `ListModel`'s counts (the sessions shown,
the formats and projects, the pairs shown, OCR's summary) are those counted afresh. And a
change costs work in the sessions it changed, not in those there are."""

from __future__ import annotations

import math
from timeit import default_timer

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from ocr_tui.core import display
from ocr_tui.core.reviews import summary
from ocr_tui.core.view import SessionView
from ocr_tui.ui import listing
from ocr_tui.ui.listing import SORTS, ListQuery, formats_of, projects_of
from ocr_tui.ui.screens.sessions.model import ListModel
from ocr_tui.ui.screens.sessions.row_order import RowOrder

from .test_list_truth import session

STAMPS = [None, "", "2026-03-10T10:00:00Z", "2026-03-10T10:00:00", "2026-03-10T10:00:00.5Z"]
STAMPS += ["2026-03-11T09:00:00Z", "2026-03-09T23:59:59Z", "2026-03-10T10:00:00Zé"]
IDS = [f"2026-03-10-task-{n}" for n in (1, 2, 10, 11)] + ["review-2", "review-10", "Zed", "é"]
VIEW = st.builds(
    lambda sid, la, start, status, fw, project: msgspec.structs.replace(
        session(0, 0, 0, status, 0),
        id=f"{project}/{sid}" if project else sid,
        last_activity=la,
        started_at=start,
        framework=fw,
        project=project,
    ),
    st.sampled_from(IDS),
    st.sampled_from(STAMPS),
    st.sampled_from(STAMPS),
    st.sampled_from(["active", "closed"]),
    st.sampled_from(["ocr", "idumb"]),
    st.sampled_from([None, "api", "Web"]),
)
STEP = st.one_of(st.tuples(st.just("put"), VIEW), st.tuples(st.just("drop"), st.sampled_from(IDS)))
QUERY = st.builds(
    ListQuery,
    filter=st.sampled_from(["all", "active", "closed"]),
    format=st.sampled_from(["all", "ocr", "idumb"]),
    search=st.sampled_from(["", "task-1", "zed"]),
    sort=st.sampled_from(sorted(SORTS)),
    reverse=st.booleans(),
    project=st.sampled_from(["all", "api"]),
)


def sorted_whole(views: list[SessionView], how: str, reverse: bool) -> list[str]:
    """The list's order as it was computed before it was kept by delta: stable sorts by id,
    then by the field (`listing.sort_views` before `sort_key`), reversed whole."""
    if how == "name":
        out = sorted(views, key=lambda v: (*display.name_order(display.local_id(v)), v.id))
    else:
        by_id = sorted(views, key=lambda v: v.id)
        if how == "start":
            out = sorted(by_id, key=lambda v: v.started_at or v.elapsed.since or "", reverse=True)
        elif how == "project":
            newest = sorted(by_id, key=lambda v: v.last_activity or "", reverse=True)
            out = sorted(newest, key=lambda v: (v.project or "").lower())
        else:
            out = sorted(by_id, key=lambda v: v.last_activity or "", reverse=True)
    ids = [v.id for v in out]
    return ids[::-1] if reverse else ids


def apply(views: dict[str, SessionView], step: tuple) -> tuple[list[SessionView], list[str]]:
    kind, what = step
    if kind == "put":
        views[what.id] = what
        return [what], []
    gone = [sid for sid in views if sid.endswith(what)]
    for sid in gone:
        del views[sid]
    return [], gone


@settings(max_examples=300, deadline=None)
@given(query=QUERY, start=st.lists(VIEW, max_size=12), steps=st.lists(STEP, max_size=30))
def test_the_order_and_counts_kept_by_delta_are_those_computed_whole(query, start, steps):
    views = {v.id: v for v in start}
    model = ListModel()
    model.reset(query, views)
    rows = RowOrder(listing.sort_key(query.sort), query.reverse)
    rows.rebuild(model.shown.values())
    for step in steps:
        changed, removed = apply(views, step)
        shown, hidden = model.update(changed, removed)
        for sid in hidden:
            rows.discard(sid)
        for view in shown:
            rows.put(view)
        expected = query.apply(views.values())
        assert list(rows) == [v.id for v in expected]
        assert list(rows) == sorted_whole(expected, query.sort, query.reverse)
        assert [rows.position(sid) for sid in rows] == list(range(len(rows)))
        assert rows[1:4] == list(rows)[1:4] and rows == list(rows)
        assert model.shown == {v.id: v for v in expected}
        assert model.formats() == formats_of(views.values())
        assert model.projects() == projects_of(views.values())
        assert model.pairs() == {(v.project, v.framework) for v in expected}
        assert model.ocr == summary(v for v in views.values() if v.framework == "ocr")
    fresh = rows.resorted(model.shown.values())  # (its keys reused)
    assert fresh == rows


class Probe:
    """A key that counts its comparisons."""

    compared = 0

    def __init__(self, value: str) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        Probe.compared += 1
        return isinstance(other, Probe) and self.value == other.value

    def __lt__(self, other: Probe) -> bool:
        Probe.compared += 1
        return self.value < other.value


def history(n: int) -> list[SessionView]:
    return [session(i, i, 3, "closed", i) for i in range(n)]


def test_a_change_costs_work_in_the_sessions_changed_not_in_those_there_are():
    """One session changed among 10 or among 10,000: the model looks at that one alone,
    the order computes one key and compares O(log n) of them."""
    for n in (10, 10_000):
        views = {v.id: v for v in history(n)}
        model = ListModel()
        model.reset(ListQuery(), views)
        rows = RowOrder(lambda v: (Probe(v.last_activity or ""), v.id))
        rows.rebuild(model.shown.values())
        examined, keyed = model.examined, rows.keyed
        Probe.compared = 0
        changed = msgspec.structs.replace(views[min(views)], last_activity="2027-01-01T00:00:00Z")
        shown, hidden = model.update([changed], [])
        for view in shown:
            rows.put(view)
        assert (model.examined - examined, rows.keyed - keyed) == (1, 1)
        assert rows[-1] == changed.id  # the latest now (this key: oldest first)
        # two bisections (its old place, its new), a tuple comparison compares twice
        assert Probe.compared <= 8 * (math.log2(n) + 2), (n, Probe.compared)


def test_a_change_among_10000_costs_what_one_among_10_does():
    """Timed, the sizes alternated: the model and the order's work for one change."""

    def per_change(n: int) -> float:
        views = {v.id: v for v in history(n)}
        model = ListModel()
        model.reset(ListQuery(), views)
        rows = RowOrder(listing.sort_key("activity"))
        rows.rebuild(model.shown.values())
        old = views[min(views)]
        t0 = default_timer()
        for i in range(200):
            view = msgspec.structs.replace(
                old, last_activity=f"2027-01-01T00:{i // 60:02d}:{i % 60:02d}Z"
            )
            shown, hidden = model.update([view], [])
            for v in shown:
                rows.put(v)
        return (default_timer() - t0) / 200

    small = big = 1.0
    for _ in range(3):  # (alternated: the machine's load alike for both)
        small, big = min(small, per_change(10)), min(big, per_change(10_000))
    # What grows is a memmove of the sorted list (~10 µs at 10,000); a pass over every
    # session in Python (a count, a filter) costs 1 ms and more there, a sort 10 ms.
    assert big < small + 0.3e-3, (small, big)
