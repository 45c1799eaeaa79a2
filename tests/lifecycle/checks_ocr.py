"""The agreement checks of an OCR session at one step: each fact read from every surface
(`surfaces.py`) must be the same, and what the files on disk support (`disk.py`). A check is
named by the fact or rule it holds (`known.py` names the ones today's code fails)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import msgspec

from ocr_tui.core.columns import short_verdict
from ocr_tui.core.display import coarse_duration
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import SessionView
from ocr_tui.ui.fmt import ticking_duration

from . import surfaces as S
from .disk import SessionTruth
from .record import ABSENT, Checker

WIDTHS = (80, 100, 120, None)  # `status` at 80, 100, 120 columns; through a pipe (uncut)
HEARTBEAT_STALE_S = 60  # OCR's own default (runtime.agent_heartbeat_seconds)


@dataclass
class Moment:
    """Everything read of one session at one moment."""

    root: Path
    sid: str
    now: datetime
    truth: SessionTruth
    views: list[SessionView]  # a fresh scan: what `status` reads
    doc: dict  # `status --json`, parsed
    live: list[SessionView]  # the dashboard's engine, kept up to date by its changes
    cli: dict | None  # `findings --json --fail-on blocker` (None in a probe: time-free)


def _say(facts: dict, key: str) -> object:
    return facts.get(key, ABSENT)


def uncut(value: object, full: object) -> object:
    """A cell cut at its end (`…`) reads as the whole text it is the start of; a verdict in
    a column planned short (`CHANGES`) as the verdict it is the short form of."""
    if isinstance(value, str) and isinstance(full, str) and value.endswith("…"):
        if full.startswith(value[:-1].rstrip()):
            return full
    if isinstance(value, str) and isinstance(full, str) and value != full:
        if value == short_verdict(full):
            return full
    return value


def check_ocr(chk: Checker, m: Moment) -> None:
    view = next(v for v in m.views if v.id == m.sid)
    live = next(v for v in m.live if v.id == m.sid)
    a, b = comparable(live), comparable(view)
    chk.expect("the dashboard's engine reads what status reads", a == b, _diff(a, b))
    j = S.from_json(m.doc, m.sid)
    row = S.from_list_row(live, m.now)
    index = [v.id for v in m.views].index(m.sid)
    tables = {w: S.from_status_row(S.table_rows(m.views, w, m.now)[index]) for w in WIDTHS}
    lines = {w: S.from_oneline(m.views, w, m.now) for w in (60, None)}
    lines = {w: f for w, f in lines.items() if m.sid in lines[None]["line"]}
    pane = S.from_detail_pane(live, m.now)
    screen = S.from_session_screen(live, m.now)
    said = {"json": j, "list": row, "pane": pane, "screen": screen}
    said |= {f"status@{w or 'pipe'}": t for w, t in tables.items()}
    said |= {f"oneline@{w or 'whole'}": f for w, f in lines.items()}
    t = m.truth
    chk.expect("no problems", not any(s["problems"] for s in m.doc["sessions"]),
               str([s["problems"] for s in m.doc["sessions"]]))  # fmt: skip

    # -- the state, the phase, the unit ---------------------------------------------------------
    chk.saw(f"glyph {j['state']}")
    chk.agree("state glyph", {k: _say(f, "state") for k, f in said.items() if k != "screen"})
    chk.expect(
        "state glyph matches the files",
        j["state"] == _truth_glyph(t, m.now),
        f"json/list say {j['state']!r}, the files support {_truth_glyph(t, m.now)!r}",
    )
    chk.agree("phase position", {k: _say(f, "position") for k, f in said.items()})
    chk.agree("phase label", {k: _say(f, "label") for k, f in said.items()})
    total = 6 if t.workflow == "map" else 8
    want = (t.state["current_phase"], f"{t.state['phase_number']}/{total}")
    chk.expect("phase matches the stored state", (j["phase_key"], j["position"]) == want,
               f"json {j['phase_key']} {j['position']}, stored {want}")  # fmt: skip
    chk.agree("round or map run", {k: _say(f, "unit") for k, f in said.items()})
    unit = (f"M{t.state['current_map_run']}" if t.workflow == "map"
            else f"R{t.state['current_round']}")  # fmt: skip
    chk.expect("round or map run matches the stored state", j["unit"] == unit,
               f"json {j['unit']}, stored {unit}")  # fmt: skip

    # -- time -------------------------------------------------------------------------------------
    _check_time(chk, m, j, said, screen, tables, lines, live)

    # -- the unit's reviewers, findings, verdict -------------------------------------------
    cur = t.current
    if t.workflow == "map":
        chk.saw("a map run")
        number = int(t.state["current_map_run"])
        done = t.runs.get(number)  # None: no run directory yet
        state = pane["run_states"].get(number)
        chk.agree("map run complete matches the files", {
            "files": done, "json": j["map_run_complete"],
            "pane": None if state is None else state == "done"})  # fmt: skip
        chk.expect(
            "a map run has no verdict, reviewers or findings in the list",
            [row["verdict"], row["reviewers"], row["findings"]] == [None] * 3
            and all(tb.get("verdict") is None for tb in tables.values()),
            f"list {row['verdict']!r} {row['reviewers']!r} {row['findings']!r}",
        )
    else:
        shown = dict(said) | {
            "screen": {
                "reviewers": screen.get("reviewers_all"),
                "findings": screen.get("findings_all"),
            }
        }
        chk.agree("reviewers", {k: _say(f, "reviewers") for k, f in shown.items()})
        chk.expect("reviewers match the files", j["reviewers"] == len(cur.reviewers),
                   f"json {j['reviewers']}, files {cur.reviewers}")  # fmt: skip
        chk.agree("findings", {k: _say(f, "findings") for k, f in shown.items()})
        found = len(cur.findings) if cur.started else None
        chk.expect(
            "findings match the files",
            j["findings"] == found,
            f"json {j['findings']!r}, distinct findings in the files {found!r}",
        )
        _check_verdict(chk, j, said, screen, pane, m, cur)
    _check_latest(chk, m, j, screen, pane)
    _check_agents(chk, m, j, said)


def _truth_glyph(t: SessionTruth, now: datetime) -> str:
    if t.state.get("status") == "closed":
        return "✓"
    last = t.last_activity()
    if t.running and last is not None and (now - last).total_seconds() > S.STALL_AFTER:
        return "⚠"
    if any(b is None or (now - b).total_seconds() > HEARTBEAT_STALE_S for b in t.agents):
        return "!"
    return "●" if t.running else "◐"


def _check_time(chk, m: Moment, j, said, screen, tables, lines, live) -> None:
    t = m.truth
    seconds = t.session_seconds(m.now)
    chk.expect(
        "elapsed matches the stored times",
        j["elapsed_s"] == seconds,
        f"json session_seconds {j['elapsed_s']}, stored times give {seconds}",
    )
    coarse = coarse_duration(j["elapsed_s"])
    shown = {k: _say(f, "elapsed") for k, f in said.items() if k not in ("json", "screen")}
    chk.agree("elapsed", {"json": coarse} | {k: v for k, v in shown.items() if "oneline" not in k})
    for w, f in lines.items():
        chk.expect("elapsed", f"· {coarse}" in f["line"], f"oneline@{w}: {f['line']!r}, {coarse}")
    said_ticking = ticking_duration(seconds) if live.elapsed.running else human_duration(seconds)
    chk.expect(
        "elapsed",
        screen["elapsed_ticking"] == said_ticking,
        f"session screen {screen['elapsed_ticking']!r}, json {said_ticking!r}",
    )
    start = t.unit_start()
    if start is not None and t.running:
        unit = coarse_duration(int((m.now - start).total_seconds()))
        times = {"stored": unit, "list": said["list"]["round_time"]}
        times |= {f"status@{w or 'pipe'}": tb["round_time"] for w, tb in tables.items()
                  if "round_time" in tb}  # fmt: skip
        chk.agree("round time matches the stored round start", times)
    stalled = t.running and (m.now - t.last_activity()).total_seconds() > S.STALL_AFTER
    chk.agree(
        "stalled",
        {"files": stalled}
        | {k: _say(f, "stalled") for k, f in said.items() if k != "list" and "oneline" not in k},
    )


def _check_verdict(chk, j, said, screen, pane, m: Moment, cur) -> None:
    reviews = S.from_reviews(m.live, m.sid, cur.number)
    verdicts = {
        k: uncut(_say(f, "verdict"), j["verdict"]) for k, f in said.items() if k != "screen"
    }  # a cut cell (`REQUEST …`) reads as the verdict it starts
    verdicts["reviews"] = reviews.get("verdict", ABSENT)
    if j["verdict"] is not None:
        verdicts["screen"] = screen["verdict_all"]
    else:
        chk.expect(
            "a round without a verdict says its state",
            screen["verdict_all"] in ("in progress", "stopped", "no verdict")
            and pane["round_state"] in ("in progress", "stopped", "done"),
            f"{screen['verdict_all']!r} {pane['round_state']!r}",
        )
    chk.agree("verdict", verdicts)
    want = cur.verdict if cur.complete else None
    chk.expect("verdict matches the files", j["verdict"] == want,
               f"json {j['verdict']!r}, the files {want!r}")  # fmt: skip
    chk.expect(
        "the Reviews view runs the round while it runs",
        reviews.get("running") == (m.truth.running and not cur.complete),
        f"reviews running={reviews.get('running')}, files: session running="
        f"{m.truth.running}, round complete={cur.complete}",
    )


def _check_latest(chk, m: Moment, j, screen, pane) -> None:
    """The latest round (the one `findings` lists): its completeness, blockers, evolution,
    the gate, the Reviews view's row and the blocker trend."""
    t, latest = m.truth, j["latest"]
    if latest is None:
        return
    rnd = t.rounds[latest["number"]]
    current = latest["number"] == m.truth.state.get("current_round") and t.workflow == "review"
    chk.expect(
        "round complete matches the files",
        latest["complete"] == rnd.complete,
        f"json complete={latest['complete']}, the files support {rnd.complete}",
    )
    reviews = S.from_reviews(m.live, m.sid, latest["number"])
    blockers = {"json": latest["blockers"], "reviews": reviews.get("blockers", ABSENT)}
    if current and "blockers" in pane:
        blockers["pane"] = pane["blockers"]
    if current and screen.get("blockers_all") != "no counts":
        blockers["screen"] = screen.get("blockers_all", ABSENT)
    b = latest["blockers"]
    critical = sum(1 for s in rnd.findings.values() if s == "critical")
    if rnd.complete:
        ok = b is not None and b >= rnd.blockers_floor
    else:  # before the synthesis: what is found so far, else not known (never 0)
        ok = b is not None and b >= critical if critical else b is None
    chk.expect(
        "blockers are never fewer than the critical findings and the synthesis",
        ok,
        f"json blockers {b!r}; the files: {len(rnd.findings)} findings, critical "
        f"{critical}, synthesis "
        f"{rnd.synthesis_blockers}, complete {rnd.complete}",
    )
    ocr = rnd.ocr_dashboard_distinct_blockers
    if ocr is not None:
        chk.expect(
            "every finding OCR's dashboard counts as a blocker is a blocker here",
            (b or 0) >= ocr,
            f"json/list/Reviews say {b!r}; OCR's dashboard's blocker rows are {ocr} findings "
            f"(blocker_count {rnd.ocr_dashboard_blockers}, one per reviewer row: {_rows(rnd)})",
        )
    evo = latest.get("evolution")
    if not rnd.complete:
        chk.saw("blockers found before the synthesis" if b else "blockers not known yet")
        chk.saw("findings not re-reviewed yet" if (evo or {}).get("pending") else "a round runs")
    elif (evo or {}).get("resolved"):
        chk.saw("findings resolved")
    if m.cli is not None:
        c = m.cli
        blockers["findings --json"] = c["blockers"]
        chk.expect(
            "findings --json lists the latest round",
            c["round"] == latest["number"],
            f"findings round {c['round']}, json latest {latest['number']}",
        )
        chk.expect(
            "findings --json is complete when the round is",
            c["complete"] == rnd.complete,
            f"findings complete={c['complete']}, files {rnd.complete}",
        )
        own = latest["findings"] if latest["findings"] is not None else 0
        chk.expect(
            "findings --json counts the round's findings as status does",
            c["own"] == own == c["severity_total"]
            and (latest["findings"] is not None or not c["complete"]),
            f"findings --json lists {c['own']} of the round's own (severity counts "
            f"{c['severity_total']}), status --json says {latest['findings']!r}",
        )
        if evo is not None:
            cli_evo = {"new": c["labels"].get("new", 0), "open": c["labels"].get("open", 0),
                       "resolved": c["resolved"], "pending": c["pending"]}  # fmt: skip
            json_evo = {k: evo.get(k) for k in cli_evo}
            chk.agree("evolution", {"json": json_evo, "findings --json": cli_evo})
        chk.expect(
            "nothing is resolved before the round is complete",
            rnd.complete or (c["resolved"] is None and "resolved" not in c["labels"]),
            f"round {rnd.number} not complete; findings --json resolved={c['resolved']!r}, "
            f"labels {c['labels']}",
        )
        chk.saw(f"findings --fail-on blocker exits {c['exit']}")
        want = 1 if (latest["blockers"] or 0) > 0 else 0 if rnd.complete else 3
        chk.expect(
            "findings --fail-on blocker",
            c["exit"] == want,
            f"exit {c['exit']} ({c['gate']}), expected {want}: blockers "
            f"{latest['blockers']!r}, complete {rnd.complete}; {c['stderr']!r}",
        )
        chk.expect(
            "the gate never passes a round whose findings are not all in",
            rnd.complete or c["exit"] != 0,
            f"exit 0 on round {rnd.number} not complete",
        )
    chk.agree("blockers", blockers)
    truth_evo = _truth_evolution(t, rnd.number)
    if truth_evo is not None or evo is not None:
        got = None if evo is None else {k: evo.get(k) for k in truth_evo or evo}
        chk.agree("evolution matches the files", {"json": got, "files": truth_evo})
    if current:
        chk.agree(
            "findings change", {"json": S.change_words(evo), "screen": screen.get("change_all")}
        )
        trend = screen["trend"] or ""
        mine = next((p for p in trend.split(" → ") if p.startswith(f"R{rnd.number} ")), "")
        chk.expect(
            "the blocker trend resolves nothing before the round is complete",
            rnd.complete or "resolved" not in mine,
            f"trend {trend!r}",
        )
        says_none = ("No blockers in any round", "No blockers in this round", f"R{rnd.number} 0")
        chk.expect(
            "the blocker trend says no blockers only of rounds that know",
            rnd.complete
            or latest["blockers"] is not None
            or not any(w in trend for w in says_none),
            f"trend {trend!r}",
        )
        waiting = not rnd.complete and (evo or {}).get("pending_blockers", 0) > 0
        chk.expect(
            "the blocker trend says what is not re-reviewed yet",
            not waiting or "not re-reviewed yet" in mine,
            f"trend {trend!r}",
        )
    summary = S.from_reviews(m.live, m.sid, None)["summary_open_blockers"]
    total = sum((s["rounds"][-1].get("open_blockers") or 0) for s in m.doc["sessions"]
                if s["rounds"])  # fmt: skip
    chk.agree("unresolved blockers", {"json": total, "reviews summary": summary})


