"""The case keeper's panel: ``python -m hardware.draw_case_keeper`` writes case-keeper.svg.

The panel's face, drilled for the 52 LEDs: 13 columns, the ranks A to K with
the ace on the dealer's left as on the layout, and 4 rows, spades, hearts,
diamonds and clubs from the top, as :data:`faro_pi.board.CASE_KEEPER` has
them. Under it, what sits behind: the seven 74HC595s, each under the two
columns it drives, chained from the Pi's lead at the ace's end.

The sizes are the drawing's constants, in millimetres; a test redraws the
picture, compares it with the committed file, and checks each LED's place and
each register's columns against the board's table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from faro_pi import board
from faro_pi.game.cards import DECK, RANKS, SUIT_SYMBOLS, SUITS
from hardware.draw_wiring import COLOURS, Svg, drawn

OUT = Path(__file__).with_name("case-keeper.svg")

COLUMN_PITCH = 24
"""Millimetres between neighbouring ranks' columns of holes."""
ROW_PITCH = 12
"""Millimetres between neighbouring suits' rows."""
HOLE = 5
"""The hole for a 5 mm LED: it pushes in to its rim (about 5.8 mm). For 3 mm LEDs, 3 mm."""
CARD = (18, 25)
"""The small card printed or glued above each column, as on a real case keeper."""
MARGIN = 15
CARD_GAP = 8
"""From a column's card to its first hole's edge."""
FIRST_ROW = MARGIN + CARD[1] + CARD_GAP + HOLE / 2
"""From the panel's top edge to the spades' holes' centres."""
PANEL = (
    2 * MARGIN + CARD[0] + (len(RANKS) - 1) * COLUMN_PITCH,
    FIRST_ROW + (len(SUITS) - 1) * ROW_PITCH + HOLE / 2 + MARGIN,
)
"""The panel's width and height."""

SCALE = 3
LEFT, TOP = 60, 110
WIDTH, HEIGHT = 1240, 690


def hole_centre(rank: str, suit: str) -> tuple[float, float]:
    """Where a card's LED goes on the panel, in millimetres from its top left corner."""
    x = MARGIN + CARD[0] / 2 + RANKS.index(rank) * COLUMN_PITCH
    return x, FIRST_ROW + SUITS.index(suit) * ROW_PITCH


def _p(x: float, y: float) -> tuple[float, float]:
    return LEFT + x * SCALE, TOP + y * SCALE


def render() -> str:
    """The panel and the registers behind it, as SVG text."""
    svg = Svg(WIDTH, HEIGHT)
    svg.text(30, 40, "faro-pi: the case keeper's panel", size=22, weight="bold")
    svg.text(
        30,
        62,
        "Drawn by hardware/draw_case_keeper.py from the table in faro_pi/board.py. "
        "The face of the panel, the ace on the dealer's left; sizes in millimetres.",
        size=12,
        colour="#555",
    )
    px, py = _p(0, 0)
    svg.rect(px, py, PANEL[0] * SCALE, PANEL[1] * SCALE, fill="#1c2833", stroke="#0b0f14", rx=8)
    for rank in RANKS:
        cx, _ = hole_centre(rank, SUITS[0])
        x, y = _p(cx - CARD[0] / 2, MARGIN)
        svg.rect(x, y, CARD[0] * SCALE, CARD[1] * SCALE, fill="#fdfefe", stroke="#aab7b8", rx=4)
        svg.text(
            x + CARD[0] * SCALE / 2,
            y + CARD[1] * SCALE / 2 + 7,
            rank,
            size=20,
            anchor="middle",
            weight="bold",
        )
    for card in DECK:
        rank, suit = RANKS[card.rank - 1], card.suit
        x, y = _p(*hole_centre(rank, suit))
        red = suit in ("H", "D")
        colour = COLOURS["LED_RED"] if red else COLOURS["LED_GREEN"]
        svg.add(
            f'<circle id="led-{card.code}" cx="{x:g}" cy="{y:g}" r="{HOLE / 2 * SCALE:g}" '
            f'fill="{colour}" stroke="#0b0f14" stroke-width="1"/>'
        )
    for suit in SUITS:
        _, y = _p(*hole_centre(RANKS[0], suit))
        svg.text(
            px - 10,
            y + 6,
            SUIT_SYMBOLS[suit],
            size=18,
            anchor="end",
            colour="#c0392b" if suit in ("H", "D") else "#1b1b1b",
        )
    _dimensions(svg)
    _registers(svg)
    return svg.document()


