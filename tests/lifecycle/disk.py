"""What the files on disk support at a step of an OCR lifecycle, read simply and apart from
ocr-tui's readers (the ground truth the surfaces are held to): the stored state (state.json
or ocr.db, read with sqlite3), which round and map-run directories exist, which reviewer files,
syntheses and verdicts are written, and what OCR's own dashboard would count on those files
(its reviewer parser's `isBlocker = severity === 'critical'`, counted per reviewer row, and
round-meta.json's `category: blocker` rows; ocr-format.md §4.3, §8)."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

SEVERITIES = ("critical", "high", "medium", "low", "info")
# (`\b`: not the `## Findings` section's title, which OCR's dashboard's parser takes for one)
_HEADING = re.compile(r"(?i)^#{2,3}\s+(?:Finding|Issue|Suggestion)\b\s*(?:\d+)?\s*[:\s]*\s*(.*)")
_SEVERITY = re.compile(r"(?i)\*?\*?Severity\*?\*?\s*:?\s*(critical|high|medium|low|info)")
_PLACE = re.compile(r"(?i)^[-\s]*\*?\*?(?:File|Location)\*?\*?\s*:\s*`?([^`\n]+)`?")
_LINE_TAIL = re.compile(r"[:\s]+L?\d+(?:\s*[-–]\s*L?\d+)?\s*$")
_VERDICT = re.compile(r"(?im)^\*?\*?\s*(?:##\s*)?Verdict\s*\*?\*?\s*:?\s*\*?\*?\s*(.*)")
_EXPLICIT_BLOCKERS = re.compile(r"(?im)^\s*(?:[-*+]\s+)?\*\*\s*blockers?\s*:?\s*\*\*\s*:?\s*(\d+)")
_NOT_AN_ITEM = re.compile(r"(?i)^(?:none\b|no\s|n/a\b)")
FindingId = tuple[str, str]  # (title, file), lower-cased: a finding across reviewers


def parse_ts(text: str | None) -> datetime | None:
    """state.json's `2026-03-10T12:00:00Z` or ocr.db's `2026-03-10 12:00:00` (UTC)."""
    if not text:
        return None
    return datetime.fromisoformat(text.replace("Z", "").replace(" ", "T")).replace(tzinfo=UTC)


def reviewer_findings(text: str) -> list[tuple[str, str, str]]:
    """(title, file, severity) of each finding in a reviewer file, as OCR's dashboard's
    reviewer parser reads them (`##`/`###` Finding headings; no severity: info)."""
    out: list[tuple[str, str, str]] = []
    current: dict | None = None
    for line in text.splitlines():
        head = _HEADING.match(line)
        if head or re.match(r"^#{2,3}\s", line):
            if current:
                out.append((current["title"], current.get("file", ""), current.get("sev", "info")))
            current = {"title": head.group(1).strip()} if head else None
            continue
        if current is None:
            continue
        if (sev := _SEVERITY.search(line)) and "sev" not in current:
            current["sev"] = sev.group(1).lower()
        elif (place := _PLACE.match(line)) and "file" not in current:
            current["file"] = _LINE_TAIL.sub("", place.group(1).strip()).strip()
    if current:
        out.append((current["title"], current.get("file", ""), current.get("sev", "info")))
    return out


def section_items(text: str, name: str) -> int:
    """How many items final.md lists under `## {name}`: `### 1. …` / `### 1) …` and `###`
    emoji headings, bullets, and ordered lists (`1. …`), not `- None` / `- No …` / `- N/A`,
    up to the next `##` heading or `---` line."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines)
                  if re.match(rf"(?i)^##\s+[^\w]*\s*{name}\b", ln.strip())), None)  # fmt: skip
    if start is None:
        return 0
    count = 0
    for line in lines[start + 1 :]:
        s = line.strip()
        if re.match(r"^##\s+[^#]", s) or re.match(r"^---+\s*$", s):
            break
        if re.match(r"^###\s+(?:\d+[.)]|[^\w\s#])", s):
            count += 1
        elif (m := re.match(r"^(?:[-*+]|\d+[.)])\s+(\S.*)$", line)) and not line[0].isspace():
            count += not _NOT_AN_ITEM.match(m.group(1).strip("*_\"'"))
    return count


