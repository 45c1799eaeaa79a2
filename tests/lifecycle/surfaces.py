"""One fact extractor per surface: each returns a plain dict of what that surface says of one
session at one moment, read from what it prints or draws (the pure functions each screen draws
with), with "—" and absent values as None. Keys are shared, so `checks_ocr.py` and
`checks_other.py` compare the same fact across surfaces: `state` (the glyph), `position`
(`4/8`), `label`, `unit` (`R2`, `M1`), `reviewers`, `findings`, `blockers`, `verdict`,
`change` (`+2 ?3`), `elapsed`, `round_time`, `stalled`, `agents`, `needs`. A surface that does
not show a fact (a column given way, a pane without it) leaves the key out. Attributes the
model may change (an `Evolution`'s `pending`, a `resolved` of None) are read with defaults."""

from __future__ import annotations

import contextlib
import io
import json
import re
from datetime import datetime
from pathlib import Path

from rich.style import Style

from ocr_tui import status_text
from ocr_tui.cli import main as cli_main
from ocr_tui.core import display
from ocr_tui.core.reviews import review_rows, summary
from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.session import cells as session_cells
from ocr_tui.ui.screens.sessions import cells as list_cells
from ocr_tui.ui.screens.sessions import detail_pane

DASH = "—"
STALL_AFTER = 1800.0  # the default --stall-after, as every surface here is built with


def _none(text: str | None) -> str | None:
    text = (text or "").strip()
    return None if text in ("", DASH) else text


def _int(text: str | None) -> int | None:
    text = _none(text)
    return int(text) if text is not None and text.isdigit() else None


def change_words(evolution: dict | None) -> str | None:
    """An evolution (status --json's) in the Rounds table's marks, written here from the
    README's words: `+new`, `−resolved` once complete, `?pending` before, `=` neither."""
    if not evolution:
        return None
    parts = [f"+{evolution['new']}"] if evolution["new"] else []
    if evolution.get("resolved") is None and evolution.get("pending"):
        parts.append(f"?{evolution['pending']}")
    elif evolution.get("resolved"):
        parts.append(f"−{evolution['resolved']}")
    return " ".join(parts) or "="


# --- status --json -------------------------------------------------------------------------


def json_glyph(v: dict) -> str:
    """The state a session's JSON supports, by the README's precedence (the JSON has no
    glyph): problem, waiting on you, stalled, alert (or a stale agent), closed, finished,
    running."""
    live = v["status"] != "closed"
    if v["problems"]:
        return "✗"
    if v["waiting"] and live:
        return "◆"
    if v["stalled"] and live:
        return "⚠"
    if v["alerts"] or (live and any(a.get("stale") for a in v["agents"])):
        return "!"
    if not live:
        return "✓"
    return "◐" if v["complete"] else "●"


def from_json(doc: dict, sid: str) -> dict:
    v = next(s for s in doc["sessions"] if s["id"] == sid)
    current = next((s["number"] for s in v["timeline"] if s["state"] == "current"), None)
    number = current if current is not None else v["phase_number"]
    facts: dict = {
        "state": json_glyph(v),
        "position": f"{number}/{v['phase_total']}" if v["phase_total"] else None,
        "label": v["phase_label"],
        "phase_key": v["phase"],
        "status": v["status"],
        "stalled": v["stalled"],
        "elapsed_s": v["session_seconds"],
        "problems": v["problems"],
        "agents": _agents_words(v["agents"]) if v["framework"] == "ocr" else _none(v["summary"]),
        "needs": "your approval" if v["waiting"] else (v["alerts"][0] if v["alerts"] else None),
    }
    if v["framework"] != "ocr":
        return facts
    is_map = v["workflow"] == "map"
    unit = v["current_map_run"] if is_map else v["current_round"]
    facts["unit"] = f"{'M' if is_map else 'R'}{unit}" if unit else None
    rnd = next((r for r in v["rounds"] if r["number"] == v["current_round"]), None)
    last = v["rounds"][-1] if v["rounds"] else None
    facts["latest"] = None if last is None else {
        "number": last["number"], "complete": last["complete"], "findings": last["findings"],
        "blockers": last["blockers"], "evolution": last.get("evolution"),
        "open_blockers": last.get("open_blockers"),
    }  # fmt: skip
    run = next((r for r in v["map_runs"] if r["number"] == v["current_map_run"]), None)
    facts["map_run_complete"] = None if run is None else run["complete"]
    if is_map or rnd is None:
        facts.update(reviewers=None, findings=None, verdict=None)
        return facts
    evo = rnd.get("evolution")
    facts.update(
        reviewers=len(rnd["reviewers"]), findings=rnd["findings"], blockers=rnd["blockers"],
        verdict=rnd["verdict"], complete=rnd["complete"], change=change_words(evo),
        evolution=None if evo is None else {k: evo.get(k) for k in ("new", "open", "resolved",
                                                                      "pending")},
    )  # fmt: skip
    return facts


