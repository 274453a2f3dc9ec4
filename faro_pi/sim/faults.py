"""What went wrong at the shoe during a simulated game, in words, as it happens.

Two sources, each seen from outside the daemon: the scenario's hardware
lines, as the simulator plays them (a no-read, noise, a pulled cable, a
reader restart), and the table's answers, as the daemon tells its watchers
(an alarm, a refused reading such as a duplicate card, a void, alarms cleared).
Both screens show them, and ``summary.json`` lists them.
"""

from __future__ import annotations

from faro_pi.game.cards import SUIT_SYMBOLS, Card, rank_name
from faro_pi.game.events import Alarm, Clear, Event, Void


def _card(card: Card) -> str:
    return f"{rank_name(card.rank)}{SUIT_SYMBOLS[card.suit]}"


def at_the_shoe(step: dict) -> tuple[str, str] | None:
    """The fault a scenario's hardware line puts in, as (name, words); None for other lines."""
    kind = step["type"]
    if kind == "noread":
        return "no-read", "a card goes past the reader unread"
    if kind == "reader_reset":
        return "reader restart", "the reader starts again and says hello"
    if kind == "unplug":
        return "unplug", f"the reader's cable is out for {step.get('seconds', 1.0):g} s"
    if kind == "garble":
        return "noise", f"{step.get('bytes', 40)} stray bytes on the serial line"
    return None


def at_the_table(event: Event) -> tuple[str, str] | None:
    """The table's answer to trouble in an applied event, as (name, words); None otherwise."""
    if isinstance(event, Alarm):
        if event.kind == "refused":
            return "refused card", event.text
        return f"{event.kind} alarm", event.text
    if isinstance(event, Void):
        taken = "the last card" if event.card is None else _card(event.card)
        return "void", f"{taken} taken back"
    if isinstance(event, Clear):
        return "cleared", "the alarms" if event.kind is None else f"the {event.kind} alarm"
    return None
