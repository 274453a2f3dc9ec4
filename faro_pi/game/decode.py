"""Reading events from JSON: the long way from a decoded object, the quick way from a line.

``event_from_json`` checks shape (types, card and rank codes, the options of
a profile) and raises :class:`~faro_pi.game.exc.Refused` for anything
malformed; whether an event is allowed *now* is the rules engine's business.
``decode_event`` does the same from a line of JSON text, through msgspec's
typed decoder, which is several times quicker than ``json.loads`` and a walk
of the dict (replays and restores read every line of a journal); whatever
that quick path does not take as it stands goes the long way, so every
message is the same.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import msgspec

from faro_pi.game.cards import (
    CARD_BY_CODE,
    COLOURS,
    RANK_BY_CODE,
    Card,
    parse_card,
    parse_colour,
    parse_rank,
)
from faro_pi.game.events import (
    ALARM_KINDS,
    CLEAR,
    CLOSE,
    LOCK,
    SHUFFLE,
    Alarm,
    Bet,
    Call,
    CardDrawn,
    Clear,
    Event,
    Join,
    Leave,
    Remove,
    Session,
    Void,
)
from faro_pi.game.exc import Refused
from faro_pi.game.profile import DEFAULT_PROFILE, PROFILES, options_for

MAX_NAME = 24
"""Code points in a participant's name, so that it fits the OLED and a log line."""


def _player(obj: dict, key: str = "player") -> str:
    name = obj.get(key)
    if not isinstance(name, str) or not name.strip():
        raise Refused("player", f"{key!r} must be a participant's name")
    return normal_name(name)


def normal_name(name: str) -> str:
    """A name as seats compare it: trimmed, then in Unicode's composed form (NFC)."""
    return unicodedata.normalize("NFC", name.strip())


def seat_name(name: object, key: str = "player") -> str:
    """A name fit to seat: 1 to 24 code points once normalised, and no control characters."""
    if not isinstance(name, str):
        raise Refused("name", f"{key!r} must be a participant's name, not {name!r}")
    name = normal_name(name)
    if not 1 <= len(name) <= MAX_NAME:
        raise Refused("name", f"a name has 1 to {MAX_NAME} characters, not {len(name)}")
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise Refused("name", f"{name!r}: a name may not hold control characters")
    return name


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
    seats = [seat_name(s, "seats") for s in seats]
    banker = obj.get("banker")
    if banker is not None:
        banker = seat_name(banker, "banker")
    profile, options = obj.get("profile"), obj.get("options")
    if profile is None and options is None:
        return Session(tuple(seats), banker)
    rules = options_for(DEFAULT_PROFILE if profile is None else profile, options)
    if options is None:
        rules = None  # the profile alone says it all
    return Session(tuple(seats), banker, profile, rules)


def _card(obj: dict) -> CardDrawn:
    source = obj.get("source")
    return CardDrawn(parse_card(obj.get("card")), source if isinstance(source, str) else None)


def _place(obj: dict) -> tuple[int | None, tuple[int, ...] | None, bool]:
    """Where a bet sits: exactly one of ``rank``, ``ranks`` (2 or 4 distinct) or ``high_card``."""
    given = [key for key in ("rank", "ranks", "high_card") if key in obj]
    if len(given) > 1:
        raise Refused("place", f"a bet sits in one place: give one of {', '.join(given)}")
    if given == ["high_card"]:
        if obj["high_card"] is not True:
            raise Refused("high-card", f"'high_card' must be true, not {obj['high_card']!r}")
        return None, None, True
    if given == ["ranks"]:
        items = obj["ranks"]
        if not isinstance(items, list) or len(items) not in (2, 4):
            raise Refused("ranks", "'ranks' lists 2 or 4 ranks (a single rank is given as 'rank')")
        ranks = tuple(parse_rank(item) for item in items)
        if len(set(ranks)) != len(ranks):
            raise Refused("ranks", "the ranks of a combination must differ")
        return None, ranks, False
    return parse_rank(obj.get("rank")), None, False


