"""`ocr-tui status` fits a width and speaks the one state vocabulary:
the table gives up its least telling columns and cuts long ids in the middle (their end, the
branch, kept); `--oneline` stays within 60 columns (`--max-width N`); the width is the
terminal's, else $COLUMNS, else nothing is cut (a pipe, a file). STATUS and the problem lines
carry `core.states`' glyphs, as the dashboard does."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys

import pytest
from rich.cells import cell_len

from ocr_tui.cli import main
from ocr_tui.core.display import id_core
from ocr_tui.core.states import glyph, session_state
from ocr_tui.status_text import elide_middle, oneline, output_width, wrap

from .builders import FIXED, ago, final_md, iso, reviewer_md, topology_md

LONG = "2026-03-10-feature-a-very-long-branch-name-for-the-login-page-rework"
SHORT = "2026-03-09-fix"
STALLED = "2026-03-08-stalled-refactor-of-the-payment-service-adapters"
BROKEN = "2026-03-07-broken-state"
LIVE = "2026-03-10-feat-live-review-6"


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def fixed_clock(monkeypatch):
    import ocr_tui.core.workspace as workspace

    fixed = functools.partial(workspace.make_engine, clock=lambda: FIXED)
    monkeypatch.setattr(workspace, "make_engine", fixed)


def build(tree) -> None:
    s = tree.session(LONG)
    s.round(1, reviewers={"principal-1": reviewer_md("High"), "quality-1": reviewer_md("Low")})
    s.state(status="active", current_phase="reviews", current_round=1,
            started_at=iso(ago(minutes=20)), updated_at=iso(ago(minutes=1)))  # fmt: skip
    t = tree.session(SHORT)
    t.round(1, reviewers={"principal-1": reviewer_md()}, final=final_md("REQUEST CHANGES"))
    t.state(status="closed", current_phase="complete", current_round=1,
            started_at=iso(ago(hours=3)), updated_at=iso(ago(hours=2)))  # fmt: skip
    u = tree.session(STALLED)
    u.state(status="active", current_phase="analysis", started_at=iso(ago(hours=5)),
            updated_at=iso(ago(hours=4)), mtime=ago(hours=4))  # fmt: skip
    tree.session(BROKEN).state(
        status="active",
        current_phase="reviews",
        started_at="not a time, and a problem described at some length so that it wraps",
        updated_at=iso(ago(minutes=2)),
    )


def status(capsys, *args: str) -> str:
    assert main(["status", *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


HEADER_CELL = re.compile(r"\S+(?: \S+)*")  # header names are 2+ spaces apart (`ROUND TIME`)


def columns(out: str) -> list[str]:
    return HEADER_CELL.findall(out.splitlines()[0])


def rows(out: str) -> dict[str, dict[str, str]]:
    """The table's rows by the session's (shown) id: {column: cell}."""
    lines = [ln for ln in out.splitlines() if ln and not ln.startswith(("✗ ", "  "))]
    cols = [(m.group(), m.start()) for m in HEADER_CELL.finditer(lines[0])]
    ends = [start for _, start in cols[1:]] + [None]
    out_rows = {}
    for line in lines[1:]:
        row = {name: line[s:e].strip() for (name, s), e in zip(cols, ends, strict=True)}
        out_rows[row["SESSION"]] = row
    return out_rows


def shown_as(cell: str, sid: str) -> bool:
    """`cell` is `sid`, or `sid` without its date (`display.id_core`), either cut in the
    middle: a start of it, "…", and its end."""
    for whole in (sid, id_core(sid)):
        if cell == whole:
            return True
        head, sep, tail = cell.partition("…")
        if sep and whole.startswith(head) and whole.endswith(tail) and len(tail) >= 8:
            return True
    return False


# --- the table --------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_the_table_fits_the_width(tree, capsys, fixed_clock, width):
    build(tree)
    out = status(capsys, str(tree.root), "--max-width", str(width))
    lines = out.splitlines()
    assert all(cell_len(ln) <= width for ln in lines), [ln for ln in lines if len(ln) > width]
    table = rows(out)
    assert len(table) == 4  # every session, one row each
    for sid in (LONG, SHORT, STALLED, BROKEN):
        assert sum(shown_as(cell, sid) for cell in table) == 1, (sid, list(table))
    assert columns(out)[:2] == ["SESSION", "STATUS"]  # never dropped
    if width >= 200:  # room for every id whole, and every column OCR has
        assert {LONG, STALLED} <= set(table)
        assert columns(out) == ["SESSION", "STATUS", "FLOW", "PHASE", "RND", "REV", "FIND",
                                "VERDICT", "AGENTS", "ROUND TIME", "ELAPSED", "STARTED (UTC)",
                                "ACTIVITY"]  # fmt: skip
    else:
        assert LONG not in table  # cut in the middle, its end kept
        long_cell = next(c for c in table if shown_as(c, LONG))
        assert long_cell.endswith("page-rework")
        # every row alike: the date goes from each id, even those that would fit whole
        assert set(table) >= {"fix", "broken-state"}, list(table)
    if width <= 80:
        assert "FLOW" not in columns(out) and "REV" not in columns(out)  # the least telling
    if width == 60:
        assert columns(out) == ["SESSION", "STATUS", "PHASE"]


def test_widths_in_between_always_fit(tree, capsys, fixed_clock):
    build(tree)
    for width in range(20, 140, 7):
        out = status(capsys, str(tree.root), "--max-width", str(width))
        assert all(cell_len(ln) <= width for ln in out.splitlines()), width


def test_problem_lines_wrap_within_the_width(tree, capsys, fixed_clock):
    build(tree)
    whole = status(capsys, str(tree.root), "--max-width", "0")
    (problem,) = [ln for ln in whole.splitlines() if ln.startswith("✗ ")]
    assert "not a time" in problem and cell_len(problem) > 60
    out = status(capsys, str(tree.root), "--max-width", "60")
    lines = out.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("✗ "))
    wrapped = lines[start:]
    assert len(wrapped) > 1 and all(ln.startswith("  ") for ln in wrapped[1:])
    assert all(cell_len(ln) <= 60 for ln in wrapped)
    assert " ".join(ln.strip() for ln in wrapped) == problem  # every word kept


def test_nothing_is_cut_through_a_pipe_without_columns(tree, capsys, fixed_clock):
    """capsys' stdout is not a terminal: with no $COLUMNS, nothing is cut (`| less -S`)."""
    build(tree)
    out = status(capsys, str(tree.root))
    assert LONG in rows(out) and "FLOW" in columns(out)
    assert max(cell_len(ln) for ln in out.splitlines()) > 80


