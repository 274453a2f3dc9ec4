"""The one vocabulary of table events, declared once.

Everything that changes the table is one of these events: the journal stores
them, replay files and simulator scenarios are lines of them, and the
lookout's console posts them. On the wire an event is a JSON object whose
``type`` is the Struct's tag; fields beyond the ones named here are allowed
and ignored. :mod:`faro_pi.game.codec` reads and writes them and builds the
console's schema from these declarations alone: each field's type says what
it holds, its ``Meta`` the rule that refuses a wrong value (``extra``) and
what a client reads in the schema; ``examples`` and ``entered`` describe the
event as a whole, and so do the flags that say what a row of it brings (whether
it changes the case, keeps a resume point, starts a pack): each said here once,
for the daemon, the devices and the floor to read.

What each field may hold, and the rule a wrong value breaks, is declared in
:mod:`faro_pi.game.fields`; the event holds the plain value the codec reads it into.

A new event is one more Struct here (a tag, its fields, its examples, its
flags) and one more handler in :meth:`faro_pi.game.rules.Table.apply`'s table.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec
from msgspec import UNSET, UnsetType

from faro_pi.game.exc import Refused
from faro_pi.game.fields import (
    MOST_PACKS,
    RANKS_WRONG,
    THREE_WRONG,
    Colours,
    Copper,
    Drawn,
    HighCard,
    HouseRules,
    Kind,
    Likely,
    Limit,
    OneRank,
    OnlyTrue,
    Order,
    Picture,
    Player,
    Ranks,
    Seated,
    Seats,
    Weight,
    ruled,
)
from faro_pi.game.measures import REPORT, Findings, IntegrityReport
from faro_pi.game.profile import DEFAULT_PROFILE, PROFILES, options_for

_OPTIONS = "'options' must be an object of house-rule options"
_PROFILE = f"the profile is {' or '.join(PROFILES)}"


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    examples: ClassVar[tuple[dict[str, Any], ...]] = ()
    """What a client may send, each decoding to an event that encodes back to it."""
    entered: ClassVar[bool] = True
    """Whether the lookout may enter it; the shoe's alarms and the daemon's reports are not."""
    either: ClassVar[tuple[str, ...]] = ()
    """Fields of which exactly one is given."""
    changes_case: ClassVar[bool] = False
    """Whether the case keeper shows what it does: the cards in the box, a new pack, an
    alarm's blink. The rest (bets, locks, calls) leave a blink running."""
    resume_point: ClassVar[bool] = False
    """Whether the table after it is kept as a resume point, at the table and on the floor:
    a new pack, a night closed, so that a restart replays at most a pack's rows."""
    new_pack: ClassVar[bool] = False
    """Whether, applied, it starts a new pack: the floor's outbox counts packs by it without
    running the rules."""


class Session(_Event, tag="session"):
    """Seats 2 to 10 participants in table order; one of them banks (drawn at random if none
    is named). The profile (teaching or house) and options name the house rules; without them
    the table's configured rules are journaled with the session."""

    seats: Seats
    banker: Seated | None = None
    profile: (
        Annotated[Literal[tuple(PROFILES)], ruled("profile", _PROFILE + ", not {value!r}")] | None
    ) = None
    options: (
        Annotated[HouseRules, ruled("options", "'options' must be an object of house-rule options")]
        | None
    ) = None
    limit: Limit | None = None
    examples = (
        {"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": "Cy"},
        {"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": "Cy", "profile": "house"},
    )

    def __post_init__(self) -> None:
        if isinstance(self.options, dict):  # read from JSON: over the profile's, or teaching's
            rules = options_for(self.profile or DEFAULT_PROFILE, self.options)
            msgspec.structs.force_setattr(self, "options", rules)


class CardDrawn(_Event, tag="card"):
    """A card exposed, entered by hand (after a no-read, say); journaled with source 'hand'.

    ``source`` says how it came (reader, hand, scanner); a card entered at the
    console is journaled as 'hand', whatever is sent. It has no effect on the rules.
    """

    card: Drawn
    source: Annotated[str, ruled("source", "'source' is a word, not {value!r}")] | None = None
    picture: Picture | None = None
    examples = ({"type": "card", "card": "KD"},)
    changes_case = True


def _one_place(event: Bet | Remove, places: tuple[str, ...]) -> None:
    """A prediction sits in exactly one place; a combination's ranks differ."""
    given = [key for key in places if getattr(event, key) not in (None, False)]
    if len(given) > 1:
        raise Refused("place", f"a bet sits in one place: give one of {', '.join(given)}")
    if not given:
        raise Refused("rank", "'rank' is missing (or give 'ranks' or 'high_card')")
    ranks = event.ranks
    if ranks is not None and len(ranks) not in (2, 4):
        raise Refused("ranks", RANKS_WRONG)
    if ranks is not None and len(set(ranks)) != len(ranks):
        raise Refused("ranks", "the ranks of a combination must differ")


_PLACES = ("rank", "ranks", "high_card")


class Bet(_Event, tag="bet"):
    """A prediction on a rank, between two neighbouring cards or at a corner of four
    ('ranks'), or on the high card; coppered, it plays to lose."""

    player: Player
    rank: OneRank | None = None
    weight: Weight | UnsetType = UNSET
    """Required: a default only so that ``rank`` may be left out before it."""
    copper: Copper = False
    ranks: Ranks | None = None
    high_card: HighCard = False
    examples = (
        {"type": "bet", "player": "Ann", "rank": "9", "weight": 2, "copper": False},
        {"type": "bet", "player": "Ann", "weight": 3, "copper": False, "ranks": ["9", "10"]},
        {"type": "bet", "player": "Ann", "weight": 3, "copper": True, "high_card": True},
    )
    either: ClassVar[tuple[str, ...]] = _PLACES

    def __post_init__(self) -> None:
        if self.weight is UNSET:
            raise Refused("weight", "'weight' is missing")
        if self.rank is None or self.ranks is not None or self.high_card:
            _one_place(self, _PLACES)


