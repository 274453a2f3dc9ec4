"""Settling a pair and the calls: what each card does to the predictions on the layout.

A bet covers one rank, two neighbouring ranks or a corner of four; the first
pair that shows a covered rank settles it. Winner's rank covered and not the
loser's: an ordinary bet wins its weight and stays, a coppered one loses and
comes off; the loser's and not the winner's: the reverse; both (a split on a
covered rank, or two covered ranks in one pair): the player loses half the
weight, the odd unit to the bank, and the bet comes off. A high-card bet wins
when the winner outranks the loser (ace low, king high), loses when it is
lower, and stands off on a split. These functions change the state handed
to them; the engine calls them only once it has checked the card.
"""

from __future__ import annotations

from faro_pi.game.cards import Card
from faro_pi.game.events import Bet
from faro_pi.game.state import Settlement, TableState


def half(weight: int) -> int:
    """What a split costs: half the weight, and the odd unit, if any, to the bank."""
    return (weight + 1) // 2


def _result(p: Bet, delta: int, outcome: str, rank: int | None = None) -> Settlement:
    if p.ranks is not None or p.high_card:
        rank = None
    return Settlement(p.player, delta, outcome, rank, p.copper, p.weight, p.ranks, p.high_card)


def take_off(state: TableState, bet: Bet, but: int | None = None) -> None:
    """Takes ``bet`` off every rank it covers (all but ``but``, whose stack the caller keeps)."""
    if bet.ranks is None:
        if bet.rank != but:
            state.layout[bet.rank].remove(bet)
        return
    for rank in bet.ranks:
        if rank != but:
            state.layout[rank].remove(bet)


def settle_pair(state: TableState, loser: Card, winner: Card, final: bool) -> list[Settlement]:
    """Settles the pair's two ranks and the high card; at the ``final`` pair, ends the layout."""
    lo, wi = loser.rank, winner.rank
    if lo == wi:
        settled = [_result(p, -half(p.weight), "split", lo) for p in state.layout[lo]]
        for p in state.layout[lo]:
            take_off(state, p, but=lo)
        state.layout[lo] = []
    else:
        settled = _settle_rank(state, lo, wi, lose_unless_copper=True)
        settled += _settle_rank(state, wi, lo, lose_unless_copper=False)
    if state.high:
        settled += _settle_high(state, lo, wi)
    if state.options.remove_dead:
        _remove_dead(state, lo)
        _remove_dead(state, wi)
    if final:
        settled += _end_layout(state)
    return settled


def _settle_rank(state: TableState, rank: int, other: int, lose_unless_copper: bool):
    stack = state.layout[rank]
    if not stack:
        return []
    settled, standing = [], []
    for p in stack:
        ranks, weight = p.ranks, p.weight
        if ranks is None:
            if p.copper is lose_unless_copper:
                settled.append(Settlement(p.player, weight, "won", rank, p.copper, weight))
                standing.append(p)
            else:
                settled.append(Settlement(p.player, -weight, "lost", rank, p.copper, weight))
        elif other in ranks:  # both cards covered: a split
            settled.append(_result(p, -half(weight), "split"))
            take_off(state, p, but=rank)
        elif p.copper is lose_unless_copper:
            settled.append(Settlement(p.player, weight, "won", None, p.copper, weight, ranks))
            standing.append(p)
        else:
            settled.append(Settlement(p.player, -weight, "lost", None, p.copper, weight, ranks))
            take_off(state, p, but=rank)
    state.layout[rank] = standing
    return settled


def _settle_high(state: TableState, lo: int, wi: int) -> list[Settlement]:
    if lo == wi:
        return []  # a standoff: nothing paid, the bets stay
    higher = wi > lo
    settled, standing = [], []
    for p in state.high:
        weight, copper = p.weight, p.copper
        if copper is not higher:
            settled.append(Settlement(p.player, weight, "won", None, copper, weight, None, True))
            standing.append(p)
        else:
            settled.append(Settlement(p.player, -weight, "lost", None, copper, weight, None, True))
    state.high = standing
    return settled


def _remove_dead(state: TableState, rank: int) -> None:
    """Takes off, without result, the bets whose every rank is now out."""
    counts = state.pack.counts
    if counts[rank] or not state.layout[rank]:
        return
    for p in list(state.layout[rank]):
        if p.ranks is None or not any(counts[r] for r in p.ranks):
            take_off(state, p)


def _end_layout(state: TableState) -> list[Settlement]:
    """At the final winner: the house collects what is left, or it all ends without change."""
    settled = []
    if state.options.collect_leftovers:
        for rank, stack in enumerate(state.layout):
            for p in stack:
                if p.ranks is None or rank == min(p.ranks):
                    settled.append(_result(p, -p.weight, "collected", rank))
        settled += [_result(p, -p.weight, "collected") for p in state.high]
    state.layout = [[] for _ in range(14)]
    state.high = []
    return settled


def settle_calls(state: TableState) -> tuple[Settlement, ...]:
    """At the hock: 4 to 1 on three ranks, the cat-hop's rate on two, 2 to 1 on colours."""
    loser, winner, hock = state.pack.exposed[-3:]
    distinct = len({loser.rank, winner.rank, hock.rank})
    settled = []
    for call in state.calls:
        if call.order is not None:
            right = call.order == (loser.rank, winner.rank, hock.rank)
            odds = 4 if distinct == 3 else state.options.cat_hop_pays
        else:
            right = call.colours == (loser.colour, winner.colour, hock.colour)
            odds = 2
        delta = odds * call.weight if right else -call.weight
        outcome = "called" if right else "miscalled"
        settled.append(Settlement(call.player, delta, outcome, weight=call.weight))
    return tuple(settled)
