"""The one vocabulary of table events.

Everything that changes the table is one of these events: the journal stores
them, replay files and simulator scenarios are lines of them, and the
lookout's console posts them. On the wire an event is a JSON object with a
``type``; fields beyond the ones named here are allowed and ignored.

``event_from_json`` checks shape (types, card and rank codes) and raises
:class:`~faro_pi.exc.Refused` for anything malformed; whether an event is
allowed *now* is the rules engine's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from faro_pi.game.cards import Card, parse_card, parse_colour, parse_rank, rank_name
from faro_pi.game.exc import Refused


@dataclass(slots=True, frozen=True)
class Session:
    """Seats participants in table order and names the banker."""

    seats: tuple[str, ...]
    banker: str


@dataclass(slots=True, frozen=True)
class CardDrawn:
    """A card exposed from the shoe: the soda, a loser, a winner or the hock.

    ``source`` says how it came (``"reader"``, ``"hand"``, ``"scanner"``); it
    has no effect on the rules.
    """

    card: Card
    source: str | None = None


@dataclass(slots=True, frozen=True)
class Bet:
    """A prediction on a rank: ordinary plays it to win, coppered to lose."""

    player: str
    rank: int
    weight: int
    copper: bool = False


@dataclass(slots=True, frozen=True)
class Remove:
    """Takes a player's predictions on a rank off the layout (one direction if given)."""

    player: str
    rank: int
    copper: bool | None = None


@dataclass(slots=True, frozen=True)
class Lock:
    """The banker's signal: entries close until the next pair's winner."""


@dataclass(slots=True, frozen=True)
class Call:
    """Calling the turn: the order of the last three cards (loser, winner, hock).

    By ``order`` (three ranks) normally; by ``colours`` when all three share a rank.
    """

    player: str
    weight: int
    order: tuple[int, int, int] | None = None
    colours: tuple[str, str, str] | None = None


@dataclass(slots=True, frozen=True)
class Shuffle:
    """A new pack, after a complete one; the bank passes to the next seat."""


@dataclass(slots=True, frozen=True)
class Void:
    """Takes back the last card exposed (a misread caught at the table).

    ``card`` names the card being voided, so that a repeated void cannot take
    back a second card by accident.
    """

    card: Card | None = None


@dataclass(slots=True, frozen=True)
class Alarm:
    """Something at the shoe needs a person: a refused card, a no-read, a gap, a lost reader."""

    kind: str
    text: str
    card: Card | None = None


@dataclass(slots=True, frozen=True)
class Clear:
    """Clears the alarms (of one kind, if given) once the table has dealt with them."""

    kind: str | None = None


Event = Session | CardDrawn | Bet | Remove | Lock | Call | Shuffle | Void | Alarm | Clear

ALARM_KINDS = ("refused", "noread", "gap", "lost")


def _player(obj: dict, key: str = "player") -> str:
    name = obj.get(key)
    if not isinstance(name, str) or not name.strip():
        raise Refused("player", f"{key!r} must be a participant's name")
    return name.strip()


def _weight(obj: dict) -> int:
    weight = obj.get("weight")
    if type(weight) is not int:
        raise Refused("weight", f"the weight must be a whole number, not {weight!r}")
    return weight


def _flag(obj: dict, key: str, default: bool | None) -> bool | None:
    value = obj.get(key, default)
    if value is not default and not isinstance(value, bool):
        raise Refused(key, f"{key!r} must be true or false, not {value!r}")
    return value


def _three(obj: dict, key: str, parse) -> tuple:
    items = obj[key]
    if not isinstance(items, list) or len(items) != 3:
        raise Refused("call", f"{key!r} must list three entries: loser, winner, hock")
    return tuple(parse(item) for item in items)


def _session(obj: dict) -> Session:
    seats = obj.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
        raise Refused("seats", "'seats' must list the participants' names in table order")
    banker = obj.get("banker")
    if banker is not None:
        banker = _player(obj, "banker")
    return Session(tuple(s.strip() for s in seats), banker)


