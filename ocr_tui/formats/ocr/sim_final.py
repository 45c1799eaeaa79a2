"""The simulator's round ending (`sim_scenario.py` plays it): `discourse.md` (reviewers
agreeing and challenging) and the Tech Lead's synthesis, `final.md` with its verdict and the
`round-meta.json` OCR >= 1.6 records (ocr-format.md §3). Pure functions; no IO."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ocr_tui.formats.ocr.sim_reviews import SEVERITIES, Finding, rtype


@dataclass
class Synthesis:
    verdict: str
    final_md: str
    meta: dict = field(default_factory=dict)


def discourse_md(results: dict[str, list[Finding]], rng: random.Random) -> str:
    """OCR's discourse.md (ocr-format.md §4.2): the summary sections, then each reviewer's
    block: AGREE or CHALLENGE for two others' findings, CONNECT (every other reviewer, from
    the first) between a finding of theirs and one of another's, SURFACE (the last) prompted
    by another's finding. CONNECT and SURFACE take no random draws (the simulator's sequence
    stays as it was): they use the first finding titles that fit."""
    names = list(results)
    lines = ["# Discourse Results", "", "## Consensus (High Confidence)", ""]
    by_title: dict[str, list[str]] = {}
    for name, fs in results.items():
        for f in fs:
            by_title.setdefault(f.title, []).append(name)
    shared = [t for t, who in by_title.items() if len(who) > 1]
    lines += [f"- {t} (raised by {', '.join(by_title[t])})" for t in shared] or ["- None"]
    blocks, challenged, connected, surfaced = [], [], [], []
    for i, name in enumerate(names):
        others = [o for o in names if o != name and results[o]]
        blocks += [f"## Discourse from {name}", ""]
        mine = {f.title for f in results[name]}
        for other in others[:2]:
            both = [f.title for f in results[other] if f.title in mine]  # raised it too
            title = rng.choice(both or [f.title for f in results[other]])
            verb = "AGREE" if both else rng.choice(("AGREE", "AGREE", "CHALLENGE"))
            reason = "" if verb == "AGREE" else " — the input is validated upstream"
            blocks.append(f'{verb} {other} "{title}"{reason}')
            if verb == "CHALLENGE":
                challenged.append(f"- {title} ({other}, challenged by {name})")
        if i % 2 == 0 and others:
            other = others[-1]
            theirs = [f.title for f in results[other] if f.title not in mine]
            if results[name] and theirs:
                own = results[name][0].title
                blocks += [
                    f'CONNECT "{own}" → {other} "{theirs[0]}"',
                    "  - Both come from the same missing check at the boundary",
                ]
                connected.append(f"- {own} ({name}) + {theirs[0]} ({other})")
        if i == len(names) - 1 and i > 0 and others:
            other = others[0]
            title = results[other][-1].title
            blocks += [
                "SURFACE",
                f'  - Reading {other}\'s "{title}" made me check the retry path: same gap there',
            ]
            surfaced.append(f"- The retry path has the same gap as {title} (from {name})")
        blocks += ([] if others else ["No responses."]) + [""]
    return "\n".join(
        lines
        + ["", "## Challenged Findings", ""]
        + (challenged or ["- None"])
        + ["", "## Connected Findings", ""]
        + (connected or ["- None"])
        + ["", "## Surfaced in Discourse", ""]
        + (surfaced or ["- None"])
        + [""]
        + blocks
    )


def _loc(f: Finding) -> str:
    return f"{f.path}:L{f.start}" + (f"-L{f.end}" if f.end != f.start else "")


def synthesize(branch: str, date: str, results: dict[str, list[Finding]], mood: str) -> Synthesis:
    """final.md and round-meta.json of a round: one item per finding (title and file), flagged
    by every reviewer who raised it, at the location they gave (the gravest report's), so
    the findings readers attach each item to its finding."""
    merged: dict[tuple[str, str], tuple[Finding, list[str]]] = {}
    for name, fs in results.items():
        for f in fs:
            key = (f.title, f.path)
            if key in merged:
                prev, who = merged[key]
                who.append(name)
                if SEVERITIES.index(f.severity) < SEVERITIES.index(prev.severity):
                    merged[key] = (f, who)
            else:
                merged[key] = (f, [name])

    def category(f: Finding, who: list[str]) -> str:
        if f.severity == "critical":
            return "blocker"
        if f.severity == "high" or (f.severity == "medium" and len(who) > 1):
            return "should_fix"
        return "suggestion"  # final.md lists info findings under Suggestions too

    cats = {t: category(f, w) for t, (f, w) in merged.items()}
    blockers = [t for t, c in cats.items() if c == "blocker"]
    should = [t for t, c in cats.items() if c == "should_fix"]
    sugg = [t for t, c in cats.items() if c == "suggestion"]
    verdict = (
        "REQUEST CHANGES" if blockers else "NEEDS DISCUSSION" if mood == "discuss" else "APPROVE"
    )
    at = ", ".join(f"@{n}" for n in results)
    lines = [
        f"# Code Review: {branch}",
        "",
        f"**Date**: {date}",
        f"**Reviewers**: {at}",
        "**Mode**: Full (with discourse)",
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
            f"### {i}. {f.title}",
            "",
            f"**Flagged by**: {', '.join('@' + w for w in who)}",
            "**Type**: Security" if "security" in who[0] else "**Type**: Correctness",
            f"**Location**: `{_loc(f)}`",
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
            f"### {i}. {f.title}",
            "",
            f"**Flagged by**: {', '.join('@' + w for w in who)}",
            f"**Location**: `{_loc(f)}`",
            f"**Issue**: {f.issue}",
            "",
        ]
    if not should:
        lines += ["- None", ""]
    lines += ["## Suggestions", "", "### Code Quality", ""]
    lines += [
        f'- "{merged[t][0].title}" — {", ".join("@" + w for w in merged[t][1])}' for t in sugg
    ] or ["- None"]
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
        c = [cats[(f.title, f.path)] for f in fs]
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
                "category": cats[(f.title, f.path)],
                "severity": f.severity,
                "file_path": f.path,
                "line_start": f.start,
                "line_end": f.end,
                "summary": f.issue,
                "flagged_by": ["@" + w for w in merged[(f.title, f.path)][1]],
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
