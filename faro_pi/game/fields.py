"""What each field of an event may hold on the wire, and the rule a wrong value breaks.

The domain types (a rank, a card, a colour, a name in its normal form, the house rules) are
marker classes: msgspec hands their JSON to the codec's decoding hook, and the event holds
the plain value. The rest are ``Annotated`` types whose ``Meta`` names the rule (``extra``)
and what a client reads in the console's schema. :mod:`faro_pi.game.events` builds the
events from them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from faro_pi.game.profile import MAX_WEIGHT

MIN_SEATS, MAX_SEATS = 2, 10
"""A session seats the banker and at least one player, and at most ten."""
MOST_PACKS = 10**9
"""The highest pack number: a table would deal a pack a minute for nineteen centuries."""
ALARM_KINDS = ("refused", "noread", "gap", "lost", "noise", "integrity", "console", "floor")


class _Domain(type):
    """The metaclass of a domain type, which msgspec hands to the codec's decoding hook.

    msgspec checks that what a hook returns is an instance of the field's type;
    here the hook is the check (it returns plain ints, shared cards, str), so
    any value passes, at C speed (``type(value)`` is always a true value), where
    an ABC's ``register`` would cost about a microsecond a field.
    """

    __instancecheck__ = type


def _marker(name: str, doc: str) -> type:
    """A domain type: what a field holds on the wire; the codec reads it into a plain value."""
    return _Domain(name, (), {"__doc__": doc, "__module__": __name__})


Rank = _marker("Rank", "A rank code on the wire (A, 2-10 or T, J, Q, K); 1..13 once read.")
CardCode = _marker("CardCode", "A card code on the wire (KD, 10H); one of the 52 cards.")
Colour = _marker("Colour", "red or black, in any case.")
Name = _marker("Name", "A participant's name: trimmed, then composed (NFC).")
Seat = _marker("Seat", "A name fit to seat: 1 to 24 characters, no control characters.")
OnlyTrue = _marker("OnlyTrue", "A flag given as true or not at all; false once read.")
HouseRules = _marker("HouseRules", "Options over a profile's, by name.")


def ruled(rule: str, wrong: str, **meta: Any) -> Meta:
    """A field's ``Meta``: the rule a wrong value breaks, the message (``{key}``, ``{value}``)."""
    return Meta(extra={"rule": rule, "wrong": wrong}, **meta)


_NAMED = "'{key}' must be a participant's name"
Player = Annotated[Name, ruled("player", _NAMED, description="A participant's name.")]
Seated = Annotated[Seat, ruled("name", _NAMED + ", not {value!r}", description="A name to seat.")]
Seats = Annotated[
    tuple[Seat, ...],
    ruled(
        "seats",
        "'seats' must list the participants' names in table order",
        extra_json_schema={"minItems": MIN_SEATS, "maxItems": MAX_SEATS},
    ),
]
Weight = Annotated[
    int,
    ruled(
        "weight",
        "the weight must be a whole number, not {value!r}",
        description="A positive whole number; the teaching rules (even_weights) want it even, "
        "so that a split halves it exactly.",
        extra_json_schema={"minimum": 1, "maximum": MAX_WEIGHT},
    ),
]
Limit = Annotated[
    int,
    ruled(
        "limit",
        f"'limit' is a whole number from 1 to {MAX_WEIGHT:,}, not {{value!r}}",
        ge=1,
        le=MAX_WEIGHT,
        description="The largest weight of one bet or call; without it the table's configured "
        "limit is journaled with the session.",
    ),
]
Copper = Annotated[bool, ruled("copper", "'copper' must be true or false, not {value!r}")]
OneRank = Annotated[Rank, ruled("rank", "{value!r} is not a rank: use A, 2-10 (or T), J, Q or K")]
RANKS_WRONG = "'ranks' lists 2 or 4 ranks (a single rank is given as 'rank')"
Ranks = Annotated[
    tuple[Rank, ...],
    ruled(
        "ranks",
        RANKS_WRONG,
        description="Two neighbouring cards or a corner of four on the layout (2 or 4 ranks, "
        "in any order); with the combinations option.",
        extra_json_schema={"minItems": 2, "maxItems": 4, "uniqueItems": True},
    ),
]
HighCard = Annotated[
    OnlyTrue,
    ruled(
        "high-card",
        "'high_card' must be true, not {value!r}",
        description="The high-card space: the winner outranks the loser (ace low); with the "
        "high_card option.",
    ),
]
THREE_WRONG = "'{key}' must list three entries: loser, winner, hock"
_LAST = {"minItems": 3, "maxItems": 3}
"""Loser, winner and hock (the length is the call's to check, after each entry's)."""
Order = Annotated[tuple[Rank, ...], ruled("call", THREE_WRONG, extra_json_schema=_LAST)]
Colours = Annotated[tuple[Colour, ...], ruled("call", THREE_WRONG, extra_json_schema=_LAST)]
Drawn = Annotated[
    CardCode,
    ruled("card-code", "{value!r} is not a card", description="A card: KD, 10H; any case."),
]
_PICTURE = "'picture' is a still's SHA-256, 64 lowercase hex digits, not {value!r}"
Picture = Annotated[str, ruled("picture", _PICTURE, pattern="^[0-9a-f]{64}$")]
Likely = Annotated[
    tuple[CardCode, ...], ruled("likely", "'likely' is 3 cards at most", max_length=3)
]
Kind = Annotated[
    Literal[ALARM_KINDS],
    ruled("alarm", f"an alarm's kind is one of {', '.join(ALARM_KINDS)}"),
]
