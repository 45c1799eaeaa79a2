"""Command palette: jump to a session by id or branch, and every dashboard action.

Titles that contain text from disk are shown as `Content` (never parsed as markup).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content

from ocr_tui.core.registry import is_host
from ocr_tui.ui import fmt
from ocr_tui.ui.contract import Dashboard
from ocr_tui.ui.navigation import EventsTarget, FindingsTarget, MapRunTarget
from ocr_tui.ui.screens.sessions.keys import SEARCHED

# (title, main screen action, help)
MAIN_ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("Filter: all sessions", "set_filter('all')", "Show every session (key 1)"),
    ("Filter: active sessions", "set_filter('active')", "Show only active sessions (key 2)"),
    ("Filter: closed sessions", "set_filter('closed')", "Show only closed sessions (key 3)"),
    ("Sort: by last activity", "set_sort('activity')", "Most recently active first"),
    ("Sort: by start time", "set_sort('start')", "Most recently started first"),
    ("Sort: by name", "set_sort('name')", "Session names A to Z (the id without its date)"),
    ("Search sessions", "search", f"Search {SEARCHED} as you type (key /)"),
    ("Clear search", "clear_search", "Show sessions regardless of the search text"),
    (
        "Reviews: every round of every session",
        "reviews",
        "Verdicts, counts and triage across sessions (key r)",
    ),
)
# (title, app action, help)
APP_ACTIONS: tuple[tuple[str, str, str], ...] = (
    ("Start the live demo", "demo", "Switch to a simulated review; key d (again: come back)"),
    ("Leave the live demo", "leave_demo", "Stop the demo, back to the project (key d)"),
    ("Help: keys and legend", "help", "The keys of this screen, and what the glyphs mean"),
    ("Quit ocr-tui", "quit", "Leave the dashboard (key q)"),
)

Command = tuple[str, Callable[[], object], str]


def highlight(matcher: Matcher, candidate: str) -> Content:
    """Like `Matcher.highlight`, but the candidate is plain text, not markup."""
    content = Content(candidate)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, candidate)
    for offset in offsets:
        if not candidate[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content


class _Commands(Provider):
    """A provider of a list of `(title, callback, help)`."""

    def _commands(self) -> list[Command]:
        raise NotImplementedError

    async def discover(self) -> Hits:
        for title, callback, help_text in self._commands():
            yield DiscoveryHit(Content(title), callback, text=title, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, highlight(matcher, title), callback, text=title, help=help_text)


class SessionCommands(_Commands):
    @property
    def _app(self) -> Dashboard:
        return self.app  # type: ignore[return-value]

    def _commands(self) -> list[Command]:
        app = self._app
        out: list[Command] = []
        on_list = getattr(self.screen, "PALETTE_KEYS", True) is False
        if on_list:  # the list's own actions: elsewhere they would only lead back to it
            for title, action, help_text in MAIN_ACTIONS:
                out.append((title, partial(app.run_main_action, action), help_text))
        if on_list:
            formats = sorted({v.framework for v in app.sessions.values()})
            named = [(key, fmt.framework_label(key)) for key in formats]
            out += _choices(app, "Format", "format", "t", "all formats", "every format", named)
            projects = sorted({v.project for v in app.sessions.values() if v.project})
            named = [(name, fmt.safe(name, 60)) for name in projects]
            out += _choices(app, "Project", "project", "p", "all projects", "every project", named)
            if len(projects) > 1:
                out.append(
                    ("Sort: by project", partial(app.run_main_action, "set_sort('project')"),
                     "Projects A to Z, each one's sessions by last activity")
                )  # fmt: skip
        demo_running = getattr(app, "demo", None) is not None
        for title, action, help_text in APP_ACTIONS:
            if action in ("demo", "leave_demo") and (action == "demo") == demo_running:
                continue  # the one that does something now
            out.append((title, partial(app.run_action, action), help_text))
        for view in sorted(app.sessions.values(), key=lambda v: v.id):
            title = f"Session: {fmt.safe(view.id, 60)}"
            if view.branch and view.branch not in view.id:
                title += f" ({fmt.safe(view.branch, 70)})"
            elif view.title:
                title += f" ({fmt.safe(view.title, 70)})"
            help_text = f"{view.status} · {fmt.safe(view.workflow)} · {fmt.safe(view.phase_label)}"
            if not is_host(view.framework):
                help_text = f"{fmt.framework_label(view.framework)} · {help_text}"
            out.append((title, partial(app.jump_to_session, view.id), help_text))
            if is_host(view.framework) and view.rounds:
                latest = view.rounds[-1]
                target = FindingsTarget(view.id, latest.number, latest.path)
                out.append(
                    (f"Findings: {fmt.safe(view.id, 60)} round {latest.number}",
                     partial(app.open_target, target),
                     "The findings of its latest round (key F on the list, a session or round)")
                )  # fmt: skip
            if view.events:
                out.append(
                    (f"Events: {fmt.safe(view.id, 60)}",
                     partial(app.open_target, EventsTarget(view.id)),
                     "What OCR recorded as it ran: phases, rounds (key l on the session)")
                )  # fmt: skip
            for run in view.map_runs:
                out.append(
                    (f"Map run: {fmt.safe(view.id, 60)} run {run.number}",
                     partial(app.open_target, MapRunTarget(view.id, run.number, run.path)),
                     "Its sections, files and what is reviewed (key m on the session)")
                )  # fmt: skip
        return out


def _choices(
    app: Dashboard,
    title: str,
    what: str,
    key: str,
    every: str,
    every_help: str,
    named: list[tuple[str, str]],
) -> list[Command]:
    """`Format: all formats`, `Format: Open Code Review`, … (the main screen's
    `set_{what}`), when there are two or more to choose from: (value, label) each."""
    if len(named) < 2:
        return []
    action = f"set_{what}"
    out: list[Command] = [
        (f"{title}: {every}", partial(app.run_main_action, f"{action}('all')"),
         f"Show the sessions of {every_help} (key {key} cycles)")
    ]  # fmt: skip
    for value, label in named:
        out.append(
            (f"{title}: {label}", partial(app.run_main_action, f"{action}({value!r})"),
             f"Show only the sessions of {label} (key {key} cycles)")
        )  # fmt: skip
    return out


# Keys the palette need not repeat: the app's own (listed by SessionCommands) and moving about.
SKIPPED_ACTIONS = {"app.quit", "quit", "app.help", "help", "app.demo", "demo", "command_palette"}
SKIPPED_ACTIONS |= {"leave_demo", "app.leave_demo"}
SKIPPED_ACTIONS |= {"app.command_palette", "back", "escape", "select_cursor", "scroll_top"}
SKIPPED_ACTIONS |= {"scroll_bottom", "cursor_up", "cursor_down", "page_up", "page_down"}
SKIPPED_ACTIONS |= {"app.focus_next", "app.focus_previous", "scroll(1)", "scroll(-1)", "top"}
SKIPPED_ACTIONS |= {"bottom", "keep_search", "screen.keep_search"}


class ScreenCommands(_Commands):
    """Every key of the screen the palette was opened on, as a command (`Sort (key s)`), so a
    drill-down screen's actions are in the palette as the list's are."""

    def _commands(self) -> list[Command]:
        screen = self.screen
        if not getattr(screen, "PALETTE_KEYS", True):
            return []  # e.g. the list: its actions are SessionCommands' MAIN_ACTIONS
        out: list[Command] = []
        seen: set[str] = set()
        for key, active in screen.active_bindings.items():
            binding = active.binding
            if not active.enabled or not binding.description or binding.action in SKIPPED_ACTIONS:
                continue
            if not _ours(active.node, binding):
                continue  # a Textual widget's own key (Cursor left, Copy selected text)
            if binding.description in seen:
                continue
            seen.add(binding.description)
            shown = self.app.get_key_display(binding) or key
            title = f"{binding.description} (key {shown})"
            callback = partial(self.app.run_action, binding.action, active.node)
            out.append((title, callback, f"On this screen: {binding.description.lower()}"))
        return out


def _ours(node: object, binding: object) -> bool:
    """Was `binding` declared by one of ocr-tui's classes (the node's own or a base's)?"""
    said = (getattr(binding, "action", None), getattr(binding, "description", None))
    for cls in type(node).__mro__:
        declared = cls.__dict__.get("BINDINGS", ())
        # a binding of two keys (`ctrl+c,super+c`) is two when bound: compare what it does
        if any((getattr(b, "action", None), getattr(b, "description", None)) == said
               for b in declared):  # fmt: skip
            return cls.__module__.startswith("ocr_tui")
    return True  # not found in any class (bound at run time): ours
