"""Exact odds from the case count, checked against brute force over the shoe."""

from fractions import Fraction
from itertools import permutations

from faro_pi.game.cards import parse_card
from faro_pi.game.events import CardDrawn
from faro_pi.game.odds import last_three, next_pair
from faro_pi.game.rules import Table
from tests.test_rules import deal, rest_of_pack


def brute_force(table, rank):
    """Counts over every order of the shoe's next cards (small shoes only)."""
    cards = table.pack.remaining()
    n = len(table.pack.exposed)
    outcomes = {"lose": 0, "win": 0, "split": 0}
    total = 0
    mid_pair = n and n % 2 == 0
    draw = 1 if mid_pair else 2
    for order in permutations(cards, draw):
        total += 1
        loser, winner = (table.pack.exposed[-1], order[0]) if mid_pair else order
        if loser.rank == winner.rank == rank:
            outcomes["split"] += 1
        elif loser.rank == rank:
            outcomes["lose"] += 1
        elif winner.rank == rank:
            outcomes["win"] += 1
    return {k: Fraction(v, total) for k, v in outcomes.items()}


def test_between_pairs_the_odds_match_every_order_of_the_shoe():
    table = Table()
    deal(table, *rest_of_pack(table)[:39])  # 13 left: a shoe small enough to enumerate
    odds = next_pair(table)
    for rank in range(1, 14):
        exact = brute_force(table, rank)
        assert (odds[rank].lose, odds[rank].win, odds[rank].split) == (
            exact["lose"],
            exact["win"],
            exact["split"],
        )
        assert odds[rank].untouched >= 0


def test_between_loser_and_winner_only_the_winner_is_to_come():
    table = Table()
    deal(table, *rest_of_pack(table)[:40])
    odds = next_pair(table)
    loser = table.pack.exposed[-1].rank
    for rank in range(1, 14):
        exact = brute_force(table, rank)
        assert odds[rank].split == exact["split"]
        assert odds[rank].win == exact["win"]
        assert odds[rank].lose == exact["lose"]
    assert odds[loser].win == 0


def test_a_fresh_pack_gives_every_rank_the_same_odds_and_they_add_up():
    odds = next_pair(Table())
    first = odds[1]
    assert all(o == first for o in odds.values())
    # the soda is drawn first; then a given rank loses in 4/52 * 48/51 of deals
    assert first.lose == first.win == Fraction(4, 52) * Fraction(48, 51)
    assert first.split == Fraction(4, 52) * Fraction(3, 51)


def test_an_exhausted_rank_has_no_chance():
    table = Table()
    for code in ("9S", "9H", "9D", "9C"):
        table.apply(CardDrawn(parse_card(code)))
    table.apply(CardDrawn(parse_card("2S")))
    assert next_pair(table)[9].untouched == 1


def test_last_three_orders_distinct_cat_hop_and_colours():
    table = Table()
    deal(table, *rest_of_pack(table, keep_last=("7S", "JH", "3D"))[:49])
    orders = last_three(table)
    assert len(orders) == 6 and all(p == Fraction(1, 6) for _, p in orders)

    table = Table()
    deal(table, *rest_of_pack(table, keep_last=("7S", "7H", "3D"))[:49])
    assert dict(last_three(table)) == {
        (3, 7, 7): Fraction(1, 3),
        (7, 3, 7): Fraction(1, 3),
        (7, 7, 3): Fraction(1, 3),
    }

    table = Table()
    deal(table, *rest_of_pack(table, keep_last=("7S", "7H", "7D"))[:49])
    assert sum(p for _, p in last_three(table)) == 1
    assert len(last_three(table)) == 3  # two reds and a black: three colour orders
    assert last_three(Table()) == []
