"""Card designs made from fonts and drawn shapes: indices and pips beyond the packaged decks'.

The packaged decks use a handful of index typefaces and suit shapes; a design the reader
never saw may use any other. So training adds made-up designs: a rank in one of the
machine's fonts (the Debian font packages of the Makefile's CAMERA_DEBS), squeezed or
stretched, sometimes stroked, its suit under or beside it, kept in the corner where real
cards keep it; suit symbols from a font that has them or drawn from circles and curves in
proportions of the design's own; the pip layouts real decks use; made-up court figures;
white or off-white paper, sometimes a border line. No card image of anyone's goes in: only
glyphs and shapes.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from faro_pi.game.cards import DECK, RANKS, Card
from training.courts import figure
from training.fonts import SYMBOLS, fonts, has, loaded, pick
from training.layouts import Layout
from training.suits import Shapes

HOLLOW = {"S": "♤", "H": "♡", "D": "♢", "C": "♧"}
CORNER = (0.22, 0.25)
"""How far in from the card's edges (of its width, of its height) an index may reach."""
PIP_ASPECT = 1.2
"""The widest a suit symbol is, for its height: pips are spaced as if this wide."""
REFERENCE = 400
"""The card height at which a design's index and pip sizes are worked out."""
FORM = 6
"""Names the cached designs: a new way of drawing them renders them anew."""


class Style:
    """One made-up design's choices, drawn once from ``rng``."""

    def __init__(self, rng: np.random.Generator, latin: list[Path], suited: list[Path]):
        self.index_font = pick(latin, rng)
        self.suit_font = pick(suited, rng)
        self.shapes = Shapes(rng) if rng.random() < 0.5 else None
        self.index_size = rng.uniform(0.06, 0.14)
        self.squeeze = rng.uniform(0.75, 1.3)  # the rank's width, for the font's
        self.stroke = rng.uniform(0.02, 0.06) if rng.random() < 0.25 else 0.0
        self.ten = ("10", "tight", "narrow", "T")[rng.choice(4, p=(0.55, 0.2, 0.17, 0.08))]
        self.kern = rng.uniform(0.03, 0.14)  # how far a tight 10's digits overlap
        self.beside = rng.random() < 0.2  # the index suit beside the rank, not under it
        self.index_suit = rng.uniform(0.5, 1.15) * (0.8 if self.beside else 1)
        self.index_gap = rng.uniform(0.04, 0.2)
        self.corner = rng.uniform(0.02, 0.06)
        self.border = None
        if rng.random() < 0.3:  # a thin line inset from the edge, in the design's colour
            colour = [(20, 40, 140), (150, 20, 30), (20, 20, 20), (160, 120, 30)]
            self.border = (
                rng.uniform(0.025, 0.05),
                colour[rng.integers(len(colour))],
                rng.uniform(0.003, 0.008),
            )
        inset = self.border[0] + 0.015 if self.border else 0.0
        self.margin = (max(inset, rng.uniform(0.03, 0.07)), max(inset, rng.uniform(0.025, 0.05)))
        if rng.random() < 0.55:
            white = rng.uniform(247, 255)
            self.paper = (int(white), int(white), int(min(255, white + rng.uniform(-3, 3))))
        else:  # off-white: cream, ivory, a little grey
            white = rng.uniform(236, 250)
            self.paper = (
                int(min(255, white + rng.uniform(0, 5))),
                int(white + rng.uniform(-2, 2)),
                int(white - rng.uniform(0, 20)),
            )
        red = (int(rng.uniform(170, 230)), int(rng.uniform(0, 50)), int(rng.uniform(0, 60)))
        black = tuple(int(v) for v in rng.uniform(0, 45, 3))
        self.ink = {"S": black, "C": black, "H": red, "D": red}
        if rng.random() < 0.25:  # four colours
            self.ink["C"] = (0, int(rng.uniform(100, 150)), int(rng.uniform(0, 60)))
            self.ink["D"] = (
                int(rng.uniform(0, 40)),
                int(rng.uniform(60, 120)),
                int(rng.uniform(160, 220)),
            )
        self.hollow = rng.random() < 0.1 and (self.shapes is not None or self._hollowfont())
        self.four_corners = rng.random() < 0.15
        self.layout = Layout.draw(rng)
        self.fit, self.reach = self._index_reach()
        self.pip = self._pip_size(rng.uniform(0.09, 0.16))
        self.ace = self._ace_size(self.pip * rng.uniform(1.6, 3.0))
        self.ornate = rng.random() < 0.3  # the ace's pip in a ring
        self.court_kind = ("figure", "figure", "figure", "lettered", "letter")[rng.integers(5)]
        self.frame = ("none", "line", "line", "double", "rounded")[rng.integers(5)]
        self.court_letter = rng.uniform(0.18, 0.36)
        self.court_top = self.margin[1] + rng.uniform(0.0, 0.05)
        self.robes = [self.ink["S"], (200, 160, 40), (40, 60, 160), (180, 30, 30)]
        if rng.random() < 0.4:  # the design's own robe colours
            self.robes = [tuple(int(v) for v in rng.uniform(20, 230, 3)) for _ in range(4)]
        elif rng.random() < 0.25:  # one colour, the suit's
            self.robes = []
        self.seed = int(rng.integers(1 << 30))

    def _hollowfont(self) -> bool:
        """Whether the suit font has the outlined symbols too (Libertine's, for one, lacks them)."""
        face = loaded(self.suit_font, 40)
        return all(has(face, s) for s in HOLLOW.values())

    def _index_reach(self) -> tuple[float, tuple[float, float]]:
        """How much the index is scaled to keep within the corner, and how far it reaches.

        The reach is of the card's width and height, over all thirteen ranks' indices.
        """
        width = REFERENCE * 63 / 88
        px = self.index_size * REFERENCE
        sizes = [_index_mask(rank, "H", self, px).size for rank in RANKS]
        w, h = max(s[0] for s in sizes), max(s[1] for s in sizes)
        room_w = (CORNER[0] - self.margin[0]) * width
        room_h = (CORNER[1] - self.margin[1]) * REFERENCE
        fit = min(1.0, room_w / w, room_h / h)
        return fit, (w * fit / width, h * fit / REFERENCE)

    def _pip_size(self, wanted: float) -> float:
        """The pips' height (of the card's), as near ``wanted`` as leaves them clear.

        Clear of each other, of the index, and of the card's edge or border line. Where even
        small pips would not clear the index, the index is made smaller, down to the smallest
        real decks print; then the pips' columns come in to the standard ones.
        """
        aspect = 63 / 88  # the card's width, for its height
        edge = self.border[0] + 0.01 if self.border else 0.02
        smallest = 0.08
        while True:
            spots = [self.layout.pips(rank) for rank in range(2, 11)]
            ix = self.margin[0] + self.reach[0] + 0.015
            iy = self.margin[1] + self.reach[1] + 0.01
            size = wanted
            while size > smallest:
                hw, hh = 0.5 * size * PIP_ASPECT / aspect, 0.5 * size  # of width, of height
                if all(_clear(places, hw, hh, ix, iy, edge) for places in spots):
                    return size
                size *= 0.96
            if self.index_size * self.fit > 0.05:
                self.fit *= 0.9
                self.reach = (self.reach[0] * 0.9, self.reach[1] * 0.9)
            elif self.layout.columns != Layout.columns:
                self.layout = replace(self.layout, columns=Layout.columns)
            elif smallest > 0.04:
                smallest -= 0.01
            else:
                return smallest

    def _ace_size(self, wanted: float) -> float:
        """The ace's pip height, kept clear of the index with room for a ring around it."""
        aspect = 63 / 88
        corner_x = (self.margin[0] + self.reach[0]) * aspect
        corner_y = self.margin[1] + self.reach[1]
        room = math.hypot(0.5 * aspect - corner_x, 0.5 - corner_y) - 0.02
        return min(wanted, room, 0.6 * aspect)


