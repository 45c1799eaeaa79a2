"""Read one OCR session directory: what exists, and the parsed content of the files that
carry findings, verdicts and file counts. Parsed results are cached by (path, size, mtime, ctime,
inode), one entry per file (`file_cache`)."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec

from ocr_tui.core.textdecode import decode_text, json_bytes, json_problem
from ocr_tui.core.textsafe import has_control, is_undecodable, safe_line, unsurrogate
from ocr_tui.core.view import Severity
from ocr_tui.formats.ocr import file_cache
from ocr_tui.formats.ocr.files import FileInfo, ReviewerFile, RoundFiles, RunFiles, SessionFiles
from ocr_tui.formats.ocr.final_items import parse_final_counts
from ocr_tui.formats.ocr.map_sections import MAP_META_DECODER, RunMap, from_markdown, from_meta
from ocr_tui.formats.ocr.markdown import (
    natural_key,
    parse_findings,
    parse_topology_files,
    parse_verdict,
)
from ocr_tui.formats.ocr.model import ROUND_META_DECODER, STATE_DECODER

MAX_READ = 4 * 1024 * 1024  # bytes of one markdown file that are parsed
MAX_JSON = 1024 * 1024  # a state or meta file larger than this is not decoded
# ASCII digits only, as OCR's own `grep -E '^round-[0-9]+$'` (`\d` would also take `round-١`).
_ROUND_DIR = re.compile(r"^round-([0-9]+)$")
_RUN_DIR = re.compile(r"^run-([0-9]+)$")


# --- cache of parsed file contents (`file_cache`: one entry per file) ----------------------


def _cached(path: str, rel: str, st: os.stat_result, kind: str, parse):
    """`parse()` of the file at `path` (`rel` within its session), kept while its stat is the
    same. ctime and inode too: a same-size rewrite within one mtime tick (coarse file-system
    clocks, or a file renamed into place) must not be served from the cache."""
    tail = os.sep + rel
    session = path[: -len(tail)] if rel and path.endswith(tail) else path
    return file_cache.lookup(session, kind, rel, _stat_key(st), parse)


def cached_of_many(kind: str, session: Path, rel: str, digest: str, compute):
    """A value computed from several files of `session` (`compute()`), cached and persisted
    like a parsed file's, one entry for `rel` (the directory it describes): `digest` must
    name every input (their paths and stat keys), so any change to one of them replaces it."""
    return file_cache.lookup(str(session), kind, rel, digest, compute)


def _read_text(path: str, problems: list[str], rel: str) -> str:
    with open(path, "rb") as fh:
        data = fh.read(MAX_READ + 1)
    truncated = len(data) > MAX_READ
    if truncated:
        problems.append(
            f"{safe_line(rel)} is larger than {MAX_READ // (1024 * 1024)} MiB: "
            "only the first part was read"
        )
        data = data[:MAX_READ]
    text = decode_text(data, safe_line(rel), problems, truncated=truncated)
    if has_control(text):
        problems.append(f"{safe_line(rel)} holds terminal control characters (shown as symbols)")
    return text


# --- texts read while listing, kept for the findings model ---------------------------------

_kept = threading.local()  # .texts: path -> (text, its read problems), while `keep_texts` runs


@contextmanager
def keep_texts() -> Iterator[None]:
    """While this runs (in this thread), the markdown files `read_session` parses are kept, so
    `read_markdown` of the same path (the findings model, `round_findings`) gets the text it
    read instead of reading the file again. Only files parsed anew are kept (a cached parse
    reads nothing); all are dropped when it ends."""
    _kept.texts = {}
    try:
        yield
    finally:
        _kept.texts = None


def read_markdown(path: Path | str, rel: str, problems: list[str]) -> str | None:
    """A markdown file of the session as text (capped, any encoding; see `_read_text`), or
    None with a problem when it cannot be read."""
    kept = getattr(_kept, "texts", None)
    if kept:
        got = kept.get(str(path))
        if got is not None:
            problems.extend(got[1])
            return got[0]
    try:
        return _read_text(str(path), problems, rel)
    except OSError as exc:
        problems.append(f"{safe_line(rel)} cannot be read: {exc.strerror or exc}")
        return None


# --- listing -------------------------------------------------------------------------------


def _scan(path: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(path) as it:
            return list(it)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:  # unreadable (permissions), or gone mid-read
        raise _Unreadable(exc.strerror or str(exc)) from None


class _Unreadable(Exception):
    pass


def _entry_kind(entry: os.DirEntry) -> str | None:
    """'file', 'dir' or None. Symlinks are not followed: a link can lead out of the project
    or into a loop, and OCR never writes one."""
    try:
        if entry.is_symlink():
            return "link"
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False):
            return "file"
    except OSError:
        return None
    return None


def _info(entry: os.DirEntry) -> tuple[FileInfo, os.stat_result] | None:
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    return FileInfo(st.st_size, st.st_mtime), st


class _Walker:
    def __init__(self, files: SessionFiles) -> None:
        self.s = files
        self.present: set[str] = set()  # every file and directory listed, by path within

    def note_mtime(self, mtime: float) -> None:
        s = self.s
        s.newest_mtime = mtime if s.newest_mtime is None else max(s.newest_mtime, mtime)
        s.oldest_mtime = mtime if s.oldest_mtime is None else min(s.oldest_mtime, mtime)

    def files_of(
        self, directory: Path, rel: str
    ) -> tuple[dict[str, tuple[FileInfo, os.stat_result]], list[str]]:
        files: dict[str, tuple[FileInfo, os.stat_result]] = {}
        dirs: list[str] = []
        try:
            entries = _scan(directory)
        except _Unreadable as exc:
            self.s.problems.append(f"{safe_line(rel or './')} cannot be listed: {exc}")
            entries = []
        for entry in entries:
            name = entry.name
            _check_name(name, rel + name, self.s.problems)
            kind = _entry_kind(entry)
            if kind in ("dir", "file"):
                self.present.add(rel + name)
            if kind == "dir":
                dirs.append(name)
            elif kind == "file":
                got = _info(entry)
                if got is None:
                    self.s.problems.append(f"{safe_line(rel + name)} cannot be read")
                    continue
                files[name] = got
                self.note_mtime(got[0].mtime)
            elif kind == "link":
                self.s.problems.append(f"{safe_line(rel + name)} is a symbolic link: not followed")
        return files, dirs


def _check_name(name: str, rel: str, problems: list[str]) -> None:
    if is_undecodable(name):
        problems.append(f"{safe_line(rel)}: the name is not valid UTF-8 (shown with \ufffd)")
    elif has_control(name):
        problems.append(f"{safe_line(rel)}: the name holds control characters (shown as symbols)")


def _parse_md(path: str, st: os.stat_result, kind: str, problems: list[str], rel: str, parse):
    def work():
        local: list[str] = []
        try:
            text = _read_text(path, local, rel)
        except OSError as exc:
            return (None, [f"{safe_line(rel)} cannot be read: {exc.strerror or exc}"])
        kept = getattr(_kept, "texts", None)
        if kept is not None:
            kept[path] = (text, list(local))
        return (parse(text), local)

    value, found = _cached(path, rel, st, kind, work)
    problems.extend(found)
    return value


def _decode_json(path: str, st: os.stat_result, decoder, rel: str, problems: list[str]):
    def work():
        if st.st_size > MAX_JSON:
            return (None, f"{safe_line(rel)} is {st.st_size} bytes: too large to be a state file")
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_JSON + 1)
        except OSError as exc:
            return (None, f"{safe_line(rel)} cannot be read: {exc.strerror or exc}")
        found: list[str] = []
        data = json_bytes(data, safe_line(rel), found)
        if data is None:
            return (None, found[-1])
        note = found[0] if found else None
        try:
            return (decoder.decode(data), note)
        except (msgspec.DecodeError, RecursionError, ValueError) as exc:
            return (None, json_problem(safe_line(rel), exc, data))  # in plain words

    value, problem = _cached(path, rel, st, "json:" + repr(decoder.type), work)
    if problem:
        problems.append(problem)
    return value


def read_session(path: Path, *, read_state_json: bool = True) -> SessionFiles:
    """List a session directory and parse what the derivation needs."""
    sid = unsurrogate(path.name)
    s = SessionFiles(id=sid, path=path)
    if is_undecodable(path.name):
        s.problems.append("the session's directory name is not valid UTF-8 (shown with \ufffd)")
    elif has_control(path.name):
        s.problems.append(
            "the session's directory name holds control characters (shown as symbols)"
        )
    w = _Walker(s)
    root, dirs = w.files_of(path, "")
    s.root_dirs = set(dirs)
    s.root_files = {n: fi for n, (fi, _) in root.items()}
    if read_state_json and "state.json" in root:
        s.state = _decode_json(
            str(path / "state.json"), root["state.json"][1], STATE_DECODER, "state.json", s.problems
        )

    if "rounds" in s.root_dirs:
        names = w.files_of(path / "rounds", "rounds/")[1]
        for number, name in _numbered(names, _ROUND_DIR, "round", "rounds/", s.problems):
            s.rounds.append(_read_round(w, path / "rounds" / name, f"rounds/{name}", number))
    elif "reviews" in s.root_dirs:
        s.problems.append(
            "pre-1.2 flat layout (reviews/ at the session root, no rounds/): not read as rounds"
        )
        w.files_of(path / "reviews", "reviews/")  # its files still count as activity

    if "map" in s.root_dirs:
        names = w.files_of(path / "map" / "runs", "map/runs/")[1]
        for number, name in _numbered(names, _RUN_DIR, "run", "map/runs/", s.problems):
            rel = f"map/runs/{name}"
            files, _ = w.files_of(path / "map" / "runs" / name, rel + "/")
            run = RunFiles(number=number, rel=rel, files={n: fi for n, (fi, _) in files.items()})
            if "topology.md" in files:
                run.topology_files = _parse_md(
                    str(path / rel / "topology.md"), files["topology.md"][1], "topology",
                    s.problems, rel + "/topology.md", parse_topology_files,
                )  # fmt: skip
            run.sections = _run_sections(path / rel, files, rel, s.problems)
            s.map_runs.append(run)
    file_cache.prune(str(path), w.present)  # the entries of files gone (a round's: its dir)
    return s


def _run_sections(run_dir: Path, files: dict, rel: str, problems: list[str]) -> RunMap | None:
    """The run's review sections from map-meta.json, else from map.md's section tables."""
    if "map-meta.json" in files:
        meta = _decode_json(
            str(run_dir / "map-meta.json"), files["map-meta.json"][1], MAP_META_DECODER,
            rel + "/map-meta.json", problems,
        )  # fmt: skip
        if meta is not None:
            return from_meta(meta)
    if "map.md" in files:
        return _parse_md(
            str(run_dir / "map.md"), files["map.md"][1], "mapsections", problems,
            rel + "/map.md", from_markdown,
        )  # fmt: skip
    return None


def _numbered(
    names: list[str], pattern: re.Pattern[str], word: str, parent: str, problems: list[str]
) -> list[tuple[int, str]]:
    """(number, name) of the directories `names` that are `{word}-N`, in numeric order. Two
    names of one number (`round-01` beside `round-1`) are both kept: the spelling OCR writes
    (`round-1`) first, it is round N; the others after it by name, each clash a problem."""
    found = [(int(m.group(1)), name) for name in names if (m := pattern.match(name))]
    found.sort(key=lambda item: (item[0], item[1] != f"{word}-{item[0]}", item[1]))
    first: dict[int, str] = {}
    for number, name in found:
        if number in first:
            problems.append(f"{parent}{name} and {parent}{first[number]} are both {word} {number}")
        else:
            first[number] = name
    return found


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _read_round(w: _Walker, rdir: Path, rel: str, number: int) -> RoundFiles:
    s = w.s
    files, dirs = w.files_of(rdir, rel + "/")
    stamp: list[tuple] = []  # RoundFiles.stamp
    rf = RoundFiles(number=number, rel=rel, files={n: fi for n, (fi, _) in files.items()})
    if "reviews" in dirs:
        rfiles, _ = w.files_of(rdir / "reviews", rel + "/reviews/")
        # Like the shell's `*.md`: dot-files (editor backups, lock files) are not reviewers.
        # By name after the natural order: `principal-1` and `Principal-1` tie in it, and
        # the listing's order is the file system's.
        names = sorted(
            (n for n in rfiles if n.endswith(".md") and len(n) > 3 and not n.startswith(".")),
            key=lambda n: (natural_key(n), n),
        )
        for name in names:
            fi, st = rfiles[name]
            rrel = f"{rel}/reviews/{name}"
            sev = _parse_md(
                str(rdir / "reviews" / name), st, "findings", s.problems, rrel, parse_findings
            )
            rf.reviewers.append(
                ReviewerFile(
                    name=unsurrogate(name[:-3]), rel=rrel, info=fi, severity=sev or Severity()
                )
            )
            stamp.append((name, *_stat_key(st)))
    for name in ("final.md", "round-meta.json"):
        if name in files:
            stamp.append((name, *_stat_key(files[name][1])))
    rf.stamp = tuple(stamp)
    if "round-meta.json" in files:
        rf.meta = _decode_json(
            str(rdir / "round-meta.json"),
            files["round-meta.json"][1],
            ROUND_META_DECODER,
            rel + "/round-meta.json",
            s.problems,
        )
    if "final.md" in files:
        parsed = _parse_md(
            str(rdir / "final.md"), files["final.md"][1], "final", s.problems, rel + "/final.md",
            lambda text: (parse_verdict(text), parse_final_counts(text)),
        )  # fmt: skip
        if parsed:
            rf.final_verdict, rf.final_counts = parsed
    return rf
