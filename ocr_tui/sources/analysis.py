"""Scientific Analysis Architect sessions as a Source (seed 003).

Where: `<root>/.scientific-analysis-session/` (the live session), `<root>/.scientific-analysis-
session.archive/` (an old session the skill renamed; a second rename lands inside it), and the
skill's fallback `<tmp>/scientific-analysis-architect-session-{date}-{time}-{pid}[.archive]/`
directories whose `config.output_directory` (or `session_directory`) is inside the project root.
The temp directory is not watched recursively: `poll` scans it (cheap, cached by mtime) and the
sessions found there are offered to the watcher by `extra_watch_dirs`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ocr_tui.derive import analysis as D
from ocr_tui.model import analysis as A
from ocr_tui.model.view import SessionView
from ocr_tui.sources.base import Source, Touch
from ocr_tui.sources.safe_read import inside, read_capped, read_tail
from ocr_tui.textsafe import unsurrogate

PRIMARY = ".scientific-analysis-session"
ARCHIVE = PRIMARY + ".archive"
TMP_PREFIX = "scientific-analysis-architect-session-"
STATE = D.STATE
ERRORS_LOG = ("logs", "errors.log")
LOG_TAIL = 64 * 1024  # bytes read from the end of logs/errors.log
LOG_LINES = 50  # errors.log entries kept
MAX_NEST = 3  # .archive/.scientific-analysis-session/... (a second rename lands inside)


def tmp_key(name: str) -> str:
    return "tmp-" + unsurrogate(name[len(TMP_PREFIX) :])


class AnalysisSource(Source):
    framework = "analysis"
    label = "Scientific analysis"
    markers = (PRIMARY,)

    def __init__(self, root: Path, *, tmp_dir: Path | str | None = None, **kwargs) -> None:
        super().__init__(root, **kwargs)
        self.primary = root / PRIMARY
        self.archive = root / ARCHIVE
        self.tmp_dir = Path(tmp_dir or os.environ.get("OCR_TUI_ANALYSIS_TMP") or "/tmp")
        tops = {os.path.normpath(os.path.abspath(root))}
        try:
            tops.add(os.path.realpath(root))
        except (OSError, ValueError):
            pass
        self._tops = tuple(tops)
        self._tmp: dict[str, Path] = {}  # key -> temp session dir of this project
        self._tmp_names: list[str] | None = None
        self._tmp_sig: tuple | None = None
        self._seen: dict[str, tuple[tuple | None, bool]] = {}  # name -> (state stat, belongs)
        self._expiry: dict[str, datetime] = {}

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.primary, self.archive]

    def extra_watch_dirs(self) -> list[Path]:
        if self._tmp_names is None:
            self._refresh_tmp()
        return list(self._tmp.values())  # the engine keeps the existing ones

    def list_sessions(self) -> dict[str, Path]:
        out: dict[str, Path] = {}
        if os.path.isdir(self.primary):  # os.path: False on any OSError, never raises
            out["project"] = self.primary
        d, n = self.archive, 1
        while n <= MAX_NEST and os.path.isdir(d) and (n == 1 or os.path.isfile(d / STATE)):
            out["project.archive" if n == 1 else f"project.archive.{n}"] = d
            d, n = d / PRIMARY, n + 1
        self._refresh_tmp()
        out.update(self._tmp)
        return out

    def poll(self) -> bool:
        return self._refresh_tmp()

    def touched(self, paths: Iterable[Path]) -> Touch:
        t = Touch()
        for path in paths:
            if path in (self.primary, self.archive) or self.primary.is_relative_to(path):
                t.relist = True
            if path.is_relative_to(self.primary):
                t.keys.add("project")
            elif path.is_relative_to(self.archive):
                parts = path.relative_to(self.archive).parts
                depth = 1
                while len(parts) > 0 and parts[0] == PRIMARY and depth < MAX_NEST:
                    if parts[1:] in ((), (STATE,)):  # a nested dir or its state file came/went
                        t.relist = True
                    parts, depth = parts[1:], depth + 1
                t.keys.add("project.archive" if depth == 1 else f"project.archive.{depth}")
            elif path.is_relative_to(self.tmp_dir):
                parts = path.relative_to(self.tmp_dir).parts
                if not parts or not parts[0].startswith(TMP_PREFIX):
                    continue
                if parts[1:] in ((), (STATE,)):  # a session dir or its state: its owner may change
                    self._tmp_sig = None
                    t.relist = True
                key = tmp_key(parts[0])
                if key in self._tmp:
                    t.keys.add(key)
        return t

    def _refresh_tmp(self) -> bool:
        """Rescan the temp dir when its mtime changed; re-check a candidate's owner when its
        state file changed. True when the set of this project's temp sessions changed."""
        try:
            st = os.stat(self.tmp_dir)
            sig: tuple | None = (st.st_mtime_ns, st.st_ino)
        except OSError:
            sig = None
        if sig != self._tmp_sig or self._tmp_names is None:
            self._tmp_sig = sig
            names: list[str] = []
            if sig is not None:
                try:
                    with os.scandir(self.tmp_dir) as it:
                        for e in it:
                            if e.name.startswith(TMP_PREFIX) and e.is_dir(follow_symlinks=False):
                                names.append(e.name)
                except OSError:
                    names = []
            self._tmp_names = names
            self._seen = {n: v for n, v in self._seen.items() if n in names}
        found: dict[str, Path] = {}
        for name in self._tmp_names:
            d = self.tmp_dir / name
            try:
                fst = os.stat(d / STATE)
                fsig: tuple | None = (fst.st_mtime_ns, fst.st_size, fst.st_ino)
            except OSError:
                fsig = None
            seen = self._seen.get(name)
            if seen is None or seen[0] != fsig:
                seen = (fsig, fsig is not None and self._belongs(d))
                self._seen[name] = seen
            if seen[1]:
                found[tmp_key(name)] = d
        changed = found != self._tmp
        self._tmp = found
        return changed

    def _belongs(self, d: Path) -> bool:
        data = _read_state(d / STATE, [])[0]
        state = A.decode_state(data, []) if data else None
        if state is None:
            return False
        for p in (state.config.output_directory, state.config.session_directory):
            if isinstance(p, str) and os.path.isabs(p) and self._in_root(p):
                return True
        return False

    def _in_root(self, p: str) -> bool:
        norm = os.path.normpath(p)
        if not inside(norm, self._tops):
            return False
        try:
            return inside(os.path.realpath(norm), self._tops)
        except (OSError, ValueError):
            return False

    # -- what -------------------------------------------------------------------------------

    def expires(self, view: SessionView) -> datetime | None:
        return self._expiry.get(view.path)  # by path: the engine may rename a clashing id

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        # A reader's bug is caught by the engine (the session stays listed with the error).
        problems: list[str] = []
        data, st = _read_state(path / STATE, problems)
        state = A.decode_state(data, problems) if data is not None else None
        if data is None and not problems:
            problems.append(f"{STATE} is missing")
        log = _tail_errors(path.joinpath(*ERRORS_LOG), problems)
        output_dir = state.config.output_directory if state is not None else None
        mtime = st.st_mtime if st is not None else None
        read = D.Read(state, log, mtime, _Docs(self, path, output_dir))
        view, expiry = D.build(key, path, now, read, problems, self.stall_after)
        if expiry is not None:
            self._expiry[str(path)] = expiry
        else:
            self._expiry.pop(str(path), None)
        return view


