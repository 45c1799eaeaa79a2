"""What the simulator (`ocr_tui.formats.ocr.sim`) plays: the session scenario as a sequence of pure
`Action`s, and the markdown / JSON bodies OCR's agents write (ocr-format.md §3–4). Pure
functions of a `random.Random`; no IO, no textual. `simulate` executes the actions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

SEVERITIES = ("critical", "high", "medium", "low", "info")

DISPLAY = {
    "principal": "Principal Engineer",
    "quality": "Code Quality Engineer",
    "security": "Security Engineer",
    "testing": "Testing Engineer",
    "performance": "Performance Engineer",
    "architect": "Software Architect",
}

FILE_POOL = (
    "src/auth/session.py",
    "src/auth/tokens.py",
    "src/api/routes/users.py",
    "src/api/middleware.py",
    "src/db/query.py",
    "src/db/migrations/0007_add_index.py",
    "src/services/billing.py",
    "src/services/notifications.py",
    "src/utils/retry.py",
    "src/config.py",
    "src/cache/store.py",
    "src/workers/queue.py",
    "tests/test_session.py",
    "tests/test_billing.py",
    "docs/architecture.md",
)

# (title, issue, suggestion) per reviewer type; "shared" titles can be raised by anyone,
# which is what produces consensus (same finding from several reviewers).
POOLS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "shared": (
        (
            "Missing error handling on retry exhaustion",
            "The loop swallows the last exception and returns None.",
            "Re-raise the last error or return a typed failure.",
        ),
        (
            "Unbounded cache growth",
            "Entries are never evicted, memory grows with traffic.",
            "Use an LRU with a size bound.",
        ),
        (
            "Token expiry compared in local time",
            "`datetime.now()` is naive; expiry is UTC.",
            "Compare aware UTC datetimes.",
        ),
    ),
    "principal": (
        (
            "Session refresh couples auth and billing",
            "The refresh path imports billing to check plan limits.",
            "Move the plan check behind an interface.",
        ),
        (
            "Config read at import time",
            "Settings are frozen when the module loads.",
            "Read configuration lazily.",
        ),
        (
            "Leaky abstraction in query builder",
            "Callers pass raw SQL fragments.",
            "Expose typed filter helpers.",
        ),
    ),
    "quality": (
        (
            "Duplicated pagination logic",
            "Three handlers re-implement cursor parsing.",
            "Extract a shared helper.",
        ),
        (
            "Function exceeds 80 lines",
            "`apply_discounts` mixes parsing and pricing.",
            "Split into smaller functions.",
        ),
        (
            "Inconsistent naming of user id",
            "`uid`, `user_id` and `userId` all appear.",
            "Pick one name.",
        ),
    ),
    "security": (
        (
            "SQL built with string formatting",
            "User input reaches an f-string query.",
            "Use bound parameters.",
        ),
        (
            "Secret logged at debug level",
            "The refresh token is included in a log line.",
            "Redact secrets before logging.",
        ),
        (
            "Missing authorization check on export",
            "Any user can export another's data.",
            "Check ownership before exporting.",
        ),
    ),
    "testing": (
        (
            "No test for expired-token path",
            "Only the happy path is covered.",
            "Add a test with a frozen clock.",
        ),
        (
            "Flaky sleep-based test",
            "`time.sleep(0.1)` races the worker.",
            "Wait on an event instead.",
        ),
        ("Mocks hide the retry behaviour", "The client mock never fails.", "Add a failing fake."),
    ),
    "performance": (
        (
            "N+1 queries in user listing",
            "Each row triggers a follow-up query.",
            "Prefetch related rows.",
        ),
        (
            "Synchronous HTTP call in request path",
            "Notification send blocks the response.",
            "Queue it.",
        ),
    ),
    "architect": (
        (
            "Worker and API share mutable module state",
            "Both import a global registry.",
            "Inject the registry.",
        ),
    ),
}


@dataclass(frozen=True)
class Finding:
    title: str
    severity: str
    path: str
    start: int
    end: int
    issue: str
    suggestion: str


@dataclass
class Synthesis:
    verdict: str
    final_md: str
    meta: dict = field(default_factory=dict)


def rtype(name: str) -> tuple[str, int]:
    base, _, n = name.rpartition("-")
    return (base, int(n)) if base and n.isdigit() else (name, 1)


def changeset(rng: random.Random) -> list[str]:
    return sorted(rng.sample(FILE_POOL, rng.randint(6, 10)))


def _pick_severity(rng: random.Random, mood: str, kind: str) -> str:
    can_block = mood == "block" and kind in ("security", "principal", "shared")
    return rng.choices(SEVERITIES, (1, 3, 4, 3, 2) if can_block else (0, 2, 4, 4, 2))[0]


def review_round(
    rng: random.Random, reviewers: list[str], files: list[str], mood: str
) -> dict[str, list[Finding]]:
    """Findings per reviewer (0–5 each). mood 'block' guarantees one critical finding,
    other moods never produce one."""
    out: dict[str, list[Finding]] = {}
    for name in reviewers:
        kind = rtype(name)[0]
        own = POOLS.get(kind, POOLS["principal"])
        pool = [(e, kind) for e in own] + [(e, "shared") for e in POOLS["shared"]]
        found = []
        for (title, issue, fix), src in rng.sample(pool, min(len(pool), rng.randint(0, 5))):
            start = rng.randint(5, 300)
            found.append(
                Finding(
                    title,
                    _pick_severity(rng, mood, src),
                    rng.choice(files),
                    start,
                    start + rng.randint(0, 25),
                    issue,
                    fix,
                )
            )
        out[name] = found
    if (
        mood == "block"
        and reviewers
        and not any(f.severity == "critical" for fs in out.values() for f in fs)
    ):
        name = next((r for r in reviewers if r.startswith("security")), reviewers[0])
        fs = out[name]
        if fs:
            f = fs[0]
            fs[0] = Finding(f.title, "critical", f.path, f.start, f.end, f.issue, f.suggestion)
        else:
            title, issue, fix = POOLS["security"][0]
            fs.append(Finding(title, "critical", files[0], 42, 50, issue, fix))
    return out


def reviewer_md(name: str, findings: list[Finding], rng: random.Random, files: list[str]) -> str:
    kind, n = rtype(name)
    lines = [
        f"# {DISPLAY.get(kind, kind.title())} Review",
        "",
        "## Summary",
        "",
        f"Reviewed the change as {name}. "
        + (
            f"Found {len(findings)} issue(s) worth discussing."
            if findings
            else "Nothing blocking from my side."
        ),
        "",
        "## What I Explored",
        "",
    ]
    lines += [f"- `{p}`" for p in rng.sample(files, min(3, len(files)))]
    lines += ["", "## Findings", ""]
    if not findings:
        lines += ["No findings in my area.", ""]
    for i, f in enumerate(findings, 1):
        lines += [
            f"### Finding {i}: {f.title}",
            f"- **Severity**: {f.severity.capitalize()}",
            f"- **Location**: {f.path}:L{f.start}-L{f.end}",
            f"- **Issue**: {f.issue}",
            "- **Why It Matters**: It will bite us in production under load.",
            f"- **Suggestion**: {f.suggestion}",
            "",
        ]
    lines += [
        "## What's Working Well",
        "",
        "- Clear commit structure and naming.",
        "",
        "## Questions for Other Reviewers",
        "",
        f"- Does anyone else see risk in `{rng.choice(files)}`?",
        "",
    ]
    return "\n".join(lines)


def discourse_md(results: dict[str, list[Finding]], rng: random.Random) -> str:
    names = list(results)
    lines = ["# Discourse Results", "", "## Consensus (High Confidence)", ""]
    by_title: dict[str, list[str]] = {}
    for name, fs in results.items():
        for f in fs:
            by_title.setdefault(f.title, []).append(name)
    shared = [t for t, who in by_title.items() if len(who) > 1]
    lines += [f"- {t} (raised by {', '.join(by_title[t])})" for t in shared] or ["- None"]
    blocks, challenged = [], []
    for name in names:
        others = [o for o in names if o != name and results[o]]
        blocks += [f"## Discourse from {name}", ""]
        for other in others[:2]:
            title = rng.choice(results[other]).title
            verb = rng.choice(("AGREE", "AGREE", "CHALLENGE"))
            reason = "" if verb == "AGREE" else " — the input is validated upstream"
            blocks.append(f'{verb} {other} "{title}"{reason}')
            if verb == "CHALLENGE":
                challenged.append(f"- {title} ({other}, challenged by {name})")
        blocks += ([] if others else ["No responses."]) + [""]
    return "\n".join(
        lines + ["", "## Challenged Findings", ""] + (challenged or ["- None"]) + [""] + blocks
    )


def synthesize(branch: str, date: str, results: dict[str, list[Finding]], mood: str) -> Synthesis:
    merged: dict[str, tuple[Finding, list[str]]] = {}
    for name, fs in results.items():
        for f in fs:
            if f.title in merged:
                prev, who = merged[f.title]
                who.append(name)
                if SEVERITIES.index(f.severity) < SEVERITIES.index(prev.severity):
                    merged[f.title] = (f, who)
            else:
                merged[f.title] = (f, [name])

    def category(f: Finding, who: list[str]) -> str:
        if f.severity == "critical":
            return "blocker"
        if f.severity == "high" or (f.severity == "medium" and len(who) > 1):
            return "should_fix"
        return "suggestion" if f.severity != "info" else "style"

    cats = {t: category(f, w) for t, (f, w) in merged.items()}
    blockers = [t for t, c in cats.items() if c == "blocker"]
    should = [t for t, c in cats.items() if c == "should_fix"]
    sugg = [t for t, c in cats.items() if c in ("suggestion", "style")]
    verdict = (
        "REQUEST CHANGES" if blockers else "NEEDS DISCUSSION" if mood == "discuss" else "APPROVE"
    )
    at = ", ".join(f"@{n}" for n in results)
    lines = [
        f"# Code Review: {branch}",
        "",
        f"**Date**: {date} **Reviewers**: {at} **Mode**: Full (with discourse)",
        "",
        "## Verdict",
        "",
        f"**{verdict}**",
        "",
        "## Blockers",
        "",
    ]
    for i, t in enumerate(blockers, 1):
        f, who = merged[t]
        lines += [
            f"### {i}. {t}",
            "",
            f"**Flagged by**: {', '.join('@' + w for w in who)}",
            "**Type**: Security" if "security" in who[0] else "**Type**: Correctness",
            f"**Location**: `{f.path}:L{f.start}-L{f.end}`",
            f"**Issue**: {f.issue}",
            "**Why this blocks**: Unsafe to merge as is.",
            f"**Suggested fix**: {f.suggestion}",
            "",
        ]
    if not blockers:
        lines += ["- None", ""]
    lines += ["## Should Fix", ""]
    for i, t in enumerate(should, 1):
        f, who = merged[t]
        lines += [
            f"### {i}. {t}",
            "",
            f"**Flagged by**: {', '.join('@' + w for w in who)}",
            f"**Location**: `{f.path}:L{f.start}`",
            "",
        ]
    if not should:
        lines += ["- None", ""]
    lines += ["## Suggestions", "", "### Code Quality", ""]
    lines += [f'- "{t}" — @{merged[t][1][0]}' for t in sugg] or ["- None"]
    lines += [
        "",
        "## Consensus & Dissent",
        "",
        "Reviewers broadly agreed; see discourse.md for challenges.",
        "",
        "## What's Working Well",
        "",
        "- Small, focused commits.",
        "",
        "## Clarifying Questions",
        "",
    ]
    if mood == "discuss":
        lines += [
            f"### From @{next(iter(results))}",
            "",
            "- Is the export endpoint meant to be admin-only?",
            "",
        ]
    else:
        lines += ["- None", ""]
    lines += [
        "## Individual Reviews",
        "",
        "| Reviewer | Blockers | Should Fix | Suggestions | File |",
        "|---|---|---|---|---|",
    ]
    for name, fs in results.items():
        c = [cats[f.title] for f in fs]
        lines.append(
            f"| @{name} | {c.count('blocker')} | {c.count('should_fix')} | "
            f"{len(c) - c.count('blocker') - c.count('should_fix')} | "
            f"reviews/{name}.md |"
        )
    lines.append("")
    meta_reviewers = []
    for name, fs in results.items():
        kind, n = rtype(name)
        entry: dict = {"type": kind, "instance": n}
        for sev in ("high", "medium", "low", "info"):
            entry[f"severity_{sev}"] = sum(f.severity == sev for f in fs)
        entry["findings"] = [
            {
                "title": f.title,
                "category": cats[f.title],
                "severity": f.severity,
                "file_path": f.path,
                "line_start": f.start,
                "line_end": f.end,
                "summary": f.issue,
                "flagged_by": ["@" + w for w in merged[f.title][1]],
            }
            for f in fs
        ]
        meta_reviewers.append(entry)
    meta = {
        "schema_version": 1,
        "verdict": verdict,
        "synthesis_counts": {
            "blockers": len(blockers),
            "should_fix": len(should),
            "suggestions": len(sugg),
        },
        "reviewers": meta_reviewers,
    }
    return Synthesis(verdict, "\n".join(lines), meta)


def standards_md(rng: random.Random) -> str:
    srcs = rng.sample(
        (
            "CLAUDE.md",
            "AGENTS.md",
            ".editorconfig",
            "pyproject.toml",
            "CONTRIBUTING.md",
            "docs/style.md",
        ),
        3,
    )
    return "\n".join(
        ["# Discovered Standards", "", "## Sources", ""]
        + [f"- `{s}`" for s in srcs]
        + [
            "",
            "## Conventions",
            "",
            "- Type hints on public functions.",
            "- No bare `except:`.",
            "- Tests for every bug fix.",
            "",
        ]
    )


def requirements_md(branch: str) -> str:
    return (
        f"# Requirements\n\nFrom the ticket for `{branch}`:\n\n"
        "1. REQ-1: Sessions refresh tokens before expiry.\n"
        "2. REQ-2: Failed refreshes are retried with backoff.\n"
        "3. REQ-3: Users can export their own data only.\n"
    )


def context_md(branch: str, files: list[str], rnd: int) -> str:
    lines = [
        "# Change Context",
        "",
        f"**Branch**: `{branch}`",
        f"**Round**: {rnd}",
        "",
        "## Summary",
        "",
        "Re-review after fixes to the round-1 blockers."
        if rnd > 1
        else "Adds token refresh with retries and a user data export.",
        "",
        "## Files Changed",
        "",
        "| File | Change |",
        "|---|---|",
    ]
    lines += [f"| `{p}` | modified |" for p in files]
    return "\n".join(lines + [""])


def guidance_md(reviewers: list[str]) -> str:
    return "\n".join(
        ["", "## Tech Lead Guidance", "", "Assigned reviewers:", ""]
        + [f"- {r}" for r in reviewers]
        + ["", "Focus on token handling and the export authorization.", ""]
    )


def sections(files: list[str]) -> list[tuple[str, list[str]]]:
    src = [p for p in files if p.startswith("src/")]
    rest = [p for p in files if not p.startswith("src/")]
    half = max(1, len(src) // 2)
    out = [("Core changes", src[:half]), ("Supporting code", src[half:]), ("Tests and docs", rest)]
    return [(t, fs) for t, fs in out if fs]


def topology_md(files: list[str]) -> str:
    lines = ["# Topology Analysis", "", "## Canonical File List", "", "```"]
    lines += files + ["```", "", "## Sections", ""]
    for i, (title, fs) in enumerate(sections(files), 1):
        lines += [f"### Section {i}: {title}", ""] + [f"- `{p}`" for p in fs] + [""]
    return "\n".join(lines)


def flow_md(files: list[str], rng: random.Random) -> str:
    lines = ["# Flow Analysis", ""]
    for i in range(1, 3):
        a, b = rng.sample(files, 2)
        lines += [
            f"## Flow {i}",
            "",
            f"`{a}` → `{b}`",
            "",
            "Entry point calls through to persistence.",
            "",
        ]
    return "\n".join(lines)


def reqmap_md(files: list[str]) -> str:
    lines = ["# Requirements Mapping", "", "| Requirement | Files | Coverage |", "|---|---|---|"]
    for i, p in enumerate(files[:3], 1):
        lines.append(f"| REQ-{i} | `{p}` | {'✅ Covered' if i < 3 else '⚠️ Partial'} |")
    return "\n".join(lines + [""])


def map_md(branch: str, files: list[str]) -> str:
    lines = [
        "# Code Review Map",
        "",
        "## Executive Summary",
        "",
        f"{len(files)} files on `{branch}`, grouped into review sections.",
        "",
        "## Questions & Clarifications",
        "",
        "- None",
        "",
        "## Requirements Coverage",
        "",
        "- ✅ REQ-1",
        "- ✅ REQ-2",
        "- ⚠️ REQ-3",
        "",
        "## Critical Review Focus",
        "",
        f"- `{files[0]}`",
        "",
        "## Manual Verification",
        "",
        "- Expire a token and watch the refresh.",
        "",
        "## File Review",
        "",
    ]
    for i, (title, fs) in enumerate(sections(files), 1):
        lines += [f"### Section {i}: {title}", "", "| Done | File | Role |", "|---|---|---|"]
        lines += [f"| [ ] | `{p}` | {'test' if 'test' in p else 'source'} |" for p in fs]
        lines.append("")
    return "\n".join(lines)


def map_meta(files: list[str], rng: random.Random) -> dict:
    return {
        "schema_version": 1,
        "sections": [
            {
                "section_number": i,
                "title": title,
                "files": [
                    {
                        "file_path": p,
                        "role": "test" if "test" in p else "source",
                        "lines_added": rng.randint(1, 120),
                        "lines_deleted": rng.randint(0, 40),
                    }
                    for p in fs
                ],
            }
            for i, (title, fs) in enumerate(sections(files), 1)
        ],
    }


# -- the scenario -------------------------------------------------------------------------

REVIEWER_ORDER = (
    "principal-1",
    "principal-2",
    "quality-1",
    "quality-2",
    "security-1",
    "testing-1",
    "performance-1",
    "architect-1",
)


def reviewers(n: int) -> list[str]:
    extra = [f"{kind}-{i}" for i in range(2, n + 2) for kind in ("security", "testing")]
    return (list(REVIEWER_ORDER) + extra)[:n]


@dataclass
class Plan:
    rounds: list[tuple[list[str], str]]  # (reviewer names, mood: block | clean | discuss)
    map_run: bool = False
    requirements: bool = False
    cli_meta: bool = False  # OCR >= 1.6: round-meta.json / map-meta.json via `ocr state`
    chatter: bool = True  # also yield steps that only show activity (nothing written)


@dataclass(frozen=True)
class Action:
    """One thing an agent does: make dirs, write files (session-relative path → text, or a
    dict for JSON), then optionally one `ocr state` change (event + session columns)."""

    description: str
    phase: str
    seconds: float  # simulated time until the next action
    writes: tuple[tuple[str, str | dict], ...] = ()
    mkdirs: tuple[str, ...] = ()
    event: str | None = None
    cols: dict = field(default_factory=dict)
    rnd: int | None = None  # event's round column when it is not the session's current round
    meta: dict | None = None  # event metadata


def _phase(name: str, num: int, secs: float = 0.6) -> Action:
    cols = {"current_phase": name, "phase_number": num}
    return Action(f"phase → {name} ({num})", name, secs, event="phase_transition", cols=cols)


def _round_event(meta: dict) -> dict:
    sc, revs = meta["synthesis_counts"], meta["reviewers"]
    return {
        "verdict": meta["verdict"],
        "blocker_count": sc["blockers"],
        "should_fix_count": sc["should_fix"],
        "suggestion_count": sc["suggestions"],
        "reviewer_count": len(revs),
        "total_finding_count": sum(len(r["findings"]) for r in revs),
        "source": "orchestrator",
    }


def scenario(sid: str, branch: str, plan: Plan, seed: int) -> Iterator[Action]:
    """One session from `ocr state init` to `ocr state close`, action by action."""
    rng = random.Random(f"ocr-sim/{seed}/{sid}")
    files, date, chat = changeset(rng), sid[:10], plan.chatter
    for rnd, (names, mood) in enumerate(plan.rounds, 1):
        rdir = f"rounds/round-{rnd}"
        if rnd == 1:
            cols = {"branch": branch, "workflow_type": "review", "status": "active"}
            cols |= {"current_phase": "context", "phase_number": 1, "current_round": 1}
            yield Action(
                f"session created on {branch} (round 1)",
                "context",
                1.0,
                mkdirs=(rdir,),
                event="session_created",
                cols=cols,
            )
            std = (("discovered-standards.md", standards_md(rng)),)
            yield Action("wrote discovered-standards.md", "context", 1.5, std)
            if plan.requirements:
                req = (("requirements.md", requirements_md(branch)),)
                yield Action("wrote requirements.md", "context", 1.0, req)
        else:  # `ocr state init` again: the last round has final.md, so round N+1 starts
            cols = {"status": "active", "current_phase": "context", "phase_number": 1}
            yield Action(
                f"round {rnd} started (re-review)",
                "context",
                1.0,
                mkdirs=(rdir,),
                event="round_started",
                cols=cols | {"current_round": rnd},
            )
        yield _phase("change-context", 2)
        if chat:
            yield Action("reading the diff", "change-context", 1.0)
        context = context_md(branch, files, rnd)
        yield Action("wrote context.md", "change-context", 1.5, (("context.md", context),))
        yield _phase("analysis", 3)
        guided = (("context.md", context + guidance_md(names)),)
        yield Action("Tech Lead guidance added to context.md", "analysis", 1.2, guided)
        yield replace(_phase("reviews", 4, 0.8), mkdirs=(f"{rdir}/reviews",))
        if chat:
            yield Action(f"spawned {len(names)} reviewers", "reviews", 1.0)
        results = review_round(rng, names, files, mood)
        for name in names:
            body = ((f"{rdir}/reviews/{name}.md", reviewer_md(name, results[name], rng, files)),)
            desc = f"{name} finished: {len(results[name])} finding(s)"
            yield Action(desc, "reviews", round(rng.uniform(1.5, 3.0), 1), body)
        yield _phase("aggregation", 5)
        if chat:
            total = sum(len(v) for v in results.values())
            yield Action(f"aggregated {total} finding(s)", "aggregation", 1.2)
        yield _phase("discourse", 6)
        if chat:
            yield Action("reviewers exchanging responses", "discourse", 1.2)
        discourse = ((f"{rdir}/discourse.md", discourse_md(results, rng)),)
        yield Action("wrote discourse.md", "discourse", 1.2, discourse)
        yield _phase("synthesis", 7)
        if chat:
            yield Action("Tech Lead drafting the final review", "synthesis", 1.5)
        syn = synthesize(branch, date, results, mood)
        if plan.cli_meta:
            yield Action(
                "round-meta.json recorded (ocr state round-complete)",
                "synthesis",
                0.5,
                ((f"{rdir}/round-meta.json", syn.meta),),
                event="round_completed",
                rnd=rnd,
                meta=_round_event(syn.meta),
            )
        final = ((f"{rdir}/final.md", syn.final_md),)
        yield Action(f"wrote final.md: {syn.verdict}", "synthesis", 1.5, final)
        yield _phase("complete", 8, 1.0)
        if chat and rnd < len(plan.rounds):
            yield Action("developer addresses the feedback", "complete", 2.5)
    if plan.map_run:
        yield from _map_run(plan, branch, files, rng)
    cols = {"status": "closed", "current_phase": "complete"}
    yield Action("session closed", "complete", 2.0, event="session_closed", cols=cols)


def _map_run(plan: Plan, branch: str, files: list[str], rng: random.Random) -> Iterator[Action]:
    run, chat = "map/runs/run-1", plan.chatter
    # as the map docs say: workflow_type map, map_started_at (upstream's SQLite-era CLI
    # actually leaves workflow_type 'review', ocr-format §2.6 B6)
    cols = {"workflow_type": "map", "status": "active", "current_phase": "map-context"}
    cols |= {"phase_number": 1, "current_map_run": 1}
    yield Action("map run 1 started", "map-context", 1.0, event="phase_transition", cols=cols)
    if chat:
        yield Action("reusing discovered-standards.md", "map-context", 1.0)
    yield replace(_phase("topology", 2), mkdirs=(run,))
    topo = ((f"{run}/topology.md", topology_md(files)),)
    yield Action(f"wrote topology.md ({len(files)} files)", "topology", 1.5, topo)
    yield _phase("flow-analysis", 3)
    if chat:
        yield Action("2 flow analysts tracing call paths", "flow-analysis", 1.5)
    flow = ((f"{run}/flow-analysis.md", flow_md(files, rng)),)
    yield Action("wrote flow-analysis.md", "flow-analysis", 1.0, flow)
    if plan.requirements:
        yield _phase("requirements-mapping", 4)
        if chat:
            yield Action("requirements mapper checking coverage", "requirements-mapping", 1.0)
        req = ((f"{run}/requirements-mapping.md", reqmap_md(files)),)
        yield Action("wrote requirements-mapping.md", "requirements-mapping", 1.0, req)
    yield _phase("synthesis", 5)
    if plan.cli_meta:
        meta = map_meta(files, rng)
        secs = meta["sections"]
        counts = {"section_count": len(secs), "file_count": sum(len(s["files"]) for s in secs)}
        yield Action(
            "map-meta.json recorded (ocr state map-complete)",
            "synthesis",
            0.5,
            ((f"{run}/map-meta.json", meta),),
            event="map_completed",
            rnd=1,
            meta=counts | {"source": "orchestrator"},
        )
    yield Action("wrote map.md", "synthesis", 1.0, ((f"{run}/map.md", map_md(branch, files)),))
    yield _phase("complete", 6, 1.0)