def test_columns_is_honoured_through_a_pipe(tree, capsys, fixed_clock, monkeypatch):
    build(tree)
    monkeypatch.setenv("COLUMNS", "70")
    out = status(capsys, str(tree.root))
    assert all(cell_len(ln) <= 70 for ln in out.splitlines())
    assert LONG not in rows(out)
    assert cell_len(status(capsys, str(tree.root), "--oneline")) - 1 <= 60
    assert LONG in rows(status(capsys, str(tree.root), "--max-width", "0"))  # 0: no limit


def test_a_terminal_gives_its_width(tree, capsys, fixed_clock, monkeypatch):
    build(tree)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((90, 30)))
    out = status(capsys, str(tree.root))
    assert all(cell_len(ln) <= 90 for ln in out.splitlines())
    assert max(cell_len(ln) for ln in out.splitlines()) > 80  # the room is used
    assert LONG not in rows(out)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((40, 30)))
    line = status(capsys, str(tree.root), "--oneline")
    assert cell_len(line.rstrip("\n")) <= 40  # a terminal narrower than the default


class Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_output_width_rules(monkeypatch):
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((132, 40)))
    assert output_width(Stream(False), {}) is None  # a pipe or a file: no limit
    assert output_width(Stream(False), {"COLUMNS": "100"}) == 100
    assert output_width(Stream(False), {"COLUMNS": "wide"}) is None
    assert output_width(Stream(False), {"COLUMNS": "0"}) is None
    assert output_width(Stream(True), {}) == 132
    assert output_width(Stream(True), {"COLUMNS": "77"}) == 77
    assert output_width(None, {}) is None  # stdout closed


def test_elide_middle_keeps_the_end():
    sid = "2026-03-10-feature-login-page"
    assert elide_middle(sid, 40) == sid
    for width in range(5, len(sid)):
        cut = elide_middle(sid, width)
        assert cell_len(cut) == width and "…" in cut
        head, _, tail = cut.partition("…")
        assert sid.startswith(head) and sid.endswith(tail) and len(tail) >= len(head)
    wide = elide_middle("漢字" * 5, 9)  # two cells a character
    assert cell_len(wide) <= 9 and wide.startswith("漢") and wide.endswith("漢字")