def _card(obj: dict) -> CardDrawn:
    source = obj.get("source")
    return CardDrawn(parse_card(obj.get("card")), source if isinstance(source, str) else None)


def _bet(obj: dict) -> Bet:
    return Bet(_player(obj), parse_rank(obj.get("rank")), _weight(obj), _flag(obj, "copper", False))


def _remove(obj: dict) -> Remove:
    return Remove(_player(obj), parse_rank(obj.get("rank")), _flag(obj, "copper", None))


def _call(obj: dict) -> Call:
    player, weight = _player(obj), _weight(obj)
    if ("order" in obj) == ("colours" in obj):
        raise Refused("call", "a call gives either 'order' (three ranks) or 'colours' (three)")
    if "order" in obj:
        return Call(player, weight, order=_three(obj, "order", parse_rank))
    return Call(player, weight, colours=_three(obj, "colours", parse_colour))


def _clear(obj: dict) -> Clear:
    kind = obj.get("kind")
    if kind is not None and kind not in ALARM_KINDS:
        raise Refused("alarm", f"an alarm's kind is one of {', '.join(ALARM_KINDS)}")
    return CLEAR if kind is None else Clear(kind)


def _void(obj: dict) -> Void:
    card = obj.get("card")
    return Void(None if card is None else parse_card(card))


def _alarm(obj: dict) -> Alarm:
    kind = obj.get("kind")
    if kind not in ALARM_KINDS:
        raise Refused("alarm", f"an alarm's kind is one of {', '.join(ALARM_KINDS)}")
    text = obj.get("text", "")
    card = obj.get("card")
    return Alarm(
        kind, text if isinstance(text, str) else "", None if card is None else parse_card(card)
    )


_PARSERS = {
    "session": _session,
    "card": _card,
    "bet": _bet,
    "remove": _remove,
    "lock": lambda obj: LOCK,
    "call": _call,
    "shuffle": lambda obj: SHUFFLE,
    "void": _void,
    "alarm": _alarm,
    "clear": _clear,
}

LOCK, SHUFFLE, CLEAR = Lock(), Shuffle(), Clear()


def event_from_json(obj: Any) -> Event:
    """The event a decoded JSON object stands for; refuses malformed ones."""
    if not isinstance(obj, dict):
        raise Refused("event", "an event is a JSON object with a 'type'")
    kind = obj.get("type")
    parse = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parse is None:
        known = ", ".join(_PARSERS)
        raise Refused("event", f"unknown event type {obj.get('type')!r}; known: {known}")
    return parse(obj)


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object for an event, in the replay vocabulary."""
    match event:
        case Session(seats, banker):
            return {"type": "session", "seats": list(seats), "banker": banker}
        case CardDrawn(card, source):
            obj = {"type": "card", "card": card.code}
            if source is not None:
                obj["source"] = source
            return obj
        case Bet(player, rank, weight, copper):
            return {
                "type": "bet",
                "player": player,
                "rank": rank_name(rank),
                "weight": weight,
                "copper": copper,
            }
        case Remove(player, rank, copper):
            obj = {"type": "remove", "player": player, "rank": rank_name(rank)}
            if copper is not None:
                obj["copper"] = copper
            return obj
        case Call(player, weight, order, colours):
            obj = {"type": "call", "player": player, "weight": weight}
            if order is not None:
                obj["order"] = [rank_name(r) for r in order]
            else:
                obj["colours"] = list(colours)
            return obj
        case Void(card):
            return {"type": "void"} if card is None else {"type": "void", "card": card.code}
        case Alarm(kind, text, card):
            obj = {"type": "alarm", "kind": kind, "text": text}
            if card is not None:
                obj["card"] = card.code
            return obj
        case Lock():
            return {"type": "lock"}
        case Shuffle():
            return {"type": "shuffle"}
        case Clear(kind):
            return {"type": "clear"} if kind is None else {"type": "clear", "kind": kind}
    raise TypeError(f"not an event: {event!r}")