def _agents_words(agents: list[dict]) -> str | None:
    stale = sum(1 for a in agents if a.get("stale"))
    running = len(agents) - stale
    words = [f"{running} running"] if running else []
    return " · ".join(words + ([f"{stale} stale"] if stale else [])) or None


# --- the session list's row ----------------------------------------------------------------


def _phase_parts(text: str) -> tuple[str | None, str]:
    """`▰▰▱▱ 4/8 Parallel Reviews` (or without the bar) → (`4/8`, `Parallel Reviews`)."""
    m = re.match(r"^[▰▱\s]*(\d+|\?)/(\d+)\s+(.*)$", text.strip())
    return (f"{m[1]}/{m[2]}", m[3].strip()) if m else (None, text.strip())


def from_list_row(view: SessionView, now: datetime) -> dict:
    return list_facts({k: "".join(t for t, _ in c)
                       for k, c in list_cells.row_cells(view, now).items()})  # fmt: skip


def list_facts(cells: dict[str, str]) -> dict:
    """A list row's facts from its cells' texts (column key → text)."""
    position, label = _phase_parts(cells["phase"])
    return {
        "state": cells["state"], "position": position, "label": label,
        "unit": _none(cells["round"]), "reviewers": _int(cells["reviewers"]),
        "findings": _int(cells["findings"]), "verdict": _none(cells["verdict"]),
        "agents": _none(cells["agents"]), "needs": _none(cells["needs"]),
        "elapsed": cells["elapsed"], "round_time": cells["round_time"],
    }  # fmt: skip


# --- status (the table, --oneline) ---------------------------------------------------------

_HEADERS = ("PROJECT", "SESSION", "STATUS", "FMT", "FLOW", "PHASE", "RND", "REV", "FIND",
            "VERDICT", "AGENTS", "NEEDS", "ROUND TIME", "ELAPSED", "STARTED",
            "ACTIVITY")  # fmt: skip


def table_rows(views: list[SessionView], width: int | None, now: datetime) -> list[dict]:
    """`status`' table as printed at `width`, cut back into cells by its header's columns:
    one dict (header → cell) per session, in `views`' order."""
    lines = status_text.table(views, width, now).splitlines()
    head = lines[0]
    starts = sorted((m.start(), name) for name in _HEADERS
                    if (m := re.search(rf"(?<!\S){name}(?!\S)", head)))  # fmt: skip
    rows = []
    for line in lines[1 : 1 + len(views)]:
        cells = {}
        for i, (at, name) in enumerate(starts):
            end = starts[i + 1][0] if i + 1 < len(starts) else None
            cells[name] = line[at:end].strip()
        rows.append(cells)
    return rows


def from_status_row(cells: dict) -> dict:
    facts: dict = {}
    if "STATUS" in cells:
        facts["state"] = cells["STATUS"][:1]
        facts["stalled"] = cells["STATUS"][:1] == "⚠" or "stalled" in cells["STATUS"]
        facts["agent_stale_words"] = "stale" in cells["STATUS"]  # `! stale agent`
    if "PHASE" in cells:
        facts["position"], facts["label"] = _phase_parts(cells["PHASE"])
    for key, name in (
        ("unit", "RND"),
        ("verdict", "VERDICT"),
        ("agents", "AGENTS"),
        ("needs", "NEEDS"),
        ("elapsed", "ELAPSED"),
        ("round_time", "ROUND TIME"),
    ):
        if name in cells:
            facts[key] = _none(cells[name]) if key not in ("elapsed", "round_time") else cells[name]
    for key, name in (("reviewers", "REV"), ("findings", "FIND")):
        if name in cells:
            facts[key] = _int(cells[name])
    return facts


def from_oneline(views: list[SessionView], width: int | None, now: datetime) -> dict:
    """The one line of the session it picks (the newest running, else the newest)."""
    line = status_text.oneline(views, width, now)
    facts: dict = {"line": line, "state": line[:1]}
    if m := re.search(r" · (R\d+|M\d+)(?: ·|$)", line):
        facts["unit"] = m[1]
    if m := re.search(r" · (\d+|—) findings", line):
        facts["findings"] = _int(m[1])
    if m := re.search(r" · (\d+) reviewers?", line):
        facts["reviewers"] = int(m[1])
    return facts


# --- the detail pane -----------------------------------------------------------------------


def from_detail_pane(view: SessionView, now: datetime) -> dict:
    text = detail_pane.rounds_content(view).plain
    runs = re.findall(r"^Run (\d+) (?:\(\S+\) )?\S (.*?) · ", text, re.M)
    run_states = {int(n): state for n, state in runs}
    rounds = None
    if view.framework == "ocr" and not display.is_map(view) and view.current is not None:
        rounds = detail_pane.rounds_content(view).plain
    facts = pane_facts(
        detail_pane.info_content(view, now, STALL_AFTER).plain,
        detail_pane.clock_content(view, now).plain,
        rounds, view.current.number if view.current else None,
    )  # fmt: skip
    return facts | {"run_states": run_states}


