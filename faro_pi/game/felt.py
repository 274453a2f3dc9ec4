"""The layout on the felt: where each rank lies, and which bets may sit between cards.

Seen from the dealer's side: the lower row holds A to 6 from left to right, the
upper row K to 8 from left to right (so the king lies above the ace and the 8
above the 6), and the 7 stands at the far right, midway between the rows. The
engine, the lookout's page and the OLED all draw on this one definition.
"""

from __future__ import annotations

LOWER: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
"""The row nearest the dealer, left to right: A 2 3 4 5 6."""
UPPER: tuple[int, ...] = (13, 12, 11, 10, 9, 8)
"""The far row, left to right: K Q J 10 9 8."""
SEVEN = 7
"""At the right end, between the rows: beside both the 6 and the 8."""


def _adjacent() -> frozenset[frozenset[int]]:
    pairs = set()
    for row in (LOWER, UPPER):
        pairs |= {frozenset(row[i : i + 2]) for i in range(len(row) - 1)}
    pairs |= {frozenset((low, up)) for low, up in zip(LOWER, UPPER, strict=True)}
    pairs |= {frozenset((LOWER[-1], SEVEN)), frozenset((UPPER[-1], SEVEN))}
    return frozenset(pairs)


ADJACENT: frozenset[frozenset[int]] = _adjacent()
"""The 18 pairs of neighbouring cards a two-card bet may sit between."""

SQUARES: frozenset[frozenset[int]] = frozenset(
    frozenset((LOWER[i], LOWER[i + 1], UPPER[i], UPPER[i + 1])) for i in range(len(LOWER) - 1)
)
"""The 5 squares of four cards (A-2-K-Q ... 5-6-9-8) a corner bet may sit at."""


COMBINATIONS: frozenset[frozenset[int]] = ADJACENT | SQUARES
"""Every set of ranks a bet may cover besides one rank: two neighbours or a corner of four."""
