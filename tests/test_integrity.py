"""The deal-integrity report: its counts against brute force, its flags on stacked packs.

The counts of :mod:`faro_pi.game.integrity` are checked against every order of small
decks, and loosely against seeded shuffles of the real pack; then packs stacked the ways
a dealer would stack them must be flagged, and fair shuffles almost never.
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from fractions import Fraction
from itertools import pairwise, permutations
from math import comb, factorial
from pathlib import Path

import msgspec
import pytest

from faro_pi.game import integrity
from faro_pi.game.cards import DECK, RANKS, SUITS, Card, parse_card
from faro_pi.game.integrity import IntegrityReport, report

SMALL_DECKS = [(2, 3), (2, 4), (3, 3), (4, 2), (3, 4)]
"""(ranks, suits): every rank word of these is checked; 3 ranks of 4 has 34,650."""


def rank_words(ranks: int, suits: int):
    """Every order of a deck's ranks, once each."""
    left = [suits] * ranks
    word: list[int] = []

    def grow():
        if len(word) == ranks * suits:
            yield tuple(word)
            return
        for rank in range(ranks):
            if left[rank]:
                left[rank] -= 1
                word.append(rank)
                yield from grow()
                word.pop()
                left[rank] += 1

    return grow()


def splits(word, pairs):
    return sum(word[2 * k - 1] == word[2 * k] for k in range(1, pairs + 1))


def neighbours(word):
    return sum(a == b for a, b in pairwise(word))


def longest(word, steps):
    """The longest stretch moving by one of ``steps``, the same all along."""
    best = 1
    for step in steps:
        run = 1
        for a, b in pairwise(word):
            run = run + 1 if b - a == step else 1
            best = max(best, run)
    return best


def kept_order(order):
    """max(longest increasing, longest decreasing subsequence), by the quadratic recurrence."""

    def rising(seq):
        best = [1] * len(seq)
        for j in range(len(seq)):
            for i in range(j):
                if seq[i] < seq[j]:
                    best[j] = max(best[j], best[i] + 1)
        return max(best)

    return max(rising(order), rising([-x for x in order]))


def shuffled(seed: int) -> list[Card]:
    cards = list(DECK)
    random.Random(seed).shuffle(cards)
    return cards


def cards(codes: str) -> list[Card]:
    return [parse_card(code) for code in codes.split()]


# The counts against brute force.


@pytest.mark.parametrize(("ranks", "suits"), SMALL_DECKS)
def test_the_counts_agree_with_every_order_of_a_small_deck(ranks, suits):
    pairs = (ranks * suits - 2) // 2
    words = list(rank_words(ranks, suits))
    assert len(words) == integrity.words(ranks, suits)
    by_splits = Counter(splits(w, pairs) for w in words)
    by_neighbours = Counter(neighbours(w) for w in words)
    by_run = Counter(longest(w, (0,)) for w in words)

    counted = integrity.split_counts(ranks, suits, pairs)
    assert counted == tuple(by_splits[s] for s in range(len(counted)))
    counted = integrity.neighbour_counts(ranks, suits)
    assert counted == tuple(by_neighbours[m] for m in range(len(counted)))
    for length in range(1, suits + 2):
        below = sum(n for run, n in by_run.items() if run < length)
        assert integrity.words_with_runs_below(length, ranks, suits) == below


def test_counting_ranks_is_counting_shuffles():
    """Every order of the cards is alike, so every order of the ranks is: the same split
    chances from all 8! orders of 2 ranks × 4 suits as from the 70 rank words."""
    deck = [(rank, suit) for rank in range(2) for suit in range(4)]
    by_splits = Counter(splits([c[0] for c in order], 3) for order in permutations(deck))
    counted = integrity.split_counts(2, 4, 3)
    assert [Fraction(by_splits[s], factorial(8)) for s in range(len(counted))] == [
        Fraction(n, integrity.words(2, 4)) for n in counted
    ]


def test_the_upper_bounds_hold_on_a_small_deck():
    words = list(rank_words(5, 2))
    by_straight = Counter(longest(w, (1, -1)) for w in words)
    for length in range(1, 7):
        chance = Fraction(sum(n for s, n in by_straight.items() if s >= length), len(words))
        assert float(chance) <= integrity.straight_bound(length, 5, 2)
    by_run = Counter(longest(p, (1, -1)) for p in permutations(range(7)))
    for length in range(1, 8):
        chance = Fraction(sum(n for s, n in by_run.items() if s >= length), factorial(7))
        assert float(chance) <= integrity.kept_run_bound(length, 7)


