"""The Faro rules engine for the teaching profile: pure, one event at a time.

A :class:`Table` holds the pack being dealt and the session (seats, banker,
balances, the predictions on the layout, calls). :meth:`Table.apply` takes one
event from :mod:`faro_pi.game.events`; an event that breaks a rule raises
:class:`~faro_pi.exc.Refused` and leaves the table exactly as it was. There
is no I/O, no clock and no randomness here: replaying the same events always
gives the same table. Where the deal stands (soda, loser, winner, last
three, hock) is :mod:`faro_pi.game.pack`'s to say.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields

import msgspec

from faro_pi.game.cards import Card, rank_name
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
from faro_pi.game.pack import (
    FINAL_WINNER,
    OPEN_AT,
    PACK_SIZE,
    Entries,
    Pack,
    Stage,
    entries,
    stage,
)

MIN_SEATS, MAX_SEATS = 2, 10
PROFILE = "teaching"


class Settlement(msgspec.Struct, frozen=True):
    """What one prediction or call did to its owner's balance."""

    player: str
    delta: int
    outcome: str
    """``"lost"``, ``"won"``, ``"split"`` (a prediction) or ``"called"``/``"miscalled"``."""
    rank: int | None = None
    copper: bool = False
    weight: int = 0


class Pair(msgspec.Struct, frozen=True):
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


def _empty_layout() -> list[list[Bet]]:
    return [[] for _ in range(14)]


@dataclass(slots=True)
class TableState:
    """Everything a void must put back as it was: the engine swaps it whole.

    Adding a field here is enough for it to be rebuilt by a void; ``copy``
    copies every field it finds.
    """

    pack: Pack = field(default_factory=Pack)
    locked: bool = False
    seats: tuple[str, ...] = ()
    banker: str | None = None
    balances: dict[str, int] = field(default_factory=dict)
    layout: list[list[Bet]] = field(default_factory=_empty_layout)
    """Predictions by rank (index 1..13), so a pair touches only two lists."""
    calls: list[Call] = field(default_factory=list)
    alarms: list[Alarm] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    """The pairs of the current pack, in order, with their settlements."""
    call_results: tuple[Settlement, ...] = ()
    """Settlements of the calls of the last hock."""

    def copy(self) -> TableState:
        """A copy that shares nothing mutable with this state."""
        return TableState(**{f.name: _copied(getattr(self, f.name)) for f in fields(self)})


def _copied(value):
    if isinstance(value, Pack):
        return value.copy()
    if isinstance(value, list):
        return [list(v) if isinstance(v, list) else v for v in value]
    if isinstance(value, dict | set):
        return value.copy()
    return value  # immutable: tuples, strings, numbers, frozen events


