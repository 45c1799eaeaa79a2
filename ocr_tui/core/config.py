"""The config file: `~/.config/ocr-tui/config.toml` (`$XDG_CONFIG_HOME/ocr-tui/config.toml`;
`$OCR_TUI_CONFIG` names another file, `off` none). Read with the standard library's tomllib.

    theme = "textual-light"      # the dashboard's theme (the app remembers the one you pick)
    sort = "activity"            # activity | start | name
    filter = "all"               # all | active | closed
    stall_after = "30m"          # a running session quiet this long is stalled (or seconds)
    notify = "off"               # off | bell | desktop
    editor = "code --wait"       # opens a finding's file (before $VISUAL and $EDITOR)
    read_only = true             # never write the user's marks and notes into ocr.db
    agent = "uvx ocr-tui"        # a remote project's far command (default: ocr-tui)
    editor_remote = "code --remote ssh-remote+{host} -g {path}:{line}"  # `e` on a remote one

    [projects."~/src/api"]       # for one project (its root): any of the keys above
    sort = "name"

    [projects."devbox:~/src/api"]  # a remote project (HOST:PATH as given): agent, via,
    via = "docker exec -i api"     # editor_remote

Command-line flags win over the file, a project's table over the file's top level. A file
that cannot be read or parsed, a key that is unknown or a value of the wrong kind is one line
on stderr naming it, never a crash: the rest of the file still applies.
"""

from __future__ import annotations

import os
import re
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui.core.cells import clip_end
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import parse_duration

SORTS = ("activity", "start", "name", "project")
FILTERS = ("all", "active", "closed")
NOTIFY = ("off", "bell", "desktop")
KEYS = ("theme", "sort", "filter", "stall_after", "notify", "editor", "read_only", "agent",
        "via", "editor_remote")  # fmt: skip
REMOTE_KEYS = ("agent", "via", "editor_remote")  # a remote project's table


@dataclass
class Settings:
    """What the file sets (None: not set), and what was wrong with it."""

    theme: str | None = None
    sort: str | None = None
    filter: str | None = None
    stall_after: float | None = None
    notify: str | None = None
    editor: str | None = None
    read_only: bool | None = None
    agent: str | None = None  # a remote project's far command
    via: str | None = None  # a command that reaches a remote project's far side
    editor_remote: str | None = None  # `e` on a remote session's finding: {host} {path} {line}
    # the tables of remote projects (`[projects."devbox:~/src/api"]`), by their name as given
    remotes: dict[str, Settings] = field(default_factory=dict)
    path: Path | None = None  # the file read
    problems: list[str] = field(default_factory=list)


def config_path() -> Path | None:
    env = os.environ.get("OCR_TUI_CONFIG")
    if env is not None:
        return None if env.strip().lower() in ("", "off", "none") else Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "ocr-tui" / "config.toml"