def _clear(places, hw: float, hh: float, ix: float, iy: float, edge: float) -> bool:
    """Whether pips of half-sizes ``hw``, ``hh`` at ``places`` keep off the index and each other."""
    for n, (x, y) in enumerate(places):
        for ux, uy in ((x, y), (1 - x, 1 - y), (1 - x, y), (x, 1 - y)):
            if ux - hw < ix and uy - hh < iy:  # into a corner's index
                return False
        if x - hw < edge or y - hh < edge or x + hw > 1 - edge or y + hh > 1 - edge:
            return False
        for x2, y2 in places[n + 1 :]:
            if abs(x - x2) < 2.1 * hw and abs(y - y2) < 2.1 * hh:
                return False
    return True


def face(card: Card, style: Style, height: int = 400) -> Image.Image:
    width = round(height * 63 / 88)
    image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    r = max(3, int(style.corner * height))
    draw.rounded_rectangle(
        [0, 0, width - 1, height - 1], r, fill=(*style.paper, 255), outline=(150, 150, 150, 255)
    )
    if style.border:
        inset, colour, line = style.border
        a = round(inset * width)
        draw.rounded_rectangle(
            [a, a, width - 1 - a, height - 1 - a],
            max(1, r - a),
            outline=(*colour, 255),
            width=max(1, round(line * height)),
        )
    ink = style.ink[card.suit]
    if card.rank > 10:
        _court(image, card, style, ink)
    elif card.rank == 1:
        _ace(image, card, style, ink)
    else:
        pip = _tint(_suit_mask(card.suit, style, round(style.pip * height)), ink)
        for x, y in style.layout.pips(card.rank):
            _place(image, pip, (x * width, y * height), flip=y > 0.5)
    _index(image, card, style, ink)
    return image


