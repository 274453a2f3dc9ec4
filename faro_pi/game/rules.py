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

from faro_pi.game import seats
from faro_pi.game.calls import check_call
from faro_pi.game.cards import Card, rank_name
from faro_pi.game.events import (
    Alarm,
    Bank,
    Bet,
    Call,
    CardDrawn,
    Clear,
    Close,
    Event,
    Integrity,
    Join,
    Leave,
    Lock,
    Remove,
    Session,
    Shuffle,
    Void,
)
from faro_pi.game.exc import Refused
from faro_pi.game.felt import COMBINATIONS
from faro_pi.game.pack import (
    FINAL_WINNER,
    PACK_SIZE,
    PAIR_SETTLED,
    STAGES,
    Entries,
    Pack,
    Stage,
    entries,
    stage,
)
from faro_pi.game.seats import leaders
from faro_pi.game.settle import settle_calls, settle_pair, take_off
from faro_pi.game.state import PackRecord, Pair, TableState, require_open, require_room

BALANCE_GUARD = 2**52
"""Past this no new weight is taken, so no balance passes 2**53 - 1, the largest whole number
a browser's JavaScript (and a float) holds exactly: with weights of at most MAX_WEIGHT, that
would take millions of the largest predictions standing at once."""


class Table:
    """The whole state of a Faro table, changed only by :meth:`apply`."""

    def __init__(self, state: TableState | None = None) -> None:
        self.state = state if state is not None else TableState()
        self.history: list[Pair] = []
        """The pairs of the session's packs before this one."""
        self.packs: list[PackRecord] = []
        """The session's packs before this one: each one's banker and what its calls did."""
        self.dropped: list[Event] = []
        """Events that the last void made inapplicable and took back."""
        self.voided: Card | None = None
        """The card the last void took back."""
        self.pack_log: list[Event] = []
        """The effective events since the pack began, for taking back its last card."""
        self.pack_start = self.state.copy()
        """What a void starts again from: the state as the current pack began."""
        self._handlers = {
            CardDrawn: self._card,
            Bet: self._bet,
            Lock: self._lock,
            Remove: self._remove,
            Call: self._call,
            Session: self._seat,
            Join: lambda e: seats.join(self.state, e),
            Leave: lambda e: seats.leave(self.state, e),
            Close: lambda e: seats.close(self.state, e),
            Bank: lambda e: seats.pass_bank(self.state, e),
            Integrity: self._integrity,
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

    stage = property(lambda self: stage(len(self.state.pack.exposed)))

    @property
    def entries(self) -> Entries:
        """Open, locked by the banker, or closed, from the one record of the pack's stage."""
        return entries(stage(len(self.state.pack.exposed)), self.state.locked)

    @property
    def entries_open(self) -> bool:
        """Predictions, removals, calls and a session may be entered now."""
        return self.entries is Entries.OPEN

    options = property(lambda self: self.state.options)

    @property
    def predictions(self) -> list[Bet]:
        """Every bet on the layout: by rank (a combination at its lowest), then the high card."""
        out = [
            p
            for rank, stack in enumerate(self.state.layout)
            for p in stack
            if p.ranks is None or rank == min(p.ranks)
        ]
        return out + self.state.high

    @property
    def pairs(self) -> list[Pair]:
        """Every pair dealt since the table began, in order, with its settlements."""
        return self.history + self.state.pairs

    @property
    def leaders(self) -> list[str]:
        """The session's participants with the highest balance, in table order; ties share."""
        return leaders(self.state.balances)

    @property
    def sessions(self) -> list[dict[str, int]]:
        """Each session's results in order, closed ones first, then the open one."""
        closed = [dict(night) for night in self.state.nights]
        return [*closed, dict(self.state.balances)] if self.state.seats else closed

    @property
    def pack_records(self) -> list[PackRecord]:
        """The session's packs, this one last, each with its banker and its calls' results."""
        s = self.state
        return [*self.packs, PackRecord(s.pack.number, s.passed_by or s.banker, s.call_results)]

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
        self.pack_log.append(event)

    def snapshot(self) -> tuple:
        """The table now, for :meth:`restore` when an event applied cannot be journaled: the
        state copied; the other records are replaced, never changed, but the log that grows."""
        kept = self.history, self.packs, self.dropped, self.pack_log, self.pack_start
        return self.state.copy(), *kept, len(self.pack_log)

    def restore(self, snapshot: tuple) -> None:
        """Puts the table back as it stood at :meth:`snapshot` (which may be used once)."""
        state, self.history, self.packs, self.dropped, log, self.pack_start, n = snapshot
        self.state, self.pack_log = state, log[:n]

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
        if player not in s.seats:
            raise Refused("not-seated", f"{player} is not seated at this table")
        if player == s.banker:
            raise Refused("banker", f"{player} is the banker; the banker does not predict")
        self._open()

    def _open(self) -> None:
        require_open(self.state)

    def _check_weight(self, weight: int) -> None:
        if self.state.options.even_weights:
            if type(weight) is not int or weight <= 0 or weight & 1:
                raise Refused(
                    "weight", f"a weight must be a positive even whole number, not {weight!r}"
                )
        elif type(weight) is not int or weight <= 0:
            raise Refused("weight", f"a weight must be a positive whole number, not {weight!r}")
        s = self.state
        if weight > s.limit:
            raise Refused(
                "limit", f"the table's limit is {s.limit:,}: a weight of {weight:,} is over it"
            )
        if s.past_guard:
            raise Refused(
                "balance",
                "a balance is past what the table can keep to the point: close the session",
            )

    def _guard(self) -> None:
        """Notes, once balances have moved, whether one is past :data:`BALANCE_GUARD`."""
        s = self.state
        s.past_guard = max(map(abs, s.balances.values()), default=0) > BALANCE_GUARD

    def _bet(self, bet: Bet) -> None:
        self._entrant(bet.player)
        self._check_weight(bet.weight)
        s = self.state
        require_room(s, bet.player)
        if bet.high_card:
            if not s.options.high_card:
                raise Refused("high-card", "there is no high-card space at this table")
            s.high.append(bet)
            return
        counts = s.pack.counts
        if bet.ranks is None:
            if counts[bet.rank] == 0:
                raise Refused(
                    "exhausted", f"all four {rank_name(bet.rank)}s are out: that rank cannot play"
                )
            s.layout[bet.rank].append(bet)
            return
        if not s.options.combinations:
            raise Refused("combinations", f"{_names(bet)}: this table takes bets on one rank only")
        if frozenset(bet.ranks) not in COMBINATIONS:
            raise Refused(
                "layout",
                f"{_names(bet)}: not two neighbouring cards nor a corner of four on the layout",
            )
        ranks = bet.ranks
        if not (counts[ranks[0]] or counts[ranks[1]] or any(counts[r] for r in ranks[2:])):
            raise Refused("exhausted", f"{_names(bet)}: every card of those ranks is out")
        for rank in bet.ranks:
            s.layout[rank].append(bet)

    def _remove(self, remove: Remove) -> None:
        self._entrant(remove.player)
        s = self.state

        def mine(p: Bet) -> bool:
            return p.player == remove.player and remove.copper in (None, p.copper)

        if remove.call:
            gone = [c for c in s.calls if c.player == remove.player]
            s.calls = [c for c in s.calls if c.player != remove.player]
        elif remove.high_card:
            gone = [p for p in s.high if mine(p)]
            s.high = [p for p in s.high if not mine(p)]
        elif remove.ranks is not None:
            want = frozenset(remove.ranks)
            stack = s.layout[remove.ranks[0]]
            gone = [p for p in stack if p.ranks is not None and mine(p) and set(p.ranks) == want]
            for p in gone:
                take_off(s, p)
        else:
            stack = s.layout[remove.rank]
            gone = [p for p in stack if p.ranks is None and mine(p)]
            s.layout[remove.rank] = [p for p in stack if p.ranks is not None or not mine(p)]
        if not gone:
            raise Refused("nothing-to-remove", _nothing(remove))

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
        at = STAGES[len(pack.exposed)]
        if at in PAIR_SETTLED:
            self._settle_pair(pack.exposed[-2], card)
        elif at is Stage.HOCK:
            self._settle_calls()

    def _settle_pair(self, loser: Card, winner: Card) -> None:
        """Settle the pair (and, at the final pair, what is left on the layout)."""
        s = self.state
        n = len(s.pack.exposed)
        settled = settle_pair(s, loser, winner, final=n == FINAL_WINNER)
        s.locked = False
        if settled:
            balances, net = s.balances, 0
            for one in settled:
                balances[one.player] += one.delta
                net += one.delta
            balances[s.banker] -= net
            self._guard()
        s.pairs.append(Pair(s.pack.number, (n - 1) // 2, loser, winner, tuple(settled)))

    def _call(self, call: Call) -> None:
        self._entrant(call.player)
        self._check_weight(call.weight)
        check_call(self.state, call)
        require_room(self.state, call.player)
        self.state.calls.append(call)

    def _settle_calls(self) -> None:
        """At the hock: every call wins at its odds or loses its weight."""
        s = self.state
        s.call_results = settle_calls(s)
        for one in s.call_results:
            s.balances[one.player] += one.delta
            s.balances[s.banker] -= one.delta
        self._guard()
        s.calls = []

    def _seat(self, session: Session) -> None:
        seats.seat(self.state, session)
        self.history, self.packs = [], []  # what came before belongs to another night

    def _shuffle(self, _: Shuffle) -> None:
        s = self.state
        if not s.pack.complete:
            raise Refused(
                "pack-not-complete",
                f"a new pack starts only after the hock: {s.pack.left} cards left in the shoe",
            )
        self.history = [*self.history, *s.pairs]  # replaced, not changed: see snapshot
        record = PackRecord(s.pack.number, s.passed_by or s.banker, s.call_results)
        self.packs = [*self.packs, record]
        s.previous = tuple(s.pack.exposed)
        s.pairs = []
        s.pack = Pack(number=s.pack.number + 1)
        s.locked = False
        s.call_results = ()
        if s.seats and s.options.rotate_bank and s.passed_by is None:
            s.banker = s.seats[(s.seats.index(s.banker) + 1) % len(s.seats)]
        s.passed_by = None
        self.pack_log = []
        self.pack_start = s.copy()

    def _void(self, void: Void) -> None:
        exposed = self.state.pack.exposed
        if not exposed:
            raise Refused("nothing-to-void", "no card of this pack has been exposed")
        if void.card is not None and void.card != exposed[-1]:
            raise Refused("void-card", f"the last card is {exposed[-1].code}, not {void.card.code}")
        # The log holds this pack's effective events (a bare Void marks each
        # rebuild); replaying them from the pack's start is the table without
        # the card. Later entries that no longer fit are dropped, and reported.
        history = [e for e in self.pack_log if type(e) is not Void and type(e) is not Shuffle]
        at = max(i for i, e in enumerate(history) if type(e) is CardDrawn)
        rebuilt = Table(self.pack_start.copy())
        rebuilt.pack_start = self.pack_start
        rebuilt.replay(history[:at])
        dropped = [history[at + 1 + i] for i, _ in rebuilt.replay(history[at + 1 :])]
        self.state, self.pack_log, self.dropped = rebuilt.state, rebuilt.pack_log, dropped
        self.voided = exposed[-1]

    def _integrity(self, report: Integrity) -> None:
        if report.pack != self.state.pack.number or not self.state.pack.complete:
            raise Refused("integrity", f"pack {report.pack} is not the complete pack on the table")
        self.state.integrity = report

    def _alarm(self, alarm: Alarm) -> None:
        s = self.state
        s.alarms = [*(a for a in s.alarms if a.kind != alarm.kind), alarm]
        s.alarm_counts[alarm.kind] = s.alarm_counts.get(alarm.kind, 0) + 1

    def _clear(self, clear: Clear) -> None:
        alarms = self.state.alarms
        standing = [a for a in alarms if clear.kind is not None and a.kind != clear.kind]
        if len(standing) == len(alarms):
            which = "" if clear.kind is None else f"{clear.kind} "
            raise Refused("no-alarm", f"there is no {which}alarm to clear")
        self.state.alarms = standing
        self.state.alarm_counts = {a.kind: self.state.alarm_counts[a.kind] for a in standing}


def _names(bet: Bet | Remove) -> str:
    return "-".join(rank_name(r) for r in bet.ranks)


def _nothing(remove: Remove) -> str:
    which = {None: "", True: "coppered ", False: "ordinary "}[remove.copper]
    if remove.call:
        return f"{remove.player} has no call to take back"
    if remove.high_card:
        return f"{remove.player} has no {which}bet on the high card"
    if remove.ranks is not None:
        return f"{remove.player} has no {which}bet on {_names(remove)}"
    return f"{remove.player} has no {which}prediction on {rank_name(remove.rank)}"
