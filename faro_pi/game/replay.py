"""Replaying a file of events (one JSON object a line) through the rules engine."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from faro_pi.game.codec import decode_event
from faro_pi.game.exc import Refused
from faro_pi.game.rules import Table
from faro_pi.game.seats import leaders


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
    apply = result.table.apply
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            try:
                event = decode_event(line)
            except ValueError as exc:
                raise Refused("json", f"not a JSON object: {exc}") from None
            apply(event)
        except Refused as exc:
            result.refused.append((number, str(exc)))
    return result
