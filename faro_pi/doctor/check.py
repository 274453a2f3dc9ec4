"""One finding of ``faro-pi doctor``, and the words its checks share."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

SERVICE_STOPPED = "if faro-pi is running, stop it first: sudo systemctl stop faro-pi"


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: ``ok`` True, False (with ``fix``), or None when skipped."""

    name: str
    ok: bool | None
    detail: str
    fix: str = ""

    def line(self) -> str:
        """One line, its tag first: a detail or fix of several lines (an error's own text)
        is joined, so that no line of the doctor's goes untagged."""
        status = {True: "ok", False: "FAIL", None: "skip"}[self.ok]
        text = f"{status:<4}  {self.name}: {one_line(self.detail)}"
        return f"{text}. Fix: {one_line(self.fix)}" if self.fix and self.ok is False else text


def verdicts(name: str) -> tuple[Callable[..., Check], ...]:
    """The check ``name``'s three outcomes: passed(detail), failed(detail, fix), skipped(detail)."""
    return partial(Check, name, True), partial(Check, name, False), partial(Check, name, None)


def one_line(text: str) -> str:
    return " ".join(text.split())
