"""The simulator's reviewers (`sim_scenario.py` plays them): the problems a change set has, who
finds each one, what a re-review finds after the developer's fixes, and the
`reviews/{reviewer}.md` files they write (ocr-format.md §3). Pure functions of a
`random.Random`; no IO.

Shaped for the findings model: a problem lives in one changed file at one line range
(a security problem in the auth code, a flaky test in a test file); everyone who raises it
reports the same title and location, so the readers merge them (in every round some problems
are raised by two or three reviewers). A later round keeps the problems the developer did not
fix (same title and file, the lines moved a little), drops the fixed ones (every blocker, when
the round approves) and finds one or two new ones."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

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

MAX_PER_REVIEWER = 5
SOURCE_LINES = 400  # each FILE_POOL file's length (sim_project); no finding's line is past it


@dataclass(frozen=True)
class Template:
    """A problem a change set can have."""

    title: str
    issue: str
    fix: str
    kinds: tuple[str, ...]  # the reviewer types who raise it
    files: tuple[str, ...]  # where it can live (the first changed one is likeliest)
    worst: str = "high"  # the gravest severity it can have


TEMPLATES: tuple[Template, ...] = (
    Template(
        "Missing error handling on retry exhaustion",
        "The loop swallows the last exception and returns None.",
        "Re-raise the last error or return a typed failure.",
        ("principal", "quality", "testing"),
        ("src/utils/retry.py", "src/workers/queue.py", "src/services/notifications.py"),
    ),
    Template(
        "Unbounded cache growth",
        "Entries are never evicted, memory grows with traffic.",
        "Use an LRU with a size bound.",
        ("performance", "principal", "quality", "architect"),
        ("src/cache/store.py", "src/auth/session.py"),
    ),
    Template(
        "Token expiry compared in local time",
        "`datetime.now()` is naive; expiry is UTC.",
        "Compare aware UTC datetimes.",
        ("security", "principal", "testing"),
        ("src/auth/tokens.py", "src/auth/session.py"),
        "critical",
    ),
    Template(
        "Session refresh couples auth and billing",
        "The refresh path imports billing to check plan limits.",
        "Move the plan check behind an interface.",
        ("principal", "architect"),
        ("src/auth/session.py", "src/services/billing.py"),
    ),
    Template(
        "Config read at import time",
        "Settings are frozen when the module loads.",
        "Read configuration lazily.",
        ("principal", "architect", "quality"),
        ("src/config.py", "src/api/middleware.py"),
        "medium",
    ),
    Template(
        "Leaky abstraction in query builder",
        "Callers pass raw SQL fragments.",
        "Expose typed filter helpers.",
        ("principal", "architect", "quality"),
        ("src/db/query.py",),
    ),
    Template(
        "Duplicated pagination logic",
        "Three handlers re-implement cursor parsing.",
        "Extract a shared helper.",
        ("quality", "principal"),
        ("src/api/routes/users.py", "src/db/query.py"),
        "medium",
    ),
    Template(
        "Function exceeds 80 lines",
        "`apply_discounts` mixes parsing and pricing.",
        "Split into smaller functions.",
        ("quality",),
        ("src/services/billing.py", "src/workers/queue.py"),
        "medium",
    ),
    Template(
        "Inconsistent naming of user id",
        "`uid`, `user_id` and `userId` all appear.",
        "Pick one name.",
        ("quality",),
        ("src/api/routes/users.py", "src/auth/session.py", "src/services/billing.py"),
        "low",
    ),
    Template(
        "SQL built with string formatting",
        "User input reaches an f-string query.",
        "Use bound parameters.",
        ("security", "principal", "quality"),
        ("src/db/query.py", "src/api/routes/users.py", "src/db/migrations/0007_add_index.py"),
        "critical",
    ),
    Template(
        "Secret logged at debug level",
        "The refresh token is included in a log line.",
        "Redact secrets before logging.",
        ("security", "quality"),
        ("src/auth/tokens.py", "src/api/middleware.py", "src/auth/session.py"),
        "critical",
    ),
    Template(
        "Missing authorization check on export",
        "Any user can export another's data.",
        "Check ownership before exporting.",
        ("security", "principal"),
        ("src/api/routes/users.py", "src/api/middleware.py"),
        "critical",
    ),
    Template(
        "No test for expired-token path",
        "Only the happy path is covered.",
        "Add a test with a frozen clock.",
        ("testing", "quality"),
        ("tests/test_session.py",),
    ),
    Template(
        "Flaky sleep-based test",
        "`time.sleep(0.1)` races the worker.",
        "Wait on an event instead.",
        ("testing",),
        ("tests/test_billing.py", "tests/test_session.py"),
        "medium",
    ),
    Template(
        "Mocks hide the retry behaviour",
        "The client mock never fails.",
        "Add a failing fake.",
        ("testing", "quality"),
        ("tests/test_session.py", "tests/test_billing.py"),
        "medium",
    ),
    Template(
        "N+1 queries in user listing",
        "Each row triggers a follow-up query.",
        "Prefetch related rows.",
        ("performance", "principal"),
        ("src/api/routes/users.py", "src/db/query.py"),
    ),
    Template(
        "Synchronous HTTP call in request path",
        "Notification send blocks the response.",
        "Queue it.",
        ("performance", "architect"),
        ("src/services/notifications.py", "src/api/middleware.py"),
    ),
    Template(
        "Worker and API share mutable module state",
        "Both import a global registry.",
        "Inject the registry.",
        ("architect", "principal"),
        ("src/workers/queue.py", "src/config.py"),
    ),
    Template(
        "Index migration locks the users table",
        "`CREATE INDEX` without `CONCURRENTLY` blocks writes for minutes.",
        "Build the index concurrently in its own migration.",
        ("performance", "principal"),
        ("src/db/migrations/0007_add_index.py",),
        "critical",
    ),
    Template(
        "Architecture doc describes the old refresh flow",
        "The sequence diagram still shows the synchronous refresh.",
        "Update the diagram with the retry queue.",
        ("architect", "quality"),
        ("docs/architecture.md",),
        "low",
    ),
)
BY_TITLE = {t.title: t for t in TEMPLATES}


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


def _kind(name: str) -> str:
    return rtype(name)[0]


def changeset(rng: random.Random) -> list[str]:
    return sorted(rng.sample(FILE_POOL, rng.randint(6, 10)))


def _rank(severity: str) -> int:
    return SEVERITIES.index(severity)


def _pick_severity(rng: random.Random, block: bool, worst: str) -> str:
    weights = (1, 3, 4, 3, 2) if block else (0, 2, 4, 4, 2)
    floor = _rank(worst)
    return rng.choices(SEVERITIES[floor:], weights[floor:])[0]


def _lines(rng: random.Random) -> tuple[int, int]:
    start = rng.randint(12, 280)
    return start, start + rng.choice((0, 2, 3, 5, 8, 12, 18))


def problems_of(results: dict[str, list[Finding]]) -> list[Finding]:
    """A round's distinct problems (one per title and file, the gravest severity any reviewer
    gave), in the order first raised."""
    out: dict[tuple[str, str], Finding] = {}
    for fs in results.values():
        for f in fs:
            key = (f.title, f.path)
            if key not in out or _rank(f.severity) < _rank(out[key].severity):
                out[key] = f if key not in out else replace(out[key], severity=f.severity)
    return list(out.values())


def _new_problems(
    rng: random.Random, files: list[str], n: int, used: set[str], block: bool
) -> list[Finding]:
    """`n` problems (fewer when the change set has no room for more) no earlier round had."""
    fitting = [t for t in TEMPLATES if t.title not in used and set(t.files) & set(files)]
    out = []
    for t in rng.sample(fitting, min(n, len(fitting))):
        path = rng.choice([p for p in t.files if p in files])
        start, end = _lines(rng)
        sev = _pick_severity(rng, block, t.worst)
        out.append(Finding(t.title, sev, path, start, end, t.issue, t.fix))
    return out


def _carry(rng: random.Random, previous: list[Finding], block: bool) -> list[Finding]:
    """The previous round's problems still there after the developer's fixes: a blocker stays
    only in a round that blocks again; of the others about a third are fixed (at least one,
    and at least one stays when there are two or more). Their lines move a little."""
    minor = [p for p in previous if p.severity != "critical"]
    n = min(len(minor), max(1, round(len(minor) * rng.uniform(0.2, 0.4))))
    if len(minor) >= 2:
        n = min(n, len(minor) - 1)
    fixed = {id(p) for p in rng.sample(minor, n)}
    kept = []
    for p in previous:
        if id(p) in fixed or (p.severity == "critical" and not block):
            continue
        shift = rng.randint(-4, 15)
        start = min(max(1, p.start + shift), SOURCE_LINES - (p.end - p.start))
        sev = p.severity
        if sev not in ("critical", "info") and rng.random() < 0.2:
            sev = SEVERITIES[_rank(sev) + 1]  # partly addressed
        kept.append(replace(p, severity=sev, start=start, end=start + p.end - p.start))
    return kept


def _problems(
    rng: random.Random,
    reviewers: list[str],
    files: list[str],
    mood: str,
    earlier: Sequence[dict[str, list[Finding]]],
) -> list[Finding]:
    block = mood == "block"
    used = {f.title for results in earlier for fs in results.values() for f in fs}
    if earlier:
        found = _carry(rng, problems_of(earlier[-1]), block)
        found += _new_problems(rng, files, rng.randint(1, 2), used, block)
    else:
        n = rng.randint(len(reviewers) + 1, len(reviewers) + 4)
        found = _new_problems(rng, files, n, used, block)
    criticals = [i for i, p in enumerate(found) if p.severity == "critical"]
    for i in criticals[2:]:  # two blockers at most
        found[i] = replace(found[i], severity="high")
    if block and not criticals:
        can = [i for i, p in enumerate(found) if BY_TITLE[p.title].worst == "critical"]
        i = can[0] if can else 0
        if found:
            found[i] = replace(found[i], severity="critical")
        else:  # a change set nothing fits (never with FILE_POOL): a blocker anyway
            t = BY_TITLE["SQL built with string formatting"]
            found.append(Finding(t.title, "critical", files[0], 42, 50, t.issue, t.fix))
    return found


def _assign(
    rng: random.Random,
    found: list[Finding],
    reviewers: list[str],
    before: dict[str, list[Finding]] | None,
) -> dict[str, list[Finding]]:
    """Who raises each problem: reviewers of its kinds (a principal when none is in the
    round), those who raised it last round first; one to three of them, two or more for at
    least two problems. A co-reviewer may rate it one step milder."""
    out: dict[str, list[Finding]] = {name: [] for name in reviewers}
    raised: dict[str, list[str]] = {}
    for name, fs in (before or {}).items():
        for f in fs:
            raised.setdefault(f.title, []).append(name)
    principals = [r for r in reviewers if rtype(r)[0] == "principal"]
    multi = 2
    order = list(found)
    rng.shuffle(order)
    for p in order:
        kinds = BY_TITLE[p.title].kinds if p.title in BY_TITLE else ("principal",)

        def free(names: list[str]) -> list[str]:
            return [r for r in names if len(out[r]) < MAX_PER_REVIEWER]

        can = free([r for r in reviewers if rtype(r)[0] in kinds])
        extra = free([r for r in principals if r not in can])
        if not can:
            can = extra or free(reviewers)
        want = rng.choices((1, 2, 3), (6, 3, 1))[0]
        if multi > 0:
            want = max(want, 2)
        if want > len(can):
            can += [r for r in extra if r not in can]
        again = [r for r in raised.get(p.title, []) if r in can]
        rest = [r for r in can if r not in again]
        rng.shuffle(rest)
        rest.sort(key=lambda r: kinds.index(k) if (k := rtype(r)[0]) in kinds else len(kinds))
        firsts = [r for i, r in enumerate(rest) if rtype(r)[0] not in map(_kind, rest[:i])]
        who = (again + firsts + [r for r in rest if r not in firsts])[:want]
        multi -= len(who) >= 2
        for i, name in enumerate(who):
            sev = p.severity
            if i > 0 and sev != "info" and rng.random() < 0.25:
                sev = SEVERITIES[_rank(sev) + 1]
            out[name].append(replace(p, severity=sev))
    for fs in out.values():
        fs.sort(key=lambda f: _rank(f.severity))
    return out


def review_round(
    rng: random.Random,
    reviewers: list[str],
    files: list[str],
    mood: str,
    earlier: Sequence[dict[str, list[Finding]]] = (),
) -> dict[str, list[Finding]]:
    """Findings per reviewer (0–5 each) of a round after `earlier` (the session's rounds
    before it, each as this function returned it). mood 'block' guarantees a critical finding
    (one or two), other moods never produce one."""
    found = _problems(rng, reviewers, files, mood, earlier)
    return _assign(rng, found, reviewers, earlier[-1] if earlier else None)


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
