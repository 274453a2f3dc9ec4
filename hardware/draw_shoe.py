"""The barcode reader in the shoe, in section: ``python -m hardware.draw_shoe`` writes shoe.svg.

A side section through the dealing box and the base it stands in: the top
card leaving through the slot and sliding over a window in the base's top,
its label underneath; the scanner module below the window, looking up at the
label's path from its reading distance; the Pico beside it, on the Pi's USB.

The sizes are the drawing's own constants, in millimetres, and the scanner's
field is worked out from them: a test checks that the field at the label's
path holds the widest card code of hardware/card-codes.svg with its quiet
zones, redraws the picture and compares it with the committed file.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from hardware.card_codes import BAR_HEIGHT, barcode_width
from hardware.draw_wiring import COLOURS, Svg, drawn

OUT = Path(__file__).with_name("shoe.svg")

SCAN_DISTANCE = 80
"""Millimetres from the scanner's lens up to the label's path."""
FIELD_ACROSS = 28
"""Degrees the scanner sees across the card's path: the Waveshare module's wider angle."""
FIELD_ALONG = 21.5
"""Degrees it sees along the path, the plane of the drawing: its narrower angle."""
WIDEST_CODE = "10S"
"""A three-character code: the widest label on the sheet."""
CARD = (63, 88)
"""A poker-size card, width and length, in millimetres."""
LABEL_FROM_EDGE = 6
"""Millimetres from the card's leading short edge to its label, on the back."""
LABEL_DEPTH = 18
"""The label's size along the card's path: the cut label of card-codes.svg."""

MODULE_HEIGHT = 20
FLOOR = 5
PATH = FLOOR + MODULE_HEIGHT + SCAN_DISTANCE
"""Height of the label's path (the base's top) above the table."""
BASE = 232
"""Length of the base, from its back (the Pi's side) to its front (the dealer's)."""
BOX = (12, 112)
"""The box's inside, from its back wall to its front wall (the slot)."""
BOX_WALL = 4
BOX_DEPTH = 46
"""From the box's lip down to its floor, inside the base."""
WINDOW = (160, 204)
"""The clear window in the base's top, along the path."""

SCALE = 3.2
"""Pixels per millimetre."""
LEFT, TABLE_Y = 120, 520
"""Where the base's back meets the table, in pixels."""
WIDTH, HEIGHT = 1380, 580


def field_width(angle: float, distance: float = SCAN_DISTANCE) -> float:
    """Millimetres the scanner sees at ``distance`` for a field of ``angle`` degrees."""
    return 2 * distance * math.tan(math.radians(angle / 2))


def window_centre() -> float:
    return (WINDOW[0] + WINDOW[1]) / 2


def _p(x: float, y: float) -> tuple[float, float]:
    """A point ``x`` mm along the base and ``y`` mm above the table, in pixels."""
    return LEFT + x * SCALE, TABLE_Y - y * SCALE


def _box(svg: Svg, x0: float, y0: float, x1: float, y1: float, **style) -> None:
    """A rectangle between two points given in millimetres."""
    (px0, py0), (px1, py1) = _p(x0, y0), _p(x1, y1)
    svg.rect(min(px0, px1), min(py0, py1), abs(px1 - px0), abs(py1 - py0), **style)


def _line(svg: Svg, points: list[tuple[float, float]], colour: str, width: float = 2) -> None:
    svg.line([_p(x, y) for x, y in points], colour, width)


