"""Which findings a discourse.md response names: each title it quotes matched to the round's
findings by normalised title, exactly or (short titles) within a difflib ratio, preferring the
findings of the reviewer the response answers; and, back the other way, the responses that name
a finding. Pure functions; no IO.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import msgspec

from ocr_tui.formats.ocr.discourse import Discourse, Response
from ocr_tui.formats.ocr.finding import Finding, close_ratio, normalise_title

FUZZY = 0.85  # difflib ratio of normalised titles for a close title to name a finding
MAX_FUZZY = 400  # longer titles are compared exactly only (difflib is quadratic)


def link(discourse: Discourse, findings: Iterable[Finding]) -> Discourse:
    """A copy of `discourse` whose responses' `finding_ids` name the findings their titles
    name: a finding with the same normalised title, else the closest ones with a difflib ratio
    of at least FUZZY; of several, those of the reviewer the title is about (CONNECT's left
    titles: the author's own). `discourse` itself is left as it is."""
    pool = [(normalise_title(f.title), f) for f in findings]
    exact: dict[str, list[Finding]] = {}
    for norm, f in pool:
        exact.setdefault(norm, []).append(f)
    responses = []
    for r in discourse.responses:
        ids: list[str] = []
        for k, title in enumerate(r.titles):
            prefer = r.author if k < r.own_titles else r.about
            for f in _named(normalise_title(title), prefer, exact, pool):
                if f.id not in ids:
                    ids.append(f.id)
        responses.append(msgspec.structs.replace(r, finding_ids=ids))
    return msgspec.structs.replace(discourse, responses=responses)


def _named(norm: str, prefer: str | None, exact, pool) -> list[Finding]:
    """The findings a normalised title names, those of `prefer` first (see `link`)."""
    if not norm:
        return []
    found = exact.get(norm)
    if found:
        mine = [f for f in found if prefer and prefer in f.reviewers]
        return mine or found
    close = _close(norm, pool)
    mine = [(r, f) for r, f in close if prefer and prefer in f.reviewers]
    return _best(mine or close)


def _best(scored: list[tuple[float, Finding]]) -> list[Finding]:
    top = max((r for r, _ in scored), default=0.0)
    return [f for r, f in scored if r >= top - 1e-9]


def _close(norm: str, pool) -> list[tuple[float, Finding]]:
    """(ratio, finding) of the findings whose normalised title is within FUZZY of `norm`."""
    if len(norm) > MAX_FUZZY:
        return []
    out = []
    sm = difflib.SequenceMatcher(None, "", norm, autojunk=False)  # b is cached
    for other, f in pool:
        if not other or len(other) > MAX_FUZZY:
            continue
        sm.set_seq1(other)
        ratio = close_ratio(sm, FUZZY)
        if ratio is not None:
            out.append((ratio, f))
    return out


def responses_about(discourse: Discourse, finding_id: str) -> list[Response]:
    """The responses (of a linked discourse) that name a finding, in file order."""
    return [r for r in discourse.responses if finding_id in r.finding_ids]
