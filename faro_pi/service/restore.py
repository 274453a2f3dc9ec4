"""Restoring the table at start: the latest resume point, then the journal's rows after it."""

from __future__ import annotations

import logging

from faro_pi.exc import JournalError, Refused
from faro_pi.game import resume
from faro_pi.game.codec import event_from_json
from faro_pi.game.rules import Table
from faro_pi.service.journal import Journal

log = logging.getLogger("faro_pi")

REPLAY_BEFORE_RESUME = 2000
"""Rows a start may replay before it keeps a resume point of its own."""


def restore(journal: Journal) -> Table:
    """The table the journal leads to: the latest resume point, then the rows after it."""
    table, after = Table(), 0
    for row, data in journal.resume_points():
        kept = resume.load(data)
        if kept is not None:
            table, after = kept, row
            break
        log.warning(
            "%s: the resume point after row %d is unreadable; an older one", journal.path, row
        )
    last = after
    for entry in journal.rows(after=after):
        last = entry.id
        if entry.refused is not None:
            continue  # a reading the rules refused, kept for the record only
        try:
            table.apply(event_from_json(entry.event))
        except Refused as exc:
            raise JournalError(
                f"{journal.path}: event {entry.id} no longer applies ({exc}); "
                "the journal was changed outside faro-pi",
                "diverged",
            ) from exc
    if last - after > REPLAY_BEFORE_RESUME and not journal.readonly:
        keep_resume_point(journal, table, last)
    return table


def keep_resume_point(journal: Journal, table: Table, after: int) -> None:
    """Keeps the table's state after row ``after``; failing that, a restart just replays more."""
    try:
        journal.keep_resume_point(after, resume.save(table))
    except JournalError as exc:
        log.warning("%s", exc)
