"""The simulator's map run documents (`sim_scenario.py` plays them): `map/runs/run-N/`
`topology.md`, `flow-analysis.md`, `requirements-mapping.md`, `map.md` and the `map-meta.json`
OCR >= 1.6 records (ocr-format.md §4). Pure functions; no IO."""

from __future__ import annotations

import random


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
