"""The quick way from a line of JSON to an event, through msgspec's typed decoder.

Replays and restores read every line of a journal, and msgspec reads a line
into a tagged Struct several times quicker than ``json.loads`` and a walk of
the dict. A line the quick way does not take as it stands goes the long way
(:func:`faro_pi.game.decode.event_from_json`), so every refusal keeps its
message; a property test holds the two to the same answers.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from faro_pi.game.cards import CARD_BY_CODE, COLOURS, RANK_BY_CODE, Card
from faro_pi.game.decode import event_from_json
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
from faro_pi.game.names import MAX_NAME
from faro_pi.game.profile import PROFILES

# -- the quick path from a line of JSON -------------------------------------------------
# One Struct per event type as it stands on the wire; msgspec checks the JSON types.
# UNSET tells a missing key from an explicit null, as the long way does.

_UNSET = msgspec.UNSET


class _Wire(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class _Session(_Wire, tag="session"):
    seats: list[str]
    banker: str | None = None
    limit: Any = _UNSET
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
    if w.options is not _UNSET or w.limit is not _UNSET:
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
