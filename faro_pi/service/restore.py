"""Restoring the table at start: the latest resume point its row seals, then the rows after it.

A start (:func:`start`) checks the file, the chain from the writer's mark and
every row it replays, and replays them, all read-only, before it opens the
journal for writing: a journal it refuses is left byte for byte as it was.
``faro-pi doctor`` checks the same with :func:`check`.

A resume point is derived data beside the rows: changed, it would change the
table without touching a row. So a start loads one only when the row it
follows seals it (:mod:`faro_pi.service.chain`, ``kept``) and that row
verifies; any other it passes over, for an older one or row 1, and says so
in one line.
"""

from __future__ import annotations

import logging
import os
from typing import NamedTuple

from faro_pi.exc import JournalError
from faro_pi.game import resume
from faro_pi.game.replay import replay
from faro_pi.game.rules import Table
from faro_pi.service.journal import Journal, Point

log = logging.getLogger("faro_pi")

REPLAY_BEFORE_RESUME = 2000
"""Rows a start may replay before the daemon keeps a resume point with its next commit."""

CHANGED = "is not the state its row seals: it was changed after it was kept"
PUT_IN = "is sealed in no row, yet newer than one that is: it was put in"
UNSEALED = "is sealed in no row (kept before resume points were sealed)"
UNREADABLE = "does not load (kept by another version of faro-pi)"


class PassedOver(NamedTuple):
    """A resume point a start did not load, and why."""

    row: int
    why: str

    @property
    def fault(self) -> bool:
        """Whether the file was changed to make it so (an older point, sealed or not, is not)."""
        return self.why in (CHANGED, PUT_IN)


class Replayed(NamedTuple):
    """What a start's replay found: the table, where it began, and what it passed over."""

    table: Table
    after: int
    """The row of the resume point the replay started from (0: from row 1)."""
    last: int
    """The last row replayed."""
    passed: tuple[PassedOver, ...] = ()
    """The resume points newer than ``after`` that were not loaded, newest first."""

    @property
    def point_due(self) -> bool:
        """Whether so many rows were replayed that the next commit should keep a resume point."""
        return self.last - self.after > REPLAY_BEFORE_RESUME

    def distrust(self, path: os.PathLike[str] | str) -> str | None:
        """The one line saying which resume point was passed over (the first changed or put in,
        else the newest), and where the replay began; None when none was."""
        if not self.passed:
            return None
        named = next((point for point in self.passed if point.fault), self.passed[0])
        more = len(self.passed) - 1
        also = f" (nor {more} other{'s' if more > 1 else ''})" if more else ""
        began = f"the resume point after row {self.after}" if self.after else "row 1"
        return (
            f"{path}: the resume point after row {named.row} {named.why}; it is not "
            f"trusted{also}: the table is replayed from {began}"
        )


def start(path: str | os.PathLike[str]) -> tuple[Journal, Replayed]:
    """The journal opened for writing, and what it leads to: checked and replayed first; a
    resume point passed over is said in one line."""
    journal, found = _opened(path, readonly=False)
    if found.passed:
        log.warning("%s", found.distrust(journal.path))
    return journal, found


def check(path: str | os.PathLike[str]) -> tuple[Journal, Replayed]:
    """The journal open read-only and its table, checked as a start checks them (``doctor``)."""
    return _opened(path, readonly=True)


def _opened(path: str | os.PathLike[str], readonly: bool) -> tuple[Journal, Replayed]:
    found = [Replayed(Table(), 0, 0)]  # a new journal is not replayed
    journal = Journal.open(path, readonly=readonly, replay=lambda r: found.append(replayed(r)))
    return journal, found[-1]


def restore(journal: Journal) -> Table:
    """The table the journal leads to: the latest resume point it seals, then the rows after."""
    return replayed(journal).table


def replayed(journal: Journal) -> Replayed:
    """Replays the rows after the latest resume point that is sealed and loads, each checked
    against the chain (and the row the point follows, whose hash seals it)."""
    table, after, passed = Table(), 0, []
    for point in journal.resume_points():
        why = _passed_over(point)
        kept = resume.load(point.state) if why is None else None
        if kept is not None:
            table, after = kept, point.after
            break
        passed.append(PassedOver(point.after, why or UNREADABLE))
    if after:  # a point sealed in its row was loaded: every newer one sealed in none was put in
        passed = [PassedOver(p.row, PUT_IN if p.why == UNSEALED else p.why) for p in passed]
    last = after  # a reading the rules refused is passed over: it is kept for the record only
    for step in replay(table, (entry.row for entry in journal.replayed(after=after))):
        last = step.row
        if step.refused is not None:
            raise JournalError(
                f"{journal.path}: event {step.row} no longer applies ({step.refused}); "
                "the journal was changed outside faro-pi",
                "diverged",
            ) from step.refused
    return Replayed(table, after, last, tuple(passed))


def _passed_over(point: Point) -> str | None:
    """Why a start may not load ``point``; None when its row seals it."""
    if point.sealed is None:
        return UNSEALED
    if not point.matches:
        return CHANGED
    return None