def test_kept_order_counts_agree_with_every_order_of_a_few_cards():
    for n in range(1, 8):
        brute = Counter(kept_order(p) for p in permutations(range(n)))
        assert integrity.kept_order_counts(n) == dict(brute)
        assert integrity.kept_order_counts(n, least=3) == {k: v for k, v in brute.items() if k >= 3}


def test_the_kept_order_table_is_the_count_of_52_cards():
    """The flagging end of the written-out table, counted again (the whole takes seconds)."""
    least = 17
    counts = integrity.kept_order_counts(52, least)
    for length in range(least, 53):
        chance = Fraction(sum(n for k, n in counts.items() if k >= length), factorial(52))
        assert integrity.KEPT_ORDER_TAIL[length] == float(chance)
    assert len(integrity.KEPT_ORDER_TAIL) == 53
    assert integrity.KEPT_ORDER_TAIL[8] == 1.0  # 8 × 8 >= 52 > 7 × 7 (Erdős–Szekeres)


# The pack's figures.


def test_the_split_distribution_of_the_pack():
    counts = integrity.split_counts()
    total = integrity.words()
    assert sum(counts) == total == factorial(52) // factorial(4) ** 13
    assert len(counts) == 26
    assert Fraction(sum(s * n for s, n in enumerate(counts)), total) == Fraction(25 * 3, 51)
    assert integrity.SPLITS_TAIL[0] == 1.0
    assert integrity.SPLITS_TAIL[25] == float(Fraction(counts[25], total))
    assert integrity.SPLITS_OR_FEWER[25] == 1.0
    assert integrity.SPLITS_OR_FEWER[0] > 0.2  # no split at all is common: never flagged


def test_the_neighbour_distribution_of_the_pack():
    counts = integrity.neighbour_counts()
    total = integrity.words()
    assert sum(counts) == total
    assert Fraction(sum(m * n for m, n in enumerate(counts)), total) == 3  # 51 × 3/51
    assert counts[39] == factorial(13)  # each rank in one block


def test_four_of_a_rank_together_by_inclusion_exclusion_over_the_ranks():
    """j given ranks each in one block of 4 (4! orders inside): (52 - 3j)! 4!^j orders."""
    chance = sum(
        (-1) ** (j + 1) * comb(13, j) * Fraction(factorial(52 - 3 * j) * 24**j, factorial(52))
        for j in range(1, 14)
    )
    assert chance == 1 - Fraction(integrity.words_with_runs_below(4), integrity.words())
    assert integrity.SAME_RANK_RUN_TAIL[4] == float(chance)


def test_the_limits():
    """The least value a fair shuffle reaches less than once in 1,000 packs."""
    assert integrity.LIMITS == {
        "splits": 7,
        "neighbours": 10,
        "same_rank_run": None,
        "straight": 6,
        "kept_order": 18,
        "kept_run": 5,
    }
    assert integrity.SPLITS_TAIL[7] < 0.001 <= integrity.SPLITS_TAIL[6]
    assert integrity.NEIGHBOURS_TAIL[10] < 0.001 <= integrity.NEIGHBOURS_TAIL[9]
    assert 0.001 < integrity.SAME_RANK_RUN_TAIL[4] < 0.0024  # four of a rank together
    assert integrity.STRAIGHT_TAIL[6] < 0.001 < integrity.STRAIGHT_TAIL[5]
    assert integrity.KEPT_ORDER_TAIL[18] < 0.0005 < integrity.KEPT_ORDER_TAIL[17]
    assert integrity.KEPT_RUN_TAIL[5] < 0.0005 < integrity.KEPT_RUN_TAIL[4]
    assert integrity.KEPT_ORDER_TAIL[11] > 0.97  # "more than 10 in the same relative order"


def test_seeded_shuffles_agree_loosely_with_the_counts():
    """Seeded shuffles of the pack: the share of packs past a figure is within four
    standard errors of the count's chance."""
    rng = random.Random(15)
    seen = Counter()
    orders = []
    for _ in range(20_000):
        order = list(range(52))
        rng.shuffle(order)
        orders.append(order)
    for order in orders:
        ranks = [i % 13 for i in order]
        seen["splits"] += splits(ranks, 25) >= 3
        seen["neighbours"] += neighbours(ranks) >= 5
    for order in orders[:2000]:
        seen["kept order"] += kept_order(order) >= 13
    for what, tail, packs in (
        ("splits", integrity.SPLITS_TAIL[3], 20_000),
        ("neighbours", integrity.NEIGHBOURS_TAIL[5], 20_000),
        ("kept order", integrity.KEPT_ORDER_TAIL[13], 2000),
    ):
        error = (tail * (1 - tail) / packs) ** 0.5
        assert abs(seen[what] / packs - tail) < 4 * error, what


