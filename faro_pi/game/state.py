"""The table's state as one value (what a void puts back whole, field by field), and the plain
values it keeps: what a prediction or call settled, a pair, a pack's record."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import msgspec

from faro_pi.game.cards import Card
from faro_pi.game.events import Alarm, Bet, Call, Integrity
from faro_pi.game.exc import Refused
from faro_pi.game.pack import OPEN_AT, Entries, Pack, Stage, entries, stage
from faro_pi.game.profile import DEFAULT_PROFILE, MAX_WEIGHT, PROFILES, Options


class Settlement(msgspec.Struct, frozen=True):
    """What one prediction or call did to its owner's balance."""

    player: str
    delta: int
    outcome: str
    """``"won"``, ``"lost"``, ``"split"``, ``"collected"`` (left on the layout at the end
    of a house pack), or ``"called"``/``"miscalled"`` for a call."""
    rank: int | None = None
    copper: bool = False
    weight: int = 0
    ranks: tuple[int, ...] | None = None
    """The ranks of a two- or four-card bet, as it was placed."""
    high_card: bool = False


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


class PackRecord(msgspec.Struct, frozen=True):
    """One pack of the session: its number, who banked it, and what its calls did."""

    number: int
    banker: str | None
    calls: tuple[Settlement, ...]


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
    passed_by: str | None = None
    """Who banked the pack just ended, when the bank was passed after its hock; the shuffle
    then keeps the banker named rather than passing the bank on."""
    balances: dict[str, int] = field(default_factory=dict)
    layout: list[list[Bet]] = field(default_factory=_empty_layout)
    """Predictions by rank (index 1..13), so a pair touches only two lists."""
    calls: list[Call] = field(default_factory=list)
    alarms: list[Alarm] = field(default_factory=list)
    """The latest standing alarm of each kind, oldest kind first."""
    alarm_counts: dict[str, int] = field(default_factory=dict)
    """How many alarms of each standing kind were raised since it was last cleared."""
    pairs: list[Pair] = field(default_factory=list)
    """The pairs of the current pack, in order, with their settlements."""
    call_results: tuple[Settlement, ...] = ()
    """Settlements of the calls of the last hock."""
    high: list[Bet] = field(default_factory=list)
    """Bets on the high-card space, in the order placed."""
    profile: str = DEFAULT_PROFILE
    options: Options = PROFILES[DEFAULT_PROFILE]
    """The house rules of the session, from its event."""
    previous: tuple[Card, ...] = ()
    """The last complete pack's cards in dealing order, for the next one's integrity report."""
    integrity: Integrity | None = None
    """The report of the last complete pack, once the daemon has journaled it."""
    past_guard: bool = False
    """A balance is past the guard (:data:`faro_pi.game.rules.BALANCE_GUARD`): no new weight."""
    limit: int = MAX_WEIGHT
    """The largest weight of one bet or call, from the session (the bank's limit)."""
    nights: tuple[tuple[tuple[str, int], ...], ...] = ()
    """The results of every closed session, in order: (name, balance) in table order."""

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


MAX_HELD = 100
"""Predictions and calls one player may have standing at once. A prediction each way on
every place of the layout (13 ranks, 23 combinations, the high card) is 74; a player at a
real table holds a handful. The bound keeps the layout, and every answer that carries it,
from growing without end."""


def require_room(state: TableState, player: str) -> None:
    """Refuses a new prediction or call from a player who has :data:`MAX_HELD` standing."""
    if sum(map(len, state.layout)) + len(state.high) + len(state.calls) < MAX_HELD:
        return  # fewer in all than the bound (a combination counted at each rank): no need
    held = sum(1 for call in state.calls if call.player == player)
    held += sum(1 for bet in state.high if bet.player == player)
    for rank, stack in enumerate(state.layout):  # a combination counts once, at its first rank
        held += sum(1 for b in stack if b.player == player and (b.ranks or (rank,))[0] == rank)
    if held >= MAX_HELD:
        raise Refused(
            "held",
            f"{player} has {held} predictions and calls standing, the most one player may "
            "hold at once: take some back first",
        )


def require_open(state: TableState) -> None:
    """Refuses, naming the reason, when entries are not open now."""
    exposed = len(state.pack.exposed)
    if OPEN_AT[exposed] and not state.locked:
        return
    at = stage(exposed)
    if at is Stage.FINAL or at is Stage.HOCK:
        why = "entries are closed for good: the final pair has been dealt"
    elif entries(at, state.locked) is Entries.LOCKED:
        why = "entries are locked by the banker until this pair's winner is exposed"
    else:
        why = "entries are closed: the loser is out, wait for the winner"
    raise Refused("entries-closed", why)
