"""What a replay found: for each check (a fact, or a rule), how often it ran and each step
where the surfaces disagreed with each other or with the files on disk."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

ABSENT = object()  # a surface that does not say the fact (a column given way)


@dataclass
class Miss:
    step: int
    action: str  # what the simulator had just done
    detail: str  # the surfaces and their values

    def __str__(self) -> str:
        return f"step {self.step} ({self.action}): {self.detail}"


@dataclass
class Result:
    lifecycle: str
    steps: int = 0
    ran: Counter = field(default_factory=Counter)
    misses: dict[str, list[Miss]] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)  # the situations the replay went through

    def report(self, checks) -> str:
        out = []
        for check in sorted(checks):
            found = self.misses.get(check, [])
            out.append(f"{self.lifecycle} · {check}: {len(found)} of {self.ran[check]} steps")
            out += [f"    {m}" for m in found[:4]]
        return "\n".join(out)


class Checker:
    """The checks of one step (or one probe of a step: `where` says which)."""

    def __init__(self, result: Result, step: int, action: str, where: str = "") -> None:
        self.result, self.step, self.action, self.where = result, step, action, where

    def _miss(self, check: str, detail: str) -> None:
        action = f"{self.action}{f', {self.where}' if self.where else ''}"
        self.result.misses.setdefault(check, []).append(Miss(self.step, action, detail))

    def agree(self, check: str, said: dict[str, object]) -> None:
        """Every surface that says the fact says the same value."""
        said = {k: v for k, v in said.items() if v is not ABSENT}
        self.result.ran[check] += 1
        if len({repr(v) for v in said.values()}) > 1:
            self._miss(check, ", ".join(f"{k}={v!r}" for k, v in said.items()))

    def saw(self, situation: str) -> None:
        """The lifecycle went through this (a glyph, a gate's exit, a pending finding...)."""
        self.result.seen.add(situation)

    def expect(self, check: str, ok: bool, detail: str) -> None:
        self.result.ran[check] += 1
        if not ok:
            self._miss(check, detail)
