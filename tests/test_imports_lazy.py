"""Start-up imports only what the first screen needs: checked in fresh
processes by what is in `sys.modules`, never by timing. The headless commands never import
Textual; the dashboard, until the session list shows its rows, imports no other screen, no
Markdown, no command palette provider, no simulator, no headless command's module; the router
imports a screen's module when it first opens one of its places."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.core import registry
from ocr_tui.formats.ocr.sim import build_history
from ocr_tui.ui import router

OTHER_SCREENS = [
    f"ocr_tui.ui.screens.{name}"
    for name in (
        "session", "round", "findings", "finding", "discourse", "document", "map_run",
        "reviews", "events", "help",
    )
]  # fmt: skip
# Imported when first used, never by the session list.
DEFERRED = [
    *OTHER_SCREENS,
    "ocr_tui.ui.commands",
    "ocr_tui.ui.screens.ocr.markdown_text",
    "ocr_tui.core.document_read",
    "ocr_tui.ui.screens.ocr.editor_launch",
    "ocr_tui.ui.screens.ocr.findings.view",
    "ocr_tui.ui.screens.ocr.round_reader",
    "ocr_tui.ui.widgets.format_panes",  # (the session screen's; the list's pane needs none)
    "ocr_tui.ui.widgets.fit_table",
    "textual.widgets._data_table",
    "markdown_it",
    "textual.widgets._markdown",
    "ocr_tui.demo",
    "ocr_tui.findings_cli",
    "ocr_tui.watch_stream",
    "ocr_tui.status_text",
]
HEADLESS_NEVER = ["textual", "ocr_tui.ui", "ocr_tui.findings_cli", "ocr_tui.watch_stream"]


def loaded(code: str, *args: str) -> set[str]:
    """The modules a fresh Python has loaded after running `code` (which prints nothing)."""
    tail = "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run(
        [sys.executable, "-c", code + tail, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def among(modules: set[str], names: list[str]) -> list[str]:
    """Those of `modules` that are one of `names` or inside one of them."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("lazy")
    build_history(root, sessions=3, now=datetime(2026, 11, 1, 12, 0, tzinfo=UTC))
    return root


@pytest.mark.parametrize("how", [["--oneline"], ["--json"], []])
def test_status_never_imports_textual(project: Path, how: list[str]) -> None:
    code = (
        "import contextlib, io, sys\n"
        "from ocr_tui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['status', sys.argv[1], *sys.argv[2:]]) == 0\n"
    )
    assert among(loaded(code, str(project), *how), HEADLESS_NEVER) == []


def test_the_cli_module_imports_no_command() -> None:
    modules = loaded("import ocr_tui.cli")
    assert among(modules, [*HEADLESS_NEVER, "ocr_tui.status_text", "ocr_tui.demo"]) == []


def test_the_app_module_imports_only_the_session_list() -> None:
    modules = loaded("import ocr_tui.ui.app")
    assert "ocr_tui.ui.screens.sessions.screen" in modules
    assert among(modules, [*DEFERRED, "sqlite3", "importlib.metadata"]) == []
    assert among(modules, ["ocr_tui.formats"]) == []  # the formats load when a project does


def test_the_session_list_shown_imports_nothing_else(project: Path) -> None:
    """The dashboard on a project until every row is read and on screen."""
    code = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from ocr_tui.cli import make_app\n"
        "from ocr_tui.core.project import find_project\n"
        "async def run():\n"
        "    app = make_app(find_project(sys.argv[1]))\n"
        "    async with app.run_test(size=(120, 40)) as pilot:\n"
        "        for _ in range(1000):\n"
        "            await pilot.pause(0.01)\n"
        "            if len(app.sessions) == 3 and not app.unread:\n"
        "                break\n"
        "        assert len(app.sessions) == 3 and not app.unread, app.sessions\n"
        "        assert app.screen is app.main_screen\n"
        "        await pilot.pause(0.3)  # the list's deferred refresh\n"
        "asyncio.run(run())\n"
    )
    modules = loaded(code, str(project))
    assert among(modules, ["ocr_tui.formats.ocr.source"])  # the project was read
    sims = [m for m in modules if m.startswith("ocr_tui.formats.") and ".sim" in m]
    assert among(modules, DEFERRED) == [] and sims == []


def test_the_router_imports_a_screen_when_it_first_opens_one() -> None:
    """Each kind of place is shown by the screen its module registers (imported here)."""
    for kind, module in router.SCREEN_MODULES.items():
        cls = router.screen_class(kind)
        assert cls is not None and cls.__module__ == module, kind


