"""A review round's facts in the words every screen and command says them: one function per
fact (no IO, no Textual), for the list, the detail pane, the session and round screens, the
Reviews view, `status` and the toasts alike.

What the files do not say yet is not known, never zero: a round nothing is in for yet has no
findings count (`—`), a round before its synthesis has no blocker count unless one is already
found, and it resolves nothing: the round before's findings it has not raised again are
*pending* (not re-reviewed yet) until its findings are all in (`Round.complete`).
"""

from __future__ import annotations

from ocr_tui.core.view import Round, SessionView

UNKNOWN = "—"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def findings_text(rnd: Round | None) -> str:
    """The round's distinct findings as a cell: `3`, or `—` when nothing is in yet."""
    if rnd is None or rnd.findings is None:
        return UNKNOWN
    return str(rnd.findings)


def still_coming(view: SessionView, number: int, path: str | None = None) -> bool:
    """Can round `number` (in `path`) still get findings? While the session runs, its
    current round's can: its counts are then "so far" (the list's detail, the round and
    findings screens, `ocr-tui findings` alike)."""
    current = view.current
    if not view.running or current is None:
        return False
    return current.path == path if path is not None else current.number == number


def findings_words(rnd: Round, *, live: bool = True) -> str:
    """`3 findings`, `no findings in yet` (nothing in), `3 findings so far` (a round whose
    findings are still coming in: `live`, not complete)."""
    if rnd.findings is None:
        return "no findings in yet" if live else "no findings"
    so_far = " so far" if live and not rnd.complete else ""
    return _plural(rnd.findings, "finding") + so_far


def blockers_text(rnd: Round | None) -> str:
    """The round's blockers as a cell: `1`, or `—` when not known yet."""
    if rnd is None or rnd.blockers is None:
        return UNKNOWN
    return str(rnd.blockers)


def blockers_words(rnd: Round) -> str:
    """`1 blocker`, `0 blockers`, `blockers not known yet`."""
    if rnd.blockers is None:
        return "blockers not known yet"
    return _plural(rnd.blockers, "blocker")


def change_parts(rnd: Round) -> list[tuple[str, str]]:
    """The change of a round's distinct findings against the round before, as (text, tone)
    parts: `+2` new ("warn"), `−3` resolved ("good"), `=` neither ("muted") once the round is
    complete; before that, `+2` and `3 pending` ("muted": the round before's findings not
    re-reviewed yet), never a resolved count. None in round 1 or when the round before is
    missing."""
    e = rnd.evolution
    if e is None:
        return []
    parts = [(f"+{e.new}", "warn")] if e.new else []
    if e.resolved is None and e.pending:  # not complete: nothing is resolved yet
        parts.append((f"?{e.pending}", "muted"))
    elif e.resolved:
        parts.append((f"−{e.resolved}", "good"))
    return parts or [("=", "muted")]  # (not complete: every one raised again so far)


def pending_words(rnd: Round) -> str | None:
    """`2 findings of round 1 not re-reviewed yet`, or None when none is pending."""
    e = rnd.evolution
    if e is None or not e.pending:
        return None
    return f"{_plural(e.pending, 'finding')} of round {rnd.number - 1} not re-reviewed yet"