def _dimensions(svg: Svg) -> None:
    """The pitches, beside the panel, and its size under it."""
    (x0, y0), (x1, _) = _p(*hole_centre("A", "C")), _p(*hole_centre("2", "C"))
    y = _p(0, PANEL[1])[1] + 18
    svg.line([(x0, y0 + 10), (x0, y + 5)], "#888", 1)
    svg.line([(x1, y0 + 10), (x1, y + 5)], "#888", 1)
    svg.line([(x0, y), (x1, y)], "#333", 1.2)
    svg.text((x0 + x1) / 2, y + 16, f"{COLUMN_PITCH} mm", size=11, anchor="middle", weight="bold")
    (kx, ky0), (_, ky1) = _p(*hole_centre("K", "S")), _p(*hole_centre("K", "H"))
    x = _p(PANEL[0], 0)[0] + 14
    svg.line([(kx + 10, ky0), (x + 5, ky0)], "#888", 1)
    svg.line([(kx + 10, ky1), (x + 5, ky1)], "#888", 1)
    svg.line([(x, ky0), (x, ky1)], "#333", 1.2)
    svg.text(x + 8, (ky0 + ky1) / 2 + 4, f"{ROW_PITCH} mm", size=11, weight="bold")
    svg.text(x + 8, ky1 + 30, f"holes {HOLE} mm", size=11)
    svg.text(x + 8, ky1 + 46, "(3 mm LEDs: 3 mm)", size=10, colour="#555")
    left, bottom = _p(0, PANEL[1])
    svg.text(
        left + 200,
        bottom + 34,
        f"the panel: {PANEL[0]:.0f} × {PANEL[1]:.0f} mm",
        size=11,
        colour="#555",
    )


def _registers(svg: Svg) -> None:
    """The 74HC595s behind the panel, each under the columns it drives, and the chain."""
    _, top = _p(0, PANEL[1])
    top += 100
    svg.text(
        LEFT, top - 16, "Behind the panel: each register under its columns", size=13, weight="bold"
    )
    columns: dict[int, list[str]] = {}
    for rank, places in board.CASE_KEEPER.items():
        for register, _ in places:
            columns.setdefault(register, [])
            if rank not in columns[register]:
                columns[register].append(rank)
    previous = None
    for register in range(board.REGISTERS):
        ranks = columns[register]
        xs = [_p(*hole_centre(rank, "S"))[0] for rank in ranks]
        x0, x1 = min(xs) - 26, max(xs) + 26
        svg.rect(x0, top, x1 - x0, 54, fill="#212f3d", stroke="#0b0f14", rx=4)
        svg.text(
            (x0 + x1) / 2,
            top + 22,
            f"R{register}",
            size=14,
            anchor="middle",
            colour="#ffffff",
            weight="bold",
        )
        svg.text(
            (x0 + x1) / 2, top + 40, " ".join(ranks), size=11, anchor="middle", colour="#d6eaf8"
        )
        if previous is None:
            svg.line([(x0 - 40, top + 27), (x0, top + 27)], COLOURS["SER"], 3)
            svg.text(x0 - 42, top + 70, "from the Pi", size=10, colour="#555")
        else:
            svg.line([(previous, top + 27), (x0, top + 27)], COLOURS["SER"], 3)
        previous = x1
    lines = [
        "Each register's Q0-Q3 light its first column's ♠ ♥ ♦ ♣ from the top, Q4-Q7 its second's;",
        "R6 drives the king's column alone (its Q4-Q7 spare).",
        "Each QH' (pin 9) feeds the next register's SER (pin 14).",
    ]
    for i, line in enumerate(lines):
        svg.text(LEFT, top + 96 + 18 * i, line, size=11)


def main(argv: list[str] | None = None) -> int:
    return drawn(render, OUT, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