def render() -> str:
    """The section as SVG text."""
    svg = Svg(WIDTH, HEIGHT)
    svg.text(30, 40, "faro-pi: the barcode reader in the shoe, in section", size=22, weight="bold")
    svg.text(
        30,
        62,
        "Drawn by hardware/draw_shoe.py. Side view, cut through the middle of the box; "
        "sizes in millimetres.",
        size=12,
        colour="#555",
    )
    # the table and the base
    svg.line([(LEFT - 40, TABLE_Y), (LEFT + (BASE + 40) * SCALE, TABLE_Y)], "#7f8c8d", 3)
    _box(svg, 0, 0, BASE, PATH, fill="#f4ecdf", stroke="#8d6e63", width=2)
    svg.text(
        *_p(BASE / 2, -8),
        "the base (wood or 3D-printed), standing on the table",
        size=11,
        anchor="middle",
        colour="#6d4c41",
    )
    # the box, sunk into the base: its lip level with the path
    lip = PATH + 6
    floor = PATH - BOX_DEPTH
    _box(
        svg,
        BOX[0] - BOX_WALL,
        floor - BOX_WALL,
        BOX[1] + BOX_WALL,
        lip,
        fill="#ffffff",
        stroke="#4e342e",
        width=2,
    )
    _box(svg, BOX[0], floor, BOX[1], lip, fill="#fbfbfb", stroke="#4e342e", width=1)
    # the slot: the front wall stops short of the path by a card's thickness
    _box(
        svg,
        BOX[1] - 0.5,
        PATH - 0.2,
        BOX[1] + BOX_WALL + 0.5,
        PATH + 2.2,
        fill="#fbfbfb",
        stroke="#fbfbfb",
        width=0,
    )
    # the pack on its follower and spring
    pack = 16
    for i in range(1, 9):
        y = PATH - i * pack / 8
        _line(svg, [(BOX[0] + 2, y), (BOX[1] - 2, y)], "#95a5a6", 1)
    _box(
        svg,
        BOX[0] + 2,
        PATH - pack - 2,
        BOX[1] - 2,
        PATH - pack,
        fill="#bdc3c7",
        stroke="#7f8c8d",
        width=1,
    )
    spring = [(BOX[0] + 50 + (6 if i % 2 else -6), PATH - pack - 2 - i * 3.5) for i in range(8)]
    _line(svg, spring, "#7f8c8d", 1.5)
    svg.text(*_p(BOX[0] + 8, PATH - pack / 2 - 1), "the pack, face up", size=10, colour="#555")
    svg.text(*_p(BOX[0] + 56, PATH - pack - 12), "spring", size=10, colour="#555")
    # the top card, half through the slot, its label underneath
    lead = WINDOW[1] - 2
    card = (lead - CARD[1], lead)
    _line(svg, [(card[0], PATH + 1), (card[1], PATH + 1)], "#2c3e50", 3)
    label = (lead - LABEL_FROM_EDGE - LABEL_DEPTH, lead - LABEL_FROM_EDGE)
    _line(svg, [(label[0], PATH + 0.3), (label[1], PATH + 0.3)], "#000000", 4)
    svg.text(
        *_p(card[0] + 4, PATH + 10),
        "the top card, pushed out through the slot",
        size=11,
        colour="#2c3e50",
    )
    arrow_y = PATH + 16
    _line(svg, [(card[1] - 30, arrow_y), (card[1] + 10, arrow_y)], "#2c3e50", 2)
    _line(
        svg,
        [(card[1] + 5, arrow_y + 2), (card[1] + 10, arrow_y), (card[1] + 5, arrow_y - 2)],
        "#2c3e50",
        2,
    )
    lx, ly = _p(label[1], PATH - 3)
    svg.text(lx + 4, ly + 12, "label on the back", size=10, colour="#000000")
    # the window, flush with the base's top
    _box(svg, WINDOW[0], PATH - 2, WINDOW[1], PATH, fill="#d6eaf8", stroke="#5dade2", width=1)
    # the scanner and its field
    centre = window_centre()
    lens = FLOOR + MODULE_HEIGHT
    _box(svg, centre - 22, FLOOR, centre + 22, lens, fill="#34495e", stroke="#1b2631", width=1.5)
    _box(svg, centre - 5, lens, centre + 5, lens + 2, fill="#85c1e9", stroke="#1b2631", width=1)
    mx, my = _p(centre, FLOOR + MODULE_HEIGHT / 2)
    svg.text(mx, my + 4, "scanner module", size=10, anchor="middle", colour="#ffffff")
    half = field_width(FIELD_ALONG) / 2
    for side in (-1, 1):
        _line(svg, [(centre, lens + 2), (centre + side * half, PATH - 2)], "#e74c3c", 1.2)
    dim = WINDOW[1] + 10
    _line(svg, [(dim, lens + 2), (dim, PATH - 2)], "#555", 1)
    for y in (lens + 2, PATH - 2):
        _line(svg, [(dim - 3, y), (dim + 3, y)], "#555", 1)
    dx, dy = _p(dim, (lens + PATH) / 2)
    svg.text(dx + 6, dy, f"{SCAN_DISTANCE} mm", size=11, weight="bold")
    svg.text(dx + 6, dy + 14, "lens to label", size=10, colour="#555")
    # the Pico under the box, its USB lead out of the back, wires to the scanner
    pico = (24, 75)
    _box(svg, pico[0], FLOOR + 4, pico[1], FLOOR + 6, fill="#1e8449", stroke="#145a32", width=1)
    for x in (pico[0] + 6, pico[1] - 6):
        _line(svg, [(x, FLOOR), (x, FLOOR + 4)], "#7f8c8d", 2)
    px, py = _p((pico[0] + pico[1]) / 2, FLOOR + 6)
    svg.text(px, py - 6, "Raspberry Pi Pico", size=10, anchor="middle", colour="#145a32")
    _line(svg, [(pico[0], FLOOR + 5), (-12, FLOOR + 5)], COLOURS["USB"], 4)
    ux, uy = _p(-12, FLOOR + 5)
    svg.text(ux - 4, uy - 8, "USB to the Pi", size=10, anchor="end", colour=COLOURS["USB"])
    for i, colour in enumerate((COLOURS["UART"], COLOURS["UART"], COLOURS["5V"], COLOURS["GND"])):
        y = FLOOR + 6 + 1.5 * i
        _line(svg, [(pico[1], y), (centre - 22, y)], colour, 1.5)
    # the no-read button on the base's front, under the dealer's hand
    bx, by = _p(BASE, PATH - 20)
    svg.rect(bx, by - 8, 10, 16, fill="#7d3c98", stroke="#4a235a", rx=2)
    svg.text(bx + 14, by + 4, "no-read button", size=10, colour="#4a235a")
    _notes(svg)
    return svg.document()


