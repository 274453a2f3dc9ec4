"""Where a made-up design's number cards stand their pips: the standard layout, or one of
the variants real decks use (columns nearer the edges, a seven's odd pip centred, an eight
in three rows, a nine in three columns, a seven or an eight in rows of one and two)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SEVENS = ("high", "centre", "zigzag")
EIGHTS = ("middle", "rows", "columns", "zigzag")
NINES = ("centre", "high", "rows")
TENS = (0.3, 0.35)
COLUMN_PAIRS = ((0.3, 0.7), (0.25, 0.75), (0.32, 0.68), (0.28, 0.72))
ROW_SPANS = ((0.2, 0.8), (0.18, 0.82), (0.22, 0.78))


@dataclass(frozen=True)
class Layout:
    """Where a design's number cards stand their pips: the standard or a real deck's variant.

    ``seven``: its odd pip high between the top and middle rows, or centred, or five rows
    of 1-2-1-2-1. ``eight``: two pips in the middle column, three rows of 3+2+3, two columns
    of four, or five rows of 2-1-2-1-2. ``nine``: the odd pip centred or high, or three rows
    of three. ``ten``: where its middle pips stand.
    """

    columns: tuple[float, float] = (0.3, 0.7)
    rows: tuple[float, float] = (0.2, 0.8)
    seven: str = "high"
    eight: str = "middle"
    nine: str = "centre"
    ten: float = 0.3

    @classmethod
    def draw(cls, rng: np.random.Generator) -> Layout:
        if rng.random() < 0.4:  # the standard layout
            return cls()
        return cls(
            COLUMN_PAIRS[rng.integers(len(COLUMN_PAIRS))],
            ROW_SPANS[rng.integers(len(ROW_SPANS))],
            SEVENS[rng.integers(len(SEVENS))],
            EIGHTS[rng.integers(len(EIGHTS))],
            NINES[rng.integers(len(NINES))],
            TENS[rng.integers(len(TENS))],
        )

    def pips(self, rank: int) -> list[tuple[float, float]]:
        """The (across, down) fractions of the face where a ``rank`` card's pips stand."""
        left, right = self.columns
        top, bottom = self.rows

        def column(x: float, n: int) -> list[tuple[float, float]]:
            return [(x, top + (bottom - top) * i / (n - 1)) for i in range(n)]

        def sides(n: int) -> list[tuple[float, float]]:
            return column(left, n) + column(right, n)

        high, low = (top + 0.5) / 2, (0.5 + bottom) / 2
        between = top + (bottom - top) / 6  # between the first and second of four rows

        def zigzag(counts: tuple[int, ...]) -> list[tuple[float, float]]:
            """Rows evenly down the face, each of one pip (centred) or two (the columns)."""
            spots = []
            for i, n in enumerate(counts):
                y = top + (bottom - top) * i / (len(counts) - 1)
                spots += [(0.5, y)] if n == 1 else [(left, y), (right, y)]
            return spots

        sevens = {
            "high": [*sides(3), (0.5, high)],
            "centre": [*sides(3), (0.5, 0.5)],
            "zigzag": zigzag((1, 2, 1, 2, 1)),
        }
        eights = {
            "middle": [*sides(3), (0.5, high), (0.5, low)],
            "rows": [*sides(3), (0.5, top), (0.5, bottom)],
            "columns": sides(4),
            "zigzag": zigzag((2, 1, 2, 1, 2)),
        }
        nines = {
            "centre": [*sides(4), (0.5, 0.5)],
            "high": [*sides(4), (0.5, between)],
            "rows": [*sides(3), *column(0.5, 3)],
        }
        return {
            1: [(0.5, 0.5)],
            2: column(0.5, 2),
            3: column(0.5, 3),
            4: sides(2),
            5: [*sides(2), (0.5, 0.5)],
            6: sides(3),
            7: sevens[self.seven],
            8: eights[self.eight],
            9: nines[self.nine],
            10: [*sides(4), (0.5, self.ten), (0.5, 1 - self.ten)],
        }[rank]
