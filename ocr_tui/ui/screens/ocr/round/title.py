"""The round screen's heading, a pure function of the session's view and the round."""

from __future__ import annotations

from textual.content import Content

from ocr_tui.core import rounds
from ocr_tui.core.view import Round, SessionView
from ocr_tui.ui.fmt import ROUND_STATES, round_label, round_state


def round_title(view: SessionView, rnd: Round | None, number: int) -> Content:
    """The round screen's heading: `Round 2 (2 of 3) · current round · complete · 4 reviewers ·
    6 findings · with discourse`, or that the round does not exist (any more)."""
    numbers = [r.number for r in view.rounds]
    if rnd is None:
        return Content.assemble(
            (f"Round {number}", "bold"),
            (" does not exist (any more). ", "$text-warning"),
            (f"Rounds: {', '.join(map(str, numbers)) or 'none'}", "$foreground-muted"),
        )
    position = [r.path for r in view.rounds].index(rnd.path) + 1
    sep = (" · ", "$foreground-muted")
    parts: list = [(round_label(view, rnd), "bold"), (f" ({position} of {len(numbers)})", "")]
    current = view.current
    if current is not None and current.path == rnd.path:
        parts += [sep, ("current round", "$text-accent")]
    state = ROUND_STATES[round_state(rnd.complete, view)]
    n = len(rnd.reviewers)
    parts += [sep, state, sep, f"{n} reviewer{'s' if n != 1 else ''}", sep]
    live = rounds.still_coming(view, rnd.number, rnd.path)
    parts += [rounds.findings_words(rnd, live=live)]
    if rnd.findings is not None and rnd.reviewer_findings != rnd.findings:  # merged
        parts += [(f" (reviewers reported {rnd.reviewer_findings})", "$foreground-muted")]
    parts += [sep]
    parts += ["with discourse" if rnd.discourse else ("no discourse yet", "$foreground-muted")]
    return Content.assemble(*parts)
