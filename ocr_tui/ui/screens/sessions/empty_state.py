"""What the session list says when it has no rows to show, and what to do about it."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.registry import source_classes
from ocr_tui.core.scope import Scope
from ocr_tui.ui import fmt
from ocr_tui.ui.contract import Dashboard
from ocr_tui.ui.listing import ListQuery
from ocr_tui.ui.style import KEY


class EmptyState(Static):
    """`show(app, ...)`: no project, reading, `.ocr` deleted, no sessions yet, none match."""

    def show(self, app: Dashboard, query: ListQuery) -> None:
        self.update(empty_message(app, query))


def empty_message(app: Dashboard, query: ListQuery) -> Content:
    """Why the list shows nothing (`query`: what it is narrowed to), and what to do."""
    demo = Content.assemble("Press ", ("d", KEY), " to start a live demo in a temporary project.")
    if app.project is None:
        where = fmt.display_path(app.start_path)
        return _message(
            "No project found",
            f"Looked in {where}, and in every directory above it, for the directory of "
            "each format:",
            looked_for(),
            "Run ocr-tui inside a project, or pass the project's path: ocr-tui PATH. "
            "This screen is watching: it shows a project's sessions as soon as one of "
            "these directories appears.",
            demo,
        )
    scope = getattr(app, "scope", None)
    if scope is not None:
        return _several_message(app, scope, query)
    sessions_dir = fmt.display_path(app.project.sessions_dir)
    if app.status == "loading":
        return _message("Reading sessions…", f"Looking in {sessions_dir}")
    if app.status == "project-missing":
        return _message(
            "The .ocr directory was deleted",
            f"{fmt.display_path(app.project.ocr_dir)} is gone. We keep waiting for it, "
            "and show its sessions as soon as it comes back.",
        )
    if app.status == "sessions-deleted":
        return _message(
            "The sessions directory was deleted",
            f"{sessions_dir} is gone. We keep waiting for it, and show sessions again "
            "as soon as it comes back.",
        )
    if not app.sessions:
        return _message(
            "No sessions yet",
            f"Watching {sessions_dir}",
            "A session appears here as soon as a review starts: run /ocr-review "
            "(or /ocr-map) in your coding agent, in this project.",
            demo,
        )
    return _no_match(query)


def _several_message(app: Dashboard, scope: Scope, query: ListQuery) -> Content:
    """The same, for several projects (`ocr-tui PATH PATH…`, `--scan DIR`)."""
    where = fmt.display_path(scope.root)
    if scope.scan is not None:
        projects = f"every project under {where} ({scope.depth} levels down at most)"
    elif scope.projects:
        n = len(scope.projects)
        projects = f"{n} project{'s' * (n != 1)} in {where}"
    else:
        projects = ""
    far = sorted(getattr(app, "links", {}))  # remote projects (their connections: over the list)
    if far:
        remote = ", ".join(fmt.safe(name, 40) for name in far[:3]) + (" …" if len(far) > 3 else "")
        projects = f"{projects} and {remote}" if projects else remote
    if app.status == "loading":
        return _message("Reading sessions…", f"Looking in {projects}")
    if app.status == "project-missing":
        if scope.scan is not None:
            return _message(
                "No projects yet",
                f"No directory under {where} holds a session store ({scope.depth} levels"
                " down at most; node_modules, virtualenvs and hidden directories are skipped)."
                " We keep looking, and show a project's sessions as soon as one appears:",
                looked_for(),
            )
        return _message(
            "The projects' directories were deleted",
            f"None of the {len(scope.projects)} projects in {where} has its directory any"
            " more. We keep waiting, and show their sessions as soon as one comes back.",
        )
    if not app.sessions:
        return _message(
            "No sessions yet",
            f"Watching {projects}",
            "A session appears here as soon as a review starts: run /ocr-review "
            "(or /ocr-map) in your coding agent, in one of them.",
        )
    return _no_match(query)


def _no_match(query: ListQuery) -> Content:
    hints: list[str | Content] = []
    if query.filter != "all":
        hints.append(Content.assemble("Press ", ("1", KEY), " to show all sessions."))
    if query.format != "all":
        hints.append(Content.assemble("Press ", ("t", KEY), " to change the format shown."))
    if query.project != "all":
        hints.append(Content.assemble("Press ", ("p", KEY), " to change the project shown."))
    if query.search:
        hints.append(Content.assemble("Press ", ("Esc", KEY), " to clear the search."))
    return _message("No sessions match", "Nothing matches the filter and search above.", *hints)


def looked_for() -> Content:
    """One line per format: its marker directories and its name (`.ocr/  Open Code Review`).
    The formats are loaded (and cached) before the app runs: no import or IO here."""
    rows = [(", ".join(f"{m}/" for m in cls.markers), cls.label) for cls in source_classes()]
    width = max((len(markers) for markers, _ in rows), default=0) + 2
    return Content("\n").join(
        Content.assemble("  ", (markers.ljust(width), KEY), label) for markers, label in rows
    )


def _message(title: str, *lines: str | Content) -> Content:
    parts: list[Content] = [Content.styled(title, "bold $text-accent"), Content("")]
    for line in lines:
        parts.append(line if isinstance(line, Content) else Content(line))
        parts.append(Content(""))
    return Content("\n").join(parts[:-1])