class Table:
    """The whole state of a Faro table, changed only by :meth:`apply`."""

    def __init__(self, state: TableState | None = None) -> None:
        self.state = state if state is not None else TableState()
        self.history: list[Pair] = []
        """The pairs of the packs before this one."""
        self.dropped: list[Event] = []
        """Events that the last void made inapplicable and took back."""
        self._log: list[Event] = []
        """The effective events since the pack began, for taking back its last card."""
        self._start = self.state.copy()
        """What a void starts again from: the state as the current pack began."""
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

    pack = property(lambda self: self.state.pack)
    locked = property(lambda self: self.state.locked)
    seats = property(lambda self: self.state.seats)
    banker = property(lambda self: self.state.banker)
    balances = property(lambda self: self.state.balances)
    calls = property(lambda self: self.state.calls)
    alarms = property(lambda self: self.state.alarms)
    call_results = property(lambda self: self.state.call_results)

    @property
    def stage(self) -> Stage:
        return stage(len(self.state.pack.exposed))

    @property
    def entries(self) -> Entries:
        """Open, locked by the banker, or closed, from the one record of the pack's stage."""
        return entries(stage(len(self.state.pack.exposed)), self.state.locked)

    @property
    def entries_open(self) -> bool:
        """Predictions, removals, calls and a session may be entered now."""
        return self.entries is Entries.OPEN

    @property
    def predictions(self) -> list[Bet]:
        return [p for stack in self.state.layout for p in stack]

    @property
    def pairs(self) -> list[Pair]:
        """Every pair dealt since the table began, in order, with its settlements."""
        return self.history + self.state.pairs

    @property
    def leaders(self) -> list[str]:
        """The participants with the highest balance, in seat order; ties share."""
        s = self.state
        if not s.seats:
            return []
        best = max(s.balances.values())
        return [seat for seat in s.seats if s.balances[seat] == best]

    @property
    def last_pair(self) -> Pair | None:
        pairs = self.state.pairs or self.history
        return pairs[-1] if pairs else None

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
        s = self.state
        if not s.seats:
            raise Refused("no-session", "no session: seat the participants first")
        if player not in s.balances:
            raise Refused("not-seated", f"{player} is not seated at this table")
        if player == s.banker:
            raise Refused("banker", f"{player} is the banker; the banker does not predict")
        self._open()

    def _open(self) -> None:
        """Refuses with the reason when entries are not open now."""
        s = self.state
        if OPEN_AT[len(s.pack.exposed)] and not s.locked:
            return
        at = stage(len(s.pack.exposed))
        now = entries(at, s.locked)
        if at is Stage.FINAL or at is Stage.HOCK:
            why = "entries are closed for good: the final pair has been dealt"
        elif now is Entries.LOCKED:
            why = "entries are locked by the banker until this pair's winner is exposed"
        else:
            why = "entries are closed: the loser is out, wait for the winner"
        raise Refused("entries-closed", why)

    @staticmethod
    def _check_weight(weight: int) -> None:
        if type(weight) is not int or weight <= 0 or weight & 1:
            raise Refused(
                "weight", f"a weight must be a positive even whole number, not {weight!r}"
            )

    def _bet(self, bet: Bet) -> None:
        self._entrant(bet.player)
        self._check_weight(bet.weight)
        if self.state.pack.counts[bet.rank] == 0:
            raise Refused(
                "exhausted", f"all four {rank_name(bet.rank)}s are out: that rank cannot play"
            )
        self.state.layout[bet.rank].append(bet)

    def _remove(self, remove: Remove) -> None:
        self._entrant(remove.player)
        layout = self.state.layout
        stack = layout[remove.rank]
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
        layout[remove.rank] = keep

    def _lock(self, _: Lock) -> None:
        if len(self.state.pack.exposed) >= FINAL_WINNER:
            raise Refused("no-pair-left", "no pair is left to lock in this pack")
        self._open()
        self.state.locked = True

    def _card(self, drawn: CardDrawn) -> None:
        pack, card = self.state.pack, drawn.card
        if len(pack.exposed) == PACK_SIZE:
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
        n = len(pack.exposed)
        if n & 1 == 1 and n > 1:
            self._settle_pair(pack.exposed[-2], card)
        elif n == PACK_SIZE:
            self._settle_calls()

    def _settle_pair(self, loser: Card, winner: Card) -> None:
        """Settle the predictions on the pair's two ranks; nothing else is touched."""
        s = self.state
        layout, settled = s.layout, []
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
        counts = s.pack.counts
        if counts[lo] == 0:
            layout[lo] = []
        if counts[wi] == 0:
            layout[wi] = []
        n = len(s.pack.exposed)
        if n == FINAL_WINNER:
            s.layout = _empty_layout()
        s.locked = False
        if settled:
            balances, net = s.balances, 0
            for one in settled:
                balances[one.player] += one.delta
                net += one.delta
            balances[s.banker] -= net
        s.pairs.append(Pair(s.pack.number, (n - 1) // 2, loser, winner, tuple(settled)))

    def _settle_rank(self, rank: int, lose_unless_copper: bool) -> list[Settlement]:
        layout = self.state.layout
        stack = layout[rank]
        if not stack:
            return []
        settled, standing = [], []
        for p in stack:
            if p.copper is lose_unless_copper:
                settled.append(Settlement(p.player, p.weight, "won", rank, p.copper, p.weight))
                standing.append(p)
            else:
                settled.append(Settlement(p.player, -p.weight, "lost", rank, p.copper, p.weight))
        layout[rank] = standing
        return settled

    def _call(self, call: Call) -> None:
        self._entrant(call.player)
        self._check_weight(call.weight)
        pack = self.state.pack
        if stage(len(pack.exposed)) is not Stage.LAST_THREE:
            raise Refused(
                "not-last-three",
                f"the turn is called only when three cards remain ({pack.left} left now)",
            )
        left = pack.remaining()
        ranks = sorted(c.rank for c in left)
        if ranks[0] == ranks[2]:
            _check_colours(call, left, ranks[0])
        else:
            _check_order(call, ranks)
        self.state.calls.append(call)

    def _settle_calls(self) -> None:
        """At the hock: each call wins 4:1 (three ranks), 2:1 (cat-hop or colours) or loses."""
        s = self.state
        loser, winner, hock = s.pack.exposed[-3:]
        settled = []
        for call in s.calls:
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
            s.balances[call.player] += delta
            s.balances[s.banker] -= delta
        s.calls = []
        s.call_results = tuple(settled)

    def _session(self, session: Session) -> None:
        seats = session.seats
        if self.state.seats:
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
        self._open()
        s = self.state
        s.seats = seats
        s.banker = session.banker
        s.balances = dict.fromkeys(seats, 0)

    def _shuffle(self, _: Shuffle) -> None:
        s = self.state
        if not s.pack.complete:
            raise Refused(
                "pack-not-complete",
                f"a new pack starts only after the hock: {s.pack.left} cards left in the shoe",
            )
        self.history += s.pairs
        s.pairs = []
        s.pack = Pack(number=s.pack.number + 1)
        s.locked = False
        s.call_results = ()
        if s.seats:
            s.banker = s.seats[(s.seats.index(s.banker) + 1) % len(s.seats)]
        self._log = []
        self._start = s.copy()

    def _void(self, void: Void) -> None:
        exposed = self.state.pack.exposed
        if not exposed:
            raise Refused("nothing-to-void", "no card of this pack has been exposed")
        if void.card is not None and void.card is not exposed[-1]:
            raise Refused("void-card", f"the last card is {exposed[-1].code}, not {void.card.code}")
        # The log holds this pack's effective events (a bare Void marks each
        # rebuild); replaying them from the pack's start is the table without
        # the card. Later entries that no longer fit are dropped, and reported.
        history = [e for e in self._log if type(e) is not Void and type(e) is not Shuffle]
        at = max(i for i, e in enumerate(history) if type(e) is CardDrawn)
        rebuilt = Table(self._start.copy())
        rebuilt._start = self._start
        rebuilt.replay(history[:at])
        dropped = [history[at + 1 + i] for i, _ in rebuilt.replay(history[at + 1 :])]
        self.state, self._log, self.dropped = rebuilt.state, rebuilt._log, dropped

    def _alarm(self, alarm: Alarm) -> None:
        self.state.alarms.append(alarm)

    def _clear(self, clear: Clear) -> None:
        alarms = self.state.alarms
        standing = [a for a in alarms if clear.kind is not None and a.kind != clear.kind]
        if len(standing) == len(alarms):
            which = "" if clear.kind is None else f"{clear.kind} "
            raise Refused("no-alarm", f"there is no {which}alarm to clear")
        self.state.alarms = standing


def _check_colours(call: Call, left: list[Card], rank: int) -> None:
    """The last three share ``rank``: the call must order exactly their colours."""
    if call.colours is None:
        raise Refused(
            "three-of-a-kind",
            f"the last three are all {rank_name(rank)}s: call their colours instead",
        )
    have = sorted(c.colour for c in left)
    if sorted(call.colours) != have:
        raise Refused(
            "colours",
            f"the last three are {', '.join(have)}: a call must use exactly those colours",
        )


def _check_order(call: Call, ranks: list[int]) -> None:
    """The last three are of two or three ranks: the call must order exactly those."""
    if call.order is None:
        raise Refused("colours", "colours are called only when the last three share one rank")
    if sorted(call.order) != ranks:
        names = " ".join(rank_name(r) for r in ranks)
        raise Refused("call-ranks", f"the last three are {names}: a call must order exactly those")
