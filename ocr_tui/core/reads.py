"""The read seam: every read a screen makes of a session's files, here or on a far side.

A screen that shows more than the session's view (a round's findings, one finding, a
discourse, a map run, a document) asks its app for the session's `Reader` and calls
`reader.read(NAME, view, **args)` in a worker thread. It never knows where the data lives:
`LocalReader` runs the read here, `RemoteReader` (`core.remote_reads`) asks the far side's
agent to run the same read there and decodes its answer into the same type.

A read is registered once, by name (`read_kind`), with what it returns (to decode a far side's
answer) and the arguments it takes (a far side checks what it is asked). The formats register
theirs when their facade is imported (`formats.ocr.reads`); `document` is core's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ocr_tui.core.project import Project
from ocr_tui.core.view import SessionView, own_id


@dataclass(frozen=True)
class Where:
    """What a read needs to know of its session, wherever it runs."""

    session_dir: str  # the session's directory (or file)
    session_id: str  # the session's own id in its project (its store's rows)
    db_path: Path | None  # the project's store, if it has one
    root: str | None = None  # the project's root (a file of the project: `e`'s)


@dataclass(frozen=True)
class ReadKind:
    run: Callable[..., Any]  # run(where, **args)
    result: type  # what `run` returns: a far side's answer is decoded into it
    # the arguments it takes, each with its type (or a tuple of the types it may be)
    args: dict[str, type | tuple[type, ...]] = field(default_factory=dict)


_KINDS: dict[str, ReadKind] = {}


def read_kind(name: str, result: type, **args: type | tuple[type, ...]) -> Callable:
    """Register `run(where, **args) -> result` as the read `name`."""

    def register(run: Callable) -> Callable:
        _KINDS[name] = ReadKind(run, result, dict(args))
        return run

    return register


def kinds() -> dict[str, ReadKind]:
    """Every read, the formats' included (their facades imported here, once)."""
    global _loaded
    if not _loaded:
        import importlib

        from ocr_tui.core.document_read import DocState, read_document
        from ocr_tui.core.registry import source_classes

        # core's own: a file of the session (`known`: the (size, mtime, inode) shown)
        _KINDS["document"] = ReadKind(read_document, DocState,
                                      {"rel": str, "known": (tuple, list, type(None))})  # fmt: skip
        for cls in source_classes():
            if cls.reads_module:
                importlib.import_module(cls.reads_module)
        _loaded = True
    return _KINDS


_loaded = False


class ReadRefused(Exception):
    """A read asked with arguments it does not take (said as one line)."""


def checked(name: str, args: dict[str, object]) -> ReadKind:
    """The read `name`, when `args` are the ones it takes, of their types."""
    kind = kinds().get(name)
    if kind is None:
        raise ReadRefused(f"no read {name!r}")
    for key, value in args.items():
        want = kind.args.get(key)
        if want is None:
            raise ReadRefused(f"{name} takes no {key!r}")
        types = want if isinstance(want, tuple) else (want,)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            names = " or ".join(t.__name__ for t in types)
            raise ReadRefused(f"{name}'s {key} must be {names}")
    return kind


class Reader(Protocol):
    """Where a session's reads run."""

    host: str | None  # None here; the far side's host

    def read(self, name: str, view: SessionView, **args: Any) -> Any:
        """Blocking (a worker thread): the read `name` of `view`'s session."""
        ...


class LocalReader:
    """Reads run here, on the session's own project's files."""

    host = None

    def __init__(self, project: Project | None) -> None:
        self.project = project

    def where(self, view: SessionView) -> Where:
        p = self.project
        return Where(
            session_dir=view.path,
            session_id=own_id(view.id, view.project or None),
            db_path=p.db_path if p is not None else None,
            root=str(p.root) if p is not None else None,
        )

    def read(self, name: str, view: SessionView, **args: Any) -> Any:
        return checked(name, args).run(self.where(view), **args)
