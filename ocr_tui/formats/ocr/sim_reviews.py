"""The simulator's reviewers (`sim_scenario.py` plays them): what they find in a change set,
and the `reviews/{reviewer}.md` files they write (ocr-format.md §3). Pure functions of a
`random.Random`; no IO."""

from __future__ import annotations

import random
from dataclasses import dataclass

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