def _rows(rnd) -> str:
    crit = [f"{who}: {title}" for who, title, _, sev in rnd.rows if sev == "critical"]
    return "; ".join(crit) or "round-meta.json blocker rows"


def _truth_evolution(t: SessionTruth, number: int) -> dict | None:
    rnd, prev = t.rounds.get(number), t.rounds.get(number - 1)
    if rnd is None or prev is None:
        return None
    now, before = set(rnd.findings), set(prev.findings)
    gone = len(before - now)
    return {
        "new": len(now - before),
        "open": len(now & before),
        "resolved": gone if rnd.complete else None,
        "pending": 0 if rnd.complete else gone,
        "pending_blockers": 0 if rnd.complete else len(prev.blocker_ids - now),
    }


def _check_agents(chk, m: Moment, j, said) -> None:
    t = m.truth
    beats = t.agents if t.state.get("status") != "closed" else []
    stale = sum(1 for b in beats if b is None or (m.now - b).total_seconds() > HEARTBEAT_STALE_S)
    words = [f"{len(beats) - stale} running"] if len(beats) > stale else []
    want = " · ".join(words + ([f"{stale} stale"] if stale else [])) or None
    agents = {k: _say(f, "agents") for k, f in said.items() if k in ("json", "list")}
    agents |= {k: _say(f, "agents") for k, f in said.items() if k.startswith("status@")}
    chk.agree("agents", {"files": want} | agents)
    if stale and j["state"] == "!":  # the glyph says "needs attention": what needs it, too
        says = {
            k: bool(f.get("agent_stale_words") or "stale" in (f.get("agents") or ""))
            for k, f in said.items()
            if k.startswith("status@") or k == "pane"
        }
        chk.agree("a stale agent is said at every width", {"files": True} | says)


def comparable(view: SessionView) -> dict:
    """A view as a dict, without the running times every surface recomputes from `now` (a
    view derived a while ago keeps the seconds it had then)."""
    d = msgspec.to_builtins(view)
    if view.elapsed.running:
        d["elapsed"].pop("seconds")
        d.pop("session_seconds", None)
        for step in d["timeline"]:
            if step["state"] == "current":
                step.pop("seconds", None)
    return d


def _diff(a: dict, b: dict) -> str:
    keys = [k for k in a if a.get(k) != b.get(k)]
    return "; ".join(f"{k}: dashboard {a[k]!r:.160} vs status {b.get(k)!r:.160}" for k in keys)