def _suit_mask(suit: str, style: Style, height: int) -> Image.Image:
    """The suit symbol ``height`` pixels tall: drawn if the design draws its suits, or a glyph."""
    height = max(3, height)
    if style.shapes is not None:
        return style.shapes.mask(suit, height, style.hollow)
    symbol = (HOLLOW if style.hollow else SYMBOLS)[suit]
    mask = _text_mask(symbol, style.suit_font, 2 * height)
    width = max(1, round(mask.width * height / mask.height))
    return mask.resize((width, height), Image.Resampling.LANCZOS)


def _text_mask(text: str, font_path: Path, size: int, stroke: int = 0) -> Image.Image:
    """``text`` in white on black, cropped to its ink."""
    font = loaded(font_path, size)
    box = font.getbbox(text, stroke_width=stroke)
    mask = Image.new("L", (box[2] - box[0] + 4, box[3] - box[1] + 4), 0)
    ImageDraw.Draw(mask).text(
        (2 - box[0], 2 - box[1]), text, font=font, fill=255, stroke_width=stroke, stroke_fill=255
    )
    return mask.crop(mask.getbbox() or (0, 0, 1, 1))


def _rank_mask(rank: str, style: Style, px: float) -> Image.Image:
    """The rank in the design's face and width: a 10 set as the design sets it."""
    size, stroke = max(6, round(px * 0.7 / _cap(style.index_font))), round(style.stroke * px)
    squeeze = style.squeeze
    if rank == "10" and style.ten == "T":
        rank = "T"
    if rank == "10" and style.ten == "tight":
        one, zero = (_text_mask(d, style.index_font, size, stroke) for d in "10")
        step = max(1, one.width - round(style.kern * px))
        mask = Image.new("L", (step + zero.width, max(one.height, zero.height)), 0)
        mask.paste(one, (0, mask.height - one.height))
        mask = ImageChops.lighter(
            mask, _shifted(zero, mask.size, (step, mask.height - zero.height))
        )
    else:
        mask = _text_mask(rank, style.index_font, size, stroke)
        if rank == "10" and style.ten == "narrow":
            squeeze *= 0.72
    width = max(1, round(mask.width * squeeze))
    return mask.resize((width, mask.height), Image.Resampling.LANCZOS)


@lru_cache(maxsize=512)
def _cap(font_path: Path) -> float:
    """The font's capital height, for its size: indices are sized by their capitals."""
    return max(0.4, min(1.0, _text_mask("K", font_path, 100).height / 100))


def _shifted(mask: Image.Image, size, at) -> Image.Image:
    canvas = Image.new("L", size, 0)
    canvas.paste(mask, at)
    return canvas