@dataclass
class RoundTruth:
    number: int
    reviewers: list[str]  # reviewer file stems, sorted
    final: str | None  # final.md's text
    meta: dict | None  # a valid round-meta.json (schema 1, a verdict, reviewers)
    recorded_done: bool  # ocr.db: a round_completed event for it
    # (reviewer, title, file, severity) of every finding each reviewer reported
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.final is not None or self.meta is not None or self.recorded_done

    @property
    def started(self) -> bool:
        """Is any of what its findings are read from in yet?"""
        return bool(self.reviewers) or self.meta is not None or self.final is not None

    @property
    def verdict(self) -> str | None:
        if self.meta is not None:
            return str(self.meta["verdict"])
        if self.final is None:
            return None
        m = _VERDICT.search(self.final)
        return m.group(1).strip().strip("*").strip() or None if m else None

    @property
    def findings(self) -> dict[FindingId, str]:
        """Distinct findings (title and file) and the gravest severity any reviewer gave."""
        out: dict[FindingId, str] = {}
        for _, title, file, sev in self.rows:
            key = (title.lower(), file.lower())
            if key not in out or SEVERITIES.index(sev) < SEVERITIES.index(out[key]):
                out[key] = sev
        return out

    @property
    def blocker_ids(self) -> set[FindingId]:
        """Critical findings, round-meta.json's `blocker` ones and final.md's Blockers titles."""
        ids = {k for k, sev in self.findings.items() if sev == "critical"}
        for r in (self.meta or {}).get("reviewers", []):
            for f in r.get("findings", []):
                if f.get("category") == "blocker":
                    ids.add((f["title"].lower(), f.get("file_path", "").lower()))
        named = {t.lower() for t in final_blocker_titles(self.final or "")}
        return ids | {k for k in self.findings if k[0] in named}

    @property
    def synthesis_blockers(self) -> int:
        """The blockers the synthesis counts: round-meta.json's synthesis_counts, final.md's
        explicit `**Blockers**: N`, else its Blockers items."""
        counts = [int(self.meta["synthesis_counts"].get("blockers", 0))] if self.meta else []
        if self.final is not None:
            m = _EXPLICIT_BLOCKERS.search(self.final)
            counts.append(int(m.group(1)) if m else section_items(self.final, "blockers?"))
        return max(counts, default=0)

    @property
    def blockers_floor(self) -> int:
        """The fewest blockers a surface may show: distinct critical findings, and once the
        synthesis is written, never fewer than it counts."""
        critical = sum(1 for sev in self.findings.values() if sev == "critical")
        return max(critical, self.synthesis_blockers if self.complete else 0)

    @property
    def ocr_dashboard_blockers(self) -> int | None:
        """What OCR's web dashboard stores as the round's blocker_count on these files:
        round-meta.json's `blocker` findings, every reviewer's row counted (the orchestrator
        path), else, once final.md is parsed, its critical reviewer-file rows (the parser
        path's recount). None before either is written."""
        if self.meta is not None:
            return sum(f.get("category") == "blocker"
                       for r in self.meta["reviewers"] for f in r.get("findings", []))  # fmt: skip
        if self.final is not None:
            return sum(1 for *_, sev in self.rows if sev == "critical")
        return None

    @property
    def ocr_dashboard_distinct_blockers(self) -> int | None:
        """The findings among OCR's dashboard's blocker rows (`ocr_dashboard_blockers`), each
        once: a finding several reviewers raised is one finding with all of them in ocr-tui,
        where OCR's dashboard keeps a row per reviewer (a deliberate difference, README)."""
        if self.meta is not None:
            return len({
                (f["title"].lower(), f.get("file_path", "").lower())
                for r in self.meta["reviewers"] for f in r.get("findings", [])
                if f.get("category") == "blocker"
            })  # fmt: skip
        if self.final is not None:
            return len({(t.lower(), f.lower()) for _, t, f, sev in self.rows if sev == "critical"})
        return None


def final_blocker_titles(text: str) -> list[str]:
    """The titles of final.md's Blockers items written as `### 1. Title` or `1. Title (…)`."""
    out, inside = [], False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("## "):
            inside = bool(re.match(r"(?i)^##\s+[^\w]*\s*blockers?\b", s))
            continue
        m = re.match(r"^(?:###\s+)?\d+[.)]\s+(.*?)(?:\s+\([^)]*\))?$", s) if inside else None
        if m:
            out.append(m.group(1).strip())
    return out


