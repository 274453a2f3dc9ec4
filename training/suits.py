"""Suit symbols drawn for made-up designs, in proportions of each design's own."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageChops, ImageDraw


class Shapes:
    """Suit symbols drawn from circles, polygons and curves, in one design's proportions.

    Fonts that have the suit symbols are few and alike; real decks' hearts are plump or
    lean, their diamonds wide or narrow, their spades' feet straight or flared or thin as a
    stalk; a plump spade and a club of big round lobes are the pair most often confused.
    """

    def __init__(self, rng: np.random.Generator):
        self.lobe = rng.uniform(0.22, 0.36)  # heart and spade lobes' radius
        self.overlap = rng.uniform(0.65, 0.95)  # how far apart the lobes stand, of it
        self.fullness = rng.uniform(0.25, 0.9)  # a heart's sides: straight V to round
        self.diamond = rng.uniform(0.58, 0.86)  # width for height
        self.bow = rng.uniform(-0.1, 0.06)  # a diamond's sides: drawn in (<0) or out
        self.foot = rng.uniform(0.06, 0.32)  # the spade's and club's foot, half its width
        self.foot_height = rng.uniform(0.15, 0.34)
        self.flare = rng.uniform(0.0, 0.9)  # the foot's sides: straight to curved in
        self.club = rng.uniform(0.17, 0.33)  # a club's side lobes
        self.club_top = rng.uniform(0.85, 1.3)  # its top lobe, for a side lobe
        self.club_angle = math.radians(rng.uniform(45, 65))
        # the lobes' centres apart, of their radii: at the low end one merged blob
        self.club_reach = rng.uniform(0.52, 0.95)

    def mask(self, suit: str, height: int, hollow: bool = False) -> Image.Image:
        """The symbol ``height`` pixels tall, drawn at four times that and brought down."""
        s = 4 * max(4, height)
        canvas = Image.new("L", (2 * s, 2 * s), 0)
        draw = ImageDraw.Draw(canvas)

        def at(x: float, y: float) -> tuple[float, float]:
            return (s + x * s, s / 2 + y * s)

        {"H": self._heart, "S": self._spade, "D": self._diamond, "C": self._club}[suit](draw, at)
        canvas = canvas.crop(canvas.getbbox())
        if hollow:
            canvas = ImageChops.subtract(canvas, _eroded(canvas, s // 24))
        width = max(1, round(canvas.width * height / canvas.height))
        return canvas.resize((width, height), Image.Resampling.LANCZOS)

    def _heart(self, draw, at, top: float = 0.0, bottom: float = 1.0, up: bool = False):
        """Two lobes and two sides down to a tip; ``up`` turns the tip up (a spade's body)."""
        r = self.lobe
        d = r * self.overlap
        c = r  # the lobes' centres, their tops at the heart's top

        def y(v: float) -> float:
            v = 1 - v if up else v
            return top + (bottom - top) * v

        for side in (-1, 1):
            a, b = at(side * d - r, y(c - r)), at(side * d + r, y(c + r))
            draw.ellipse([a[0], min(a[1], b[1]), b[0], max(a[1], b[1])], fill=255)
        edge = []
        for t in np.linspace(0, 1, 16):  # a quadratic curve from the lobe's side to the tip
            p0, p1, p2 = (-d - r, c), (-d - r, c + (1 - c) * self.fullness), (0.0, 1.0)
            x = (1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t * t * p2[0]
            v = (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t * t * p2[1]
            edge.append((x, v))
        outline = edge + [(-x, v) for x, v in reversed(edge)] + [(d, c), (0, c), (-d, c)]
        draw.polygon([at(x, y(v)) for x, v in outline], fill=255)

    def _foot(self, draw, at, start: float):
        """A spade's or club's foot from ``start`` down to the symbol's bottom (1)."""
        w = self.foot
        side = []
        for t in np.linspace(0, 1, 12):
            ctl = ((1 - self.flare) * w / 2, (1 - self.flare) * (start + 1) / 2 + self.flare)
            x = 2 * (1 - t) * t * ctl[0] + t * t * w
            v = (1 - t) ** 2 * start + 2 * (1 - t) * t * ctl[1] + t * t
            side.append((x, v))
        points = side + [(-x, v) for x, v in reversed(side)]
        draw.polygon([at(x, v) for x, v in points], fill=255)

    def _spade(self, draw, at):
        body = 1 - self.foot_height
        self._heart(draw, at, 0.0, body, up=True)
        self._foot(draw, at, body - 0.2)

    def _diamond(self, draw, at):
        w = self.diamond / 2
        corners = [(0.0, 0.0), (w, 0.5), (0.0, 1.0), (-w, 0.5)]
        points = []
        for (x0, y0), (x1, y1) in zip(corners, corners[1:] + corners[:1], strict=True):
            length = math.hypot(x1 - x0, y1 - y0)
            nx, ny = (y1 - y0) / length, -(x1 - x0) / length  # outward, corners go clockwise
            cx, cy = (x0 + x1) / 2 + self.bow * nx, (y0 + y1) / 2 + self.bow * ny
            for t in np.linspace(0, 1, 12, endpoint=False):
                points.append(
                    (
                        (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1,
                        (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1,
                    )
                )
        draw.polygon([at(x, y) for x, y in points], fill=255)

    def _club(self, draw, at):
        rs, rt = self.club, self.club * self.club_top
        reach = (rt + rs) * self.club_reach
        centres = [(0.0, rt)] + [
            (side * reach * math.sin(self.club_angle), rt + reach * math.cos(self.club_angle))
            for side in (-1, 1)
        ]
        for (x, y), r in zip(centres, (rt, rs, rs), strict=True):
            a, b = at(x - r, y - r), at(x + r, y + r)
            draw.ellipse([*a, *b], fill=255)
        draw.polygon([at(x, y) for x, y in centres], fill=255)
        middle = sum(y for _, y in centres) / 3
        bottom = max(centres[1][1] + rs + self.foot_height * 0.6, middle + 0.25)
        self._foot(draw, lambda x, y: at(x, middle + y * (bottom - middle)), 0.0)


def _eroded(mask: Image.Image, r: int) -> Image.Image:
    """``mask`` shrunk by ``r`` pixels each way: what is left of a symbol inside its outline."""
    a = np.pad(np.asarray(mask), r)
    h, w = mask.height, mask.width
    across = np.min([a[:, i : i + w] for i in range(2 * r + 1)], axis=0)
    return Image.fromarray(np.min([across[i : i + h] for i in range(2 * r + 1)], axis=0))
