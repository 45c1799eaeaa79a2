"""The simulated user's triage in OCR's web dashboard: the `user_finding_progress` and
`user_round_progress` a user's clicks leave on a closed history session's review rows.

The triage comes from a `random.Random` of its own, seeded from the simulator's seed and the
session id (never the scenario's: the files must not change). For a round that was
re-reviewed: every finding gone in the next round was marked `fixed`; of the ones still there,
most are `acknowledged`, `read` or `wont_fix`, some have no row; the round itself is
`changes_made`. The session's last round was triaged more lightly after the session closed
(many findings without a row) and its round status follows its verdict. Each review_findings
row of a finding raised by several reviewers gets the same status, a second apart.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from ocr_tui.formats.ocr.sim_dashboard_rows import OutputRow, RoundRow, sql_time

# The user's triage, as (status or None for no row, weight).
STILL_OPEN = (("acknowledged", 4), ("read", 3), ("wont_fix", 2), (None, 2))
LAST_ROUND = (("read", 3), ("acknowledged", 3), ("wont_fix", 1), ("unread", 1), (None, 5))
LAST_ROUND_STATUS = {
    "APPROVE": (("acknowledged", 6), ("dismissed", 1), (None, 3)),
    "NEEDS DISCUSSION": (("in_progress", 4), ("needs_review", 3), ("acknowledged", 2), (None, 1)),
}
OTHER_VERDICT = (("in_progress", 3), ("needs_review", 3), ("changes_made", 2), (None, 2))
LAST_TRIAGE_AFTER = (60.0, 3600.0)  # seconds after the close: the user's look at the result


def _pick(rng: random.Random, weighted: Sequence[tuple[str | None, int]]) -> str | None:
    return rng.choices([s for s, _ in weighted], [w for _, w in weighted])[0]


def _at(rng: random.Random, lo: datetime, hi: datetime) -> datetime:
    return lo + timedelta(seconds=round(rng.uniform(0, max(0.0, (hi - lo).total_seconds()))))


def _marked(
    outputs: Sequence[OutputRow], marks: dict[str, tuple[str, datetime] | None]
) -> tuple[OutputRow, ...]:
    """Each finding row with its finding's mark: the same status, each further row of a
    finding several reviewers raised a second later (the user's next click)."""
    clicks: dict[str, int] = {}
    out = []
    for o in outputs:
        rows = []
        for f in o.findings:
            got = marks[f.key]
            if got is not None:
                k = clicks[f.key] = clicks.get(f.key, -1) + 1
                f = replace(f, triage=(got[0], sql_time(got[1] + timedelta(seconds=k))))
            rows.append(f)
        out.append(replace(o, findings=tuple(rows)))
    return tuple(out)


def with_triage(
    rows: Sequence[RoundRow],
    windows: Sequence[tuple[datetime, datetime]],
    rng: random.Random,
) -> list[RoundRow]:
    """`rows` with the user's triage: each round's findings and the round itself marked
    within that round's window (from its end to the next round's start; the last round's:
    after the session closed). See the module's rules."""
    out = []
    for i, (row, (lo, hi)) in enumerate(zip(rows, windows, strict=True)):
        later = {f.key for f in rows[i + 1].findings} if i + 1 < len(rows) else None
        marks: dict[str, tuple[str, datetime] | None] = {}
        for f in row.findings:  # one decision per finding, in first-raised order
            if f.key in marks:
                continue
            if later is None:
                status = _pick(rng, LAST_ROUND)
            else:
                status = "fixed" if f.key not in later else _pick(rng, STILL_OPEN)
            marks[f.key] = (status, _at(rng, lo, hi)) if status else None
        outputs = _marked(row.outputs, marks)
        if later is not None:
            status = "changes_made"
        else:
            status = _pick(rng, LAST_ROUND_STATUS.get(row.verdict or "", OTHER_VERDICT))
        progress = (status, sql_time(hi)) if status else None
        out.append(replace(row, outputs=outputs, progress=progress))
    return out
