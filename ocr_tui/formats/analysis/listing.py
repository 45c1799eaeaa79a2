"""Finding and keying Scientific Analysis Architect sessions (seed 003).

Where: `<root>/.scientific-analysis-session/` (the live session), `<root>/.scientific-analysis-
session.archive/` (an old session the skill renamed; a second rename lands inside it), and the
skill's fallback `<tmp>/scientific-analysis-architect-session-{date}-{time}-{pid}[.archive]/`
directories whose `config.output_directory` (or `session_directory`) is inside the project root.
The temp directory is not watched recursively: `refresh_tmp` scans it (cheap, cached by mtime)
and the sessions found there are offered to the watcher.

Keys (the sessions' ids): a session's own `session_id`, or, when it has none fit to be an id,
its directory's name (relative to the project root for the project's directories). A key
does not change while its file is rewritten: a state that cannot be read at the moment (empty,
half-written, no `session_id`) keeps the directory's last key. Two sessions with the same
`session_id` (a session and a copy of it) are two keys: the one that held the id keeps it, the
other (the one listed later) gets `~2`, `~3`..., and a problem that says so. A session whose
directory is renamed (the skill's archiving) keeps its key and follows its directory. So
listing reads each state file's `session_id` (a few files; cached by the file's stat).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ocr_tui.core.safe_read import inside, read_capped
from ocr_tui.core.source import Touch
from ocr_tui.core.textsafe import name_key
from ocr_tui.formats.analysis import derive as D
from ocr_tui.formats.analysis import model as A

PRIMARY = ".scientific-analysis-session"
ARCHIVE = PRIMARY + ".archive"
TMP_PREFIX = "scientific-analysis-architect-session-"
STATE = D.STATE
MAX_NEST = 3  # .archive/.scientific-analysis-session/... (a second rename lands inside)
MAX_ID = 100  # a longer session_id is not used as an id
DUP = "~"  # `session-…~2`: the second session listed with the same session_id


def usable_id(raw: object) -> str | None:
    """`raw` (a state's `session_id`) when it is fit to be an id: one printable word of at
    most MAX_ID characters (no spaces, control characters or bidi overrides); else None."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if not text or len(text) > MAX_ID or not text.isprintable():
        return None
    if any(c.isspace() for c in text):
        return None
    return text


def read_state(path: Path, problems: list[str]) -> tuple[bytes | None, os.stat_result | None]:
    return read_capped(path, STATE, problems)


@dataclass
class _Peek:
    """What listing needs of a state file: its session_id (raw), its directories, whether
    it could be read at all."""

    read: bool
    session_id: object = None
    dirs: tuple = ()


def assign_keys(
    wants: list[tuple[Path, str, str | None]],
) -> tuple[dict[Path, tuple[str, str]], dict[str, Path]]:
    """Each dir's (key, the id it stands for), and each key's dir, from (dir, the id it wants,
    its last key when that still stands for the id). The dirs that hold their id keep it; those
    listed as `id~N` take the id if it is free now, else keep theirs; the others, in listing
    order, take their id, or the first free `id~N`."""
    keys: dict[Path, tuple[str, str]] = {}
    taken: dict[str, Path] = {}

    def take(d: Path, key: str, want: str) -> None:
        keys[d] = (key, want)
        taken[key] = d

    for d, want, last in wants:  # the dirs that hold their id keep it
        if last == want:
            take(d, want, want)
    for d, want, last in wants:  # those listed as `id~N`: the id if it is free now
        if last is not None and d not in keys:
            if want not in taken:
                take(d, want, want)
            elif last not in taken:
                take(d, last, want)
    for d, want, _ in wants:  # the others, in listing order: the id, or `id~N`
        if d not in keys:
            key, n = want, 1
            while key in taken:
                n += 1
                key = f"{want}{DUP}{n}"
            take(d, key, want)
    return keys, taken


class Listing:
    """One project's analysis sessions: where they are, their keys, and which session a
    changed path belongs to. Caches the temp dir's scan and the state files' peeks."""

    def __init__(self, root: Path, tmp_dir: Path) -> None:
        self.root = root
        self.primary = root / PRIMARY
        self.archive = root / ARCHIVE
        self.tmp_dir = tmp_dir
        tops = {os.path.normpath(os.path.abspath(root))}
        try:
            tops.add(os.path.realpath(root))
        except (OSError, ValueError):
            pass
        self.tops = tuple(tops)
        self.tmp: dict[str, Path] = {}  # dir name -> temp session dir of this project
        self._tmp_names: list[str] | None = None
        self._tmp_sig: tuple | None = None
        self._seen: dict[str, tuple[tuple | None, bool]] = {}  # name -> (state stat, belongs)
        self._peeks: dict[Path, tuple[tuple | None, _Peek]] = {}  # dir -> (state stat, peek)
        self.keys: dict[Path, tuple[str, str]] = {}  # dir -> (its key, the id it stands for)
        self.notes: dict[Path, str] = {}  # dir -> why its key is not its session_id

    def temp_dirs(self) -> list[Path]:
        if self._tmp_names is None:
            self.refresh_tmp()
        return list(self.tmp.values())

    def list_sessions(self) -> dict[str, Path]:
        dirs: list[tuple[Path, str]] = []  # (session dir, its name when it has no usable id)
        if os.path.isdir(self.primary):  # os.path: False on any OSError, never raises
            dirs.append((self.primary, PRIMARY))
        d, n, name = self.archive, 1, ARCHIVE
        while n <= MAX_NEST and os.path.isdir(d) and (n == 1 or os.path.isfile(d / STATE)):
            dirs.append((d, name))
            d, n, name = d / PRIMARY, n + 1, f"{name}/{PRIMARY}"
        self.refresh_tmp()
        dirs += [(path, name_key(name)) for name, path in sorted(self.tmp.items())]
        return self._assign(dirs)

    def _assign(self, dirs: list[tuple[Path, str]]) -> dict[str, Path]:
        """Each session dir's key: see the module's docstring. A dir whose last key still
        stands for what its state says (or whose state cannot be read now) keeps it; the
        others, in listing order, take their id, or the first free `id~N`."""
        wants: list[tuple[Path, str, str | None]] = []  # (dir, the id it wants, its last key)
        for d, fallback in dirs:
            sid = usable_id(self.peek(d).session_id)
            old = self.keys.get(d)
            # No id now (being rewritten, or written without one): the dir's session is the
            # one it was. Only another session_id makes it another session.
            want = sid or (old[1] if old is not None else fallback)
            wants.append((d, want, old[0] if old is not None and old[1] == want else None))
        keys, taken = assign_keys(wants)
        notes: dict[Path, str] = {}
        for d, (key, want) in keys.items():
            if key != want:
                where = self._where(taken[want])
                notes[d] = (
                    f"session_id {want} is also the id of the session in {where}: listed as {key}"
                )
        self.keys, self.notes = keys, notes
        names = set(self._tmp_names or ())
        self._peeks = {
            d: v
            for d, v in self._peeks.items()
            if d in keys or (d.parent == self.tmp_dir and d.name in names)
        }
        return {key: d for d, (key, _) in keys.items()}

    def peek(self, d: Path) -> _Peek:
        """The state's session_id and directories, cached by the state file's stat."""
        try:
            st = os.stat(d / STATE)
            sig: tuple | None = (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)
        except OSError:
            sig = None
        got = self._peeks.get(d)
        if got is not None and got[0] == sig and sig is not None:
            return got[1]
        peek = _Peek(read=False)
        if sig is not None:
            try:
                data = read_state(d / STATE, [])[0]
                state = A.decode_state(data, []) if data else None
            except Exception:  # a reader's bug shows when the session is derived
                state = None
            if state is not None:
                dirs = (state.config.output_directory, state.config.session_directory)
                peek = _Peek(read=True, session_id=state.session_id, dirs=dirs)
        self._peeks[d] = (sig, peek)
        return peek

    def _where(self, d: Path) -> str:
        try:
            return str(d.relative_to(self.root))
        except ValueError:
            return str(d)

    def touched(self, paths: Iterable[Path]) -> Touch:
        t = Touch()
        for path in paths:
            if path in (self.primary, self.archive) or self.primary.is_relative_to(path):
                t.relist = True
            in_project = path.is_relative_to(self.primary) or path.is_relative_to(self.archive)
            if path.is_relative_to(self.archive):
                parts = path.relative_to(self.archive).parts
                depth = 1
                while len(parts) > 0 and parts[0] == PRIMARY and depth < MAX_NEST:
                    if parts[1:] in ((), (STATE,)):  # a nested dir or its state file came/went
                        t.relist = True
                    parts, depth = parts[1:], depth + 1
            elif not in_project and path.is_relative_to(self.tmp_dir):
                parts = path.relative_to(self.tmp_dir).parts
                if not parts or not parts[0].startswith(TMP_PREFIX):
                    continue
                if parts[1:] in ((), (STATE,)):  # a session dir or its state: its owner may change
                    self._tmp_sig = None
                    t.relist = True
            owner = self._owner(path)
            if owner is None:
                t.relist = t.relist or in_project  # a session dir not listed yet
                continue
            t.keys.add(self.keys[owner][0])
            if path == owner / STATE and not t.relist:
                # A state rewritten with another session_id holds another session: list again.
                sid = usable_id(self.peek(owner).session_id)
                if sid is not None and sid != self.keys[owner][1]:
                    t.relist = True
        return t

    def _owner(self, path: Path) -> Path | None:
        """The listed session dir that holds `path` (the deepest: archives nest)."""
        best = None
        for d in self.keys:
            if path.is_relative_to(d) and (best is None or len(d.parts) > len(best.parts)):
                best = d
        return best

    def refresh_tmp(self) -> bool:
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
                found[name] = d
        changed = found != self.tmp
        self.tmp = found
        return changed

    def _belongs(self, d: Path) -> bool:
        for p in self.peek(d).dirs:
            if isinstance(p, str) and os.path.isabs(p) and self.in_root(p):
                return True
        return False

    def in_root(self, p: str) -> bool:
        norm = os.path.normpath(p)
        if not inside(norm, self.tops):
            return False
        try:
            return inside(os.path.realpath(norm), self.tops)
        except (OSError, ValueError):
            return False

    def kind(self, path: Path) -> tuple[bool, bool]:
        """(archived, temp) by where the session dir is: in the project's archive or named
        `*.archive`; in the temp dir."""
        temp = path in self.tmp.values()
        archived = path.is_relative_to(self.archive) or (temp and path.name.endswith(".archive"))
        return archived, temp
