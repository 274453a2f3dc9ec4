"""Exact odds for teaching, from what is left in the shoe.

The cards still in the shoe are in a random order, every order alike, so the
chances follow from the case count alone: no sampling, just fractions. The
rules engine does not use any of this; the lookout's page shows it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from itertools import permutations

from faro_pi.game.pack import Stage
from faro_pi.game.rules import Table

ZERO = Fraction(0)


@dataclass(frozen=True, slots=True)
class RankOdds:
    """Chances that the next pair makes a rank lose, win, split, or leaves it alone."""

    lose: Fraction
    win: Fraction
    split: Fraction

    @property
    def untouched(self) -> Fraction:
        return 1 - self.lose - self.win - self.split


def _pair(counts: dict[int, int], left: int, rank: int) -> RankOdds:
    """The next two cards out of ``left`` are the loser and the winner."""
    here, there = counts.get(rank, 0), left - counts.get(rank, 0)
    both = Fraction(1, left * (left - 1))
    return RankOdds(
        lose=here * there * both, win=there * here * both, split=here * (here - 1) * both
    )


def next_pair(table: Table) -> dict[int, RankOdds]:
    """For each rank 1..13, the chances of what the next pair does to it.

    Before the soda, the soda comes first and counts for nothing; between a
    loser and its winner, "the next pair" is the one under way, whose loser
    is known.
    """
    pack = table.pack
    at, left = pack.stage, pack.left
    counts = {rank: pack.counts[rank] for rank in range(1, 14)}
    none = RankOdds(ZERO, ZERO, ZERO)
    if at is Stage.FINAL or at is Stage.HOCK:
        return dict.fromkeys(counts, none)
    if at is Stage.LOSER:  # only the winner is to come
        loser = pack.loser.rank
        odds = {}
        for rank, count in counts.items():
            chance = Fraction(count, left)
            if rank == loser:
                odds[rank] = RankOdds(lose=1 - chance, win=ZERO, split=chance)
            else:
                odds[rank] = RankOdds(lose=ZERO, win=chance, split=ZERO)
        return odds
    if at is Stage.SHUFFLED:  # average over the soda
        odds = {rank: none for rank in counts}
        for soda, count in counts.items():
            if not count:
                continue
            weight = Fraction(count, left)
            after = {**counts, soda: count - 1}
            for rank in counts:
                pair = _pair(after, left - 1, rank)
                total = odds[rank]
                odds[rank] = RankOdds(
                    total.lose + weight * pair.lose,
                    total.win + weight * pair.win,
                    total.split + weight * pair.split,
                )
        return odds
    return {rank: _pair(counts, left, rank) for rank in counts}


def last_three(table: Table) -> list[tuple[tuple, Fraction]]:
    """At the last three: every order a call may name, with its chance.

    Orders of ranks normally; orders of colours when the three share a rank.
    Empty at any other moment.
    """
    if table.pack.stage is not Stage.LAST_THREE:
        return []
    cards = table.pack.remaining()
    by_colour = len({c.rank for c in cards}) == 1
    seen = Counter(
        tuple(c.colour if by_colour else c.rank for c in order) for order in permutations(cards)
    )
    return sorted(((order, Fraction(k, 6)) for order, k in seen.items()), key=lambda x: x[0])
