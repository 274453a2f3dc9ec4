"""The pairing screen: the console's one-use link as a QR code the lookout's phone scans.

Shown while *new pack* is held for :data:`~faro_pi.config.ButtonsConfig.pair_hold`
seconds and until the link is used or out of time. The code is drawn by
``segno`` (pure Python, kept up, and it picks the smallest symbol: the link
is all capitals, in QR's alphanumeric mode, so an IPv4 link fits version 3,
29 modules) at two pixels a module where it fits the 64 rows, one where it
does not, dark modules unlit on a lit square: a phone's camera reads an OLED
best that way round. The words beside it say what it is for.
"""

from __future__ import annotations

from dataclasses import dataclass

import segno
from PIL import Image, ImageDraw

from faro_pi.devices.oled.glyphs import DARK, HEIGHT, LIT, WIDTH, write

MARGIN = 2
"""Lit pixels at least between the code and the square's edge (its quiet zone, with the
rest of a module's width)."""

WORDS = ("SCAN TO", "LOG IN", "ONE USE", "2 MIN")
"""Beside the code, one short line each (11-pixel type)."""


@dataclass(frozen=True, slots=True)
class PairingView:
    """What the pairing screen shows: the link, once, as a QR code."""

    link: str
    pages: int = 1


def render(view: PairingView, page: int = 0) -> Image.Image:
    """The 128×64 one-bit picture of the pairing screen for ``view.link``."""
    image = Image.new("1", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(image)
    qr = segno.make(view.link, error="m", micro=False)
    size = qr.symbol_size(border=0)[0]
    scale = max(1, (HEIGHT - 2 * MARGIN) // size)
    square = HEIGHT
    draw.rectangle((0, 0, square - 1, square - 1), fill=LIT)
    offset = (square - size * scale) // 2
    for y, row in enumerate(qr.matrix_iter(border=0)):
        for x, dark in enumerate(row):
            if dark:
                left, top = offset + x * scale, offset + y * scale
                draw.rectangle((left, top, left + scale - 1, top + scale - 1), fill=DARK)
    for baseline, line in zip((14, 28, 42, 60), WORDS, strict=True):
        write(draw, square + 4, baseline, line)
    return image
