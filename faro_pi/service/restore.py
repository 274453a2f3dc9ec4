"""Restoring the table at start: the latest resume point, then the journal's rows after it.

A start (:func:`start`) checks the file, the chain from the writer's mark and
every row it replays, and replays them, all read-only, before it opens the
journal for writing: a journal it refuses is left byte for byte as it was.
``faro-pi doctor`` checks the same with :func:`check`.
"""

from __future__ import annotations

import logging
import os
from typing import NamedTuple

from faro_pi.exc import JournalError
from faro_pi.game import resume
from faro_pi.game.replay import replay
from faro_pi.game.rules import Table
from faro_pi.service.journal import Journal

log = logging.getLogger("faro_pi")

REPLAY_BEFORE_RESUME = 2000
"""Rows a start may replay before it keeps a resume point of its own."""


class Replayed(NamedTuple):
    table: Table
    after: int
    """The row of the resume point the replay started from (0: from row 1)."""
    last: int
    """The last row replayed."""


def start(path: str | os.PathLike[str]) -> tuple[Journal, Table]:
    """The journal opened for writing, and the table it leads to: checked and replayed first."""
    journal, replayed = _opened(path, readonly=False)
    _keep_if_long(journal, replayed)
    return journal, replayed.table


def check(path: str | os.PathLike[str]) -> tuple[Journal, Table]:
    """The journal open read-only and its table, checked as a start checks them (``doctor``)."""
    journal, replayed = _opened(path, readonly=True)
    return journal, replayed.table


def _opened(path: str | os.PathLike[str], readonly: bool) -> tuple[Journal, Replayed]:
    found = [Replayed(Table(), 0, 0)]  # a new journal is not replayed
    journal = Journal.open(path, readonly=readonly, replay=lambda r: found.append(_replay(r)))
    return journal, found[-1]


def restore(journal: Journal) -> Table:
    """The table the journal leads to: the latest resume point, then the rows after it."""
    replayed = _replay(journal)
    _keep_if_long(journal, replayed)
    return replayed.table


def _replay(journal: Journal) -> Replayed:
    """Replays the rows after the latest resume point that loads, each checked against the chain."""
    table, after = Table(), 0
    for row, data in journal.resume_points():
        kept = resume.load(data)
        if kept is not None:
            table, after = kept, row
            break
        log.warning(
            "%s: the resume point after row %d is unreadable; an older one", journal.path, row
        )
    last = after  # a reading the rules refused is passed over: it is kept for the record only
    for step in replay(table, (entry.row for entry in journal.replayed(after=after))):
        last = step.row
        if step.refused is not None:
            raise JournalError(
                f"{journal.path}: event {step.row} no longer applies ({step.refused}); "
                "the journal was changed outside faro-pi",
                "diverged",
            ) from step.refused
    return Replayed(table, after, last)


def _keep_if_long(journal: Journal, replayed: Replayed) -> None:
    if replayed.last - replayed.after > REPLAY_BEFORE_RESUME and not journal.readonly:
        keep_resume_point(journal, replayed.table, replayed.last)


def keep_resume_point(journal: Journal, table: Table, after: int) -> None:
    """Keeps the table's state after row ``after``; failing that, a restart just replays more."""
    try:
        journal.keep_resume_point(after, resume.save(table))
    except JournalError as exc:
        log.warning("%s", exc)
