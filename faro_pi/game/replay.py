"""Replaying rows of events through the rules engine, and what each row brings.

A start replays its journal's rows, ``verify`` and ``faro-pi integrity`` all of
them, the floor its copy of them, ``faro-pi replay`` a file of lines and the
demo the events it makes up: each through :func:`replay`, the one loop that runs
rows into a :class:`Table`. What a refusal means is the caller's (a start stops,
``faro-pi integrity`` reads on, a file counts it). When a pack's deal-integrity
report falls due is said once, by :func:`report_due`, and what it is made of by
:func:`pack_report`: the daemon, the floor and ``faro-pi integrity`` then report
the same packs alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from faro_pi.game import integrity
from faro_pi.game.codec import decode_event, event_from_json
from faro_pi.game.events import CardDrawn, Event
from faro_pi.game.exc import Refused
from faro_pi.game.rules import Table
from faro_pi.game.seats import leaders

Row = tuple[int, Any, str | None]
"""(number, event, refused): the event as an event, a journal's JSON object or a line of
JSON; ``refused`` says why the rules refused it when it was journaled (the row is passed
over, as the table passed over it), or is None."""


class Step(NamedTuple):
    """One row replayed, and what it brought."""

    row: int
    event: Event | None
    """The event applied; None for a row passed over or refused now."""
    refused: Refused | None = None
    """Why the rules refuse the row now: the table is as it was before it."""
    due: bool = False
    """The row completed the pack: its deal-integrity report falls due (:func:`report_due`)."""


def replay(table: Table, rows: Iterable[Row]) -> Iterator[Step]:
    """Applies each row to ``table`` in turn, a step for each as it is applied: a caller
    that stops reading stops the replay, and the table is as the last step left it."""
    for number, event, journaled in rows:
        if journaled is not None:
            yield Step(number, None)
            continue
        try:
            event = _read(event)
            table.apply(event)
        except Refused as exc:
            # A value, without the traceback that would keep the rows being read (a
            # journal's cursor) open after a caller raises it on.
            yield Step(number, None, exc.with_traceback(None))
            continue
        yield Step(number, event, None, report_due(table, event))


def _read(event: Any) -> Event:
    """The event a row holds, read from its JSON if need be; a line that is not JSON is
    refused like any other."""
    if isinstance(event, dict):
        return event_from_json(event)
    if isinstance(event, str | bytes):
        try:
            return decode_event(event)
        except ValueError as exc:
            raise Refused("json", f"not a JSON object: {exc}") from None
    return event


def report_due(table: Table, event: Event) -> bool:
    """Whether ``event``, just applied to ``table``, completed its pack, so that the pack's
    deal-integrity report falls due: at the hock, and again if a void takes the last card
    back and another completes it."""
    return isinstance(event, CardDrawn) and table.pack.complete


def pack_report(table: Table) -> integrity.IntegrityReport:
    """The complete pack's report, against the pack dealt before it at this table (the
    first pack has none), which the shuffle kept: the same wherever the rows are replayed."""
    return integrity.report(table.pack.exposed, table.state.previous or None)


@dataclass
class Replay:
    """The table a file of events leads to, and the lines it refused."""

    table: Table = field(default_factory=Table)
    refused: list[tuple[int, str]] = field(default_factory=list)
    """(1-based line number, message) of every refused line, ascending."""

    def summary(self) -> dict:
        """Each participant's total over every session (by name), each session, and the rest."""
        table = self.table
        sessions = table.sessions
        totals: dict[str, int] = {}
        for night in sessions:
            for name, balance in night.items():
                totals[name] = totals.get(name, 0) + balance
        return {
            "balances": totals,
            "sessions": sessions,
            "rejected": [line for line, _ in self.refused],
            "leaders": leaders(totals),
            "pack": table.pack.number,
            "exposed": len(table.pack.exposed),
        }


def replay_lines(lines: Iterable[str]) -> Replay:
    """Apply each non-blank line as an event; a line that is not JSON is refused like any other."""
    result = Replay()
    rows = ((number, line, None) for number, line in enumerate(lines, start=1) if line.strip())
    for step in replay(result.table, rows):
        if step.refused is not None:
            result.refused.append((step.row, str(step.refused)))
    return result
