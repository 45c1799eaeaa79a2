"""Decoding: msgspec (ocr_tui.formats.ocr.model's typed decoders) against json.loads plus hand
validation of the same fields, on simulator-written files: the state.json of the 1,000-session
history, and the round-meta.json of a 250-session ocr.db-era history. Files are read into memory
first: no IO is timed. Each sample is one pass over every file; the figure is per file."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from benchmarks.common import figure, report, summary
from benchmarks.trees import NOW, history
from ocr_tui.formats.ocr.model import ROUND_META_DECODER, STATE_DECODER, RoundMeta, StateJson
from ocr_tui.formats.ocr.sim import build_history

PASSES = 30
B = "6. decoding"


def _opt(value, kind) -> bool:
    return value is None or (
        isinstance(value, kind)
        and not isinstance(value, bool)
        or kind is bool
        and isinstance(value, bool)
    )


def validate_state(raw: bytes) -> dict:
    """What STATE_DECODER checks, by hand: an object; every known field optional and typed."""
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("not an object")
    out = {}
    for name in StateJson.__struct_fields__:
        value = data.get(name)
        kind = int if name in ("phase_number", "current_round", "current_map_run") else str
        if name == "completed_phases":
            if value is not None and not (
                isinstance(value, list) and all(isinstance(v, str) for v in value)
            ):
                raise ValueError(name)
        elif not _opt(value, kind):
            raise ValueError(name)
        out[name] = value
    return out


def validate_meta(raw: bytes) -> dict:
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("not an object")
    if not _opt(data.get("schema_version"), int) or not _opt(data.get("verdict"), str):
        raise ValueError("verdict")
    counts = data.get("synthesis_counts")
    if counts is not None:
        if not isinstance(counts, dict):
            raise ValueError("synthesis_counts")
        for k in ("blockers", "should_fix", "suggestions"):
            if not isinstance(counts.get(k, 0), int):
                raise ValueError(k)
    for r in data.get("reviewers", []) or []:
        if not isinstance(r, dict) or not _opt(r.get("type"), str):
            raise ValueError("reviewer")
        if not _opt(r.get("instance"), int):
            raise ValueError("instance")
        for f in r.get("findings", []) or []:
            if not isinstance(f, dict):
                raise ValueError("finding")
            for k in ("title", "category", "severity"):
                if not _opt(f.get(k), str):
                    raise ValueError(k)
    return data


def passes(fn, blobs: list[bytes]) -> list[float]:
    out = []
    for _ in range(PASSES):
        t0 = time.perf_counter()
        for b in blobs:
            fn(b)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    root, _ = history(1000)
    sessions = root / ".ocr" / "sessions"
    states = [p.read_bytes() for p in sorted(sessions.glob("*/state.json"))]
    with tempfile.TemporaryDirectory(prefix="ocr-bench-meta-") as tmp:  # OCR >= 1.6 writes these
        build_history(Path(tmp), sessions=250, store="ocr.db", now=NOW)
        metas = [p.read_bytes() for p in sorted(Path(tmp).glob(".ocr/sessions/*/rounds/*/*.json"))]
    # both ways agree on every file
    for b in states:
        assert {k: v for k, v in validate_state(b).items()} == {
            k: getattr(STATE_DECODER.decode(b), k) for k in StateJson.__struct_fields__
        }
    for b in metas:
        validate_meta(b)
        assert isinstance(ROUND_META_DECODER.decode(b), RoundMeta)
    for label, blobs, fast, slow in (
        ("state.json", states, STATE_DECODER.decode, validate_state),
        ("round-meta.json", metas, ROUND_META_DECODER.decode, validate_meta),
    ):
        if not blobs:
            print(f"# no {label} files in the history")
            continue
        slow_ms = passes(slow, blobs)
        fast_ms = passes(fast, blobs)
        size = sum(map(len, blobs)) / len(blobs)
        report(
            f"{label}: msgspec, one pass over {len(blobs)} files",
            fast_ms,
            baseline_ms=slow_ms,
            bench=B,
        )
        f, s = summary(fast_ms)["median"], summary(slow_ms)["median"]
        figure(
            B,
            f"{label} (avg {size:.0f} B): per file, msgspec vs json.loads + checks",
            f"{f / len(blobs) * 1000:.2f} us vs {s / len(blobs) * 1000:.2f} us",
            baseline=f"{s / f:.1f}x faster",
            target="msgspec faster",
            ok=f < s,
        )


if __name__ == "__main__":
    main()
