"""A printable sheet of card codes: ``python -m hardware.card_codes`` writes card-codes.svg.

One Code 128 barcode per card, carrying exactly the card's fsp1 code (``AS``,
``10H``, ``KD``: what the reader sends and the plain protocol reads), with the
code and the suit symbol printed under it. Print the sheet at 100 % on A4 or
US Letter label paper or card stock, cut along the grey lines and fix each
label to its card where the shoe's scanner sees it as the card leaves.

The page is the part common to both papers, 210 × 279 mm, and everything on
it keeps 10 mm from its edges: more than any printer's unprintable margin,
wherever a printer puts the page on its paper.

Code 128 (code set B) because every scanner module reads it out of the box
and its check character catches a misread bar. Bars are drawn as SVG
rectangles in millimetres; nothing but the standard library is used. A test
redraws the sheet, compares it with the committed file and decodes every
barcode back from the rectangles.
"""

from __future__ import annotations

import sys
from pathlib import Path
from xml.sax.saxutils import escape

from faro_pi.game.cards import DECK, RANKS, SUIT_SYMBOLS, SUITS
from hardware.draw_wiring import drawn

OUT = Path(__file__).with_name("card-codes.svg")

# Code 128's 107 symbols as bar, space, bar, space, bar, space widths in
# modules (the stop symbol has a final 2-module bar). Value v is character
# chr(v + 32) in code set B; 103, 104 and 105 start sets A, B and C.
# fmt: off
PATTERNS = (
    "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312",
    "132212", "221213", "221312", "231212", "112232", "122132", "122231", "113222",
    "123122", "123221", "223211", "221132", "221231", "213212", "223112", "312131",
    "311222", "321122", "321221", "312212", "322112", "322211", "212123", "212321",
    "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
    "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121",
    "313121", "211331", "231131", "213113", "213311", "213131", "311123", "311321",
    "331121", "312113", "312311", "332111", "314111", "221411", "431111", "111224",
    "111422", "121124", "121421", "141122", "141221", "112214", "112412", "122114",
    "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
    "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112",
    "421211", "212141", "214121", "412121", "111143", "111341", "131141", "114113",
    "114311", "411113", "411311", "113141", "114131", "311141", "411131", "211412",
    "211214", "211232", "2331112",
)
# fmt: on
START_B = 104
STOP = 106
QUIET = 10
"""Modules of blank space each side of a barcode, as the standard asks."""

MODULE = 0.33
"""Millimetres per module: 13 mil, the usual density for scanner modules."""
BAR_HEIGHT = 10.0
PAGE_W, PAGE_H = 210.0, 279.0
"""A4's width and (just under) US Letter's height: the sheet prints at 100 % on either."""
MARGIN = 10.0
TOP = 28.0
"""Where the grid of labels starts, below the sheet's title."""


def code128(text: str) -> list[int]:
    """The symbol values of ``text`` in code set B: start, the characters, check, stop."""
    values = [START_B]
    for char in text:
        value = ord(char) - 32
        if not 0 <= value < 96:
            raise ValueError(f"{text!r}: {char!r} is not in Code 128 set B")
        values.append(value)
    check = (values[0] + sum(i * v for i, v in enumerate(values[1:], start=1))) % 103
    return [*values, check, STOP]


def widths(text: str) -> list[int]:
    """The element widths of ``text``'s barcode in modules, starting with a bar."""
    return [int(w) for value in code128(text) for w in PATTERNS[value]]


def _n(value: float) -> str:
    return f"{round(value, 3):g}"


def _barcode(text: str, x: float, y: float) -> list[str]:
    """The bars of one barcode whose quiet zone starts at (x, y), in a group named after it."""
    parts = [f'<g id="card-{escape(text)}">']
    at = x + QUIET * MODULE
    for i, width in enumerate(widths(text)):
        if i % 2 == 0:  # a bar; odd elements are spaces
            parts.append(
                f'<rect x="{_n(at)}" y="{_n(y)}" width="{_n(width * MODULE)}" '
                f'height="{_n(BAR_HEIGHT)}"/>'
            )
        at += width * MODULE
    parts.append("</g>")
    return parts


def barcode_width(text: str) -> float:
    """Millimetres one barcode takes, quiet zones included."""
    return (sum(widths(text)) + 2 * QUIET) * MODULE


def render() -> str:
    """The sheet: 52 labels, a column per suit, a row per rank."""
    cell_w = (PAGE_W - 2 * MARGIN) / len(SUITS)
    cell_h = (PAGE_H - TOP - MARGIN) / len(RANKS)
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(PAGE_W)}mm" height="{_n(PAGE_H)}mm" '
        f'viewBox="0 0 {_n(PAGE_W)} {_n(PAGE_H)}" '
        'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        f'<rect width="{_n(PAGE_W)}" height="{_n(PAGE_H)}" fill="#ffffff"/>',
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 4)}" font-size="5" font-weight="bold">'
        "faro-pi card codes</text>",
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 10)}" font-size="3">'
        "Code 128, one label per card, carrying the card&#8217;s fsp1 code. "
        "Print at 100 % (no scaling) on A4 or Letter,</text>",
        f'<text x="{_n(MARGIN)}" y="{_n(MARGIN + 14)}" font-size="3">'
        "cut along the grey lines, and fix each label where the shoe&#8217;s scanner "
        "sees it as the card leaves.</text>",
        '<g fill="none" stroke="#bbbbbb" stroke-width="0.2" stroke-dasharray="1.5,1.5">',
    ]
    for column in range(len(SUITS) + 1):
        x = MARGIN + column * cell_w
        parts.append(f'<line x1="{_n(x)}" y1="{_n(TOP)}" x2="{_n(x)}" y2="{_n(PAGE_H - MARGIN)}"/>')
    for row in range(len(RANKS) + 1):
        y = TOP + row * cell_h
        parts.append(
            f'<line x1="{_n(MARGIN)}" y1="{_n(y)}" x2="{_n(PAGE_W - MARGIN)}" y2="{_n(y)}"/>'
        )
    parts.append("</g>")
    parts.append('<g fill="#000000">')
    labels = []
    for card in DECK:
        column = SUITS.index(card.suit)
        row = card.rank - 1
        x0 = MARGIN + column * cell_w
        y0 = TOP + row * cell_h
        code = card.code
        x = x0 + (cell_w - barcode_width(code)) / 2
        parts.extend(_barcode(code, x, y0 + 2.5))
        red = card.suit in ("H", "D")
        labels.append(
            f'<text x="{_n(x0 + cell_w / 2)}" y="{_n(y0 + 2.5 + BAR_HEIGHT + 4.6)}" '
            f'font-size="3.8" text-anchor="middle">{escape(code)}'
            f'<tspan fill="{"#c0392b" if red else "#000000"}" dx="1.5">'
            f"{RANKS[card.rank - 1]}{SUIT_SYMBOLS[card.suit]}</tspan></text>"
        )
    parts.append("</g>")
    parts.extend(labels)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    return drawn(render, OUT, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
