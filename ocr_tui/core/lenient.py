"""Lenient decoding shared by the other formats' readers (code workflow, scientific analysis,
iDumb); no IO here.

These formats break their own schemas: missing fields, wrong types, dotted keys written
literally (`"phases.research.status": "x"`). `lenient` converts a decoded JSON object into a
msgspec Struct one field at a time, so a field of the wrong type is a problem on that field
only; `Style` keeps each format's own words and depth. `fold_dotted` / `merge_dotted` nest
dotted keys. The time helpers check a timestamp field and measure spans for `Elapsed`.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from ocr_tui.core.timeutil import fmt_ts, from_mtime, parse_ts
from ocr_tui.core.view import Elapsed, SessionView

S = TypeVar("S", bound=msgspec.Struct)
_BAD = (msgspec.ValidationError, RecursionError, TypeError, ValueError)
MAX_DEPTH = 6  # nesting followed by `merge_dotted`


@dataclass(frozen=True)
class Style:
    """How one format is read: `fold` nests dotted keys at every level (nested keys win);
    `deep` reads nested Structs, lists and dicts item by item; `fast` tries the whole object
    at once first; `kind` names the type of a non-object; `tally` counts bad items (and reads
    every list and dict item by item); `numbers_as_text` takes a number where text belongs."""

    fold: bool = True
    deep: bool = True
    fast: bool = True
    kind: bool = False
    tally: bool = False
    numbers_as_text: bool = False


@functools.cache
def fields(cls: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    return msgspec.structs.fields(cls)


def optional(typ: Any) -> Any:
    """`X | None` (or `X | None | UnsetType`) -> X; the None case is handled before."""
    if isinstance(typ, types.UnionType):
        rest = [a for a in typ.__args__ if a not in (type(None), msgspec.UnsetType)]
        if len(rest) == 1:
            return rest[0]
    return typ


def struct_of(typ: Any) -> type[msgspec.Struct] | None:
    return typ if isinstance(typ, type) and issubclass(typ, msgspec.Struct) else None


def convert(raw: Any, typ: Any, numbers_as_text: bool = False) -> tuple[bool, Any]:
    if (
        numbers_as_text
        and typ is str
        and isinstance(raw, int | float)
        and not isinstance(raw, bool)
    ):
        return True, str(raw)  # contextSize: 12345, or a number where text was meant
    try:
        return True, msgspec.convert(raw, typ, strict=False)
    except _BAD:
        return False, None


def small_int(text: str, digits: int = 18) -> int | None:
    """`text` as an int when it is ASCII digits (a `-` before them allowed) and at most
    `digits` of them; else None. `str.isdigit` is true for `²` and Arabic-Indic digits, and
    `int` refuses more than 4,300 digits: text from disk goes through here, never raising."""
    t = text.strip()
    body = t[1:] if t.startswith("-") else t
    if not body or len(body) > digits or not (body.isascii() and body.isdigit()):
        return None
    return int(t)


def fold_dotted(obj: dict) -> dict:
    """`{"config.num_chapters": 4}` -> `{"config": {"num_chapters": 4}}`; nested keys win."""
    if not any(isinstance(k, str) and "." in k for k in obj):
        return obj
    out: dict = {k: v for k, v in obj.items() if not (isinstance(k, str) and "." in k)}
    for key, value in obj.items():
        if isinstance(key, str) and "." in key:
            head, _, rest = key.partition(".")
            if head not in out:
                out[head] = {}
            if isinstance(out[head], dict):
                out[head] = dict(out[head])
                out[head].setdefault(rest, value)
                out[head] = fold_dotted(out[head])
    return out


def _merge(dst: dict, key: str, value: Any, depth: int) -> None:
    """Put `value` at `key` (maybe dotted) in `dst`; objects merge, anything else replaces."""
    parts = key.split(".") if "." in key and depth < MAX_DEPTH else [key]
    for part in parts[:-1]:
        nxt = dst.get(part)
        if not isinstance(nxt, dict):
            nxt = dst[part] = {}
        dst = nxt
        depth += 1
    last = parts[-1]
    if isinstance(value, dict) and depth < MAX_DEPTH:
        cur = dst.get(last)
        if not isinstance(cur, dict):
            cur = dst[last] = {}
        for k, v in value.items():
            _merge(cur, str(k), v, depth + 1)
    else:
        dst[last] = value


def merge_dotted(obj: dict) -> dict:
    """`{"phases.research.status": "x"}` -> `{"phases": {"research": {"status": "x"}}}`, at
    every level, merged with nested objects in file order (a later write wins)."""
    out: dict = {}
    for k, v in obj.items():
        _merge(out, str(k), v, 0)
    return out


def lenient(obj: Any, cls: type[S], where: str, problems: list[str], style: Style = Style()) -> S:
    """`cls` from a decoded object, field by field: a field of the wrong type stays at its
    default and is named in `problems`; lists and dicts keep their good items. A non-object
    gives the default instance."""
    if not isinstance(obj, dict):
        if obj is not None:
            kind = f" ({type(obj).__name__})" if style.kind else ""
            problems.append(f"{where or 'the file'} is not an object{kind}: ignored")
        return cls()
    if style.fold:
        obj = fold_dotted(obj)
    if style.fast:
        try:  # the usual case: every field fits
            return msgspec.convert(obj, cls, strict=False)
        except _BAD:
            pass
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.encode_name not in obj:
            continue
        raw, name = obj[f.encode_name], f"{where}.{f.encode_name}" if where else f.encode_name
        if raw is None:
            if f.default is msgspec.UNSET:
                values[f.name] = None  # present and null: told apart from absent
            continue
        typ = optional(f.type) if style.deep else f.type
        ok, value = _field(raw, typ, name, problems, style) if style.deep else (None, None)
        if ok is None:
            ok, value = convert(raw, typ, style.numbers_as_text)
            if not ok:
                problems.append(f"{name} has the wrong type ({type(raw).__name__}): ignored")
        if ok:
            values[f.name] = value
    return cls(**values)


def _field(raw: Any, typ: Any, name: str, problems: list[str], style: Style) -> tuple[Any, Any]:
    """A nested Struct, list or dict read item by item: (True, value), (False, None) when it
    was dropped (with a problem), (None, None) when it is a plain field."""
    sub = struct_of(typ)
    if sub is not None and (style.tally or isinstance(raw, dict)):
        return True, lenient(raw, sub, name, problems, style)
    origin, args = getattr(typ, "__origin__", None), getattr(typ, "__args__", ())
    item = struct_of(args[-1]) if args else None
    if origin is list and args and (style.tally or item is not None):
        if not isinstance(raw, list):
            problems.append(f"{name} is not a list: ignored")
            return False, None
        if style.tally:
            return True, _tally(raw, args[0], name, problems, style)
        return True, [
            lenient(x, item, f"{name}[{i}]", problems, style)
            for i, x in enumerate(raw)
            if isinstance(x, dict) or _bad_item(x, f"{name}[{i}]", problems)
        ]
    if origin is dict and len(args) == 2 and (style.tally or item is not None):
        if not isinstance(raw, dict):
            problems.append(f"{name} is not an object: ignored")
            return False, None
        if style.tally:
            conv = {str(k): convert(v, args[1], style.numbers_as_text) for k, v in raw.items()}
            good = {k: v for k, (ok, v) in conv.items() if ok}
            if len(good) < len(raw):
                problems.append(f"{name}: some values of the wrong type ignored")
            return True, good
        return True, {
            str(k): lenient(v, item, f"{name}.{k}", problems, style)
            for k, v in raw.items()
            if isinstance(v, dict) or _bad_item(v, f"{name}.{k}", problems)
        }
    if origin is list and args and isinstance(raw, list):
        good = [v for ok, v in (convert(x, args[0]) for x in raw) if ok]
        if len(good) < len(raw):  # [0, 1, "two", 3] -> [0, 1, 3]
            problems.append(f"{name} has items of the wrong type: ignored them")
        return True, good
    return None, None


def _tally(raw: list, typ: Any, name: str, problems: list[str], style: Style) -> list:
    item = struct_of(typ)
    if item is not None:
        good = [
            lenient(x, item, f"{name}[{i}]", problems, style)
            for i, x in enumerate(raw)
            if isinstance(x, dict)
        ]
    else:
        good = [v for ok, v in (convert(x, typ, style.numbers_as_text) for x in raw) if ok]
    if len(good) < len(raw):
        problems.append(f"{name}: {len(raw) - len(good)} item(s) of the wrong type ignored")
    return good


def _bad_item(item: Any, where: str, problems: list[str]) -> bool:
    if item is not None:
        problems.append(f"{where} is not an object: ignored")
    return False


# --- times ---------------------------------------------------------------------------------


def checked_ts(
    raw: Any,
    name: str,
    problems: list[str],
    *,
    future: datetime | None = None,
    shown: Callable[[Any], str] = repr,
) -> datetime | None:
    """The time in a field, None when absent; a value that is not a timestamp (and, given
    `future`, one later than it) is named in `problems`."""
    if raw is None:
        return None
    dt = parse_ts(raw) if isinstance(raw, str) else None
    if dt is None:
        problems.append(f"{name} {shown(raw)} is not a timestamp")
    elif future is not None and dt > future:
        problems.append(f"{name} {fmt_ts(dt)} is in the future")
    return dt


def created_updated(
    created: Any,
    updated: Any,
    names: tuple[str, str],
    problems: list[str],
    *,
    future: datetime,
    mtime: float | None,
) -> tuple[datetime | None, datetime | None, datetime | None, bool]:
    """(created, updated, last activity, whether that came from the file's mtime): the two
    checked times of a session file; the last activity is the update, else the newer of the
    creation and the file's time (a file written seconds ago without an update time is not
    quiet since its creation)."""
    c = checked_ts(created, names[0], problems, future=future)
    u = checked_ts(updated, names[1], problems, future=future)
    if u is not None:
        return c, u, u, False
    written = from_mtime(mtime) if mtime is not None else None
    if written is not None and (c is None or written > c):
        return c, u, written, True
    return c, u, c, False


def when(value: Any) -> datetime | None:
    """An ISO string, or epoch milliseconds, as an aware UTC datetime."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value / 1000.0, UTC)
        except (ValueError, OverflowError, OSError):
            return None
    return parse_ts(value) if isinstance(value, str) else None


