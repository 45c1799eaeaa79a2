"""The simulator's context documents (`sim_scenario.py` plays them): the session's
`discovered-standards.md` and `requirements.md`, a round's `context.md` and the Tech Lead's
guidance appended to it (ocr-format.md §3). Pure functions; no IO."""

from __future__ import annotations

import random


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
