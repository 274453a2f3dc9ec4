"""Seeded demo games: plausible players at a table, as a stream of events.

Used by the simulator's built-in demo and by the benchmarks. The players
look at the case count like real punters: they never back an exhausted
rank, and at the last three they call an order of the cards that remain.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from faro_pi.game.cards import DECK
from faro_pi.game.events import LOCK, SHUFFLE, Bet, Call, CardDrawn, Event, Remove, Session
from faro_pi.game.pack import LAST_THREE, PACK_SIZE
from faro_pi.game.rules import Table

WEIGHTS = (2, 2, 4, 4, 6, 10)


def shuffled_deck(rng: random.Random) -> list:
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def play(
    rng: random.Random,
    seats: tuple[str, ...],
    packs: int = 1,
    holdings: int = 3,
    lock_every_pair: bool = True,
) -> Iterator[Event]:
    """Events of ``packs`` whole packs at a table of ``seats`` (the last seat banks first).

    Each player keeps about ``holdings`` predictions on the layout, replacing
    the ones that lose; the banker locks entries before each pair.
    """
    table = Table()

    def emit(event: Event) -> Event:
        table.apply(event)
        return event

    yield emit(Session(seats, seats[-1]))
    for number in range(packs):
        if number:
            yield emit(SHUFFLE)
        deck = shuffled_deck(rng)
        yield emit(CardDrawn(deck[0]))
        for turn in range(25):
            yield from (emit(e) for e in _entries(table, rng, holdings))
            if table.pack.left == 3:
                yield from (emit(e) for e in _calls(table, rng))
            if lock_every_pair:
                yield emit(LOCK)
            yield emit(CardDrawn(deck[1 + 2 * turn]))
            yield emit(CardDrawn(deck[2 + 2 * turn]))
        yield emit(CardDrawn(deck[PACK_SIZE - 1]))


def _entries(table: Table, rng: random.Random, holdings: int) -> Iterator[Event]:
    counts = table.pack.counts
    live = [rank for rank in range(1, 14) if counts[rank]]
    held: dict[str, int] = {}
    for p in table.predictions:
        held[p.player] = held.get(p.player, 0) + 1
    for player in table.seats:
        if player == table.banker:
            continue
        if held.get(player) and rng.random() < 0.05:
            mine = [p for p in table.predictions if p.player == player]
            yield Remove(player, rng.choice(mine).rank)
            continue
        for _ in range(holdings - held.get(player, 0)):
            yield Bet(player, rng.choice(live), rng.choice(WEIGHTS), rng.random() < 0.25)


def _calls(table: Table, rng: random.Random) -> Iterator[Event]:
    assert len(table.pack.exposed) == LAST_THREE
    left = table.pack.remaining()
    for player in table.seats:
        if player == table.banker or rng.random() < 0.4:
            continue
        rng.shuffle(left)
        if left[0].rank == left[1].rank == left[2].rank:
            yield Call(player, 2, colours=tuple(c.colour for c in left))
        else:
            yield Call(player, 2, order=tuple(c.rank for c in left))
