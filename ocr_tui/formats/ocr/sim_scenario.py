"""What the simulator (`ocr_tui.formats.ocr.sim`) plays: the session scenario, from `ocr state
init` to `ocr state close`, as a sequence of pure `Action`s (ocr-format.md §3–4). The bodies
OCR's agents write are `sim_reviews.py`'s (reviewer files), `sim_final.py`'s (discourse, final
and round meta), `sim_context.py`'s (standards, requirements, context) and `sim_maps.py`'s (map
runs). Pure functions of a `random.Random`; no IO, no textual. `sim` executes the actions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from ocr_tui.formats.ocr.sim_context import context_md, guidance_md, requirements_md, standards_md
from ocr_tui.formats.ocr.sim_final import discourse_md, synthesize
from ocr_tui.formats.ocr.sim_maps import flow_md, map_md, map_meta, reqmap_md, topology_md
from ocr_tui.formats.ocr.sim_reviews import changeset, review_round, reviewer_md

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
    earlier: list[dict] = []  # each round's findings per reviewer, for the next round's
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
        results = review_round(rng, names, files, mood, earlier)
        earlier.append(results)
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
