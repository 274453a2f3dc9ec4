"""Seeded demo games: plausible players at a table, as a stream of events.

Used by the simulator's built-in demo and by the benchmarks. The players
look at the case count like real punters: they never back an exhausted
rank, and at the last three they call an order of the cards that remain.

At a house table (``profile="house"``, or any ``options``) they play what its
layout allows: odd weights, a weight between two neighbouring cards or at a
corner of four, the high card; and at the last three two of them take
opposite sides of the high card, so something is left for the house to
collect at the end of the pack.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from faro_pi.game.cards import DECK
from faro_pi.game.events import LOCK, SHUFFLE, Bet, Call, CardDrawn, Event, Remove, Session
from faro_pi.game.felt import ADJACENT, SQUARES
from faro_pi.game.pack import LAST_THREE, PACK_SIZE
from faro_pi.game.profile import DEFAULT_PROFILE, PROFILES, Options
from faro_pi.game.replay import replay
from faro_pi.game.rules import Table

WEIGHTS = (2, 2, 4, 4, 6, 10)
ODD_WEIGHTS = (1, 2, 3, 4, 5, 6, 10)
"""What a house punter stakes when the table takes any whole number."""
TWO_CARD = tuple(sorted(tuple(sorted(pair)) for pair in ADJACENT))
CORNERS = tuple(sorted(tuple(sorted(square)) for square in SQUARES))


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
    profile: str = DEFAULT_PROFILE,
    options: Options | None = None,
) -> Iterator[Event]:
    """Events of ``packs`` whole packs at a table of ``seats`` (the last seat banks first).

    Each player keeps about ``holdings`` predictions on the layout, replacing
    the ones that lose; the banker locks entries before each pair. The
    teaching profile's session names no profile, as it always has. Each event
    is applied before the next is made up, so the players see the table as it
    stands; one the rules refuse is raised.
    """
    if profile not in PROFILES:
        raise ValueError(f"the profile is {' or '.join(PROFILES)}, not {profile!r}")
    table = Table()
    night = _night(table, rng, seats, packs, holdings, lock_every_pair, profile, options)
    for step in replay(table, ((number, event, None) for number, event in enumerate(night))):
        if step.refused is not None:
            raise step.refused
        yield step.event


def _night(
    table: Table,
    rng: random.Random,
    seats: tuple[str, ...],
    packs: int,
    holdings: int,
    lock_every_pair: bool,
    profile: str,
    options: Options | None,
) -> Iterator[Event]:
    """The night's events, each made up from ``table`` as the ones before it left it."""
    house = profile != DEFAULT_PROFILE or options is not None
    if house:
        yield Session(seats, seats[-1], profile, options)
    else:
        yield Session(seats, seats[-1])
    punters = _house_entries if house else _entries
    for number in range(packs):
        if number:
            yield SHUFFLE
        deck = shuffled_deck(rng)
        yield CardDrawn(deck[0])
        for turn in range(25):
            yield from punters(table, rng, holdings)
            if table.pack.left == 3:
                if house:
                    yield from _both_sides(table)
                yield from _calls(table, rng)
            if lock_every_pair:
                yield LOCK
            yield CardDrawn(deck[1 + 2 * turn])
            yield CardDrawn(deck[2 + 2 * turn])
        yield CardDrawn(deck[PACK_SIZE - 1])


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


def _house_entries(table: Table, rng: random.Random, holdings: int) -> Iterator[Event]:
    """Like :func:`_entries`, on whatever the layout allows; dead bets are left to the house."""
    counts = table.pack.counts
    live = [rank for rank in range(1, 14) if counts[rank]]
    held: dict[str, int] = {}
    for p in table.predictions:
        if p.high_card or any(counts[r] for r in p.ranks or (p.rank,)):
            held[p.player] = held.get(p.player, 0) + 1
    for player in table.seats:
        if player == table.banker:
            continue
        mine = [p for p in table.predictions if p.player == player]
        if mine and rng.random() < 0.05:
            yield _taken_back(rng.choice(mine))
            continue
        for _ in range(holdings - held.get(player, 0)):
            yield _house_bet(player, rng, live, counts, table.options)


def _house_bet(
    player: str, rng: random.Random, live: list[int], counts: list[int], options: Options
) -> Bet:
    """One bet where a house punter likes to put it: mostly a rank, often between cards."""
    weight = rng.choice(WEIGHTS if options.even_weights else ODD_WEIGHTS)
    copper = rng.random() < 0.25
    roll = rng.random()
    if options.high_card and roll < 0.15:
        return Bet(player, None, weight, copper, high_card=True)
    if options.combinations and roll < 0.5:
        shapes = TWO_CARD if roll < 0.4 else CORNERS
        open_ = [ranks for ranks in shapes if any(counts[r] for r in ranks)]
        if open_:
            return Bet(player, None, weight, copper, ranks=rng.choice(open_))
    return Bet(player, rng.choice(live), weight, copper)


def _taken_back(bet: Bet) -> Remove:
    if bet.high_card:
        return Remove(bet.player, None, high_card=True)
    if bet.ranks is not None:
        return Remove(bet.player, None, ranks=bet.ranks)
    return Remove(bet.player, bet.rank)


def _both_sides(table: Table) -> Iterator[Event]:
    """One punter backs the high card and the next coppers it: one of them stands at the end."""
    if not (table.options.high_card and table.options.collect_leftovers):
        return
    punters = [seat for seat in table.seats if seat != table.banker]
    weight = 2 if table.options.even_weights else 1
    yield Bet(punters[0], None, weight, high_card=True)
    yield Bet(punters[1 % len(punters)], None, weight, copper=True, high_card=True)


def _calls(table: Table, rng: random.Random) -> Iterator[Event]:
    assert len(table.pack.exposed) == LAST_THREE
    left = table.pack.remaining()
    if len({c.rank for c in left}) == 1 and not table.options.call_trips:
        return  # three of a kind: this house does not let the turn be called
    for player in table.seats:
        if player == table.banker or rng.random() < 0.4:
            continue
        rng.shuffle(left)
        if left[0].rank == left[1].rank == left[2].rank:
            yield Call(player, 2, colours=tuple(c.colour for c in left))
        else:
            yield Call(player, 2, order=tuple(c.rank for c in left))