# Reports on stacked packs.


def test_a_pack_put_up_in_splits():
    """The soda and the hock are aces; every pair is a split."""
    by_rank = sorted(DECK, key=lambda card: (card.rank, card.suit))
    found = report(by_rank[1:] + by_rank[:1])
    assert found.splits.value == 25
    assert found.splits.flagged and found.neighbours.flagged
    assert found.flagged[0] == (
        "25 splits: a fair shuffle gives 25 or more less than once in a billion packs: "
        "a stacked pack? check the shuffle"
    )


def test_seven_splits_are_flagged_and_six_are_not():
    fair = shuffled(3)
    assert not report(fair).flagged
    stacked = _with_splits(fair, 7)
    assert report(_with_splits(fair, 6)).flagged == ()
    assert report(stacked).flagged == (
        "7 splits: a fair shuffle gives 7 or more once in 1,800 packs: "
        "a stacked pack? check the shuffle",
    )


def _with_splits(pack: list[Card], wanted: int) -> list[Card]:
    """The pack with cards swapped until exactly ``wanted`` pairs are splits."""
    pack = list(pack)
    k = 1
    while (have := report(pack).splits.value) != wanted:
        loser = pack[2 * k - 1]
        if have < wanted and pack[2 * k].rank != loser.rank:
            mate = next(i for i in range(2 * k + 1, 52) if pack[i].rank == loser.rank)
            pack[2 * k], pack[mate] = pack[mate], pack[2 * k]
        elif have > wanted and pack[2 * k].rank == loser.rank:
            pack[2 * k], pack[51] = pack[51], pack[2 * k]
        k += 1
    return pack


def test_ranks_grouped_together():
    by_rank = sorted(DECK, key=lambda card: (card.rank, card.suit))
    found = report(by_rank)
    assert found.neighbours.value == 39 and found.neighbours.flagged
    assert found.same_rank_run.value == 4 and not found.same_rank_run.flagged
    assert found.same_rank_run.at == 1
    assert any(line.startswith("39 cards followed by one of their rank:") for line in found.flagged)


def test_a_pack_in_the_makers_order_shows_its_straights():
    found = report(DECK)
    assert found.straight.value == 13 and found.straight.at == 1 and not found.straight.exact
    assert found.flagged == (
        "a straight of 13 from card 1 (AS 2S 3S 4S 5S … KS): a fair shuffle gives one of 13 "
        "or more less than once in a billion packs: a stacked pack? check the shuffle",
    )


def test_a_straight_of_six_is_flagged_and_five_is_not():
    five = cards("9H 3S 4D 5C 6S 7H")
    six = cards("9H 3S 4D 5C 6S 7H 8D")
    rest = [card for card in shuffled(8) if card not in six]
    assert report([*five, *rest, six[-1]]).straight.value == 5
    assert not report([*five, *rest, six[-1]]).straight.flagged
    found = report([*six, *rest])
    assert (found.straight.value, found.straight.at) == (6, 2)
    assert found.flagged[-1].startswith(
        "a straight of 6 from card 2 (3S 4D 5C 6S 7H 8D): a fair shuffle gives one of 6 or "
        "more at most once in 4,800 packs"
    )


def test_the_previous_order_dealt_again():
    previous = shuffled(1)
    found = report(previous, previous)
    assert (found.kept_order.value, found.kept_run.value, found.kept_run.at) == (52, 52, 1)
    assert found.flagged[-2].startswith("52 cards came out in the previous pack's order: ")
    assert found.flagged[-1].startswith("cards 1 to 52 (")
    assert found.flagged[-1].endswith("came out together as in the previous pack: a fair "
                                      "shuffle keeps 52 together less than once in a billion "
                                      "packs: a false shuffle? check the shuffle")  # fmt: skip
    backwards = report(previous[::-1], previous)
    assert backwards.kept_order.value == 52
    assert backwards.flagged[-2].startswith("52 cards came out in the reverse of the previous")


def test_a_cut_is_not_a_shuffle():
    previous = shuffled(2)
    found = report(previous[20:] + previous[:20], previous)
    assert (found.kept_order.value, found.kept_run.value, found.kept_run.at) == (32, 32, 1)


