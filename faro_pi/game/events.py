"""The one vocabulary of table events.

Everything that changes the table is one of these events: the journal stores
them, replay files and simulator scenarios are lines of them, and the
lookout's console posts them. On the wire an event is a JSON object with a
``type``; fields beyond the ones named here are allowed and ignored.
:mod:`faro_pi.game.decode` reads them from JSON; :func:`event_to_json`
writes them back.

The events are frozen msgspec Structs: immutable and hashable like frozen
dataclasses, and about five times quicker to make.
"""

from __future__ import annotations

from typing import Any

import msgspec

from faro_pi.game.cards import Card, rank_name
from faro_pi.game.profile import Options, options_json


class Session(msgspec.Struct, frozen=True):
    """Seats participants in table order, names the banker and the rules they play.

    ``profile`` and ``options`` are None when the entry names neither; the
    daemon fills them in from its configuration before journaling, and the
    engine plays the teaching profile for a session that has none.
    """

    seats: tuple[str, ...]
    banker: str | None
    profile: str | None = None
    options: Options | None = None
    limit: int | None = None
    """The largest weight of one bet or call (the bank's limit); None: the largest there is."""


class CardDrawn(msgspec.Struct, frozen=True):
    """A card exposed from the shoe: the soda, a loser, a winner or the hock.

    ``source`` says how it came (``"reader"``, ``"hand"``, ``"scanner"``); it
    has no effect on the rules.
    """

    card: Card
    source: str | None = None


class Bet(msgspec.Struct, frozen=True):
    """A prediction: ordinary plays it to win, coppered to lose.

    On one rank (``rank``), between two neighbouring cards or at a corner of
    four (``ranks``, in the order given), or on the high card (``high_card``).
    """

    player: str
    rank: int | None
    weight: int
    copper: bool = False
    ranks: tuple[int, ...] | None = None
    high_card: bool = False


class Remove(msgspec.Struct, frozen=True):
    """Takes a player's predictions off the layout (one direction if ``copper`` is given).

    Those on ``rank`` alone, on exactly the set ``ranks``, or on the high card;
    or, with ``call``, every call the player has made on the last three.
    """

    player: str
    rank: int | None
    copper: bool | None = None
    ranks: tuple[int, ...] | None = None
    high_card: bool = False
    call: bool = False


class Join(msgspec.Struct, frozen=True):
    """Seats a participant at the end of the table order, between turns."""

    player: str


class Leave(msgspec.Struct, frozen=True):
    """A player gets up: their predictions and calls are withdrawn; their result stays."""

    player: str


class Close(msgspec.Struct, frozen=True):
    """Ends the session (the night) between packs; what stands on the layout is withdrawn."""


class Lock(msgspec.Struct, frozen=True):
    """The banker's signal: entries close until the next pair's winner."""


class Call(msgspec.Struct, frozen=True):
    """Calling the turn: the order of the last three cards (loser, winner, hock).

    By ``order`` (three ranks) normally; by ``colours`` when all three share a rank.
    """

    player: str
    weight: int
    order: tuple[int, int, int] | None = None
    colours: tuple[str, str, str] | None = None


class Shuffle(msgspec.Struct, frozen=True):
    """A new pack, after a complete one; the bank passes to the next seat."""


class Void(msgspec.Struct, frozen=True):
    """Takes back the last card exposed (a misread caught at the table).

    ``card`` names the card being voided, so that a repeated void cannot take
    back a second card by accident.
    """

    card: Card | None = None


class Alarm(msgspec.Struct, frozen=True):
    """Something at the shoe needs a person: a refused card, a no-read, a gap, a lost reader."""

    kind: str
    text: str
    card: Card | None = None


class Integrity(msgspec.Struct, frozen=True):
    """The deal-integrity report of a complete pack (:mod:`faro_pi.game.integrity`).

    Journaled by the daemon at the hock; ``flagged`` says in words what a fair
    shuffle would give less than once in a thousand packs (empty: nothing).
    """

    pack: int
    flagged: tuple[str, ...]
    report: dict[str, Any]


class Clear(msgspec.Struct, frozen=True):
    """Clears the alarms (of one kind, if given) once the table has dealt with them."""

    kind: str | None = None


Event = (
    Session
    | CardDrawn
    | Bet
    | Remove
    | Lock
    | Call
    | Shuffle
    | Void
    | Alarm
    | Clear
    | Join
    | Leave
    | Close
    | Integrity
)

ALARM_KINDS = ("refused", "noread", "gap", "lost", "noise", "integrity")

LOCK, SHUFFLE, CLEAR, CLOSE = Lock(), Shuffle(), Clear(), Close()


def _session(e: Session) -> dict[str, Any]:
    obj = {"type": "session", "seats": list(e.seats), "banker": e.banker}
    if e.profile is not None:
        obj["profile"] = e.profile
    if e.options is not None:
        obj["options"] = options_json(e.options)
    if e.limit is not None:
        obj["limit"] = e.limit
    return obj


def _card(e: CardDrawn) -> dict[str, Any]:
    obj = {"type": "card", "card": e.card.code}
    if e.source is not None:
        obj["source"] = e.source
    return obj


def _where(obj: dict[str, Any], e: Bet | Remove) -> dict[str, Any]:
    """Puts the one place a bet sits: its rank, its ranks, or the high card (or the calls)."""
    if getattr(e, "call", False):
        obj["call"] = True
    elif e.high_card:
        obj["high_card"] = True
    elif e.ranks is not None:
        obj["ranks"] = [rank_name(r) for r in e.ranks]
    else:
        obj["rank"] = rank_name(e.rank)
    return obj


def _bet(e: Bet) -> dict[str, Any]:
    obj = _where({"type": "bet", "player": e.player}, e)
    obj["weight"] = e.weight
    obj["copper"] = e.copper
    return obj


def _remove(e: Remove) -> dict[str, Any]:
    obj = _where({"type": "remove", "player": e.player}, e)
    if e.copper is not None:
        obj["copper"] = e.copper
    return obj


def _call(e: Call) -> dict[str, Any]:
    obj = {"type": "call", "player": e.player, "weight": e.weight}
    if e.order is not None:
        obj["order"] = [rank_name(r) for r in e.order]
    else:
        obj["colours"] = list(e.colours)
    return obj


def _alarm(e: Alarm) -> dict[str, Any]:
    obj = {"type": "alarm", "kind": e.kind, "text": e.text}
    if e.card is not None:
        obj["card"] = e.card.code
    return obj


def _kind(name: str, e: Void | Clear) -> dict[str, Any]:
    value = e.card.code if isinstance(e, Void) and e.card else getattr(e, "kind", None)
    key = "card" if isinstance(e, Void) else "kind"
    return {"type": name} if value is None else {"type": name, key: value}


_TO_JSON = {
    Session: _session,
    CardDrawn: _card,
    Bet: _bet,
    Remove: _remove,
    Call: _call,
    Alarm: _alarm,
    Join: lambda e: {"type": "join", "player": e.player},
    Leave: lambda e: {"type": "leave", "player": e.player},
    Close: lambda e: {"type": "close"},
    Integrity: lambda e: {
        "type": "integrity",
        "pack": e.pack,
        "flagged": list(e.flagged),
        "report": e.report,
    },
    Lock: lambda e: {"type": "lock"},
    Shuffle: lambda e: {"type": "shuffle"},
    Void: lambda e: _kind("void", e),
    Clear: lambda e: _kind("clear", e),
}


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object for an event, in the replay vocabulary."""
    write = _TO_JSON.get(type(event))
    if write is None:
        raise TypeError(f"not an event: {event!r}")
    return write(event)