class Remove(_Event, tag="remove"):
    """Takes a player's predictions on a rank, on exactly a set of ranks, or on the high card
    off the layout (only one direction if 'copper' is given); with 'call', takes back the
    player's calls while calls are taken."""

    player: Player
    rank: OneRank | None = None
    copper: Copper | None = None
    ranks: Ranks | None = None
    high_card: HighCard = False
    call: Annotated[
        OnlyTrue,
        ruled(
            "call",
            "'call' must be true, not {value!r}",
            description="Takes back every call the player has made on the last three.",
        ),
    ] = False
    examples = (
        {"type": "remove", "player": "Ann", "rank": "9"},
        {"type": "remove", "player": "Ann", "ranks": ["10", "9"]},
        {"type": "remove", "player": "Ann", "call": True},
    )
    either: ClassVar[tuple[str, ...]] = (*_PLACES, "call")

    def __post_init__(self) -> None:
        if not self.call:
            _one_place(self, _PLACES)
        elif self.rank is not None or self.ranks is not None or self.high_card:
            raise Refused("place", "a take-back of calls names no rank, ranks or high card")


class Join(_Event, tag="join"):
    """Seats a participant at the end of the table order while entries are open; one who
    left earlier in the session keeps the result they left with."""

    player: Seated
    examples = ({"type": "join", "player": "Dee"},)


class Leave(_Event, tag="leave"):
    """A player gets up while entries are open: their predictions and calls are withdrawn
    with no money moving, and their result stays in the session's."""

    player: Player
    examples = ({"type": "leave", "player": "Ann"},)


class Close(_Event, tag="close"):
    """Ends the session (the night) between packs: before the soda or after the hock. What
    stands on the layout is withdrawn; a new session may then be seated."""

    examples = ({"type": "close"},)
    resume_point = True


class Bank(_Event, tag="bank"):
    """Passes the bank to a seated participant between packs: before the soda or after the
    hock. They bank from then on; passed after the hock, the next pack too (its shuffle
    does not pass it on again)."""

    player: Player
    examples = ({"type": "bank", "player": "Ann"},)


class Lock(_Event, tag="lock"):
    """The banker's signal: entries close until the next pair's winner."""

    examples = ({"type": "lock"},)


class Call(_Event, tag="call"):
    """Calling the turn with three cards left: loser, winner, hock by rank ('order'), or by
    colour ('colours') when the three share a rank."""

    player: Player
    weight: Weight
    order: Order | None = None
    colours: Colours | None = None
    examples = (
        {"type": "call", "player": "Ann", "weight": 2, "order": ["7", "J", "3"]},
        {"type": "call", "player": "Ann", "weight": 2, "colours": ["red", "black", "red"]},
    )
    either: ClassVar[tuple[str, ...]] = ("order", "colours")

    def __post_init__(self) -> None:
        if (self.order is None) == (self.colours is None):
            raise Refused("call", "a call gives either 'order' (three ranks) or 'colours' (three)")
        key, three = ("order", self.order) if self.colours is None else ("colours", self.colours)
        if len(three) != 3:
            raise Refused("call", THREE_WRONG.format(key=key))


class Shuffle(_Event, tag="shuffle"):
    """A new pack, after the hock; the bank passes to the next seat."""

    examples = ({"type": "shuffle"},)
    changes_case = resume_point = new_pack = True


class Void(_Event, tag="void"):
    """Takes back the last card exposed (a misread); 'card' guards against voiding twice."""

    card: Drawn | None = None
    examples = ({"type": "void", "card": "KD"},)
    changes_case = True


class Alarm(_Event, tag="alarm"):
    """Something at the shoe needs a person: a refused card, a no-read, a gap, a lost reader.
    Raised by the shoe and journaled, never entered. A no-read from the camera carries its
    still (``picture``) and the cards it was likeliest to be (``likely``)."""

    kind: Kind
    text: Annotated[str, ruled("alarm", "an alarm's 'text' is words, not {value!r}")] = ""
    card: Drawn | None = None
    picture: Picture | None = None
    likely: Likely | None = None
    examples = ({"type": "alarm", "kind": "noread", "text": "a card passed unread"},)
    entered = False
    changes_case = True


class Integrity(_Event, tag="integrity"):
    """The deal-integrity report of a complete pack (docs/integrity.md), journaled by the
    daemon at the hock; 'flagged' says what a fair shuffle gives less than once in a thousand
    packs. Never entered."""

    pack: Annotated[
        int,
        ruled("integrity", "'pack' is the number of a pack, not {value!r}", ge=1, le=MOST_PACKS),
    ]
    flagged: Annotated[
        Findings, ruled("integrity", "'flagged' lists what the report found, a line a measure")
    ]
    report: Annotated[
        IntegrityReport,
        ruled(
            "integrity", "'report' is not a pack's deal-integrity report (docs/integrity.md): {why}"
        ),
    ]
    examples = ({"type": "integrity", "pack": 1, "flagged": [], "report": REPORT},)
    entered = False


class Clear(_Event, tag="clear"):
    """The alarms (of one kind, if given) have been dealt with."""

    kind: Kind | None = None
    examples = ({"type": "clear"}, {"type": "clear", "kind": "noread"})
    changes_case = True


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
    | Bank
    | Integrity
)

LOCK, SHUFFLE, CLEAR, CLOSE = Lock(), Shuffle(), Clear(), Close()