def _notes(svg: Svg) -> None:
    x, y = 990, 120
    width = barcode_width(WIDEST_CODE)
    lines = [
        "The top card slides out of the slot over a clear window",
        "(2 mm acrylic) in the base's top; the scanner looks up",
        "through it at the label on the card's back.",
        "",
        f"The label: on the back, {LABEL_FROM_EDGE} mm in from the short edge",
        "that leaves first, centred across the card, its bars along",
        "the card's path, so a quick slide smears along the bars.",
        "",
        f"The field at {SCAN_DISTANCE} mm: {FIELD_ACROSS}° across the path is "
        f"{field_width(FIELD_ACROSS):.0f} mm, for a code",
        f"{width:.0f} mm wide with its quiet zones ({WIDEST_CODE}); {FIELD_ALONG:g}° along it "
        f"is {field_width(FIELD_ALONG):.0f} mm,",
        f"for bars {BAR_HEIGHT:g} mm long. A scanner with a wider field may sit",
        "closer: the whole code, quiet zones too, must fit in it.",
        "",
        "The scanner in sensing mode: it reads when the view",
        "changes, so each card is read once as it passes.",
        "Only the card leaving is seen: the others lie backs down.",
    ]
    svg.rect(x - 14, y - 22, 370, 18 * len(lines) + 30, fill="#fbfcfc", stroke="#ccd1d1", rx=6)
    svg.text(x, y - 4, "Notes", size=12, weight="bold")
    for i, line in enumerate(lines):
        svg.text(x, y + 16 + 18 * i, line, size=10.5)


def main(argv: list[str] | None = None) -> int:
    return drawn(render, OUT, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
