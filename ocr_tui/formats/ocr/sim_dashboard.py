"""What OCR's web dashboard writes into `.ocr/data/ocr.db` for a review it has parsed and the
user has triaged (ocr-format.md §2.2, §4, §6.1, §7), for the simulator's closed history
sessions (ocr.db store only; `sim.py` plays them, `sim_store.DbStore` saves the rows).

Upstream, only the dashboard fills `review_rounds`, `reviewer_outputs` and `review_findings`
(its FilesystemSync, watching `.ocr/sessions/` while the agents write) and only the user's
clicks fill `user_finding_progress` / `user_round_progress`. The simulator's history is a
project whose user had the dashboard open for those reviews:

- a round with a valid round-meta.json is the dashboard's orchestrator path
  (`review_rounds.source = 'orchestrator'`): one `reviewer_outputs` row per meta reviewer, one
  `review_findings` row per meta finding (`is_blocker` = category blocker), verdict and
  `synthesis_counts` (the deduplicated counts, which upstream's later sync prefers to
  per-reviewer ones), `reviewer_count`, `total_finding_count` (per-reviewer findings);
- a round without one (the oldest history session predates OCR 1.6) is the parser path
  (`source = 'parser'`): the reviewer files parsed with the dashboard's regexes (severity
  defaults to info, `is_blocker` = critical), final.md's verdict and section counts, the
  blocker count replaced by the round's `is_blocker` rows, `reviewer_count` and
  `total_finding_count` left at their default 0, as upstream leaves them.

Where we differ from upstream, on purpose: the dashboard's reviewer parser turns the
`## Findings` section title into a bogus finding titled "s" (ocr-format §2.6): not copied;
`review_findings.category` (migration 7) is filled from round-meta.json (upstream's sync at
the commits we read leaves it NULL; ocr-tui reads it) and NULL on the parser path (the
reviewer files do not say it; final.md does, and ocr-tui's reader applies final.md anyway);
paths (`final_md_path`, `reviewer_outputs.file_path`) are relative to the project like the
simulator's `sessions.session_dir`, not absolute, so one seed makes one database wherever the
tree is; timestamps are the simulated clock's (a row is parsed when its file was written).

The user's triage of those rows is `sim_dashboard_triage`'s (its rules there).

The live session the demo plays gets no rows: a review under way has not been opened in the
dashboard yet (and its rounds carry round-meta.json, which ocr-tui prefers to rows anyway).

Pure functions from the played actions to rows (`session_rows`; the rows' shapes in
`sim_dashboard_rows`, the dashboard's parsers in `sim_dashboard_parse`), and
`sim_dashboard_db.write` to put them into an open sqlite3 connection (tables made if missing,
the session's old rows replaced)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from ocr_tui.formats.ocr.sim_dashboard_parse import parse_final, parse_reviewer
from ocr_tui.formats.ocr.sim_dashboard_rows import FindingRow, OutputRow, RoundRow, sql_time
from ocr_tui.formats.ocr.sim_dashboard_triage import LAST_TRIAGE_AFTER, with_triage
from ocr_tui.formats.ocr.sim_scenario import Action

# The statuses the user's clicks may leave (the tables' CHECKs).
FINDING_STATUSES = ("unread", "read", "acknowledged", "fixed", "wont_fix")
ROUND_STATUSES = ("needs_review", "in_progress", "changes_made", "acknowledged", "dismissed")

_WRITE = re.compile(r"^rounds/round-(\d+)/(?:reviews/([^/]+)\.md|(round-meta\.json)|(final\.md))$")


# --- the played session, per round -------------------------------------------------------


@dataclass
class PlayedRound:
    """One round as the agents wrote it: when it started, each reviewer file (name -> text,
    written at), round-meta.json and final.md with their times."""

    number: int
    started: datetime | None = None
    reviews: dict[str, tuple[str, datetime]] = field(default_factory=dict)
    meta: tuple[dict, datetime] | None = None
    final: tuple[str, datetime] | None = None

    @property
    def finished(self) -> datetime | None:
        times = [t for _, t in self.reviews.values()]
        times += [got[1] for got in (self.meta, self.final) if got]
        return max(times, default=self.started)


def played_rounds(
    played: Iterable[tuple[Action, datetime]],
) -> tuple[list[PlayedRound], datetime | None]:
    """(the session's rounds in order, when it closed) from its actions and their times."""
    rounds: dict[int, PlayedRound] = {}
    closed = None
    for act, t in played:
        if act.event in ("session_created", "round_started"):
            n = act.cols.get("current_round", 1)
            rounds.setdefault(n, PlayedRound(n)).started = t
        elif act.event == "session_closed":
            closed = t
        for rel, body in act.writes:
            m = _WRITE.match(rel)
            if not m:
                continue
            rnd = rounds.setdefault(int(m[1]), PlayedRound(int(m[1])))
            if m[2] and isinstance(body, str):
                rnd.reviews[m[2]] = (body, t)
            elif m[3] and isinstance(body, dict):
                rnd.meta = (body, t)
            elif m[4] and isinstance(body, str):
                rnd.final = (body, t)
    return [rounds[n] for n in sorted(rounds)], closed


# --- rows --------------------------------------------------------------------------------


def _valid_meta(meta: object) -> bool:
    """What the dashboard's processRoundMeta accepts."""
    return (
        isinstance(meta, dict)
        and meta.get("schema_version") == 1
        and bool(meta.get("verdict"))
        and isinstance(meta.get("reviewers"), list)
    )


def _split(name: str) -> tuple[str, int]:
    """`principal-1` -> (principal, 1): the dashboard's file-name rule (instance 1 without)."""
    m = re.match(r"^(.+?)-(\d+)$", name)
    return (m[1], int(m[2])) if m else (name, 1)


def _meta_output(r: dict, reviews: str, at: str) -> OutputRow:
    kind, n = r.get("type") or "unknown", r.get("instance") or 1
    findings = tuple(
        FindingRow(
            title=f.get("title") or "",
            severity=f.get("severity") or "info",
            file_path=f.get("file_path"),
            line_start=f.get("line_start"),
            line_end=f.get("line_end"),
            summary=f.get("summary"),
            is_blocker=f.get("category") == "blocker",
            category=f.get("category"),
            parsed_at=at,
        )
        for f in r.get("findings") or []
    )
    return OutputRow(kind, n, f"{reviews}/{kind}-{n}.md", len(findings), at, findings)


def _parsed_output(name: str, text: str, reviews: str, at: str) -> OutputRow:
    kind, n = _split(name)
    findings = tuple(FindingRow(**f, category=None, parsed_at=at) for f in parse_reviewer(text))
    return OutputRow(kind, n, f"{reviews}/{name}.md", len(findings), at, findings)


def round_row(sid: str, rnd: PlayedRound) -> RoundRow:
    """One round's review_rounds row with its reviewer outputs and findings (no triage), as
    the dashboard wrote it while the round was played."""
    rdir = f".ocr/sessions/{sid}/rounds/round-{rnd.number}"
    final_path = f"{rdir}/final.md" if rnd.final else None
    final_at = sql_time(rnd.final[1]) if rnd.final else None
    meta = rnd.meta[0] if rnd.meta else None
    if rnd.meta and _valid_meta(meta):
        at = sql_time(rnd.meta[1])
        outputs = [_meta_output(r, f"{rdir}/reviews", at) for r in meta["reviewers"]]
        covered = {f"{o.reviewer_type}-{o.instance_number}" for o in outputs}
        outputs += [  # a reviewer file round-meta.json does not list keeps its parsed rows
            _parsed_output(name, text, f"{rdir}/reviews", sql_time(t))
            for name, (text, t) in sorted(rnd.reviews.items())
            if f"{_split(name)[0]}-{_split(name)[1]}" not in covered
        ]
        every = [f for r in meta["reviewers"] for f in r.get("findings") or []]
        sc = meta.get("synthesis_counts") or {}

        def count(key: str, category: str) -> int:
            value = sc.get(key)
            if isinstance(value, int):
                return value
            return sum(f.get("category") == category for f in every)

        return RoundRow(
            round_number=rnd.number,
            verdict=meta["verdict"],
            blocker_count=count("blockers", "blocker"),
            suggestion_count=count("suggestions", "suggestion"),
            should_fix_count=count("should_fix", "should_fix"),
            final_md_path=final_path,
            parsed_at=final_at or at,
            source="orchestrator",
            reviewer_count=len(meta["reviewers"]),
            total_finding_count=len(every),
            outputs=tuple(outputs),
        )
    outputs = [
        _parsed_output(name, text, f"{rdir}/reviews", sql_time(t))
        for name, (text, t) in sorted(rnd.reviews.items())
    ]
    verdict, counts = parse_final(rnd.final[0]) if rnd.final else (None, {})
    blockers = counts.get("blockers", 0)
    if rnd.final:  # "the LLM text in final.md may be inaccurate": recounted from the rows
        blockers = sum(f.is_blocker for o in outputs for f in o.findings)
    parsed_at = final_at or max((o.parsed_at for o in outputs), default=None)
    return RoundRow(
        round_number=rnd.number,
        verdict=verdict,
        blocker_count=blockers,
        suggestion_count=counts.get("suggestions", 0),
        should_fix_count=counts.get("should_fix", 0),
        final_md_path=final_path,
        parsed_at=parsed_at,
        source="parser" if rnd.final else None,
        reviewer_count=0,
        total_finding_count=0,
        outputs=tuple(outputs),
    )


def session_rows(
    sid: str, played: Sequence[tuple[Action, datetime]], *, seed: int, until: datetime
) -> list[RoundRow]:
    """Every round's rows of closed session `sid` from its played actions (each with the time
    it was played), with the user's triage, none of it later than `until`."""
    rounds, closed = played_rounds(played)
    rows = [round_row(sid, r) for r in rounds if r.reviews or r.meta]
    kept = [r for r in rounds if r.reviews or r.meta]
    if not rows:
        return []
    end = closed or max(r.finished for r in kept if r.finished)  # type: ignore[type-var]
    windows = []
    for i, r in enumerate(kept):
        lo = (r.finished or end) + timedelta(seconds=1)
        if i + 1 < len(kept):
            nxt = kept[i + 1].started or lo
            hi = nxt - timedelta(seconds=1)
        else:
            lo = end + timedelta(seconds=LAST_TRIAGE_AFTER[0])
            hi = end + timedelta(seconds=LAST_TRIAGE_AFTER[1])
        hi = min(hi, until - timedelta(seconds=10))  # a shared finding's rows: a second apart
        lo = min(lo, hi)
        windows.append((lo, max(lo, hi)))
    rng = random.Random(f"ocr-sim/{seed}/{sid}/dashboard")
    return with_triage(rows, windows, rng)
