"""The Faro rules engine for the teaching profile: pure, one event at a time.

A :class:`Table` holds the pack being dealt and the session (seats, banker,
balances, the predictions on the layout, calls). :meth:`Table.apply` takes one
event from :mod:`faro_pi.game.events`; an event that breaks a rule raises
:class:`~faro_pi.exc.Refused` and leaves the table exactly as it was. There
is no I/O, no clock and no randomness here: replaying the same events always
gives the same table.

The pack, by position of the card exposed (1-based):

* card 1 is the **soda**: it wins and loses nothing;
* cards 2k and 2k+1 are the **loser** and **winner** of pair (turn) k, k = 1..25;
* card 52 is the **hock**: no effect on predictions; it settles the calls.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from faro_pi.game.cards import DECK, Card, rank_name
from faro_pi.game.events import (
    Alarm,
    Bet,
    Call,
    CardDrawn,
    Clear,
    Event,
    Lock,
    Remove,
    Session,
    Shuffle,
    Void,
)
from faro_pi.game.exc import Refused

PACK_SIZE = 52
FINAL_WINNER = 51
"""Exposing card 51 closes entries for good and ends the predictions still standing."""
LAST_THREE = 49
"""With 49 cards exposed, three remain: the moment for calling the turn."""
MIN_SEATS, MAX_SEATS = 2, 10
PROFILE = "teaching"


@dataclass(slots=True)
class Prediction:
    """A player's weight on a rank; ``copper`` plays it to lose."""

    player: str
    rank: int
    weight: int
    copper: bool = False


@dataclass(slots=True, frozen=True)
class Settlement:
    """What one prediction or call did to its owner's balance."""

    player: str
    delta: int
    outcome: str
    """``"lost"``, ``"won"``, ``"split"`` (a prediction) or ``"called"``/``"miscalled"``."""
    rank: int | None = None
    copper: bool = False
    weight: int = 0


@dataclass(slots=True, frozen=True)
class Pair:
    """One turn of the pack: its loser, its winner and what they settled."""

    pack: int
    turn: int
    loser: Card
    winner: Card
    settlements: tuple[Settlement, ...]

    @property
    def split(self) -> bool:
        return self.loser.rank == self.winner.rank

    @property
    def banker_delta(self) -> int:
        return -sum(s.delta for s in self.settlements)


