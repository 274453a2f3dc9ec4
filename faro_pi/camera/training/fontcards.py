"""Card designs made from fonts: index and pip styles beyond the packaged decks'.

The packaged decks use a handful of index typefaces; a design the reader never saw may
use any other. So training adds made-up designs: a rank in a font drawn at random from the
machine's (Debian's urw-base35, DejaVu, FreeFont, Liberation), its suit in a font that has
the suit symbols, the standard pip layouts, made-up court figures behind the index letter,
two or four colours. No card image of anyone's goes in: only glyphs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from faro_pi.game.cards import DECK, RANKS, Card

FONT_FOLDERS = (
    Path("/usr/share/fonts/opentype/urw-base35"),
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/truetype/freefont"),
    Path("/usr/share/fonts/truetype/liberation"),
)
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
HOLLOW = {"S": "♤", "H": "♡", "D": "♢", "C": "♧"}
COLUMNS = {"L": 0.3, "C": 0.5, "R": 0.7}
PIPS = {
    1: [("C", 0.5)],
    2: [("C", 0.2), ("C", 0.8)],
    3: [("C", 0.2), ("C", 0.5), ("C", 0.8)],
    4: [(c, y) for c in "LR" for y in (0.2, 0.8)],
    5: [(c, y) for c in "LR" for y in (0.2, 0.8)] + [("C", 0.5)],
    6: [(c, y) for c in "LR" for y in (0.2, 0.5, 0.8)],
    7: [(c, y) for c in "LR" for y in (0.2, 0.5, 0.8)] + [("C", 0.35)],
    8: [(c, y) for c in "LR" for y in (0.2, 0.5, 0.8)] + [("C", 0.35), ("C", 0.65)],
    9: [(c, y) for c in "LR" for y in (0.2, 0.4, 0.6, 0.8)] + [("C", 0.5)],
    10: [(c, y) for c in "LR" for y in (0.2, 0.4, 0.6, 0.8)] + [("C", 0.3), ("C", 0.7)],
}
"""Where a number card's pips stand, as (column, height) fractions of the face."""


def fonts() -> tuple[list[Path], list[Path]]:
    """The Latin fonts, and those of them that also draw the four suit symbols."""
    latin, suited = [], []
    for folder in FONT_FOLDERS:
        for path in sorted(folder.glob("*.[ot]tf")):
            if "Math" in path.name or "Symbol" in path.name or "D050000L" in path.name:
                continue
            latin.append(path)
            font = ImageFont.truetype(str(path), 40)
            if all(font.getbbox(s)[2] > 4 and _has(font, s) for s in SYMBOLS.values()):
                suited.append(path)
    return latin, suited


def _has(font, char: str) -> bool:
    """Whether the font draws ``char`` itself (not the missing-glyph box)."""
    return font.getmask(char).getbbox() != font.getmask("\uffff").getbbox()


class Style:
    """One made-up design's choices, drawn once from ``rng``."""

    def __init__(self, rng: np.random.Generator, latin: list[Path], suited: list[Path]):
        self.index_font = latin[rng.integers(len(latin))]
        self.suit_font = suited[rng.integers(len(suited))]
        self.index_size = rng.uniform(0.07, 0.13)
        self.corner = rng.uniform(0.02, 0.06)
        self.margin = rng.uniform(0.03, 0.08)
        self.pip_size = rng.uniform(0.10, 0.16)
        self.paper = tuple(int(v) for v in rng.uniform((235, 232, 220), (255, 255, 255)))
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
        self.hollow = rng.random() < 0.1
        self.four_corners = rng.random() < 0.15
        self.frame = rng.random() < 0.5
        self.court_letter = rng.random() < 0.3
        self.ten = "10" if rng.random() < 0.85 else "T"
        self.seed = int(rng.integers(1 << 30))


def face(card: Card, style: Style, height: int = 400) -> Image.Image:
    width = round(height * 63 / 88)
    image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    r = int(style.corner * height)
    draw.rounded_rectangle(
        [0, 0, width - 1, height - 1], r, fill=(*style.paper, 255), outline=(150, 150, 150, 255)
    )
    ink = style.ink[card.suit]
    if card.rank > 10:
        _court(image, card, style, ink)
    else:
        for column, y in PIPS[card.rank]:
            size = style.pip_size * height * (2.2 if card.rank == 1 else 1)
            _glyph(
                image,
                _symbol(card, style),
                style.suit_font,
                size,
                ink,
                (COLUMNS[column] * width, y * height),
                flip=y > 0.55,
            )
    _index(image, card, style, ink)
    return image


