"""Random sequences of what agents and people do to an OCR project, applied while the watcher
runs; whenever the test checks (and at the end), once the watcher is quiet, the live model built
from its events equals a fresh scan.

Profiles: `HYPOTHESIS_PROFILE=fuzz` (what `make fuzz` sets) runs many more and longer sequences,
with every watcher backend; the default CI profile is derandomized, so a run never differs from
the last one but by timing, and timing only decides how long `settle` waits.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from .support import LiveWatch, db_bytes, final_md, put, reviewer_md, state_json, write_db

settings.register_profile(
    "robustness-ci",
    max_examples=int(os.environ.get("ROBUSTNESS_EXAMPLES", "200")),
    stateful_step_count=12,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
settings.register_profile(
    "robustness-fuzz",
    max_examples=int(os.environ.get("ROBUSTNESS_EXAMPLES", "5000")),
    stateful_step_count=40,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
FUZZ = os.environ.get("HYPOTHESIS_PROFILE") == "fuzz"
PROFILE = settings.get_profile("robustness-fuzz" if FUZZ else "robustness-ci")

SIDS = ("2026-11-22-main", "2026-11-22-feat-auth", "2026-11-21-fix-cache", "legacy")
PHASES = (
    "context", "change-context", "analysis", "reviews", "aggregation", "discourse", "synthesis",
    "complete", "map-context", "topology", "flow-analysis", "map-flow", "requirements",
    "not-a-phase",
)  # fmt: skip
REVIEWERS = ("principal-1", "principal-2", "quality-1", "security-10")
SEVERITIES = ("critical", "high", "medium", "low", "info", "bogus")
# Polling is opt-in (ROBUSTNESS_POLL=1): watchfiles' poller misses a second rewrite within
# the same second (tests/robustness/test_polling.py), so sequences fail on it until fixed.
BACKENDS = ("auto", "watchfiles") + (("poll",) if os.environ.get("ROBUSTNESS_POLL") else ())

# How a text file is written: as agents do, or as Windows editors, PowerShell and padded LLM
# output do (each must read as its plain twin, live and in a fresh scan alike).
ENCODINGS = ("plain", "plain", "bom", "utf-16", "crlf", "padded")
encodings = st.sampled_from(ENCODINGS)


def encoded(text: str, how: str) -> bytes:
    if how == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    if how == "utf-16":
        return b"\xff\xfe" + text.encode("utf-16-le")
    if how == "crlf":
        return text.replace("\n", "\r\n").encode()
    if how == "padded":  # whitespace runs, and the template's example inside a comment
        comment = "<!--\n### Finding 9: example\n- **Severity**: Critical\n-->\n"
        return (text.replace(" ", " \t" * 500) + comment).encode()
    return text.encode()


sids = st.sampled_from(SIDS)
rounds = st.integers(1, 3)
state_fields = st.fixed_dictionaries(
    {
        "current_phase": st.sampled_from(PHASES),
        "status": st.sampled_from(("active", "closed", None, "paused")),
        "current_round": st.one_of(st.none(), st.integers(-1, 5)),
        "workflow_type": st.sampled_from((None, "review", "map")),
        "started_at": st.sampled_from((None, "2026-11-22T01:00:00Z", "2026-11-22 02:00:00", "x")),
        "updated_at": st.sampled_from((None, "2026-11-22T03:00:00+01:00", "9999-01-01T00:00:00Z")),
    }
)


class ProjectActions(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="ocr-robust-"))
        self.root = self.tmp / "proj"
        (self.root / ".ocr" / "sessions").mkdir(parents=True)
        self.sessions = self.root / ".ocr" / "sessions"
        self.db = self.root / ".ocr" / "data" / "ocr.db"
        self.watch: LiveWatch | None = None

    # -- set-up ------------------------------------------------------------------------------

    @initialize(
        backend=st.sampled_from(BACKENDS),
        start=st.lists(st.tuples(sids, state_fields), max_size=3, unique_by=lambda t: t[0]),
    )
    def start_watching(self, backend: str, start) -> None:
        for sid, fields in start:
            put(self.sessions / sid / "state.json", state_json(**fields))
        poll = backend == "poll"
        self.watch = LiveWatch(self.root, backend="auto" if poll else backend, poll=poll).start()

    def teardown(self) -> None:
        try:
            if self.watch is not None:
                try:
                    self.watch.settle()
                finally:
                    self.watch.close()
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def _did(self) -> None:
        if self.watch is not None:
            self.watch.touched()

    def _sdir(self, sid: str) -> Path:
        return self.sessions / sid

    # -- sessions ----------------------------------------------------------------------------

    @rule(sid=sids)
    def create_session(self, sid: str) -> None:
        self._sdir(sid).mkdir(parents=True, exist_ok=True)
        self._did()

    @rule(sid=sids)
    def delete_session(self, sid: str) -> None:
        shutil.rmtree(self._sdir(sid), ignore_errors=True)
        self._did()

    @rule(a=sids, b=sids)
    def rename_session(self, a: str, b: str) -> None:
        if self._sdir(a).is_dir() and not self._sdir(b).exists():
            os.rename(self._sdir(a), self._sdir(b))
            self._did()

    @rule()
    def delete_sessions_dir(self) -> None:
        shutil.rmtree(self.sessions, ignore_errors=True)
        self._did()

    @rule()
    def recreate_sessions_dir(self) -> None:
        self.sessions.mkdir(parents=True, exist_ok=True)
        self._did()

    # -- state.json --------------------------------------------------------------------------

    @rule(sid=sids, fields=state_fields, atomic=st.booleans(), how=encodings)
    def write_state(self, sid: str, fields: dict, atomic: bool, how: str) -> None:
        data = encoded(state_json(**fields), "plain" if how == "padded" else how)
        put(self._sdir(sid) / "state.json", data, atomic=atomic)
        self._did()

    @rule(sid=sids, keep=st.integers(0, 60))
    def truncate_state(self, sid: str, keep: int) -> None:
        """A non-atomic writer caught mid-write: the file ends part-way."""
        path = self._sdir(sid) / "state.json"
        if path.is_file():
            os.truncate(path, min(keep, path.stat().st_size))
            self._did()

    @rule(sid=sids)
    def delete_state(self, sid: str) -> None:
        (self._sdir(sid) / "state.json").unlink(missing_ok=True)
        self._did()

    # -- rounds and reviewers ----------------------------------------------------------------

    @rule(sid=sids, n=rounds)
    def add_round(self, sid: str, n: int) -> None:
        (self._sdir(sid) / "rounds" / f"round-{n}" / "reviews").mkdir(parents=True, exist_ok=True)
        self._did()

    @rule(sid=sids, n=rounds)
    def delete_round(self, sid: str, n: int) -> None:
        shutil.rmtree(self._sdir(sid) / "rounds" / f"round-{n}", ignore_errors=True)
        self._did()

    @rule(
        sid=sids,
        n=rounds,
        name=st.sampled_from(REVIEWERS),
        severities=st.lists(st.sampled_from(SEVERITIES), max_size=4),
        atomic=st.booleans(),
        how=encodings,
    )
    def write_reviewer(self, sid, n, name, severities, atomic, how) -> None:
        path = self._sdir(sid) / "rounds" / f"round-{n}" / "reviews" / f"{name}.md"
        put(path, encoded(reviewer_md(name, severities), how), atomic=atomic)
        self._did()

    @rule(sid=sids, n=rounds, name=st.sampled_from(REVIEWERS))
    def delete_reviewer(self, sid: str, n: int, name: str) -> None:
        (self._sdir(sid) / "rounds" / f"round-{n}" / "reviews" / f"{name}.md").unlink(
            missing_ok=True
        )
        self._did()

    @rule(
        sid=sids,
        n=rounds,
        what=st.sampled_from(("final.md", "discourse.md", "round-meta.json", "context.md")),
        verdict=st.sampled_from(("APPROVE", "REQUEST CHANGES", "")),
        atomic=st.booleans(),
        how=encodings,
    )
    def write_round_file(self, sid, n, what, verdict, atomic, how) -> None:
        rdir = self._sdir(sid) / "rounds" / f"round-{n}"
        if what == "final.md":
            put(rdir / what, encoded(final_md(verdict), how), atomic=atomic)
        elif what == "round-meta.json":
            put(rdir / what, state_json(verdict=verdict or None), atomic=atomic)
        elif what == "context.md":
            put(self._sdir(sid) / what, "# Context\n", atomic=atomic)
        else:
            put(rdir / what, "# Discourse\n", atomic=atomic)
        self._did()

    @rule(sid=sids, n=rounds)
    def delete_final(self, sid: str, n: int) -> None:
        (self._sdir(sid) / "rounds" / f"round-{n}" / "final.md").unlink(missing_ok=True)
        self._did()

    # -- ocr.db ------------------------------------------------------------------------------

    @rule(rows=st.dictionaries(sids, state_fields, max_size=3), atomic=st.booleans())
    def replace_db(self, rows: dict, atomic: bool) -> None:
        cols = {
            sid: {k: v for k, v in f.items() if k != "workflow_type" and v is not None}
            for sid, f in rows.items()
        }
        write_db(self.db, db_bytes(cols), atomic=atomic)
        self._did()

    @rule(garbage=st.binary(min_size=0, max_size=200))
    def corrupt_db(self, garbage: bytes) -> None:
        write_db(self.db, garbage)
        self._did()

    @precondition(lambda self: self.db.exists())
    @rule()
    def delete_db(self) -> None:
        self.db.unlink(missing_ok=True)
        self._did()

    # -- checking ----------------------------------------------------------------------------

    @rule()
    def check(self) -> None:
        """Mid-sequence: quiet now, the live model must already match."""
        assert self.watch is not None
        self.watch.settle()

    @invariant()
    def watcher_alive(self) -> None:
        if self.watch is not None:
            assert self.watch.error is None, f"the watcher failed: {self.watch.error!r}"


ProjectActions.TestCase.settings = PROFILE
TestProjectActions = ProjectActions.TestCase
