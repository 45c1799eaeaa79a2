"""The session screen's findings: each round's distinct findings with their change
against the round before, and the blocker trend above the rounds table, following the disk
while the real app runs (watcher -> engine -> views -> screen)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.core.view import Evolution, Round
from ocr_tui.ui.fmt import blocker_trend, findings_change
from ocr_tui.ui.screens.session.screen import SessionScreen

from .builders import loaded, wait_until

try:
    from .drilldown_tree import NOW, SID, build_tree, reviewer, write
except ImportError:  # tests/ui collected as a plain directory
    from drilldown_tree import NOW, SID, build_tree, reviewer, write


def trend_text(app) -> str:
    return str(app.screen.query_one("#rounds-trend", Static).render())


def findings_cell(app, path: str) -> str:
    return app.screen.query_one("#rounds").get_cell(path, "findings").plain


async def test_a_reviewer_file_written_under_the_open_session_screen_updates_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    session = build_tree(root)
    app = make_app(Project(root), clock=lambda: NOW)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("enter")  # the list's only session
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        # Round 1: nine findings (five reviewer findings, four final.md items that match none;
        # its `Token is not verified` blocker is the reviewers' critical `Token not verified`),
        # one blocker. Round 2 has no synthesis yet: "Naming" is still open, "Log leak" is
        # new, round 1's other eight are not re-reviewed yet (pending), among them the blocker:
        # nothing is resolved before the round's findings are all in.
        await wait_until(
            pilot,
            lambda: trend_text(app) == "R1 1 blocker → R2 — (1 not re-reviewed yet)",
            what="the trend to say round 2 has no findings yet, 1 not re-reviewed",
        )
        assert findings_cell(app, "rounds/round-1") == "9"
        assert findings_cell(app, "rounds/round-2") == "2 +1 ?8"

        # A third reviewer of round 2: "Weak hash" again (open), and a critical finding that
        # blocks (OCR's dashboard's rule).
        write(
            session / "rounds" / "round-2" / "reviews" / "quality-1.md",
            reviewer("Quality", [("Weak hash", "High"), ("SQL injection", "Critical")]),
        )
        await wait_until(
            pilot,
            lambda: findings_cell(app, "rounds/round-2") == "4 +2 ?7",
            what="round 2's findings cell to read 4 +2 ?7",
        )
        await wait_until(
            pilot,
            lambda: trend_text(app) == "R1 1 blocker → R2 1 (1 new, 1 not re-reviewed yet)",
            what="the trend to count round 2's new finding",
        )
        view = app.sessions[SID]
        r2 = view.rounds[1]
        assert (r2.findings, r2.blockers, r2.reviewer_findings) == (4, 1, 4)
        assert r2.evolution == Evolution(
            new=2, open=2, resolved=None, new_blockers=1, resolved_blockers=None, pending=7,
            pending_blockers=1,
        )  # fmt: skip

        # Round 2's synthesis: now the round before's are resolved, the blocker among them.
        write(session / "rounds" / "round-2" / "final.md", "# Review\n\n**Verdict**: APPROVE\n")
        await wait_until(
            pilot,
            lambda: trend_text(app) == "R1 1 blocker → R2 1 (1 resolved, 1 new)",
            what="the trend to count the resolved blocker once round 2 is synthesised",
        )
        assert findings_cell(app, "rounds/round-2") == "4 +2 −7"


# -- the cells and the trend, as text ---------------------------------------------------------


def rnd(
    number: int,
    findings: int | None,
    blockers: int | None,
    evolution: Evolution | None,
    complete: bool = True,
) -> Round:
    return Round(
        number=number, complete=complete, discourse=False, verdict=None, counts=None,
        reviewers=[], findings=findings, blockers=blockers, evolution=evolution,
        path=f"rounds/round-{number}",
    )  # fmt: skip


def ev(new: int, open_: int, resolved: int, nb: int = 0, rb: int = 0) -> Evolution:
    return Evolution(new=new, open=open_, resolved=resolved, new_blockers=nb, resolved_blockers=rb)


def plain(parts) -> str:
    return "".join(text for text, _ in parts)


def test_findings_change_shows_new_and_resolved() -> None:
    assert findings_change(rnd(1, 3, 0, None)) == []
    assert findings_change(rnd(2, 3, 0, ev(0, 3, 0))) == [("=", "muted")]
    assert findings_change(rnd(2, 3, 0, ev(2, 1, 4))) == [("+2", "warn"), ("−4", "good")]
    assert findings_change(rnd(2, 3, 0, ev(0, 3, 1))) == [("−1", "good")]


def test_blocker_trend_like_the_issue_example() -> None:
    rounds = [rnd(1, 8, 3, None), rnd(2, 5, 1, ev(1, 4, 4, nb=0, rb=2))]
    assert plain(blocker_trend(rounds)) == "R1 3 blockers → R2 1 (2 resolved, 0 new)"
    tones = dict(blocker_trend(rounds))
    assert tones["3"] == "bad" and tones["2 resolved"] == "good" and tones["0 new"] == "muted"


def test_blocker_trend_without_rounds_blockers_or_with_many_rounds() -> None:
    assert blocker_trend([]) is None
    assert blocker_trend([rnd(1, 2, 0, None)]) == [("No blockers in this round.", "muted")]
    clean = [rnd(1, 2, 0, None), rnd(2, 0, 0, ev(0, 0, 2))]
    assert blocker_trend(clean) == [("No blockers in any round.", "muted")]
    many = [rnd(n, 1, 6 - n, None if n == 1 else ev(0, 1, 0, rb=1)) for n in range(1, 7)]
    text = plain(blocker_trend(many))
    assert text.startswith("… R3 3 blockers → R4 2 (1 resolved, 0 new)")
    assert text.endswith("→ R6 0 (1 resolved, 0 new)")
    # A round missing before it (round 2 of 1, 3): no evolution, no parenthesis.
    gap = [rnd(1, 1, 1, None), rnd(3, 1, 1, None)]
    assert plain(blocker_trend(gap)) == "R1 1 blocker → R3 1"


def test_a_round_without_its_synthesis_has_no_blocker_count_yet() -> None:
    """A round in progress said `No blockers in this round.`: its synthesis names them."""
    live = rnd(1, 3, None, None, complete=False)
    assert blocker_trend([live]) == [
        ("No synthesis yet: the round's blockers are not known.", "muted")
    ]
    pending = Evolution(new=1, open=4, resolved=None, new_blockers=0, resolved_blockers=None,
                        pending=4, pending_blockers=2)  # fmt: skip
    then = [rnd(1, 8, 3, None), rnd(2, 5, None, pending, complete=False)]
    assert plain(blocker_trend(then)) == "R1 3 blockers → R2 — (2 not re-reviewed yet)"
    quiet = Evolution(new=0, open=2, resolved=None, new_blockers=0, resolved_blockers=None)
    clean = [rnd(1, 2, 0, None), rnd(2, 2, None, quiet, complete=False)]
    assert blocker_trend(clean) == [("No blockers in round 1.", "muted")]
    assert plain(blocker_trend([rnd(1, 2, 0, None), rnd(2, 2, None, quiet, False)][1:])) == (
        "No synthesis yet: the round's blockers are not known."
    )


def test_a_round_without_its_synthesis_resolves_nothing() -> None:
    pending = Evolution(new=1, open=1, resolved=None, new_blockers=0, resolved_blockers=None,
                        pending=3, pending_blockers=1)  # fmt: skip
    assert findings_change(rnd(2, 2, None, pending, complete=False)) == [
        ("+1", "warn"), ("?3", "muted"),
    ]  # fmt: skip
    none_yet = Evolution(new=0, open=0, resolved=None, new_blockers=0, resolved_blockers=None,
                         pending=2, pending_blockers=0)  # fmt: skip
    assert findings_change(rnd(2, None, None, none_yet, complete=False)) == [("?2", "muted")]
