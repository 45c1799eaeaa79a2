"""iDumb's brain (seed 004) as the header's facts: framework, phase, version, validations,
the brain's age since its last validation (stale after 48 h, critical after 168 h), anchors by
priority and the recent history. Pure: no IO here.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from ocr_tui.core.timeutil import fmt_ts, human_duration, parse_ts
from ocr_tui.core.view import Fact
from ocr_tui.formats.idumb import model as M


def brain_facts(s: M.BrainState, now: datetime) -> tuple[list[Fact], list[str]]:
    """The header's facts and alerts from the brain state."""
    facts = [
        Fact(label="framework", value=s.framework or "unknown"),
        Fact(label="phase", value=s.phase or "unknown"),
    ]
    alerts: list[str] = []
    if s.version:
        facts.append(Fact(label="version", value=s.version))
    count = s.validationCount  # absent: not known, not 0
    facts.append(Fact(label="validations", value="—" if count is None else str(count)))
    since = parse_ts(s.lastValidation) or parse_ts(s.initialized)
    what = "last validation" if parse_ts(s.lastValidation) else "initialization"
    if since is None:
        unknown = "unknown (no lastValidation/initialized)"
        facts.append(Fact(label="brain age", value=unknown, tone="bad"))
        alerts.append("brain staleness unknown: no lastValidation or initialized time")
    else:
        hours = max(0.0, (now - since).total_seconds() / 3600.0)
        age = human_duration(hours * 3600)
        if hours >= M.BRAIN_CRITICAL_H:
            critical = f"{age} since {what} (critical)"
            facts.append(Fact(label="brain age", value=critical, tone="bad"))
            alerts.append(f"brain critically stale: {age} since {what} (over 168 h)")
        elif hours >= M.BRAIN_WARN_H:
            facts.append(Fact(label="brain age", value=f"{age} since {what} (stale)", tone="warn"))
            alerts.append(f"brain stale: {age} since {what} (over 48 h)")
        else:
            facts.append(Fact(label="brain age", value=f"{age} since {what}", tone="good"))
    pri = Counter((a.priority or "none").strip().lower() or "none" for a in s.anchors)
    order = ["critical", "high", "normal"]
    parts = [f"{pri[k]} {k}" for k in order if pri.get(k)]
    parts += [f"{n} {k}" for k, n in sorted(pri.items()) if k not in order]
    tone = "warn" if pri.get("critical") else "neutral"
    facts.append(Fact(label="anchors", value=", ".join(parts) if parts else "none", tone=tone))
    hist = s.history
    if hist:
        notable = [h for h in hist if (h.result or "").strip() != "pass"]
        recent = hist[-M.HISTORY_SHOWN :]
        n_recent = sum(1 for h in recent if (h.result or "").strip() != "pass")
        text = f"{len(hist)} entries, {len(notable)} not pass "
        text += f"({n_recent} in the last {len(recent)})"
        facts.append(Fact(label="history", value=text, tone="warn" if n_recent else "neutral"))
        for h in reversed(recent):
            ok = (h.result or "").strip() == "pass"
            at = fmt_ts(parse_ts(h.timestamp)) or "?"
            text = f"{at} {h.agent or '?'}: {h.action or '?'} → {h.result or '?'}"
            facts.append(Fact(label="  history", value=text, tone="neutral" if ok else "warn"))
    else:
        facts.append(Fact(label="history", value="none"))
    return facts, alerts
