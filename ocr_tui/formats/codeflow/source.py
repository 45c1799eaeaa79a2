"""The LTVAI-Kit `/code` workflow as a Source (seed 002): `.claude/.docs/{id}/state.json`.

One session per directory of `.claude/.docs`. The view shows the six phases (init, research,
plan, implement, quality, review) with their state, reports and durations; the full/fast and auto
badges; the linked spec; the agents the dispatcher chose. This module finds and reads the
files (IO); the view rules are in `ocr_tui.formats.codeflow.derive`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from ocr_tui.core.safe_read import MAX_JSON as MAX_JSON
from ocr_tui.core.safe_read import inside, read_capped
from ocr_tui.core.source import Source, Touch
from ocr_tui.core.textdecode import load_json
from ocr_tui.core.textsafe import name_key
from ocr_tui.core.view import SessionView
from ocr_tui.formats.codeflow import model as C

DOCS = (".claude", ".docs")
STATE = "state.json"  # (derive.STATE; derive is imported where a session is derived)
MAX_DOCS = 200  # markdown files listed per session
DOC_DEPTH = 2  # subdirectory levels searched for markdown files


class CodeWorkflowSource(Source):
    framework = "code"
    label = "Code workflow"
    default_workflow = "code"
    flow_words = ("fast",)
    phase_labels = (*(label for _, label in C.PHASES), "Complete")
    markers = (os.path.join(*DOCS),)

    def __init__(self, root: Path, **kwargs) -> None:
        super().__init__(root, **kwargs)
        self.docs = root.joinpath(*DOCS)
        self._top = str(root)
        self._stallable: set[str] = set()  # session paths with a phase in progress

    # -- where ------------------------------------------------------------------------------

    def watch_dirs(self) -> list[Path]:
        return [self.docs]

    def list_sessions(self) -> dict[str, Path]:
        out: dict[str, Path] = {}
        try:
            with os.scandir(self.docs) as it:
                for e in it:
                    try:
                        if not e.name.startswith(".") and e.is_dir():
                            out[name_key(e.name)] = Path(e.path)
                    except OSError:
                        continue
        except OSError:
            pass
        return out

    def touched(self, paths: Iterable[Path]) -> Touch:
        t = Touch()
        for path in paths:
            if path == self.docs or self.docs.is_relative_to(path):
                t.relist = True
                continue
            try:
                parts = path.relative_to(self.docs).parts
            except ValueError:
                continue
            if not parts or parts[0].startswith("."):
                continue
            t.keys.add(name_key(parts[0]))
            if len(parts) == 1:
                t.relist = True
        return t

    def expires(self, view: SessionView) -> datetime | None:
        """Only a phase in progress can become stalled: a session between phases, or one
        never started, does not change with time (its elapsed time ticks in the UI)."""
        if view.path not in self._stallable:
            return None
        return super().expires(view)

    # -- reading ------------------------------------------------------------------------------

    def _read_state(self, path: Path, problems: list[str]) -> tuple[dict | None, float | None]:
        """The decoded (dotted keys folded) state.json and its mtime; None when unreadable."""
        before = len(problems)
        data, st = read_capped(path / STATE, STATE, problems)
        mtime = st.st_mtime if st is not None else None
        if data is None:
            if st is None and len(problems) == before:
                problems.append("state.json is missing (the session may be starting)")
            return None, mtime
        ok, raw = load_json(data, STATE, problems)
        if not ok:
            return None, mtime
        if not isinstance(raw, dict):
            problems.append(f"state.json is not a JSON object ({type(raw).__name__})")
            return None, mtime
        try:
            return C.undot(raw), mtime
        except RecursionError:  # pragma: no cover - undot stops at MAX_DEPTH
            problems.append("state.json is nested too deeply to read")
            return None, mtime

    def _real_root(self) -> str:
        try:
            return os.path.realpath(self.root)
        except (OSError, ValueError):
            return os.path.abspath(self.root)

    def _doc(self, session: Path, name: str, from_root: bool) -> str | None:
        """`name` (relative to the session dir, or to the project root when `from_root`) as a
        path relative to the session dir, when it is a file inside the project root."""
        if not name or "\x00" in name:
            return None
        base = self.root if from_root or os.path.isabs(name) else session
        try:
            full = os.path.normpath(os.path.join(base, name))
            real = os.path.realpath(full)
            if not inside(real, (self._top,)) or not os.path.isfile(real):
                return None
            return os.path.relpath(full, session)
        except (OSError, ValueError):
            return None

    def _markdown(self, session: Path) -> list[str]:
        found: list[str] = []
        stack: list[tuple[str, int]] = [(str(session), 0)]
        while stack and len(found) < MAX_DOCS:
            d, depth = stack.pop()
            try:
                with os.scandir(d) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                try:
                    if e.name.startswith("."):
                        continue
                    if e.is_file() and e.name.lower().endswith(".md"):
                        found.append(os.path.relpath(e.path, session))
                    elif depth < DOC_DEPTH and e.is_dir(follow_symlinks=False):
                        stack.append((e.path, depth + 1))
                except OSError:
                    continue
        # name_key, not unsurrogate: `notes\xff.md` and `notes\xfe.md` stay two documents.
        return sorted(name_key(p) for p in found[:MAX_DOCS])

    # -- what -------------------------------------------------------------------------------

    def forget(self, key: str, path: Path) -> None:
        self._stallable.discard(str(path))

    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        from ocr_tui.formats.codeflow import derive as D

        problems: list[str] = []
        self._stallable.discard(str(path))
        try:
            self._top = self._real_root()
            raw, mtime = self._read_state(path, problems)

            def doc(name: str, from_root: bool) -> str | None:
                return self._doc(path, name, from_root)

            read = D.Read(raw, mtime, doc, self._markdown(path))
            view, stallable = D.build(key, path, now, read, problems, self.stall_after)
            if stallable:
                self._stallable.add(str(path))
            return view
        except Exception as exc:  # never lose the session: show what went wrong on it
            problems.append(f"could not derive this session: {type(exc).__name__}: {exc}")
            return D.blank(key, path, problems)