def test_the_piles_gathered_without_a_shuffle():
    """Losers and winners picked up as two piles: no two cards together as they were, but
    half the pack in its old order, and the subsequence finds it."""
    previous = shuffled(4)
    found = report(previous[0::2] + previous[1::2], previous)
    assert found.kept_order.value >= 26 and found.kept_order.flagged
    assert not found.kept_run.flagged


def test_a_slug_kept_through_the_shuffle():
    """Eight cards left together in a pack otherwise shuffled afresh."""
    previous = shuffled(5)
    slug = previous[10:18]
    rest = [card for card in shuffled(6) if card not in slug]
    found = report(rest[:30] + slug + rest[30:], previous)
    assert (found.kept_run.value, found.kept_run.at) == (8, 31)
    assert not found.kept_order.flagged
    assert found.flagged == (
        f"cards 31 to 38 ({' '.join(c.code for c in slug[:5])} … {slug[-1].code}) came out "
        "together as in the previous pack: a fair shuffle keeps 8 together less than once "
        "in a billion packs: a false shuffle? check the shuffle",
    )


def test_fair_shuffles_are_seldom_flagged():
    """2,000 seeded packs, each against the one before. Each of the four checks flags a
    fair pack less than once in 1,000, so a handful at most."""
    previous = shuffled(0)
    flagged = Counter()
    for seed in range(1, 2001):
        pack = shuffled(seed)
        found = report(pack, previous)
        for line in found.flagged:
            flagged[line.split(":")[0].split()[-1]] += 1
        previous = pack
    assert sum(flagged.values()) <= 8, flagged


# The report as a value.


def test_the_json_form():
    found = report(shuffled(7), shuffled(8))
    as_dict = found.as_dict()
    assert msgspec.json.decode(found.to_json()) == as_dict
    assert msgspec.json.decode(found.to_json(), type=IntegrityReport) == found
    assert set(as_dict) == {
        "splits",
        "splits_or_fewer",
        "neighbours",
        "same_rank_run",
        "straight",
        "kept_order",
        "kept_run",
        "flagged",
    }
    assert set(as_dict["splits"]) == {"value", "tail", "limit", "exact", "at"}
    assert as_dict["flagged"] == []
    alone = report(shuffled(7)).as_dict()
    assert alone["kept_order"] is None and alone["kept_run"] is None


def test_only_a_complete_pack_is_reported():
    pack = shuffled(9)
    with pytest.raises(ValueError, match="52 cards of a complete pack"):
        report(pack[:51])
    with pytest.raises(ValueError, match="51 different"):
        report([*pack[:51], pack[0]])
    with pytest.raises(ValueError, match="the previous pack"):
        report(pack, pack[:40])


def test_the_module_is_pure():
    """No I/O and nothing of faro_pi outside the game: the report runs wherever a pack is."""
    tree = ast.parse(Path(integrity.__file__).read_text())
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in
             node.names} | {node.module for node in ast.walk(tree)
                            if isinstance(node, ast.ImportFrom)}  # fmt: skip
    game = {"faro_pi.game.cards", "faro_pi.game.measures", "faro_pi.game.pack"}
    assert {name for name in names if name.startswith("faro_pi")} <= game
    assert names - game <= {
        "__future__",
        "bisect",
        "collections.abc",
        "fractions",
        "itertools",
        "math",
        "msgspec",
    }


def test_ranks_and_suits_are_the_packs():
    assert (len(RANKS), len(SUITS)) == (integrity.RANKS, integrity.SUITS)


def test_faro_pi_integrity_prints_each_figure_beside_what_a_fair_shuffle_gives():
    from faro_pi.service.deals import figures

    fair, again = shuffled(3), shuffled(4)
    first = figures(report(fair))
    assert first[0].startswith("splits: ") and "flagged from 7)" in first[0]
    assert " or fewer in " in first[0]
    assert first[2].endswith("; never flagged)")  # a run of one rank is at most 4
    assert first[-1] == "the previous pack: not in this journal, so no check of a false shuffle"
    second = figures(report(again, fair))
    found = report(again, fair)
    assert second[4].startswith(
        f"most cards in the previous pack's order: {found.kept_order.value} (a fair shuffle: "
    )
    kept = found.kept_run
    assert second[5].startswith(
        f"longest run kept together from the previous pack: {kept.value} from card {kept.at} "
    )
    assert "at most" in second[5] or "every pack" in second[5]  # its chance is a bound
    stacked = figures(report(_with_splits(fair, 25)))
    assert stacked[0].startswith("splits: 25 (a fair shuffle: 25 or more less than once in a bi")