def test_palette_and_screens_load_when_used(project: Path) -> None:
    """The places and the palette still open in an app that imported none of them."""
    code = (
        "import asyncio, sys\n"
        "from ocr_tui.cli import make_app\n"
        "from ocr_tui.core.project import find_project\n"
        "from ocr_tui.ui.navigation import ReviewsTarget, SessionTarget\n"
        "async def run():\n"
        "    app = make_app(find_project(sys.argv[1]))\n"
        "    async with app.run_test(size=(120, 40)) as pilot:\n"
        "        for _ in range(1000):\n"
        "            await pilot.pause(0.01)\n"
        "            if len(app.sessions) == 3 and not app.unread:\n"
        "                break\n"
        "        sid = sorted(app.sessions)[-1]\n"
        "        assert 'ocr_tui.ui.screens.session.screen' not in sys.modules\n"
        "        assert app.open_target(SessionTarget(sid))\n"
        "        await pilot.pause()\n"
        "        assert type(app.screen).__name__ == 'SessionScreen'\n"
        "        assert app.open_target(ReviewsTarget())\n"
        "        await pilot.pause()\n"
        "        assert type(app.screen).__name__ == 'ReviewsScreen'\n"
        "        await pilot.press('ctrl+p')\n"
        "        await pilot.pause()\n"
        "        assert type(app.screen).__name__ == 'CommandPalette'\n"
        "asyncio.run(run())\n"
    )
    modules = loaded(code, str(project))
    assert {"ocr_tui.ui.screens.session.screen", "ocr_tui.ui.screens.ocr.reviews.screen"} <= modules
    assert "ocr_tui.ui.commands" in modules
    assert "ocr_tui.ui.screens.document.screen" not in modules  # not opened: not imported


# --- the registry: importlib.metadata only when a plugin may be there -------------------------


def test_no_plugin_no_importlib_metadata(project: Path) -> None:
    """With only ocr-tui's own entry points installed, finding the formats does not import
    importlib.metadata (~10 ms of start-up)."""
    code = (
        "import sys\n"
        "from ocr_tui.core.project import find_project\n"
        "from ocr_tui.core.registry import source_classes\n"
        "find_project(sys.argv[1])\n"
        "assert len(source_classes()) >= 4\n"
    )
    modules = loaded(code, str(project))
    assert "importlib.metadata" not in modules


def _dist(where: Path, name: str, entry_points: str) -> None:
    info = where / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)


def _as_importlib_metadata_sees(group: str) -> list[tuple[str, str]]:
    from importlib.metadata import entry_points

    return sorted((ep.name, ep.value) for ep in entry_points(group=group))


def test_a_plugin_is_found_as_importlib_metadata_finds_it(tmp_path, monkeypatch) -> None:
    _dist(tmp_path, "ocr_tui", "[ocr_tui.sources]\nocr = ocr_tui.formats.ocr:SOURCE\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert registry.entry_points(group=registry.GROUP) == []  # the built-ins only: loaded anyway
    _dist(tmp_path, "toy", "[console_scripts]\ntoy = toy:main\n\n[ocr_tui.sources]\n"
          "toy = toy_format:ToySource\n")  # fmt: skip
    found = sorted((ep.name, ep.value) for ep in registry.entry_points(group=registry.GROUP))
    assert found == _as_importlib_metadata_sees(registry.GROUP)
    assert ("toy", "toy_format:ToySource") in found


def test_unsure_means_asking_importlib_metadata(tmp_path, monkeypatch) -> None:
    """A zip on the path (it may hold distributions) or unreadable metadata: not skipped."""
    (tmp_path / "lib.zip").write_bytes(b"")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "lib.zip")])
    assert not registry._builtins_only(registry.GROUP)
    _dist(tmp_path / "site", "odd", "[ocr_tui.sources]\nodd = odd:Source [extra]\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    assert not registry._builtins_only(registry.GROUP)


def test_the_collector_is_paused_while_the_dashboard_is_built_only() -> None:
    import gc

    from ocr_tui.cli import collector_paused

    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (160, 60)])
async def test_the_first_frame_has_the_breakpoint_classes_textual_gives_later(size, project):
    """`fit_breakpoints` sets on the list, before its first frame, the classes Textual sets on
    its first Resize (so the first frame is not laid out twice)."""
    from types import SimpleNamespace

    from textual.geometry import Size

    from ocr_tui.cli import make_app
    from ocr_tui.core.project import find_project
    from ocr_tui.ui.app import fit_breakpoints
    from ocr_tui.ui.screens.sessions.screen import MainScreen

    breakpoints = {name for _, name in MainScreen.HORIZONTAL_BREAKPOINTS}
    breakpoints |= {name for _, name in MainScreen.VERTICAL_BREAKPOINTS}
    app = make_app(find_project(project))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        given_later = set(app.main_screen.classes) & breakpoints
    fake = SimpleNamespace(size=Size(*size), HORIZONTAL_BREAKPOINTS=[], VERTICAL_BREAKPOINTS=[])
    screen = MainScreen()
    fit_breakpoints(fake, screen)
    assert set(screen.classes) & breakpoints == given_later and len(given_later) == 2