def _symbol(card: Card, style: Style) -> str:
    return (HOLLOW if style.hollow else SYMBOLS)[card.suit]


def _index(image: Image.Image, card: Card, style: Style, ink) -> None:
    width, height = image.size
    rank = style.ten if card.rank == 10 else RANKS[card.rank - 1]
    size = style.index_size * height
    x = style.margin * width + size * 0.35
    spots = [(x, style.margin * height + size * 0.5, False)]
    spots.append((width - x, height - style.margin * height - size * 0.5, True))
    if style.four_corners:
        spots += [(width - x, spots[0][1], False), (x, spots[1][1], True)]
    for cx, cy, flip in spots:
        step = size * 0.9 * (-1 if flip else 1)
        _glyph(image, rank, style.index_font, size, ink, (cx, cy), flip=flip)
        _glyph(image, _symbol(card, style), style.suit_font, size * 0.7, ink, (cx, cy + step), flip)


def _glyph(image, text: str, font_path, size: float, ink, centre, flip: bool) -> None:
    font = ImageFont.truetype(str(font_path), max(6, int(size)))
    box = font.getbbox(text)
    w, h = box[2] - box[0], box[3] - box[1]
    stamp = Image.new("RGBA", (w + 4, h + 4), (0, 0, 0, 0))
    ImageDraw.Draw(stamp).text((2 - box[0], 2 - box[1]), text, font=font, fill=(*ink, 255))
    if flip:
        stamp = stamp.rotate(180)
    image.alpha_composite(
        stamp, (int(centre[0] - stamp.width / 2), int(centre[1] - stamp.height / 2))
    )


def _court(image: Image.Image, card: Card, style: Style, ink) -> None:
    """A made-up figure in a frame, mirrored top to bottom like a double-headed court."""
    width, height = image.size
    rng = np.random.default_rng(style.seed + card.index)
    x0, y0 = int(0.2 * width), int(0.14 * height)
    x1, y1 = width - x0, height - y0
    half = Image.new("RGBA", (x1 - x0, (y1 - y0) // 2), (0, 0, 0, 0))
    draw = ImageDraw.Draw(half)
    colours = [ink, (200, 160, 40), (40, 60, 160), (180, 30, 30), (30, 30, 30)]
    for _ in range(int(rng.integers(6, 14))):
        colour = colours[rng.integers(len(colours))]
        a = rng.uniform(0, 1, 2) * half.size
        b = a + rng.uniform(0.1, 0.5, 2) * half.size
        shape = rng.integers(3)
        if shape == 0:
            draw.ellipse([*a, *b], fill=(*colour, 255))
        elif shape == 1:
            draw.rectangle([*a, *b], outline=(*colour, 255), width=int(rng.integers(1, 4)))
        else:
            pts = [tuple(rng.uniform(0, 1, 2) * half.size) for _ in range(3)]
            draw.polygon(pts, fill=(*colour, 255))
    whole = Image.new("RGBA", (x1 - x0, y1 - y0), (0, 0, 0, 0))
    whole.alpha_composite(half, (0, 0))
    whole.alpha_composite(half.rotate(180), (0, whole.height - half.height))
    image.alpha_composite(whole, (x0, y0))
    if style.frame:
        ImageDraw.Draw(image).rectangle([x0, y0, x1, y1], outline=(*ink, 255), width=2)
    if style.court_letter:
        letter = RANKS[card.rank - 1]
        _glyph(image, letter, style.index_font, 0.25 * height, ink, (width / 2, height / 2), False)
    _glyph(
        image,
        _symbol(card, style),
        style.suit_font,
        0.09 * height,
        ink,
        (x0 + 0.08 * width, y0 + 0.06 * height),
        False,
    )


def make(folder: Path, count: int, seed: int, height: int = 400) -> list[Path]:
    """``count`` made-up designs in ``folder/font-<i>/`` (cached: made once)."""
    latin, suited = fonts()
    rng = np.random.default_rng(seed)
    made = []
    for i in range(count):
        style = Style(rng, latin, suited)
        out = folder / f"font-{seed}-{i}"
        made.append(out)
        if (out / ".done").exists():
            continue
        out.mkdir(parents=True, exist_ok=True)
        for card in DECK:
            face(card, style, height).save(out / f"{card.code}.png")
        (out / ".done").touch()
    return made