def test_wrap_breaks_between_words_and_cuts_long_words():
    assert wrap("a b c", None) == ["a b c"]
    assert wrap("alpha beta gamma delta", 11) == ["alpha beta", "  gamma", "  delta"]
    lines = wrap("x" * 25, 10)
    assert all(cell_len(ln) <= 10 for ln in lines) and "".join(lines).replace(" ", "") == "x" * 25


# --- the one line -------------------------------------------------------------------------------


def test_oneline_stays_under_60_by_default(tree, capsys, fixed_clock):
    build(tree)
    line = status(capsys, str(tree.root), "--oneline").rstrip("\n")
    whole = status(capsys, str(tree.root), "--oneline", "--max-width", "0").rstrip("\n")
    assert cell_len(whole) > 60 and LONG in whole  # the newest running session, whole
    assert cell_len(line) <= 60
    assert line.startswith("● ") and "login-page-rework" in line  # the branch's end kept
    assert "R1" in line or "1/8" in line or "4/8" in line


@pytest.mark.parametrize("width", [20, 30, 45, 60, 75, 100])
def test_oneline_max_width(tree, capsys, fixed_clock, width):
    build(tree)
    line = status(capsys, str(tree.root), "--oneline", "--max-width", str(width)).rstrip("\n")
    assert cell_len(line) <= width and line.startswith("● ")


def test_oneline_gives_way_in_order(tree, fixed_clock):
    """Each narrower width leaves out more, in the documented order: the kind word, the id's
    date, the reviewer count, then the phase label is cut."""
    build(tree)
    view = tree.view(LONG)
    full = oneline([view], None)
    assert full.startswith(f"● {LONG} review 4/8 Parallel Reviews · R1 · 2 reviewers · ")
    assert " review " not in oneline([view], cell_len(full) - 1)
    widths = range(cell_len(full), 10, -1)
    narrower = [oneline([view], w) for w in widths]
    assert all(cell_len(x) <= w for x, w in zip(narrower, widths, strict=True))
    seen_date_gone = next(i for i, x in enumerate(narrower) if "2026-03-10" not in x)
    seen_reviewers_gone = next(i for i, x in enumerate(narrower) if "reviewers" not in x)
    assert seen_date_gone <= seen_reviewers_gone


def build_live(tree) -> None:
    """A review in its synthesis (7/8), its round 1 with a verdict already written."""
    s = tree.session(LIVE)
    s.round(1, reviewers={"principal-1": reviewer_md("High", "Low"),
                          "quality-1": reviewer_md("Medium"), "security-1": reviewer_md("Info")},
            final=final_md("APPROVE"))  # fmt: skip
    s.state(workflow_type="review", status="active", current_phase="synthesis",
            current_round=1, started_at=iso(ago(minutes=20)),
            updated_at=iso(ago(minutes=1)))  # fmt: skip


def test_oneline_of_a_map_session_says_its_map_run_not_a_round(tree, capsys, fixed_clock):
    """Reviewed (round 1, APPROVE), now on its map run: `M1 · 3 reviewers · 2 findings ·
    APPROVE` put the round's facts after the map run's name. Now the run's own: its files."""
    s = tree.session(LIVE)
    s.round(1, reviewers={"principal-1": reviewer_md("High", "Low")}, final=final_md("APPROVE"))
    s.run(1, topology=topology_md("a.py"), flow="# Flow\n")
    s.state(workflow_type="map", status="active", current_phase="requirements-mapping",
            current_round=1, current_map_run=1, started_at=iso(ago(minutes=20)),
            updated_at=iso(ago(minutes=1)))  # fmt: skip
    whole = status(capsys, str(tree.root), "--oneline", "--max-width", "0").rstrip("\n")
    assert whole == f"● {LIVE} map 4/6 Requirements Mapping · M1 · 1 file · 20m"
    assert "APPROVE" not in status(capsys, str(tree.root), "--max-width", "0")