def _index_mask(rank: str, suit: str, style: Style, px: float) -> Image.Image:
    """The rank with its suit under it (or beside it), unscaled to the corner."""
    rank_mask = _rank_mask(rank, style, px)
    suit_mask = _suit_mask(suit, style, round(px * 0.72 * style.index_suit))
    gap = round(style.index_gap * px)
    rw, rh = rank_mask.size
    sw, sh = suit_mask.size
    if style.beside:
        mask = Image.new("L", (rw + gap + sw, max(rh, sh)), 0)
        mask.paste(rank_mask, (0, (mask.height - rh) // 2))
        mask.paste(suit_mask, (rw + gap, (mask.height - sh) // 2))
    else:
        mask = Image.new("L", (max(rw, sw), rh + gap + sh), 0)
        mask.paste(rank_mask, ((mask.width - rw) // 2, 0))
        mask.paste(suit_mask, ((mask.width - sw) // 2, rh + gap))
    return mask


def _index(image: Image.Image, card: Card, style: Style, ink) -> None:
    """The index in the top-left corner and, turned, the bottom-right (all four, some decks)."""
    width, height = image.size
    px = style.index_size * height * style.fit
    mask = _index_mask(RANKS[card.rank - 1], card.suit, style, px)
    room_w, room_h = style.reach[0] * width, style.reach[1] * height
    scale = min(1.0, room_w / mask.width, room_h / mask.height)
    if scale < 1:
        size = (max(1, int(mask.width * scale)), max(1, int(mask.height * scale)))
        mask = mask.resize(size, Image.Resampling.LANCZOS)
    stamp = _tint(mask, ink)
    turned = stamp.rotate(180)
    x = round(style.margin[0] * width + (room_w - stamp.width) / 2)
    y = round(style.margin[1] * height)
    right, low = width - x - stamp.width, height - y - stamp.height
    image.alpha_composite(stamp, (x, y))
    image.alpha_composite(turned, (right, low))
    if style.four_corners:
        image.alpha_composite(stamp, (right, y))
        image.alpha_composite(turned, (x, low))


def _tint(mask: Image.Image, ink) -> Image.Image:
    stamp = Image.new("RGBA", mask.size, (*ink, 255))
    stamp.putalpha(mask)
    return stamp


def _place(image: Image.Image, stamp: Image.Image, centre, flip: bool) -> None:
    if flip:
        stamp = stamp.rotate(180)
    image.alpha_composite(
        stamp, (round(centre[0] - stamp.width / 2), round(centre[1] - stamp.height / 2))
    )


def _ace(image: Image.Image, card: Card, style: Style, ink) -> None:
    """One big pip, in a ring or two in the ornate designs."""
    width, height = image.size
    px = round(style.ace * height * (0.8 if style.ornate else 1))
    centre = (width / 2, height / 2)
    if style.ornate:
        rng = np.random.default_rng(style.seed)
        draw = ImageDraw.Draw(image)
        radius = px * rng.uniform(0.8, 0.95)
        line = max(1, round(px * rng.uniform(0.02, 0.05)))
        for ring in range(1 + int(rng.random() < 0.5)):
            r = radius - ring * 3 * line
            box = [centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r]
            draw.ellipse(box, outline=(*ink, 255), width=line)
    _place(image, _tint(_suit_mask(card.suit, style, px), ink), centre, False)


def _court(image: Image.Image, card: Card, style: Style, ink) -> None:
    """A made-up figure, mirrored top to bottom like a double-headed court, framed or not."""
    width, height = image.size
    rng = np.random.default_rng(style.seed + card.index)
    x0 = round((style.margin[0] + style.reach[0] + 0.03) * width)
    y0 = round(style.court_top * height)
    x1, y1 = width - x0, height - y0
    if style.court_kind != "letter":
        half = figure(rng, card, (x1 - x0, (y1 - y0) // 2), [ink, *style.robes], ink)
        whole = Image.new("RGBA", (x1 - x0, y1 - y0), (0, 0, 0, 0))
        whole.alpha_composite(half, (0, 0))
        whole.alpha_composite(half.rotate(180), (0, whole.height - half.height))
        image.alpha_composite(whole, (x0, y0))
    draw = ImageDraw.Draw(image)
    line = max(1, round(height / 200))
    if style.frame == "line" or style.frame == "double":
        draw.rectangle([x0, y0, x1, y1], outline=(*ink, 255), width=line)
    if style.frame == "double":
        a = 3 * line
        draw.rectangle([x0 + a, y0 + a, x1 - a, y1 - a], outline=(*ink, 255), width=line)
    if style.frame == "rounded":
        draw.rounded_rectangle([x0, y0, x1, y1], 0.04 * height, outline=(*ink, 255), width=line)
    if style.court_kind != "figure":
        letter = _rank_mask(RANKS[card.rank - 1], style, style.court_letter * height)
        fit = min(1.0, 0.8 * (x1 - x0) / letter.width, 0.5 * (y1 - y0) / letter.height)
        size = (max(1, int(letter.width * fit)), max(1, int(letter.height * fit)))
        letter = letter.resize(size, Image.Resampling.LANCZOS)
        _place(image, _tint(letter, ink), (width / 2, height / 2), False)
    symbol = _tint(_suit_mask(card.suit, style, round(0.07 * height)), ink)
    spot = (x0 + 0.04 * width + symbol.width / 2, y0 + 0.03 * height + symbol.height / 2)
    _place(image, symbol, spot, False)
    _place(image, symbol, (width - spot[0], height - spot[1]), True)


def make(folder: Path, count: int, seed: int, height: int = 400, held: bool = False) -> list[Path]:
    """``count`` made-up designs in ``folder/font<FORM>-<seed>-<i>/`` (cached: made once),
    set in the font families training uses, or in those held out of it when ``held``."""
    latin, suited = fonts(held)
    rng = np.random.default_rng(seed)
    made = []
    for i in range(count):
        style = Style(rng, latin, suited)
        out = folder / f"font{FORM}{'h' if held else ''}-{seed}-{i}"
        made.append(out)
        if (out / ".done").exists():
            continue
        out.mkdir(parents=True, exist_ok=True)
        for card in DECK:
            face(card, style, height).save(out / f"{card.code}.png")
        (out / ".done").touch()
    return made