class _Docs:
    """Output paths as documents relative to the session dir: relative paths are looked up in
    the session dir, then the output directory (when inside the project), then the project
    root; absolute ones are kept when inside the project root or the session dir. Markdown
    files that exist are offered; `missing` counts the others."""

    def __init__(self, src: AnalysisSource, session: Path, output_dir: str | None) -> None:
        self.session = os.path.normpath(os.path.abspath(session))
        self.real_session = os.path.realpath(self.session)
        bases = [self.session]
        if output_dir and os.path.isabs(output_dir) and src._in_root(output_dir):
            bases.append(os.path.normpath(output_dir))
        bases.append(src._tops[0])
        self.bases = list(dict.fromkeys(bases))
        self.src = src
        self.missing = 0
        self._memo: dict[str, str | None] = {}

    def get(self, raw: str) -> str | None:
        if raw in self._memo:
            return self._memo[raw]
        found = None
        if raw.lower().endswith(".md") and "\x00" not in raw:  # documents are markdown
            for base in [""] if os.path.isabs(raw) else self.bases:
                cand = os.path.normpath(os.path.join(base, raw))
                if os.path.isfile(cand) and self._allowed(cand):
                    found = os.path.relpath(cand, self.session)
                    break
            if found is None:
                self.missing += 1
        self._memo[raw] = found
        return found

    def _allowed(self, cand: str) -> bool:
        """Inside the session dir or the project root, symbolic links resolved."""
        try:
            real = os.path.realpath(cand)
        except (OSError, ValueError):
            return False
        return inside(real, (self.real_session, *self.src._tops))


def _read_state(path: Path, problems: list[str]) -> tuple[bytes | None, os.stat_result | None]:
    return read_capped(path, STATE, problems)


def _tail_errors(path: Path, problems: list[str]) -> list[A.ErrorEntry]:
    """The last entries of `logs/errors.log` (JSON lines); unreadable lines are counted."""
    got = read_tail(path, LOG_TAIL)
    if got is None:
        return []
    data, cut = got
    lines = data.splitlines()
    if cut and lines:
        lines = lines[1:]  # the first line is cut
    out: list[A.ErrorEntry] = []
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        entry = A.decode_error_line(line)
        if entry is None:
            bad += 1
        else:
            out.append(entry)
    if bad:
        problems.append(f"logs/errors.log: {bad} line(s) are not JSON objects")
    return out[-LOG_LINES:]