def load(start: Path | None = None, path: Path | None = None) -> Settings:
    """The settings where ocr-tui starts (`start`: the path it was given, else the current
    directory): the top level, then each project table whose path holds `start`, the deepest
    last. A missing file is no settings, a bad one its problems (one line each)."""
    path = config_path() if path is None else path
    settings = Settings(path=path)
    if path is None:
        return settings
    shown = _shown(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        if os.environ.get("OCR_TUI_CONFIG", "").strip().lower() not in ("", "off", "none"):
            # named on purpose (OCR_TUI_CONFIG): its absence is news; the default's is not
            settings.problems.append(f"config {shown}: no such file (OCR_TUI_CONFIG); ignored")
        return settings
    except (OSError, UnicodeDecodeError) as exc:
        settings.problems.append(f"config {shown}: cannot be read ({_reason(exc)}); ignored")
        return settings
    except tomllib.TOMLDecodeError as exc:
        settings.problems.append(f"config {shown}: {_clip(str(exc), 200)}; ignored")
        return settings
    _apply(settings, data, shown, "")
    projects = data.get("projects", {})
    if not isinstance(projects, dict):
        settings.problems.append(f"config {shown}: projects: not a table of projects; ignored")
    else:
        here = _resolved(start if start is not None else Path.cwd())
        mine: list[tuple[int, str, dict]] = []
        for name, table in projects.items():
            if not isinstance(table, dict):
                settings.problems.append(
                    f"config {shown}: projects.{_quoted(name)}: not a table; ignored"
                )
                continue
            if _remote_name(name):  # `HOST:PATH`: a remote project's own settings
                own = settings.remotes[name] = Settings()
                _apply(own, table, shown, f"projects.{_quoted(name)}.", REMOTE_KEYS)
                settings.problems += own.problems
                own.problems = []
                continue
            root = _resolved(Path(name).expanduser())
            if here == root or root in here.parents:
                mine.append((len(root.parts), name, table))
        for _depth, name, table in sorted(mine, key=lambda m: m[0]):
            _apply(settings, table, shown, f"projects.{_quoted(name)}.")
    return settings


def _remote_name(name: str) -> bool:
    from ocr_tui.core.remote import parse_remote

    return not os.path.exists(os.path.expanduser(name)) and parse_remote(name) is not None


def _apply(
    settings: Settings, data: dict, shown: str, prefix: str, keys: tuple[str, ...] = KEYS
) -> None:
    for key, value in data.items():
        if key == "projects" and not prefix:
            continue
        where = f"config {shown}: {prefix}{_clip(str(key), 40)}"
        if key not in keys:
            settings.problems.append(f"{where}: unknown key ({', '.join(keys)}); ignored")
            continue
        problem = _set(settings, key, value)
        if problem:
            settings.problems.append(f"{where}: {problem}; ignored")


def _set(settings: Settings, key: str, value: object) -> str | None:
    """Set one key; what is wrong with `value` (None when it was set)."""
    choices = {"sort": SORTS, "filter": FILTERS, "notify": NOTIFY}.get(key)
    if key == "read_only":
        if not isinstance(value, bool):
            return f"{_show(value)} is not true or false"
        settings.read_only = value
        return None
    if key == "stall_after":
        seconds = duration(value)
        if seconds is None:
            return f"{_show(value)} is not a duration (30m, 90s, 2h, or seconds)"
        settings.stall_after = seconds
        return None
    if not isinstance(value, str) or not value.strip():
        return f"{_show(value)} is not a string"
    value = value.strip()
    if choices is not None and value not in choices:
        return f"{_show(value)} is not one of {', '.join(choices)}"
    if key in ("editor", "editor_remote", "agent", "via") and "\n" in value:
        return "a command is one line"
    setattr(settings, key, value)
    return None


def duration(value: object) -> float | None:
    """`30m`, `90s`, `2h`, `1d`, a number of seconds; None when it is none of those."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value > 0 else None
    if isinstance(value, str):
        seconds = parse_duration(value, "s")
        return seconds if seconds else None
    return None


def save_theme(theme: str, path: Path | None = None) -> str | None:
    """Remember the theme picked in the app: the file's top-level `theme` line set (added when
    missing), the rest of the file kept as it is. Written atomically. What went wrong, if
    anything (one line)."""
    path = config_path() if path is None else path
    if path is None or not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", theme):
        return None  # Textual's theme names are words; anything else is not written
    line = f'theme = "{theme}"\n'
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        return f"config {_shown(path)}: the theme was not saved ({_reason(exc)})"
    lines = text.splitlines(keepends=True)
    for i, old in enumerate(lines):
        stripped = old.lstrip()
        if stripped.startswith("["):
            lines.insert(i, line)  # before the first table: a top-level key
            break
        if re.match(r"theme\s*=", stripped):
            lines[i] = line
            break
    else:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.append(line)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".config.", suffix=".toml", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join(lines))
        os.replace(tmp, path)
    except OSError as exc:
        return f"config {_shown(path)}: the theme was not saved ({_reason(exc)})"
    return None


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path.absolute()


def _shown(path: Path) -> str:
    home = os.path.expanduser("~")
    text = str(path)
    if home and home != "/" and text.startswith(home + os.sep):
        text = "~" + text[len(home) :]
    return _clip(text, 120)


def _show(value: object) -> str:
    return _clip(repr(value), 60)


def _quoted(name: str) -> str:
    return f'"{_clip(name, 80)}"'


def _reason(exc: BaseException) -> str:
    return _clip(getattr(exc, "strerror", None) or type(exc).__name__, 80)


def _clip(text: object, cap: int) -> str:
    """`text` made safe to print (no control sequence) on one line, at most `cap` cells."""
    return clip_end(safe_line(str(text)), cap)
