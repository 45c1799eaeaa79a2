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

The user's triage comes from a `random.Random` of its own, seeded from the simulator's seed and
the session id (never the scenario's: the files must not change). For a round that was
re-reviewed: every finding gone in the next round was marked `fixed`; of the ones still there,
most are `acknowledged`, `read` or `wont_fix`, some have no row; the round itself is
`changes_made`. The session's last round was triaged more lightly after the session closed
(many findings without a row) and its round status follows its verdict. Each review_findings
row of a finding raised by several reviewers gets the same status, a second apart.

The live session the demo plays gets no rows: a review under way has not been opened in the
dashboard yet (and its rounds carry round-meta.json, which ocr-tui prefers to rows anyway).

Pure functions from the played actions to rows (`session_rows`), and `write` to put them into
an open sqlite3 connection (tables made if missing, the session's old rows replaced)."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from ocr_tui.formats.ocr.finding import finding_id
from ocr_tui.formats.ocr.sim_scenario import Action

# Migration 1's three artifact tables and user_finding_progress, migration 2's
# user_round_progress, with migration 6's and 7's columns (last, where their ALTER TABLE puts
# them): packages/cli/src/lib/db/migrations.ts, the CHECKs included.
SCHEMA = """
CREATE TABLE IF NOT EXISTS review_rounds (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  round_number INTEGER NOT NULL, verdict TEXT, blocker_count INTEGER DEFAULT 0,
  suggestion_count INTEGER DEFAULT 0, should_fix_count INTEGER DEFAULT 0, final_md_path TEXT,
  parsed_at TEXT, source TEXT DEFAULT NULL, reviewer_count INTEGER DEFAULT 0,
  total_finding_count INTEGER DEFAULT 0, UNIQUE(session_id, round_number));
CREATE TABLE IF NOT EXISTS reviewer_outputs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  round_id INTEGER NOT NULL REFERENCES review_rounds(id) ON DELETE CASCADE,
  reviewer_type TEXT NOT NULL, instance_number INTEGER NOT NULL DEFAULT 1,
  file_path TEXT NOT NULL, finding_count INTEGER DEFAULT 0, parsed_at TEXT,
  UNIQUE(round_id, reviewer_type, instance_number));
CREATE TABLE IF NOT EXISTS review_findings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  reviewer_output_id INTEGER NOT NULL REFERENCES reviewer_outputs(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  severity TEXT NOT NULL CHECK(severity IN ('critical', 'high', 'medium', 'low', 'info')),
  file_path TEXT, line_start INTEGER, line_end INTEGER, summary TEXT,
  is_blocker INTEGER NOT NULL DEFAULT 0, parsed_at TEXT, category TEXT DEFAULT NULL);
CREATE INDEX IF NOT EXISTS idx_findings_severity ON review_findings(severity);
CREATE TABLE IF NOT EXISTS user_finding_progress (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  finding_id INTEGER NOT NULL REFERENCES review_findings(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'unread'
    CHECK(status IN ('unread', 'read', 'acknowledged', 'fixed', 'wont_fix')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')), UNIQUE(finding_id));
CREATE TABLE IF NOT EXISTS user_round_progress (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  round_id INTEGER NOT NULL REFERENCES review_rounds(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'needs_review'
    CHECK(status IN ('needs_review', 'in_progress', 'changes_made', 'acknowledged', 'dismissed')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')), UNIQUE(round_id));
INSERT OR IGNORE INTO schema_version VALUES
  (2, '1970-01-01 00:00:00', 'Add chat conversations, messages, and round progress tables'),
  (6, '1970-01-01 00:00:00',
   'Add orchestrator-first columns to review_rounds for round-meta.json support'),
  (7, '1970-01-01 00:00:00',
   'Add category column to review_findings for blocker/should_fix/suggestion classification');
"""

FINDING_STATUSES = ("unread", "read", "acknowledged", "fixed", "wont_fix")
ROUND_STATUSES = ("needs_review", "in_progress", "changes_made", "acknowledged", "dismissed")
# The user's triage, as (status or None for no row, weight).
STILL_OPEN = (("acknowledged", 4), ("read", 3), ("wont_fix", 2), (None, 2))
LAST_ROUND = (("read", 3), ("acknowledged", 3), ("wont_fix", 1), ("unread", 1), (None, 5))
LAST_ROUND_STATUS = {
    "APPROVE": (("acknowledged", 6), ("dismissed", 1), (None, 3)),
    "NEEDS DISCUSSION": (("in_progress", 4), ("needs_review", 3), ("acknowledged", 2), (None, 1)),
}
OTHER_VERDICT = (("in_progress", 3), ("needs_review", 3), ("changes_made", 2), (None, 2))
LAST_TRIAGE_AFTER = (60.0, 3600.0)  # seconds after the close: the user's look at the result

_WRITE = re.compile(r"^rounds/round-(\d+)/(?:reviews/([^/]+)\.md|(round-meta\.json)|(final\.md))$")


def _sql(t: datetime) -> str:  # ocr.db: YYYY-MM-DD HH:MM:SS, UTC, no zone
    return t.isoformat(" ", "seconds")[:19]


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


@dataclass(frozen=True)
class FindingRow:
    title: str
    severity: str
    file_path: str | None
    line_start: int | None
    line_end: int | None
    summary: str | None
    is_blocker: bool
    category: str | None
    parsed_at: str
    triage: tuple[str, str] | None = None  # user_finding_progress (status, updated_at)
    # The finding's identity across reviewers and rounds (ocr-tui's finding id); not a column.
    key: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if not self.key:
            object.__setattr__(self, "key", finding_id(self.title, self.file_path))


@dataclass(frozen=True)
class OutputRow:
    reviewer_type: str
    instance_number: int
    file_path: str
    finding_count: int
    parsed_at: str
    findings: tuple[FindingRow, ...]


@dataclass(frozen=True)
class RoundRow:
    round_number: int
    verdict: str | None
    blocker_count: int
    suggestion_count: int
    should_fix_count: int
    final_md_path: str | None
    parsed_at: str | None
    source: str | None
    reviewer_count: int
    total_finding_count: int
    outputs: tuple[OutputRow, ...]
    progress: tuple[str, str] | None = None  # user_round_progress (status, updated_at)

    @property
    def findings(self) -> list[FindingRow]:
        return [f for o in self.outputs for f in o.findings]


# The dashboard's reviewer parser (parsers/reviewer-parser.ts), but `\b` after the heading
# word: upstream's regex also takes `## Findings` for a finding titled "s".
_HEADING = re.compile(r"^#{2,3}\s+(?:Finding|Issue|Suggestion)\b\s*(?:\d+)?\s*[:\s]*\s*(.*)", re.I)
_SEVERITY = re.compile(r"\*?\*?Severity\*?\*?\s*:?\s*(critical|high|medium|low|info)", re.I)
_FILE = re.compile(r"^[-\s]*\*?\*?(?:File|Location)\*?\*?\s*:\s*`?([^`\n]+)`?", re.I)
_LINES = re.compile(r"^[-\s]*\*?\*?Lines?\*?\*?\s*:\s*L?(\d+)(?:\s*[-–]\s*L?(\d+))?", re.I)
_EMBEDDED = re.compile(r"[:\s]+L?(\d+)(?:\s*[-–]\s*L?(\d+))?\s*$")
_METADATA = re.compile(r"^[-\s]*\*?\*?(?:Severity|Location|File|Lines?)\*?\*?\s*:", re.I)
_ANY_HEADING = re.compile(r"^#{2,3}\s")


def parse_reviewer(text: str) -> list[dict]:
    """Findings of a reviewer file as the dashboard parses them: title, severity (info when
    none), file_path, line_start, line_end, summary (the finding's other lines), is_blocker
    (critical)."""
    out: list[dict] = []
    cur: dict | None = None
    summary: list[str] = []

    def done() -> None:
        while summary and summary[-1] == "":
            summary.pop()
        severity = cur.get("severity") or "info"  # type: ignore[union-attr]
        out.append(
            {
                "title": cur["title"],  # type: ignore[index]
                "severity": severity,
                "file_path": cur.get("file_path"),  # type: ignore[union-attr]
                "line_start": cur.get("line_start"),  # type: ignore[union-attr]
                "line_end": cur.get("line_end"),  # type: ignore[union-attr]
                "summary": "\n".join(summary).strip(),
                "is_blocker": severity == "critical",
            }
        )

    for line in text.split("\n"):
        if m := _HEADING.match(line):
            if cur and cur["title"]:
                done()
            cur, summary = {"title": m[1].strip()}, []
            continue
        if _ANY_HEADING.match(line) and cur and cur["title"]:
            done()
            cur, summary = None, []
            continue
        if cur is None:
            continue
        m = _SEVERITY.search(line)
        if m and "severity" not in cur:
            cur["severity"] = m[1].lower()
            continue
        m = _FILE.match(line)
        if m and "file_path" not in cur:
            path = m[1].strip()
            lines = _EMBEDDED.search(path)
            if lines and "line_start" not in cur:
                cur["line_start"] = int(lines[1])
                cur["line_end"] = int(lines[2]) if lines[2] else cur["line_start"]
            path = _EMBEDDED.sub("", path, count=1).strip()
            if path:
                cur["file_path"] = path
            continue
        m = _LINES.match(line)
        if m and "line_start" not in cur:
            cur["line_start"] = int(m[1])
            cur["line_end"] = int(m[2]) if m[2] else cur["line_start"]
            continue
        trimmed = line.strip()
        if trimmed and not _METADATA.match(trimmed):
            summary.append(trimmed)
        elif not trimmed and summary:
            summary.append("")
    if cur and cur["title"]:
        done()
    return out


# The dashboard's final.md parser (parsers/final-parser.ts): verdict and section counts.
_VERDICT = re.compile(r"^\*?\*?\s*(?:##\s*)?Verdict\s*\*?\*?\s*:?\s*\*?\*?\s*(.*)", re.I | re.M)
_COUNT = {
    "blockers": (r"^\*\*Blockers?\*\*\s*:?\s*(\d+)", r"^##\s+Blockers?\b"),
    "should_fix": (r"^\*\*Should\s*Fix\*\*\s*:?\s*(\d+)", r"^##\s+Should\s*Fix\b"),
    "suggestions": (r"^\*\*Suggestions?\*\*\s*:?\s*(\d+)", r"^##\s+Suggestions?\b"),
}


def _section_items(text: str, heading: str) -> int:
    m = re.search(heading, text, re.I | re.M)
    if not m:
        return 0
    n = 0
    for line in text[m.end() :].split("\n"):
        s = line.strip()
        if re.match(r"^##\s+[^#]", s) or re.match(r"^---+\s*$", s):
            break
        if re.match(r"^###\s+\d+\.", s) or re.match(r"^###\s+[^\w\s#]", s, re.A):
            n += 1
        elif re.match(r"^-\s+\S", s) and not re.match(r"^-\s+(?:none\b|no\s|n/a\b)", s, re.I):
            n += 1
    return n


def parse_final(text: str) -> tuple[str | None, dict[str, int]]:
    """(verdict, {blockers, should_fix, suggestions}) as the dashboard reads final.md."""
    m = _VERDICT.search(text)
    verdict = re.sub(r"^\*+|\*+$", "", m[1].strip()).strip() if m else None
    counts = {}
    for name, (explicit, heading) in _COUNT.items():
        c = re.search(explicit, text, re.I | re.M)
        counts[name] = int(c[1]) if c else _section_items(text, heading)
    return verdict, counts


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
    final_at = _sql(rnd.final[1]) if rnd.final else None
    meta = rnd.meta[0] if rnd.meta else None
    if rnd.meta and _valid_meta(meta):
        at = _sql(rnd.meta[1])
        outputs = [_meta_output(r, f"{rdir}/reviews", at) for r in meta["reviewers"]]
        covered = {f"{o.reviewer_type}-{o.instance_number}" for o in outputs}
        outputs += [  # a reviewer file round-meta.json does not list keeps its parsed rows
            _parsed_output(name, text, f"{rdir}/reviews", _sql(t))
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
        _parsed_output(name, text, f"{rdir}/reviews", _sql(t))
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
                f = replace(f, triage=(got[0], _sql(got[1] + timedelta(seconds=k))))
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
        progress = (status, _sql(hi)) if status else None
        out.append(replace(row, outputs=outputs, progress=progress))
    return out


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


# --- writing -----------------------------------------------------------------------------


def forget(con: sqlite3.Connection, sid: str) -> None:
    """Remove the session's rows from the five tables (a re-run over an old tree; nothing
    cascades without `PRAGMA foreign_keys`)."""
    rounds = "SELECT id FROM review_rounds WHERE session_id = ?"
    if not con.execute(f"{rounds} LIMIT 1", (sid,)).fetchone():
        return  # the usual case: nothing to scan the other tables for
    outputs = f"SELECT id FROM reviewer_outputs WHERE round_id IN ({rounds})"
    findings = f"SELECT id FROM review_findings WHERE reviewer_output_id IN ({outputs})"
    con.execute(f"DELETE FROM user_finding_progress WHERE finding_id IN ({findings})", (sid,))
    con.execute(f"DELETE FROM review_findings WHERE id IN ({findings})", (sid,))
    con.execute(f"DELETE FROM reviewer_outputs WHERE id IN ({outputs})", (sid,))
    con.execute(f"DELETE FROM user_round_progress WHERE round_id IN ({rounds})", (sid,))
    con.execute("DELETE FROM review_rounds WHERE session_id = ?", (sid,))


def write(con: sqlite3.Connection, sid: str, rows: Sequence[RoundRow]) -> None:
    """Put session `sid`'s rows into `con` (an autocommit connection, as DbStore's): the
    tables and their schema_version entries made if missing, the session's old rows
    replaced. The session's clicks are inserted in time order (their ids follow its clock)."""
    if not rows:
        return
    con.executescript(SCHEMA)
    con.execute("BEGIN")
    try:
        forget(con, sid)
        clicks: list[tuple[str, int, str]] = []
        marks: list[tuple[str, int, str]] = []
        for r in rows:
            round_id = con.execute(
                "INSERT INTO review_rounds (session_id, round_number, verdict, blocker_count, "
                "suggestion_count, should_fix_count, final_md_path, parsed_at, source, "
                "reviewer_count, total_finding_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (sid, r.round_number, r.verdict, r.blocker_count, r.suggestion_count,
                 r.should_fix_count, r.final_md_path, r.parsed_at, r.source, r.reviewer_count,
                 r.total_finding_count),
            ).lastrowid  # fmt: skip
            for o in r.outputs:
                output_id = con.execute(
                    "INSERT INTO reviewer_outputs (round_id, reviewer_type, instance_number, "
                    "file_path, finding_count, parsed_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (round_id, o.reviewer_type, o.instance_number, o.file_path,
                     o.finding_count, o.parsed_at),
                ).lastrowid  # fmt: skip
                for f in o.findings:
                    finding = con.execute(
                        "INSERT INTO review_findings (reviewer_output_id, title, severity, "
                        "file_path, line_start, line_end, summary, is_blocker, parsed_at, "
                        "category) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (output_id, f.title, f.severity, f.file_path, f.line_start,
                         f.line_end, f.summary, int(f.is_blocker), f.parsed_at, f.category),
                    ).lastrowid  # fmt: skip
                    if f.triage:
                        clicks.append((f.triage[1], finding, f.triage[0]))  # type: ignore[arg-type]
            if r.progress:
                marks.append((r.progress[1], round_id, r.progress[0]))  # type: ignore[arg-type]
        con.executemany(
            "INSERT INTO user_finding_progress (finding_id, status, updated_at) VALUES (?, ?, ?)",
            [(fid, status, at) for at, fid, status in sorted(clicks)],
        )
        con.executemany(
            "INSERT INTO user_round_progress (round_id, status, updated_at) VALUES (?, ?, ?)",
            [(rid, status, at) for at, rid, status in sorted(marks)],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
