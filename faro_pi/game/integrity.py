"""Deal integrity: could a fair shuffle have given this pack, in this order?

A Faro dealer's oldest cheats are the stacked pack (cards put up in pairs so
that splits, which pay the bank half, come often) and the false shuffle (a
shuffle that leaves the order as it was). When a pack is complete,
:func:`report` measures its order against a fair shuffle, every order of the
52 cards alike, and names anything a fair shuffle gives less than once in a
thousand packs. The chances come from counting (exact fractions, or an upper
bound where counting exactly is out of reach), never from sampling; what is
fixed is worked out once, at import. ``docs/integrity.md`` has the maths, and
:mod:`faro_pi.game.measures` the report's shape.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import pairwise
from math import comb, factorial, floor, log10, perm

import msgspec

from faro_pi.game.cards import Card
from faro_pi.game.measures import IntegrityReport, Measure
from faro_pi.game.pack import PACK_SIZE, TURNS

LEVEL = 0.001
"""A check flags a pack that a fair shuffle gives less often than this: once in 1,000 packs."""

RANKS = 13
SUITS = 4


# The fair shuffle, counted. Every order of the cards is equally likely, so every order of
# their ranks is too: the counts below are of rank words, ranks×suits letters, each rank
# used `suits` times. The polynomial helpers work on the coefficients of generating series.


def _power(series: Sequence[int], times: int, cap: int) -> list[int]:
    """The series raised to a power, up to the term of degree ``cap``."""
    out = [1]
    for _ in range(times):
        grown = [0] * min(cap + 1, len(out) + len(series) - 1)
        for i, a in enumerate(out):
            for j, b in enumerate(series[: len(grown) - i]):
                grown[i + j] += a * b
        out = grown
    return out


def _exactly(at_least: Sequence[int], scale: int) -> tuple[int, ...]:
    """From the counts with k events marked (sum over words of C(events, k)) to the
    counts with exactly j events: inclusion–exclusion, a binomial inversion. The counts
    come multiplied by ``scale``, which keeps the series in whole numbers."""
    last = len(at_least)
    return tuple(
        sum((-1) ** (k - j) * comb(k, j) * at_least[k] for k in range(j, last)) // scale
        for j in range(last)
    )


def _per_rank(terms: Sequence[Fraction], suits: int) -> list[int]:
    """A rank's series times suits! (whole numbers, as every term's denominator divides it)."""
    return [int(term * factorial(suits)) for term in terms]


def words(ranks: int = RANKS, suits: int = SUITS) -> int:
    """How many orders of ranks a pack has: the total every count below is out of."""
    return factorial(ranks * suits) // factorial(suits) ** ranks


def split_counts(ranks: int = RANKS, suits: int = SUITS, pairs: int = TURNS) -> tuple[int, ...]:
    """How many rank words have exactly s splits, s = 0, 1, ...: the pairs are the cards
    at 2k and 2k+1, k = 1..pairs (the soda is card 1).

    Mark k pairs as splits: C(pairs, k) ways to choose them, k!/prod(a_r!) ways to give them
    ranks with a_r pairs of rank r, and (n-2k)!/prod((suits-2a_r)!) orders of the cards left.
    The product over ranks is a power of one series in x^a.
    """
    n = ranks * suits
    terms = [Fraction(1, factorial(a) * factorial(suits - 2 * a)) for a in range(suits // 2 + 1)]
    marked = _power(_per_rank(terms, suits), ranks, pairs)
    return _exactly(
        [comb(pairs, k) * factorial(k) * factorial(n - 2 * k) * c for k, c in enumerate(marked)],
        factorial(suits) ** ranks,
    )


def neighbour_counts(ranks: int = RANKS, suits: int = SUITS) -> tuple[int, ...]:
    """How many rank words have exactly m cards followed by one of their rank.

    Mark m such neighbours: the marks glue the word into n-m blocks of one rank each. Rank
    r cut into b blocks is a composition of `suits` into b parts, C(suits-1, b-1) of them,
    and the blocks go in (n-m)!/prod(b_r!) orders.
    """
    n = ranks * suits
    terms = [Fraction(0)] + [
        Fraction(comb(suits - 1, b - 1), factorial(b)) for b in range(1, suits + 1)
    ]
    blocks = _power(_per_rank(terms, suits), ranks, n)
    return _exactly(
        [factorial(n - m) * blocks[n - m] for m in range(n - ranks + 1)], factorial(suits) ** ranks
    )


def _compositions(total: int, parts: int, most: int) -> int:
    """Ways to write ``total`` as ``parts`` ordered parts of 1..most each."""
    if parts == 0:
        return int(total == 0)
    return sum(_compositions(total - x, parts - 1, most) for x in range(1, min(most, total) + 1))


def words_with_runs_below(length: int, ranks: int = RANKS, suits: int = SUITS) -> int:
    """How many rank words have no run of ``length`` cards of one rank.

    Such a word is its runs: each rank cut into b runs of fewer than ``length`` cards, and
    the runs in an order where no two of a rank touch (a Carlitz word, counted by
    inclusion–exclusion: b runs glued into j pieces, C(b-1, j-1) ways, sign (-1)^(b-j)).
    """
    terms = [Fraction(0)] + [
        Fraction(
            sum(
                (-1) ** (b - j) * comb(b - 1, j - 1) * _compositions(suits, b, length - 1)
                for b in range(j, suits + 1)
            ),
            factorial(j),
        )
        for j in range(1, suits + 1)
    ]
    pieces = _power(_per_rank(terms, suits), ranks, ranks * suits)
    return sum(factorial(j) * c for j, c in enumerate(pieces)) // factorial(suits) ** ranks


def straight_bound(length: int, ranks: int = RANKS, suits: int = SUITS) -> float:
    """An upper bound on the chance of a straight of ``length`` or more: the expected number
    of places one starts, going up or down (no exact count is within reach)."""
    n = ranks * suits
    if length <= 1:
        return 1.0
    if length > ranks:
        return 0.0
    expected = Fraction(2 * (n - length + 1) * (ranks - length + 1) * suits**length)
    return float(min(Fraction(1), expected / perm(n, length)))


def kept_run_bound(length: int, n: int = PACK_SIZE) -> float:
    """An upper bound on the chance that ``length`` or more cards dealt one after another
    were one after another in the previous pack too, either way round: the expected
    number of such runs, 2 (n-L+1)^2 (n-L)!/n!."""
    if length <= 1:
        return 1.0
    return float(min(Fraction(1), Fraction(2 * (n - length + 1) ** 2, perm(n, length))))


def _partitions(total: int, most: int) -> Iterator[tuple[int, ...]]:
    if total == 0:
        yield ()
        return
    for part in range(min(total, most), 0, -1):
        for rest in _partitions(total - part, part):
            yield (part, *rest)


def kept_order_counts(n: int, least: int = 1) -> dict[int, int]:
    """How many orders of n cards keep exactly L of them in a given order or its reverse,
    for each L >= ``least``: L is the longer of the longest increasing and decreasing
    subsequences. By the Robinson–Schensted correspondence those are the first row and
    the first column of a shape λ that f_λ² permutations share, f_λ = n!/prod(hooks).
    Slow (seconds for n = 52): it made the table below, and the tests check it."""
    out: dict[int, int] = {}
    for first in range(max(least, 1), n + 1):
        for rest in _partitions(n - first, first):
            shape = (first, *rest)
            column = [sum(1 for row in shape if row > j) for j in range(first)]
            hooks = 1
            for i, row in enumerate(shape):
                for j in range(row):
                    hooks *= row - j + column[j] - i - 1
            longer = max(first, len(shape))
            twice = 2 if len(shape) < least else 1  # the transposed shape, not listed
            out[longer] = out.get(longer, 0) + twice * (factorial(n) // hooks) ** 2
    return out


KEPT_ORDER_TAIL: tuple[float, ...] = (1.0,) * 9 + (
    0.9999999858285787, 0.9997597081337534, 0.9769507823478123, 0.7936592310011849,
    0.44435924445381036, 0.17194554328058145, 0.049674674176579794, 0.011316692094579145,
    0.0020932088206275963, 0.0003201162791502156, 4.103703923381794e-05, 4.459219040646264e-06,
    4.1452708806035265e-07, 3.321890478609666e-08, 2.309624484014584e-09, 1.400751703109117e-10,
    7.444095871690886e-12, 3.479711861086942e-13, 1.4352533464223916e-14, 5.237170002600852e-16,
    1.6941637105404397e-17, 4.866406310079041e-19, 1.2427012994926767e-20, 2.823291564875619e-22,
    5.708431253440082e-24, 1.0270826417219792e-25, 1.6435548973629804e-27, 2.3367431596145008e-29,
    2.947273232316402e-31, 3.2907783946495654e-33, 3.243756545191455e-35, 2.8128107740258376e-37,
    2.1362418770203324e-39, 1.4130812638549938e-41, 8.084785021984554e-44, 3.965890039765858e-46,
    1.6493441258578725e-48, 5.731090179149101e-51, 1.6316831428311062e-53, 3.704436992939019e-56,
    6.444606510106806e-59, 8.061930469191279e-62, 6.451918840180601e-65, 2.4795998617142972e-68,
)  # fmt: skip
"""P(L or more of 52 cards kept in the previous order or its reverse), index L = 0..52:
from :func:`kept_order_counts` (52), which takes seconds, so it is written out here."""


def _tails(counts: Sequence[int]) -> tuple[float, ...]:
    """P(value or more) for each value, from exact counts."""
    total = sum(counts)
    return tuple(float(Fraction(sum(counts[v:]), total)) for v in range(len(counts)))


def _limit(tails: Sequence[float], level: float) -> int | None:
    return next((v for v, tail in enumerate(tails) if tail < level), None)


_SPLITS = split_counts()
SPLITS_TAIL = _tails(_SPLITS)
SPLITS_OR_FEWER = tuple(float(Fraction(sum(_SPLITS[: s + 1]), words())) for s in range(TURNS + 1))
NEIGHBOURS_TAIL = _tails(neighbour_counts())
SAME_RANK_RUN_TAIL = tuple(
    float(1 - Fraction(words_with_runs_below(length), words())) for length in range(SUITS + 1)
)
STRAIGHT_TAIL = tuple(straight_bound(length) for length in range(RANKS + 1))
KEPT_RUN_TAIL = tuple(kept_run_bound(length) for length in range(PACK_SIZE + 1))

LIMITS = {
    "splits": _limit(SPLITS_TAIL, LEVEL),
    "neighbours": _limit(NEIGHBOURS_TAIL, LEVEL),
    "same_rank_run": _limit(SAME_RANK_RUN_TAIL, LEVEL),
    "straight": _limit(STRAIGHT_TAIL, LEVEL),
    # The false shuffle is one check made of two measures: each gets half the level.
    "kept_order": _limit(KEPT_ORDER_TAIL, LEVEL / 2),
    "kept_run": _limit(KEPT_RUN_TAIL, LEVEL / 2),
}
"""The least value each measure flags, from the tails above."""


# Measuring one pack.


def _longest(values: Sequence[int], steps: tuple[int, ...]) -> tuple[int, int]:
    """The longest stretch of values each one step from the one before, the same step all
    along: its length and where it starts (0-based)."""
    best, best_at = 1, 0
    for step in steps:
        start = 0
        for i in range(1, len(values)):
            if values[i] != values[i - 1] + step:
                start = i
            elif i - start + 1 > best:
                best, best_at = i - start + 1, start
    return best, best_at


def _longest_rising(values: Sequence[int]) -> int:
    """The length of the longest increasing subsequence (patience sorting)."""
    piles: list[int] = []
    for value in values:
        i = bisect_left(piles, value)
        piles[i : i + 1] = [value]
    return len(piles)


def _complete(cards: Sequence[Card], what: str) -> Sequence[Card]:
    if len(cards) != PACK_SIZE or len(set(cards)) != PACK_SIZE:
        raise ValueError(
            f"{what} must be the {PACK_SIZE} cards of a complete pack, each once, in dealing "
            f"order; got {len(cards)} cards, {len(set(cards))} different"
        )
    return cards


def _measure(
    name: str, value: int, tails: Sequence[float], exact: bool = True, at: int | None = None
) -> Measure:
    return Measure(value, tails[value], LIMITS[name], exact, at)


def _once_in(measure: Measure) -> str:
    if measure.tail < 1e-9:
        return "less than once in a billion packs"
    packs = 1 / measure.tail
    packs = round(packs, 1 - floor(log10(packs)))
    return f"{'' if measure.exact else 'at most '}once in {packs:,.0f} packs"


def _codes(cards: Sequence[Card], measure: Measure) -> str:
    """The cards of a run, by code: the first five and the last when there are more."""
    codes = [card.code for card in cards[measure.at - 1 : measure.at - 1 + measure.value]]
    return " ".join(codes if len(codes) <= 6 else [*codes[:5], "…", codes[-1]])


def _findings(report: IntegrityReport, cards: Sequence[Card], backwards: bool) -> tuple[str, ...]:
    """One line for each measure past its limit: what was seen, how rare, what to do."""
    stacked, false = "a stacked pack? check the shuffle", "a false shuffle? check the shuffle"
    lines = []
    if (m := report.splits).flagged:
        lines.append(f"{m.value} splits: a fair shuffle gives {m.value} or more {_once_in(m)}")
    if (m := report.neighbours).flagged:
        lines.append(
            f"{m.value} cards followed by one of their rank: a fair shuffle gives "
            f"{m.value} or more {_once_in(m)}"
        )
    if (m := report.straight).flagged:
        lines.append(
            f"a straight of {m.value} from card {m.at} ({_codes(cards, m)}): a fair shuffle "
            f"gives one of {m.value} or more {_once_in(m)}"
        )
    lines = [f"{line}: {stacked}" for line in lines]
    if (m := report.kept_order) and m.flagged:
        way = (
            "the reverse of the previous pack's order" if backwards else "the previous pack's order"
        )
        lines.append(
            f"{m.value} cards came out in {way}: a fair shuffle keeps {m.value} or more "
            f"{_once_in(m)}: {false}"
        )
    if (m := report.kept_run) and m.flagged:
        lines.append(
            f"cards {m.at} to {m.at + m.value - 1} ({_codes(cards, m)}) came out together as in "
            f"the previous pack: a fair shuffle keeps {m.value} together {_once_in(m)}: {false}"
        )
    return tuple(lines)


def report(cards: Sequence[Card], previous: Sequence[Card] | None = None) -> IntegrityReport:
    """The integrity report of a complete pack, ``cards`` in dealing order (the soda first,
    the hock last), against the previous pack's dealing order if it is known."""
    ranks = [card.rank for card in _complete(cards, "the pack")]
    splits = sum(ranks[k] == ranks[k + 1] for k in range(1, 2 * TURNS, 2))
    run, run_at = _longest(ranks, (0,))
    straight, straight_at = _longest(ranks, (1, -1))
    kept_order = kept_run = None
    backwards = False
    if previous is not None:
        place = {card: i for i, card in enumerate(_complete(previous, "the previous pack"))}
        places = [place[card] for card in cards]
        rising, falling = _longest_rising(places), _longest_rising([-p for p in places])
        backwards = falling > rising
        kept_order = _measure("kept_order", max(rising, falling), KEPT_ORDER_TAIL)
        together, together_at = _longest(places, (1, -1))
        kept_run = _measure("kept_run", together, KEPT_RUN_TAIL, False, together_at + 1)
    found = IntegrityReport(
        splits=_measure("splits", splits, SPLITS_TAIL),
        splits_or_fewer=SPLITS_OR_FEWER[splits],
        neighbours=_measure("neighbours", sum(a == b for a, b in pairwise(ranks)), NEIGHBOURS_TAIL),
        same_rank_run=_measure("same_rank_run", run, SAME_RANK_RUN_TAIL, at=run_at + 1),
        straight=_measure("straight", straight, STRAIGHT_TAIL, False, straight_at + 1),
        kept_order=kept_order,
        kept_run=kept_run,
        flagged=(),
    )
    return msgspec.structs.replace(found, flagged=_findings(found, cards, backwards))
