"""Log lines that stay one line, whatever a name, a card code or a reader's bytes held."""

from __future__ import annotations

import logging

from faro_pi.game.cards import SUIT_SYMBOLS, rank_name
from faro_pi.game.codec import event_to_json
from faro_pi.game.events import Event
from faro_pi.game.pack import Stage
from faro_pi.game.rules import Table


def one_line(text: str) -> str:
    """Escapes what could forge or garble a log line: newlines, escapes, NUL, any control."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class OneLine(logging.Formatter):
    """Formats a record's message on one line; a traceback after it keeps its own lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = one_line(record.message)
        return super().formatMessage(record)


def describe_card(table: Table) -> str:
    """One log line for the card just exposed: its place in the pack and what it settled."""
    pack = table.pack
    n, card, at = len(pack.exposed), pack.exposed[-1], pack.stage
    name = f"{rank_name(card.rank)}{SUIT_SYMBOLS[card.suit]}"
    if at is Stage.SODA:
        return f"card 1: {name} soda (pack {pack.number})"
    if at is Stage.HOCK:
        calls = ", ".join(f"{s.player} {s.delta:+d}" for s in table.call_results)
        return f"card 52: {name} hock" + (f"; calls {calls}" if calls else "")
    if at is Stage.LOSER:
        return f"card {n}: {name} loser of turn {pack.turn + 1}"
    pair = table.last_pair
    moves = ", ".join(f"{s.player} {s.delta:+d}" for s in pair.settlements)
    split = " (split)" if pair.split else ""
    return f"card {n}: {name} winner of turn {pair.turn}{split}" + (
        f"; {moves}; bank {pair.banker_delta:+d}" if moves else ""
    )


def describe_void(table: Table) -> str:
    """One log line for a void: which card was taken back, and what it took with it."""
    card, n = table.voided, len(table.pack.exposed) + 1
    name = f"{rank_name(card.rank)}{SUIT_SYMBOLS[card.suit]}"
    return f"void: card {n}, {name}, is taken back ({len(table.dropped)} entries dropped)"


LOG_LINE = 300
"""Characters of an event in a log line: a refused thousand-seat session says enough in that."""


def short(event: Event) -> str:
    """The event in one log line: control characters escaped, and no longer than LOG_LINE."""
    obj = event_to_json(event)
    kind = obj.pop("type")
    text = kind + (" " + " ".join(f"{k}={v}" for k, v in obj.items()) if obj else "")
    text = one_line(text)
    return text if len(text) <= LOG_LINE else text[: LOG_LINE - 1] + "…"
