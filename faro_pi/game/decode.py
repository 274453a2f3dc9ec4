"""Reading events from JSON objects: the long way, which every refusal's message comes from.

``event_from_json`` checks shape (types, card and rank codes, names, the
options of a profile) and raises :class:`~faro_pi.game.exc.Refused` for
anything malformed; whether an event is allowed *now* is the rules engine's
business. :mod:`faro_pi.game.quick` reads a line of JSON the quick way and
falls back on this one.
"""

from __future__ import annotations

from typing import Any

from faro_pi.game.cards import (
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
    Integrity,
    Join,
    Leave,
    Remove,
    Session,
    Void,
)
from faro_pi.game.exc import Refused
from faro_pi.game.names import normal_name, require_text, seat_name
from faro_pi.game.profile import DEFAULT_PROFILE, MAX_WEIGHT, options_for


def _given(obj: dict, key: str, rule: str) -> Any:
    """``obj[key]``; a field left out is refused as missing, not as a wrong value of None."""
    if key not in obj:
        raise Refused(rule, f"{key!r} is missing")
    return obj[key]


def _player(obj: dict, key: str = "player") -> str:
    name = _given(obj, key, "player")
    if not isinstance(name, str) or not name.strip():
        raise Refused("player", f"{key!r} must be a participant's name")
    return normal_name(name)


def _weight(obj: dict) -> int:
    weight = _given(obj, "weight", "weight")
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
    seats = _given(obj, "seats", "seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) and s.strip() for s in seats):
        raise Refused("seats", "'seats' must list the participants' names in table order")
    seats = [seat_name(s, "seats") for s in seats]
    banker = obj.get("banker")
    if banker is not None:
        banker = seat_name(banker, "banker")
    profile, options, limit = obj.get("profile"), obj.get("options"), obj.get("limit")
    if limit is not None and (type(limit) is not int or not 1 <= limit <= MAX_WEIGHT):
        raise Refused("limit", f"'limit' is a whole number from 1 to {MAX_WEIGHT:,}, not {limit!r}")
    if profile is None and options is None:
        return Session(tuple(seats), banker, limit=limit)
    rules = options_for(DEFAULT_PROFILE if profile is None else profile, options)
    if options is None:
        rules = None  # the profile alone says it all
    return Session(tuple(seats), banker, profile, rules, limit)


def _card(obj: dict) -> CardDrawn:
    source = obj.get("source")
    card = parse_card(_given(obj, "card", "card-code"))
    return CardDrawn(card, source if isinstance(source, str) else None)


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
    if "rank" not in obj:
        raise Refused("rank", "'rank' is missing (or give 'ranks' or 'high_card')")
    return parse_rank(obj["rank"]), None, False


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
    kind = _given(obj, "kind", "alarm")
    if kind not in ALARM_KINDS:
        raise Refused("alarm", f"an alarm's kind is one of {', '.join(ALARM_KINDS)}")
    text = obj.get("text", "")
    card = obj.get("card")
    return Alarm(
        kind, text if isinstance(text, str) else "", None if card is None else parse_card(card)
    )


def _integrity(obj: dict) -> Integrity:
    pack, flagged, report = obj.get("pack"), obj.get("flagged"), obj.get("report")
    if type(pack) is not int or pack < 1:
        raise Refused("integrity", f"'pack' is the number of a pack, not {pack!r}")
    if not isinstance(flagged, list) or not all(isinstance(f, str) for f in flagged):
        raise Refused("integrity", "'flagged' lists what the report found, in words")
    if not isinstance(report, dict):
        raise Refused("integrity", "'report' is an object: the report's measures")
    return Integrity(pack, tuple(flagged), report)


_PARSERS = {
    "session": _session,
    "join": lambda obj: Join(seat_name(_given(obj, "player", "name"))),
    "leave": lambda obj: Leave(_player(obj)),
    "close": lambda obj: CLOSE,
    "integrity": _integrity,
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
    require_text(obj, kind)
    return parse(obj)