def _bet(obj: dict) -> Bet:
    player = _player(obj)
    rank, ranks, high_card = _place(obj)
    return Bet(player, rank, _weight(obj), _flag(obj, "copper", False), ranks, high_card)


def _remove(obj: dict) -> Remove:
    player = _player(obj)
    if "call" in obj:
        if obj["call"] is not True:
            raise Refused("call", f"'call' must be true, not {obj['call']!r}")
        if any(key in obj for key in ("rank", "ranks", "high_card")):
            raise Refused("place", "a take-back of calls names no rank, ranks or high card")
        return Remove(player, None, _flag(obj, "copper", None), call=True)
    rank, ranks, high_card = _place(obj)
    return Remove(player, rank, _flag(obj, "copper", None), ranks, high_card)


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
    "join": lambda obj: Join(seat_name(obj.get("player"))),
    "leave": lambda obj: Leave(_player(obj)),
    "close": lambda obj: CLOSE,
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


# -- the quick path from a line of JSON -------------------------------------------------
# One Struct per event type as it stands on the wire; msgspec checks the JSON types.
# UNSET tells a missing key from an explicit null, as the long way does.

_UNSET = msgspec.UNSET


class _Wire(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class _Session(_Wire, tag="session"):
    seats: list[str]
    banker: str | None = None
    profile: str | msgspec.UnsetType = _UNSET
    options: Any = _UNSET


class _Card(_Wire, tag="card"):
    card: str
    source: Any = None


class _Bet(_Wire, tag="bet"):
    player: str
    weight: int
    copper: bool = False
    rank: str | msgspec.UnsetType = _UNSET
    ranks: list[str] | msgspec.UnsetType = _UNSET
    high_card: Any = _UNSET


class _Remove(_Wire, tag="remove"):
    player: str
    copper: bool | None = None
    rank: str | msgspec.UnsetType = _UNSET
    ranks: list[str] | msgspec.UnsetType = _UNSET
    high_card: Any = _UNSET
    call: Any = _UNSET


class _Join(_Wire, tag="join"):
    player: str


class _Leave(_Wire, tag="leave"):
    player: str


class _Close(_Wire, tag="close"):
    pass


class _Lock(_Wire, tag="lock"):
    pass


class _Call(_Wire, tag="call"):
    player: str
    weight: int
    order: list[str] | msgspec.UnsetType = _UNSET
    colours: list[str] | msgspec.UnsetType = _UNSET


class _Shuffle(_Wire, tag="shuffle"):
    pass


class _Void(_Wire, tag="void"):
    card: str | None = None


class _Alarm(_Wire, tag="alarm"):
    kind: str
    text: Any = ""
    card: str | None = None


class _Clear(_Wire, tag="clear"):
    kind: str | None = None


class _LongWay(Exception):
    """The quick path cannot take this line as it stands."""


def _name(name: str) -> str:
    if not name.isascii():
        raise _LongWay  # normalising is the long way's
    name = name.strip()
    if not name:
        raise _LongWay
    return name


def _rank(code: str) -> int:
    rank = RANK_BY_CODE.get(code)
    if rank is None:
        raise _LongWay
    return rank


def _drawn(code: str) -> Card:
    card = CARD_BY_CODE.get(code)
    if card is None:
        raise _LongWay
    return card


def _quick_place(w: _Bet | _Remove) -> tuple[int | None, tuple[int, ...] | None, bool]:
    """Where the bet sits, when the line gives exactly one place in its plain form."""
    if w.high_card is not _UNSET:
        if w.high_card is not True or w.rank is not _UNSET or w.ranks is not _UNSET:
            raise _LongWay
        return None, None, True
    if w.ranks is not _UNSET:
        if w.rank is not _UNSET or len(w.ranks) not in (2, 4):
            raise _LongWay
        ranks = tuple(_rank(r) for r in w.ranks)
        if len(set(ranks)) != len(ranks):
            raise _LongWay
        return None, ranks, False
    if w.rank is _UNSET:
        raise _LongWay
    return _rank(w.rank), None, False


def _quick_bet(w: _Bet) -> Bet:
    player = w.player
    if w.rank is not _UNSET and w.ranks is _UNSET and w.high_card is _UNSET:
        rank = RANK_BY_CODE.get(w.rank)
        if rank is not None and player.isascii() and player == player.strip() and player:
            return Bet(player, rank, w.weight, w.copper)  # the common bet, the quickest way
    rank, ranks, high_card = _quick_place(w)
    return Bet(_name(player), rank, w.weight, w.copper, ranks, high_card)


def _quick_session(w: _Session) -> Session:
    if w.options is not _UNSET:
        raise _LongWay
    profile = None if w.profile is _UNSET else w.profile
    if profile is not None and profile not in PROFILES:
        raise _LongWay
    names = w.seats if w.banker is None else [*w.seats, w.banker]
    if any(len(s.strip()) > MAX_NAME or not s.isprintable() for s in names):
        raise _LongWay
    banker = None if w.banker is None else _name(w.banker)
    return Session(tuple(_name(s) for s in w.seats), banker, profile)


def _quick_remove(w: _Remove) -> Remove:
    if w.call is not _UNSET:
        raise _LongWay
    rank, ranks, high_card = _quick_place(w)
    return Remove(_name(w.player), rank, w.copper, ranks, high_card)


def _quick_join(w: _Join) -> Join:
    name = w.player.strip()
    if not name.isascii() or not name.isprintable() or not 1 <= len(name) <= MAX_NAME:
        raise _LongWay
    return Join(name)


def _quick_call(w: _Call) -> Call:
    if (w.order is _UNSET) == (w.colours is _UNSET):
        raise _LongWay
    if w.order is not _UNSET:
        if len(w.order) != 3:
            raise _LongWay
        return Call(_name(w.player), w.weight, order=tuple(_rank(r) for r in w.order))
    if len(w.colours) != 3 or not all(c in COLOURS for c in w.colours):
        raise _LongWay
    return Call(_name(w.player), w.weight, colours=tuple(w.colours))


def _quick_alarm(w: _Alarm) -> Alarm:
    if w.kind not in ALARM_KINDS:
        raise _LongWay
    text = w.text if isinstance(w.text, str) else ""
    return Alarm(w.kind, text, None if w.card is None else _drawn(w.card))


def _quick_clear(w: _Clear) -> Clear:
    if w.kind is None:
        return CLEAR
    if w.kind not in ALARM_KINDS:
        raise _LongWay
    return Clear(w.kind)


_QUICK = {
    _Session: _quick_session,
    _Card: lambda w: CardDrawn(_drawn(w.card), w.source if isinstance(w.source, str) else None),
    _Bet: _quick_bet,
    _Remove: _quick_remove,
    _Lock: lambda w: LOCK,
    _Join: _quick_join,
    _Leave: lambda w: Leave(_name(w.player)),
    _Close: lambda w: CLOSE,
    _Call: _quick_call,
    _Shuffle: lambda w: SHUFFLE,
    _Void: lambda w: Void(None if w.card is None else _drawn(w.card)),
    _Alarm: _quick_alarm,
    _Clear: _quick_clear,
}

_decode = msgspec.json.Decoder(
    _Session
    | _Card
    | _Bet
    | _Remove
    | _Lock
    | _Call
    | _Shuffle
    | _Void
    | _Alarm
    | _Clear
    | _Join
    | _Leave
    | _Close
).decode


def decode_event(line: str | bytes) -> Event:
    """The event a line of JSON stands for; refuses malformed ones as :func:`event_from_json`.

    Raises ``ValueError`` (``json.JSONDecodeError``) when the line is not JSON at all.
    """
    try:
        wire = _decode(line)
        return _QUICK[type(wire)](wire)
    except (msgspec.MsgspecError, _LongWay):
        return event_from_json(json.loads(line))