def span(a: datetime | None, b: datetime | None) -> int | None:
    """Whole seconds from `a` to `b` (never negative), None when either is unknown."""
    return None if a is None or b is None else max(0, int((b - a).total_seconds()))


def elapsed(since: datetime | None, end: datetime | None, running: bool) -> Elapsed:
    """`Elapsed` from `since` to `end` (the UI ticks on from `since` while `running`)."""
    return Elapsed(since=fmt_ts(since), seconds=span(since, end), running=running)


def after(t: datetime | None, seconds: float) -> datetime | None:
    return None if t is None else t + timedelta(seconds=seconds)


def blank_view(
    key: str, path: Path | str, framework: str, workflow: str, *, source: str,
    problems: list[str], phase_total: int = 0, phase_label: str = "unknown",
    title: str | None = None,
) -> SessionView:  # fmt: skip
    """The view of a session that could not be read: listed, with its problems."""
    return SessionView(
        id=key, branch=None, source=source, status="active", workflow=workflow, phase="unknown",
        phase_label=phase_label, phase_number=None, phase_total=phase_total, complete=False,
        started_at=None, updated_at=None, last_activity=None, stalled=False,
        elapsed=Elapsed(since=None, seconds=None, running=False), current_round=None, rounds=[],
        current_map_run=None, map_runs=[], problems=problems, path=str(path),
        framework=framework, title=title,
    )  # fmt: skip