@dataclass
class SessionTruth:
    sid: str
    store: str
    state: dict  # the stored session columns (state.json's keys, ocr.db's sessions row)
    rounds: dict[int, RoundTruth]
    runs: dict[int, bool]  # map run number -> complete (map.md, map-meta.json, map_completed)
    events: list[tuple[str, str | None, int | None, datetime]]  # type, phase, round, at
    agents: list[datetime | None]  # running agent commands' heartbeats
    newest_write: datetime | None  # the newest file time of the session

    @property
    def running(self) -> bool:
        return (
            self.state.get("status") == "active" and self.state.get("current_phase") != "complete"
        )

    @property
    def workflow(self) -> str:
        return str(self.state.get("workflow_type") or "review")

    @property
    def current(self) -> RoundTruth | None:
        return self.rounds.get(int(self.state.get("current_round") or 1))

    def last_activity(self) -> datetime | None:
        updated = parse_ts(self.state.get("updated_at"))
        return max((t for t in (updated, self.newest_write) if t is not None), default=None)

    def session_seconds(self, now: datetime) -> int:
        start = parse_ts(self.state["started_at"])
        end = now if self.running else parse_ts(self.state["updated_at"])
        return int((end - start).total_seconds())

    def unit_start(self) -> datetime | None:
        """When the current round (or map run) began, as the store records it."""
        if self.workflow == "map":
            if self.store == "state.json":
                return parse_ts(self.state.get("map_started_at"))
            review = {"reviews", "aggregation", "discourse", "change-context", "analysis"}
            moves = [(t, p) for kind, p, _, t in self.events if kind == "phase_transition"]
            last_review = max((t for t, p in moves if p in review), default=None)
            return min((t for t, p in moves if p and p.startswith("map-") and
                        (last_review is None or t >= last_review)), default=None)  # fmt: skip
        number = int(self.state.get("current_round") or 1)
        if self.store == "state.json":
            return parse_ts(self.state.get("round_started_at") or self.state.get("started_at"))
        kinds = ("round_started",) if number > 1 else ("session_created",)
        return max((t for kind, _, rnd, t in self.events if kind in kinds and
                    (number == 1 or rnd == number)), default=None)  # fmt: skip


def read_truth(root: Path, sid: str, store: str) -> SessionTruth:
    sdir = root / ".ocr" / "sessions" / sid
    events: list = []
    agents: list = []
    if store == "state.json":
        state = json.loads((sdir / "state.json").read_text())
    else:
        state, events, agents = _db(root / ".ocr" / "data" / "ocr.db", sid)
    done = {rnd for kind, _, rnd, _ in events if kind == "round_completed"}
    rounds = {}
    for rdir in sorted((sdir / "rounds").glob("round-*")):
        number = int(rdir.name.split("-")[1])
        reviewers = sorted(p.stem for p in (rdir / "reviews").glob("*.md"))
        meta = _meta(rdir / "round-meta.json")
        final = (rdir / "final.md").read_text() if (rdir / "final.md").exists() else None
        rnd = RoundTruth(number, reviewers, final, meta, number in done)
        if meta is not None:
            rnd.rows = [(f"{r['type']}-{r['instance']}", f["title"], f.get("file_path", ""),
                         f.get("severity") or "info")
                        for r in meta["reviewers"] for f in r.get("findings", [])]  # fmt: skip
        else:
            rnd.rows = [
                (name, *f)
                for name in reviewers
                for f in reviewer_findings((rdir / "reviews" / f"{name}.md").read_text())
            ]
        rounds[number] = rnd
    mapped = {rnd for kind, _, rnd, _ in events if kind == "map_completed"}
    runs = {}
    for run in sorted((sdir / "map" / "runs").glob("run-*")):
        number = int(run.name.split("-")[1])
        runs[number] = any((run / n).exists() for n in ("map.md", "map-meta.json")) or (
            number in mapped
        )
    times = [p.stat().st_mtime for p in sdir.rglob("*") if p.is_file()]
    newest = datetime.fromtimestamp(max(times), UTC) if times else None
    return SessionTruth(sid, store, state, rounds, runs, events, agents, newest)


def _meta(path: Path) -> dict | None:
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    ok = (
        meta.get("schema_version") == 1
        and meta.get("verdict")
        and isinstance(meta.get("reviewers"), list)
    )
    return meta if ok else None


def _db(path: Path, sid: str) -> tuple[dict, list, list]:
    con = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    con.row_factory = sqlite3.Row
    try:
        row = con.execute("SELECT * FROM sessions WHERE id = ?", (sid,)).fetchone()
        events = [
            (e["event_type"], e["phase"], e["round"], parse_ts(e["created_at"]))
            for e in con.execute(
                "SELECT * FROM orchestration_events WHERE session_id = ? ORDER BY id", (sid,)
            )
        ]
        agents = [
            parse_ts(a["last_heartbeat_at"])
            for a in con.execute(
                "SELECT last_heartbeat_at FROM command_executions"
                " WHERE workflow_id = ? AND finished_at IS NULL",
                (sid,),
            )
        ]
    finally:
        con.close()
    return dict(row), events, agents
