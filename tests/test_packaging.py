"""Installed like any tool: the wheel built from this checkout holds the package (its `.tcss`
included) and nothing of tests/ or benchmarks/, and installed alone into a clean venv (no
system site-packages, no index: only the wheels pip made from this venv's own versions) it
runs `ocr-tui` and `python -m ocr_tui` from outside the checkout.

Building needs hatchling (pip fetches it into an isolated build environment) and the
dependencies' wheels (from pip's cache, else PyPI): without a network these tests skip, saying
so; any other failure to build or install fails them."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import venv
import zipfile
from importlib import metadata
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = "ocr_tui"
# What pip says when it cannot reach an index (or the index has nothing for it).
OFFLINE = re.compile(
    r"NewConnectionError|Max retries exceeded|Temporary failure in name resolution"
    r"|Name or service not known|Network is unreachable|Connection refused"
    r"|No matching distribution found|Could not find a version that satisfies",
)
TIMEOUT = 300  # seconds for one pip step (a cold cache downloads the dependencies)


def _index_unreachable() -> str | None:
    """Why pip's index cannot be reached (None: it can): pip's own messages do not always say
    (a build environment's install is quiet), and "no matching distribution" from a reachable
    index is a real failure, not a reason to skip."""
    url = urlsplit(os.environ.get("PIP_INDEX_URL") or "https://pypi.org/simple/")
    if url.scheme == "file":
        return None if os.path.isdir(url.path) else f"{url.path} does not exist"
    host, port = url.hostname or "", url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=5).close()
    except OSError as exc:
        return f"{host}:{port} unreachable ({exc})"
    return None


def _check(done: subprocess.CompletedProcess[str], what: str) -> None:
    """Fail with pip's words; skip (saying why) only when the index cannot be reached."""
    if done.returncode == 0:
        return
    said = done.stdout + done.stderr
    if OFFLINE.search(said) and (why := _index_unreachable()):
        pytest.skip(f"no network for `{what}`: {why}")
    pytest.fail(f"{what} failed ({done.returncode}):\n{said[-4000:]}")


def _pip(*args: str) -> None:
    """This venv's pip (its configuration: index, cache, find-links)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    _check(done, f"pip {args[0]}")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of this checkout, built as pipx, uv and pip build it (PEP 517, isolated)."""
    out = tmp_path_factory.mktemp("wheel")
    try:
        import build  # noqa: F401

        have_build = True
    except ImportError:
        have_build = False
    if have_build:
        done = subprocess.run(
            [sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        _check(done, "python -m build")
    else:
        _pip("wheel", "--no-deps", "--wheel-dir", str(out), str(ROOT))
    (found,) = out.glob(f"{NAME}-*.whl")
    return found


def test_wheel_holds_the_package_and_nothing_else(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = zf.read(f"{dist_info}/entry_points.txt").decode()
        meta = zf.read(f"{dist_info}/METADATA").decode()
    tops = {n.split("/")[0] for n in names}
    assert tops == {NAME, dist_info}, tops  # no tests/, benchmarks/, docs/, screenshots/
    shipped_tcss = {n for n in names if n.endswith(".tcss")}
    source_tcss = {p.relative_to(ROOT).as_posix() for p in (ROOT / NAME).rglob("*.tcss")}
    assert source_tcss and shipped_tcss == source_tcss
    assert f"{NAME}/ui/app.tcss" in shipped_tcss
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert re.search(r"^\[console_scripts\]\nocr-tui = ocr_tui\.cli:main$", entry_points, re.M)
    assert "[ocr_tui.sources]" in entry_points  # the built-in formats register as plugins do
    assert "License-Expression: MIT" in meta
    assert f"{dist_info}/licenses/LICENSE" in names
    assert re.search(r"^Project-URL: Repository, https://", meta, re.M)
    assert "Classifier: Environment :: Console" in meta


def _pins() -> str:
    """This venv's installed versions, as constraints: the clean venv gets the same ones."""
    pins = set()
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name.lower().replace("_", "-") != "ocr-tui":
            pins.add(f"{name}=={dist.version}")
    return "\n".join(sorted(pins)) + "\n"


def test_wheel_installs_alone_and_runs(wheel: Path, tmp_path: Path) -> None:
    # Every wheel the install needs, made once from this venv's versions (pip's cache, else
    # PyPI); then a clean venv installs from that directory alone (--no-index), so a
    # dependency missing from the metadata fails here.
    wheels = tmp_path / "wheels"
    constraints = tmp_path / "constraints.txt"
    constraints.write_text(_pins())
    _pip("wheel", "--wheel-dir", str(wheels), "--constraint", str(constraints), str(wheel))

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, system_site_packages=False, clear=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    isolated = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    isolated["PIP_CONFIG_FILE"] = os.devnull  # no extra index or find-links from a pip.conf
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
         "--find-links", str(wheels), "--disable-pip-version-check", "--no-cache-dir",
         str(wheel)],
        capture_output=True, text=True, env=isolated, timeout=TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr

    # Run as a user would, from elsewhere: nothing of the checkout on the path.
    outside = tmp_path / "elsewhere"
    (outside / "proj" / ".ocr" / "sessions" / "2026-01-02-feature-x").mkdir(parents=True)
    session = outside / "proj" / ".ocr" / "sessions" / "2026-01-02-feature-x"
    (session / "discovered-standards.md").write_text("# Standards\n")
    run_env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    run_env["PATH"] = f"{bin_dir}{os.pathsep}{run_env.get('PATH', '')}"

    def run(*argv: str | Path) -> str:
        done = subprocess.run(
            [str(a) for a in argv], capture_output=True, text=True, cwd=outside, env=run_env,
            timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
        return done.stdout

    version = wheel.name.split("-")[1]
    assert run(bin_dir / "ocr-tui", "--version") == f"ocr-tui {version}\n"
    assert run(python, "-m", "ocr_tui", "--version") == f"ocr-tui {version}\n"
    where = run(python, "-c", "import ocr_tui, sys; print(ocr_tui.__file__, sys.prefix)").split()
    assert Path(where[0]).is_relative_to(env_dir) and not Path(where[0]).is_relative_to(ROOT)
    snapshot = json.loads(run(bin_dir / "ocr-tui", "status", "--json", "proj"))
    assert [v["id"] for v in snapshot["sessions"]] == ["2026-01-02-feature-x"]
    assert snapshot["sessions"][0]["phase"] == "change-context"
    # The dashboard starts headless from the installed package, its stylesheets parsed.
    assert run(python, "-c", DASHBOARD) == "2026-01-02-feature-x\n"


DASHBOARD = """
import asyncio
from ocr_tui.cli import make_app
from ocr_tui.core.project import find_project

async def main():
    app = make_app(find_project("proj"))  # a missing .tcss fails here, as Textual starts
    async with app.run_test(size=(120, 30)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if "feature-x" in app.export_screenshot():
                print("2026-01-02-feature-x")
                return
    print("no session on screen")

asyncio.run(main())
"""