def test_oneline_fills_its_room_in_order(tree, capsys, fixed_clock):
    """It used to print `● feat-live-review-6 7/8 · 2 findings · 20m` (43 of 60 columns): the
    phase name, the round and the verdict now come back, in that order, while they fit."""
    build_live(tree)
    whole = status(capsys, str(tree.root), "--oneline", "--max-width", "0").rstrip("\n")
    assert whole == (
        f"● {LIVE} review 7/8 Final Synthesis · R1 · 3 reviewers · 2 findings · APPROVE · 20m"
    )
    line = status(capsys, str(tree.root), "--oneline").rstrip("\n")
    assert line == "● feat-live-review-6 7/8 Final Synt… · R1 · 2 findings · 20m"
    assert cell_len(line) == 60  # the phase name takes the room the verdict could not
    line = status(capsys, str(tree.root), "--oneline", "--max-width", "80").rstrip("\n")
    assert line == "● feat-live-review-6 7/8 Final Synthesis · R1 · 2 findings · APPROVE · 20m"
    line = status(capsys, str(tree.root), "--oneline", "--max-width", "50").rstrip("\n")
    assert line == "● feat-live-review-6 7/8 Final… · 2 findings · 20m"


def test_oneline_fills_but_never_exceeds_and_narrower_only_leaves_out_more(tree, fixed_clock):
    build_live(tree)
    view = tree.view(LIVE)
    full = oneline([view], None, FIXED)
    least = "● feat-live-review-6 7/8 · 20m"
    # the details, in the order they come in
    details = ("findings", "Final", "R1", "APPROVE", "Final Synthesis", "reviewers",
               "2026-03-10", " review ")  # fmt: skip
    gone: set[str] = set()
    for width in range(cell_len(full) + 5, 9, -1):
        line = oneline([view], width, FIXED)
        assert cell_len(line) <= width, (width, line)
        shown = {d for d in details if d in line}
        # what went at a wider limit stays out (but the phase name: the room a detail that
        # does not fit leaves goes to it, so a short name can be whole below a wider limit)
        steady = shown - {"Final", "Final Synthesis"}
        assert not steady & gone, (width, line)
        gone |= set(details) - shown
        kept = [d in shown for d in details if d != "Final Synthesis"]
        assert kept == sorted(kept, reverse=True), (width, line)  # in order
        phase = line.split(" · ")[0]
        if "…" in phase and width >= cell_len(least):  # a cut phase name takes the room (but
            assert cell_len(line) >= width - 1, (width, line)  # the space before a `…`)
        if width >= cell_len(least) + len(" · 2 findings") + len(" Req…"):
            assert "7/8 Fin" in line, (width, line)  # the phase name comes right after


# --- one state vocabulary (core.states) -------------------------------------------------------


def test_status_uses_the_state_glyphs(tree, capsys, fixed_clock):
    build(tree)
    views = tree.views()
    out = status(capsys, str(tree.root), "--max-width", "0")
    table = rows(out)
    for sid, view in views.items():
        assert table[sid]["STATUS"].startswith(glyph(session_state(view)) + " "), sid
    assert table[LONG]["STATUS"] == "● active"
    assert table[SHORT]["STATUS"] == "✓ closed"
    assert table[STALLED]["STATUS"] == "⚠ stalled"  # the word that says why, first
    assert table[BROKEN]["STATUS"] == "✗ active"
    problems = [ln for ln in out.splitlines() if ln.startswith("✗ ")]
    assert problems and all(ln.startswith(f"✗ {BROKEN}: ") for ln in problems)
    assert "!" not in out  # `!` is "needs attention", and nothing here needs it
    line = status(capsys, str(tree.root), "--oneline", "--session", STALLED)
    assert line.startswith("⚠ ")


def test_json_stays_ascii_and_has_no_glyphs(tree, capsys, fixed_clock):
    build(tree)
    out = status(capsys, str(tree.root), "--json", "--max-width", "30")  # ignored by --json
    assert out.isascii() and LONG in out


def test_a_narrow_status_drops_waiting_on_you_whole():
    """`◆ active waiting on` (who?) at 120 columns: the phrase goes whole, or stays whole."""
    from ocr_tui.core.cells import clip_words
    from ocr_tui.core.view import Elapsed, SessionView
    from ocr_tui.status_text import NBSP, status_cell

    view = SessionView(framework="ocr",
        id="x", branch=None, source="state.json", status="active", workflow="review",
        phase="p", phase_label="P", phase_number=1, phase_total=2, complete=False,
        started_at=None, updated_at=None, last_activity=None, stalled=False,
        elapsed=Elapsed(since=None, seconds=None, running=True), current_round=None,
        rounds=[], current_map_run=None, map_runs=[], problems=[], path="/x", waiting=True,
    )  # fmt: skip
    cell = status_cell(view)
    assert cell.replace(NBSP, " ") == "◆ waiting on you"
    assert clip_words(cell, 10) == "◆"
    assert clip_words(cell, 30).replace(NBSP, " ") == "◆ waiting on you"
