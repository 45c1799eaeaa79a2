"""The agreement checks of a session of the other formats (the code workflow, scientific
analysis, iDumb) at one step: its phase, state glyph, elapsed time, agents and what needs
you, from every surface, and from its files on disk (read simply here)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from ocr_tui.core.display import coarse_duration

from . import surfaces as S
from .checks_ocr import WIDTHS, Moment, _diff, _say, comparable, uncut
from .disk import parse_ts
from .record import Checker

CODE_PHASES = ("init", "research", "plan", "implement", "quality", "review")
ANALYSIS_GATES = (3, 4, 6)


def truth_of(kind: str, root: Path, sid: str, now: datetime) -> dict:
    """What the session's files say: `closed`, `waiting` (on you), `position` (`2/6`),
    `agents` (of the current phase: None when it has none on disk; iDumb: spawned, by name),
    `alert` (analysis: its latest error is of the phase it is in; iDumb: a delegation expired
    without a result, at `now`)."""
    if kind == "code":
        st = json.loads((root / ".claude" / ".docs" / sid / "state.json").read_text())
        phases = [st["phases"][p] for p in CODE_PHASES]
        done = [p["status"] in ("completed", "skipped") or p.get("skipped") for p in phases]
        running = [i for i, p in enumerate(phases) if p["status"] == "in_progress"]
        at = running[0] if running else next((i for i, d in enumerate(done) if not d), 5)
        decision = (st.get("delegating_decisions") or {}).get(CODE_PHASES[at])
        agents = (f"{decision['instances']}× {decision['agent']} ({decision['mode']})"
                  if decision and not all(done) else None)  # fmt: skip
        waiting = not st.get("auto_mode") and not running and any(done) and not all(done)
        return {"closed": all(done), "waiting": waiting, "position": f"{at + 1}/6",
                "agents": agents, "alert": False, "started": st["created_at"]}  # fmt: skip
    if kind == "analysis":
        sdir = root / ".scientific-analysis-session"
        st = json.loads((sdir / "session-state.json").read_text())
        phase, closed = st["current_phase"], st["status"] == "completed"
        approved = (st.get("user_approvals") or {}).get(f"phase_{phase}", {}).get("approved")
        names = list(dict.fromkeys(e["agent"] for e in st.get("agent_execution_log", [])
                                   if e.get("phase") == phase))  # fmt: skip
        log = sdir / "logs" / "errors.log"
        errors = st.get("errors", []) + [
            json.loads(line) for line in (log.read_text().splitlines() if log.exists() else [])
        ]
        latest = max(errors, key=lambda e: e["timestamp"], default=None)
        waiting = not closed and phase in ANALYSIS_GATES and not approved
        return {"closed": closed, "waiting": waiting,
                "position": f"{min(phase, 7) + 1}/8", "agents": ", ".join(names) or None,
                "alert": latest is not None and not closed and latest["phase"] == phase,
                "started": st["created_at"]}  # fmt: skip
    path = root / ".idumb" / "brain" / "execution-metrics.json"
    metrics = json.loads(path.read_text()) if path.exists() else {}
    spawned = metrics["agentSpawns"]["byAgent"] if metrics.get("sessionId") == sid else {}
    path = root / ".idumb" / "brain" / "delegations.json"
    dels = json.loads(path.read_text())["delegations"] if path.exists() else []
    expired = any(
        d["status"] != "completed" and d["expiresAt"] < now.timestamp() * 1000 for d in dels
    )  # a delegation past its expiry without a result
    path = root / ".idumb" / "sessions" / f"{sid}.json"
    started = json.loads(path.read_text())["createdAt"] if path.exists() else None
    return {"closed": False, "waiting": False, "position": None,
            "agents": spawned or None, "alert": expired, "started": started}  # fmt: skip


def check_other(chk: Checker, m: Moment, kind: str, truth: dict, idle: float = 0) -> None:
    """`idle`: how long after the step's last write `m.now` is (a probe's lead)."""
    view = next(v for v in m.views if v.id == m.sid)
    live = next(v for v in m.live if v.id == m.sid)
    a, b = comparable(live), comparable(view)
    chk.expect("the dashboard's engine reads what status reads", a == b, _diff(a, b))
    j = S.from_json(m.doc, m.sid)
    index = [v.id for v in m.views].index(m.sid)
    said = {
        "json": j,
        "list": S.from_list_row(live, m.now),
        "pane": S.from_detail_pane(live, m.now),
        "screen": S.from_session_screen(live, m.now),
    }
    said |= {f"status@{w or 'pipe'}": S.from_status_row(S.table_rows(m.views, w, m.now)[index])
             for w in WIDTHS}  # fmt: skip
    line = S.from_oneline(m.views, None, m.now)
    if m.sid in line["line"]:
        said["oneline"] = line
    chk.expect("no problems", not j["problems"], str(j["problems"]))
    chk.saw(f"glyph {j['state']}")
    chk.agree("state glyph", {k: _say(f, "state") for k, f in said.items() if k != "screen"})
    chk.agree("phase position", {k: _say(f, "position") for k, f in said.items()})
    chk.agree("phase label", {k: uncut(_say(f, "label"), j["label"]) for k, f in said.items()})
    if truth["position"] is not None:
        chk.expect(
            "phase matches the files",
            j["position"] == truth["position"],
            f"json {j['position']}, the files {truth['position']}",
        )
    if not truth["closed"] and truth["started"]:
        since = int((m.now - parse_ts(truth["started"])).total_seconds())
        slack = 1 if "." in truth["started"] else 0  # iDumb's times have milliseconds
        chk.expect(
            "elapsed matches the files",
            abs(j["elapsed_s"] - since) <= slack,
            f"json session_seconds {j['elapsed_s']}, {since} s since it was created",
        )
    coarse = coarse_duration(j["elapsed_s"])
    chk.agree(
        "elapsed",
        {"json": coarse}
        | {
            k: _say(f, "elapsed") for k, f in said.items() if k not in ("json", "screen", "oneline")
        },
    )
    chk.agree("stalled", {k: _say(f, "stalled") for k, f in said.items()
                          if k not in ("list", "oneline")})  # fmt: skip
    for key in ("agents", "needs"):
        cells = {k: uncut(_say(f, key), j[key]) for k, f in said.items()
                 if k in ("json", "list") or k.startswith("status@")}  # fmt: skip
        chk.agree(key, cells)
    # iDumb has its own idle rules (stale after 48 h): it never stalls at --stall-after
    stalls = kind != "idumb" and idle > S.STALL_AFTER and not truth["closed"]
    want = ("◆" if truth["waiting"] else "⚠" if stalls else "!" if truth["alert"]
            else "✓" if truth["closed"] else "●")  # fmt: skip
    chk.expect(
        "state glyph matches the files",
        j["state"] == want,
        f"json/list say {j['state']!r}; the files support {want!r}",
    )
    chk.expect(
        "waiting on you matches the files",
        (j["needs"] == "your approval") == truth["waiting"],
        f"needs {j['needs']!r}, the files: waiting={truth['waiting']}",
    )
    if kind == "idumb":
        want = truth["agents"] or {}
        missing = [f"{n}× {a}" for a, n in want.items() if f"{n}× {a}" not in (j["agents"] or "")]
        chk.expect(
            "agents name every agent spawned", not missing, f"json {j['agents']!r} lacks {missing}"
        )
    elif not truth["closed"]:
        chk.agree(
            "the Agents column names the phase's agents",
            {"files": truth["agents"], "json": j["agents"], "list": said["list"]["agents"]},
        )