@dataclass(slots=True)
class Pack:
    """The cards exposed so far from one shuffled pack, and the case count."""

    number: int = 1
    exposed: list[Card] = field(default_factory=list)
    counts: list[int] = field(default_factory=lambda: [0] + [4] * 13)
    """Case count by rank (index 1..13; index 0 unused)."""
    seen: set[Card] = field(default_factory=set)

    @property
    def soda(self) -> Card | None:
        return self.exposed[0] if self.exposed else None

    @property
    def hock(self) -> Card | None:
        return self.exposed[-1] if len(self.exposed) == PACK_SIZE else None

    @property
    def left(self) -> int:
        """Cards still in the shoe."""
        return PACK_SIZE - len(self.exposed)

    @property
    def complete(self) -> bool:
        return len(self.exposed) == PACK_SIZE

    @property
    def turn(self) -> int:
        """Pairs completed so far (0 before the first winner, 25 at the end)."""
        return max(0, (len(self.exposed) - 1) // 2)

    def remaining(self) -> list[Card]:
        """The cards still in the shoe, in case-keeper order (their order is unknown)."""
        return [card for card in DECK if card not in self.seen]


@dataclass(slots=True)
class CallEntry:
    player: str
    weight: int
    order: tuple[int, int, int] | None
    colours: tuple[str, str, str] | None


class Table:
    """The whole state of a Faro table, changed only by :meth:`apply`."""

    def __init__(self) -> None:
        self.pack = Pack()
        self.locked = False
        self.seats: tuple[str, ...] = ()
        self.banker: str | None = None
        self.balances: dict[str, int] = {}
        self.layout: list[list[Prediction]] = [[] for _ in range(14)]
        """Predictions by rank (index 1..13), so a pair touches only two lists."""
        self.calls: list[CallEntry] = []
        self.alarms: list[Alarm] = []
        self.pairs: list[Pair] = []
        """Every pair dealt, in order, with its settlements."""
        self.call_results: tuple[Settlement, ...] = ()
        """Settlements of the calls of the last hock."""
        self.dropped: list[Event] = []
        """Events that the last void made inapplicable and took back."""
        self._log: list[Event] = []
        """The effective events since the pack began, for taking back its last card."""
        self._pack_start: tuple | None = None
        """What a void must start again from: the table as the current pack began."""
        self._handlers = {
            CardDrawn: self._card,
            Bet: self._bet,
            Lock: self._lock,
            Remove: self._remove,
            Call: self._call,
            Session: self._session,
            Shuffle: self._shuffle,
            Void: self._void,
            Alarm: self._alarm,
            Clear: self._clear,
        }

    # -- reading the state -------------------------------------------------

    @property
    def entries_open(self) -> bool:
        """Predictions, removals, calls and a session may be entered now."""
        n = len(self.pack.exposed)
        return not self.locked and n < FINAL_WINNER and (n == 0 or n & 1 == 1)

    @property
    def predictions(self) -> list[Prediction]:
        return [p for stack in self.layout for p in stack]

    @property
    def leaders(self) -> list[str]:
        """The participants with the highest balance, in seat order; ties share."""
        if not self.seats:
            return []
        best = max(self.balances.values())
        return [s for s in self.seats if self.balances[s] == best]

    @property
    def last_pair(self) -> Pair | None:
        return self.pairs[-1] if self.pairs else None

    # -- changing it ---------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Apply one event, or raise :class:`Refused` and change nothing."""
        handler = self._handlers.get(type(event))
        if handler is None:
            raise Refused("event", f"not a table event: {event!r}")
        handler(event)
        self._log.append(event)

    def replay(self, events: Iterable[Event]) -> list[tuple[int, Refused]]:
        """Apply events in order; the refused ones are returned with their 0-based index."""
        refused = []
        for i, event in enumerate(events):
            try:
                self.apply(event)
            except Refused as exc:
                refused.append((i, exc))
        return refused

    # Every handler checks everything first and changes state only after.

    def _entrant(self, player: str) -> None:
        if not self.seats:
            raise Refused("no-session", "no session: seat the participants first")
        if player not in self.balances:
            raise Refused("not-seated", f"{player} is not seated at this table")
        if player == self.banker:
            raise Refused("banker", f"{player} is the banker; the banker does not predict")
        if not self.entries_open:
            raise Refused("entries-closed", self._closed_reason())

    def _closed_reason(self) -> str:
        n = len(self.pack.exposed)
        if n >= FINAL_WINNER:
            return "entries are closed for good: the final pair has been dealt"
        if self.locked:
            return "entries are locked by the banker until this pair's winner is exposed"
        return "entries are closed: the loser is out, wait for the winner"

    @staticmethod
    def _check_weight(weight: int) -> None:
        if type(weight) is not int or weight <= 0 or weight & 1:
            raise Refused(
                "weight", f"a weight must be a positive even whole number, not {weight!r}"
            )

    def _bet(self, bet: Bet) -> None:
        self._entrant(bet.player)
        self._check_weight(bet.weight)
        if self.pack.counts[bet.rank] == 0:
            raise Refused(
                "exhausted", f"all four {rank_name(bet.rank)}s are out: that rank cannot play"
            )
        self.layout[bet.rank].append(Prediction(bet.player, bet.rank, bet.weight, bet.copper))

    def _remove(self, remove: Remove) -> None:
        self._entrant(remove.player)
        stack = self.layout[remove.rank]
        keep = [
            p
            for p in stack
            if p.player != remove.player
            or (remove.copper is not None and p.copper != remove.copper)
        ]
        if len(keep) == len(stack):
            which = {None: "", True: "coppered ", False: "ordinary "}[remove.copper]
            raise Refused(
                "nothing-to-remove",
                f"{remove.player} has no {which}prediction on {rank_name(remove.rank)}",
            )
        self.layout[remove.rank] = keep

    def _lock(self, _: Lock) -> None:
        n = len(self.pack.exposed)
        if n >= FINAL_WINNER:
            raise Refused("no-pair-left", "no pair is left to lock in this pack")
        if not self.entries_open:
            raise Refused("entries-closed", self._closed_reason())
        self.locked = True

    def _card(self, drawn: CardDrawn) -> None:
        pack, card = self.pack, drawn.card
        n = len(pack.exposed)
        if n == PACK_SIZE:
            raise Refused(
                "pack-complete", f"{card.code}: the pack is complete; shuffle for a new pack"
            )
        if card in pack.seen:
            at = pack.exposed.index(card) + 1
            raise Refused(
                "duplicate",
                f"{card.code} was already exposed (card {at} of this pack): misread or foreign",
            )
        pack.exposed.append(card)
        pack.seen.add(card)
        pack.counts[card.rank] -= 1
        n += 1
        if n & 1 == 1 and n > 1:
            self._settle_pair(pack.exposed[-2], card)
        elif n == PACK_SIZE:
            self._settle_calls()

    def _settle_pair(self, loser: Card, winner: Card) -> None:
        """Settle the predictions on the pair's two ranks; nothing else is touched."""
        layout, settled = self.layout, []
        lo, wi = loser.rank, winner.rank
        if lo == wi:
            for p in layout[lo]:
                settled.append(
                    Settlement(p.player, -(p.weight // 2), "split", lo, p.copper, p.weight)
                )
            layout[lo] = []
        else:
            settled += self._settle_rank(lo, lose_unless_copper=True)
            settled += self._settle_rank(wi, lose_unless_copper=False)
        counts = self.pack.counts
        if counts[lo] == 0:
            layout[lo] = []
        if counts[wi] == 0:
            layout[wi] = []
        n = len(self.pack.exposed)
        if n == FINAL_WINNER:
            self.layout = [[] for _ in range(14)]
        self.locked = False
        if settled:
            balances, net = self.balances, 0
            for s in settled:
                balances[s.player] += s.delta
                net += s.delta
            balances[self.banker] -= net
        self.pairs.append(Pair(self.pack.number, (n - 1) // 2, loser, winner, tuple(settled)))

    def _settle_rank(self, rank: int, lose_unless_copper: bool) -> list[Settlement]:
        stack = self.layout[rank]
        if not stack:
            return []
        settled, standing = [], []
        for p in stack:
            if p.copper is lose_unless_copper:
                settled.append(Settlement(p.player, p.weight, "won", rank, p.copper, p.weight))
                standing.append(p)
            else:
                settled.append(Settlement(p.player, -p.weight, "lost", rank, p.copper, p.weight))
        self.layout[rank] = standing
        return settled

    def _call(self, call: Call) -> None:
        self._entrant(call.player)
        self._check_weight(call.weight)
        if len(self.pack.exposed) != LAST_THREE:
            raise Refused(
                "not-last-three",
                f"the turn is called only when three cards remain ({self.pack.left} left now)",
            )
        left = self.pack.remaining()
        ranks = sorted(c.rank for c in left)
        if ranks[0] == ranks[2]:
            if call.colours is None:
                raise Refused(
                    "three-of-a-kind",
                    f"the last three are all {rank_name(ranks[0])}s: call their colours instead",
                )
            have = sorted(c.colour for c in left)
            if sorted(call.colours) != have:
                raise Refused(
                    "colours",
                    f"the last three are {', '.join(have)}: a call must use exactly those colours",
                )
        else:
            if call.order is None:
                raise Refused(
                    "colours", "colours are called only when the last three share one rank"
                )
            if sorted(call.order) != ranks:
                names = " ".join(rank_name(r) for r in ranks)
                raise Refused(
                    "call-ranks", f"the last three are {names}: a call must order exactly those"
                )
        self.calls.append(CallEntry(call.player, call.weight, call.order, call.colours))

    def _settle_calls(self) -> None:
        """At the hock: each call wins 4:1 (three ranks), 2:1 (cat-hop or colours) or loses."""
        loser, winner, hock = self.pack.exposed[-3:]
        settled = []
        for call in self.calls:
            if call.order is not None:
                right = call.order == (loser.rank, winner.rank, hock.rank)
                odds = 4 if len({loser.rank, winner.rank, hock.rank}) == 3 else 2
            else:
                right = call.colours == (loser.colour, winner.colour, hock.colour)
                odds = 2
            delta = odds * call.weight if right else -call.weight
            settled.append(
                Settlement(
                    call.player, delta, "called" if right else "miscalled", weight=call.weight
                )
            )
            self.balances[call.player] += delta
            self.balances[self.banker] -= delta
        self.calls = []
        self.call_results = tuple(settled)

    def _session(self, session: Session) -> None:
        seats = session.seats
        if self.seats:
            raise Refused("one-session", "a session is already seated at this table")
        if not MIN_SEATS <= len(seats) <= MAX_SEATS:
            raise Refused(
                "seats",
                f"a session seats {MIN_SEATS} to {MAX_SEATS} participants, not {len(seats)}",
            )
        if len(set(seats)) != len(seats):
            raise Refused("seats", "each participant is seated once: the names must differ")
        if session.banker is None:
            raise Refused("banker", "name the banker (one of the seats)")
        if session.banker not in seats:
            raise Refused("banker", f"the banker {session.banker} is not one of the seats")
        if not self.entries_open:
            raise Refused("entries-closed", self._closed_reason())
        self.seats = seats
        self.banker = session.banker
        self.balances = dict.fromkeys(seats, 0)

    def _shuffle(self, _: Shuffle) -> None:
        if not self.pack.complete:
            raise Refused(
                "pack-not-complete",
                f"a new pack starts only after the hock: {self.pack.left} cards left in the shoe",
            )
        self.pack = Pack(number=self.pack.number + 1)
        self.locked = False
        self.call_results = ()
        if self.seats:
            self.banker = self.seats[(self.seats.index(self.banker) + 1) % len(self.seats)]
        self._log = []
        self._pack_start = (
            self.pack.number,
            self.seats,
            self.banker,
            dict(self.balances),
            len(self.pairs),
            tuple(self.alarms),
        )

    def _void(self, void: Void) -> None:
        exposed = self.pack.exposed
        if not exposed:
            raise Refused("nothing-to-void", "no card of this pack has been exposed")
        if void.card is not None and void.card is not exposed[-1]:
            raise Refused("void-card", f"the last card is {exposed[-1].code}, not {void.card.code}")
        # The log holds this pack's effective events (a bare Void marks each
        # rebuild); replaying them from the pack's start is the table without
        # the card. Later entries that no longer fit are dropped, and reported.
        history = [e for e in self._log if type(e) is not Void and type(e) is not Shuffle]
        at = max(i for i, e in enumerate(history) if type(e) is CardDrawn)
        rebuilt = Table()
        if self._pack_start is not None:
            rebuilt._restore(self._pack_start, self.pairs)
        rebuilt.replay(history[:at])
        dropped = [history[at + 1 + i] for i, _ in rebuilt.replay(history[at + 1 :])]
        for name in _STATE:
            setattr(self, name, getattr(rebuilt, name))
        self.dropped = dropped

    def _restore(self, start: tuple, pairs: list[Pair]) -> None:
        number, self.seats, self.banker, balances, settled, alarms = start
        self.pack = Pack(number=number)
        self.balances = dict(balances)
        self.pairs = pairs[:settled]
        self.alarms = list(alarms)
        self._pack_start = start

    def _alarm(self, alarm: Alarm) -> None:
        self.alarms.append(alarm)

    def _clear(self, clear: Clear) -> None:
        standing = [a for a in self.alarms if clear.kind is not None and a.kind != clear.kind]
        if len(standing) == len(self.alarms):
            which = "" if clear.kind is None else f"{clear.kind} "
            raise Refused("no-alarm", f"there is no {which}alarm to clear")
        self.alarms = standing


_STATE = (
    "pack",
    "locked",
    "seats",
    "banker",
    "balances",
    "layout",
    "calls",
    "alarms",
    "pairs",
    "call_results",
    "_log",
    "_pack_start",
)