def pane_facts(info: str, clock: str | None, rounds: str | None, number: int | None) -> dict:
    """The detail pane's facts from its Session text (`info`), its clock and (a review
    session's) Rounds text, whose round `number` is the current one."""
    status = re.search(r"^status\s+(\S)\s*(.*)$", info, re.M)
    facts: dict = {
        "state": status[1] if status else None,
        "stalled": bool(status and "stalled" in status[2]),
        "agent_stale_words": bool(status and "agent command went stale" in status[2]),
    }
    if clock is not None:
        facts["elapsed"] = re.search(r"^elapsed\s+(\S+)", clock, re.M)[1]
    if m := re.search(r"^phase\s+[▰▱]*\s*(\S+/\d+)", info, re.M):
        facts["position"] = m[1]
    if rounds is None or number is None:
        return facts
    lines = rounds.splitlines()
    at = next((i for i, ln in enumerate(lines) if ln.startswith(f"R{number} ")), None)
    if at is None:
        return facts
    m = re.match(rf"^R{number} (?:\(\S+\) )?(\S) (.*?) · (\d+) reviewers? · (.*)$", lines[at])
    found = m[4]
    words = m[2]
    facts.update(
        round_state=words, reviewers=int(m[3]),
        verdict=None if words in ("in progress", "done", "stopped") else words,
        findings=int(found.split()[0]) if found[0].isdigit() else None,
    )  # fmt: skip
    below = lines[at + 1] if at + 1 < len(lines) else ""
    if below.startswith("   "):
        b = below.split(" · ")[0].strip()
        facts["blockers"] = int(b.split()[0]) if b[0].isdigit() else None
    return facts


# --- the session screen --------------------------------------------------------------------


def _style(*_args, **_kw) -> Style:
    return Style()


def from_session_screen(view: SessionView, now: datetime) -> dict:
    meta = session_cells.meta_content(view, now, STALL_AFTER).plain
    facts: dict = {
        "stalled": "stalled:" in meta,
        "elapsed_ticking": re.search(r"elapsed (.+?)(?: \(| ·|$)", meta, re.M)[1],
    }
    if m := re.search(r"phase [▰▱]*\s*(\S+/\d+) (.*?)(?: · |$)", meta, re.M):
        facts["position"], facts["label"] = m[1], m[2]
    trend = session_cells.trend_content(view)
    facts["trend"] = trend.plain if trend is not None else None
    if view.framework != "ocr" or view.current is None:
        return facts
    rows = dict(session_cells.round_rows(view, _style))
    label, revs, found, counts, verdict, _bar = (c.plain for c in rows[view.current.path])
    words = found.split()
    facts.update(
        current_mark="▶" in label, reviewers_all=int(revs),
        findings_all=_int(words[0]), change_all=" ".join(words[1:]) or None,
        blockers_all=_int(counts.split(" / ")[0]) if counts != DASH else "no counts",
        verdict_all=verdict.split("\n")[0],
    )  # fmt: skip
    return facts


# --- findings --json (the CLI, in-process) ---------------------------------------------------


def from_findings_cli(root: Path, sid: str) -> dict:
    """`ocr-tui findings ROOT --session SID --json --fail-on blocker`: its counts, the
    findings' evolution labels, its gate and exit status."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(["findings", str(root), "--session", sid, "--json", "--fail-on",
                         "blocker"])  # fmt: skip
    if code == 2:
        return {"exit": code, "error": err.getvalue().strip()}
    doc = json.loads(out.getvalue())
    labels: dict[str, int] = {}
    for f in doc["findings"]:
        labels[f["evolution"] or "none"] = labels.get(f["evolution"] or "none", 0) + 1
    counts = doc["counts"]
    own = sum(n for k, n in labels.items() if k not in ("resolved", "pending"))
    return {
        "exit": code, "round": doc["round"], "complete": doc.get("complete"),
        "own": own, "severity_total": sum(counts.get(s) or 0 for s in
                                          ("critical", "high", "medium", "low", "info")),
        "blockers": counts.get("blockers"), "resolved": counts.get("resolved"),
        "pending": counts.get("pending"), "labels": labels,
        "gate": doc.get("gate", {}).get("result"), "stderr": err.getvalue().strip(),
    }  # fmt: skip


# --- the Reviews view ----------------------------------------------------------------------


def from_reviews(views: list[SessionView], sid: str, number: int | None) -> dict:
    rows = [r for r in review_rows(views) if r.session_id == sid and r.number == number]
    facts: dict = {"summary_open_blockers": summary(views).open_blockers}
    if rows:
        r = rows[0]
        facts.update(verdict=r.verdict, blockers=r.blockers, running=r.running,
                     open_blockers=r.open_blockers)  # fmt: skip
    return facts
