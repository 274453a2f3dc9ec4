"""What the OLED's screens are drawn with: the suits, the type, the words, the cards.

Everything is drawn in Pillow's crisp one-bit mode, so every pixel is lit or
dark and nothing is thresholded; the ranks are Pillow's own type made bold,
the suits are bitmaps. Where each thing goes on the screen is
:mod:`~faro_pi.devices.oled.screens`' business.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from faro_pi.game.cards import SUIT_SYMBOLS, Card, rank_name

WIDTH, HEIGHT = 128, 64
LIT, DARK = 255, 0
"""A pixel on and off, as a one-bit image holds them."""
SPACE = 4
"""Pixels between words: the font's own space is 2 in crisp mode, too little across a table."""

# The suits are drawn from these bitmaps, not from a font (Pillow's has no
# suit glyphs): 15×15 beside the big ranks of the turn, where a suit fills two
# of the controller's pages and no more, and 9×9 as the index of a row of three.
SUITS = {
    "S": (
        ".......#.......",
        "......###......",
        ".....#####.....",
        "....#######....",
        "...#########...",
        "..###########..",
        ".#############.",
        "###############",
        "###############",
        "###############",
        ".#####.#.#####.",
        "..###..#..###..",
        "......###......",
        ".....#####.....",
        "....#######....",
    ),
    "H": (
        "...............",
        "..####...####..",
        ".######.######.",
        "###############",
        "###############",
        "###############",
        "###############",
        ".#############.",
        "..###########..",
        "...#########...",
        "....#######....",
        ".....#####.....",
        "......###......",
        ".......#.......",
        "...............",
    ),
    "D": (
        ".......#.......",
        "......###......",
        ".....#####.....",
        ".....#####.....",
        "....#######....",
        "...#########...",
        "..###########..",
        ".#############.",
        "..###########..",
        "...#########...",
        "....#######....",
        ".....#####.....",
        ".....#####.....",
        "......###......",
        ".......#.......",
    ),
    "C": (
        "......###......",
        ".....#####.....",
        "....#######....",
        "....#######....",
        "....#######....",
        ".....#####.....",
        "..###.###.###..",
        ".#############.",
        "###############",
        "###############",
        ".#####.#.#####.",
        "..###..#..###..",
        "......###......",
        ".....#####.....",
        "....#######....",
    ),
}
"""The suits beside the big ranks."""

PIPS = {
    "S": (
        "....#....",
        "...###...",
        "..#####..",
        ".#######.",
        "#########",
        "#########",
        ".##.#.##.",
        "....#....",
        "...###...",
    ),
    "H": (
        ".##...##.",
        "####.####",
        "#########",
        "#########",
        ".#######.",
        "..#####..",
        "...###...",
        "....#....",
        ".........",
    ),
    "D": (
        "....#....",
        "...###...",
        "..#####..",
        ".#######.",
        "#########",
        ".#######.",
        "..#####..",
        "...###...",
        "....#....",
    ),
    "C": (
        "...###...",
        "..#####..",
        "..#####..",
        "##.###.##",
        "#########",
        "##.###.##",
        "....#....",
        "...###...",
        "..#####..",
    ),
}
"""The suits as a small index, for rows of three cards."""


SHOE = (
    "..#####",
    "..#...#",
    "#####.#",
    "#...#.#",
    "#...#.#",
    "#...###",
    "#...#..",
    "#####..",
)
"""Two cards, one behind the other: the cards still in the shoe, beside their number."""


@cache
def bitmap(rows: tuple[str, ...]) -> Image.Image:
    """A one-bit image of ``rows``, ``#`` lit."""
    image = Image.new("1", (len(rows[0]), len(rows)))
    image.putdata([LIT if c == "#" else DARK for row in rows for c in row])
    return image


def _suit(suit: str, small: bool) -> Image.Image:
    return bitmap((PIPS if small else SUITS)[suit])


@cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's own font (Aileron), so nothing but the installed packages is needed."""
    return ImageFont.load_default(size)


def small() -> ImageFont.FreeTypeFont:
    return _font(11)


def medium() -> ImageFont.FreeTypeFont:
    return _font(13)


def big() -> ImageFont.FreeTypeFont:
    return _font(28)


# -- type ---------------------------------------------------------------------------


def write(draw, x: float, y: int, text: str, font=None, fill: int = LIT) -> float:
    """Draws ``text`` with its baseline on row ``y``, word by word; returns where it ends."""
    font = font or small()
    for word in text.split(" "):
        if word:
            draw.text((x, y), word, font=font, fill=fill, anchor="ls")
        x += font.getlength(word, mode="1") + SPACE
    return x - SPACE


def write_right(draw, y: int, text: str, font=None, fill: int = LIT, end: int = WIDTH) -> float:
    """Draws ``text`` with its last lit column just before ``end``; returns where it starts."""
    font = font or small()
    head, _, last = text.rpartition(" ")
    ink = font.getbbox(last, mode="1", anchor="ls")[2]
    x = end - ink - (text_width(head, font) + SPACE if head else 0)
    write(draw, x, y, text, font, fill)
    return x


def signed(amount: int) -> str:
    return f"{amount:+d}" if amount else "±0"


def plain(text: str) -> str:
    """The text in the letters the font has: accents dropped, suits as their letters."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).translate(_SUIT_LETTERS)


_SUIT_LETTERS = str.maketrans({symbol: letter for letter, symbol in SUIT_SYMBOLS.items()})


def text_width(text: str, font: ImageFont.FreeTypeFont | None = None) -> float:
    """How wide :func:`write` draws ``text``."""
    font = font or small()
    words = text.split(" ")
    return sum(font.getlength(w, mode="1") for w in words) + SPACE * (len(words) - 1)


def fit(text: str, width: float, font: ImageFont.FreeTypeFont | None = None) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    font = font or small()
    text = plain(text)
    if text_width(text, font) <= width:
        return text
    while text and text_width(text + "…", font) > width:
        text = text[:-1]
    return text + "…"


def wrap(text: str, font: ImageFont.FreeTypeFont, width: int, lines: int) -> list[str]:
    """Words to lines of ``width`` pixels; the last line ends in an ellipsis if cut."""
    out: list[str] = []
    words = text.split()
    while words and len(out) < lines:
        line = words.pop(0)
        while words and text_width(line + " " + words[0], font) <= width:
            line += " " + words.pop(0)
        out.append(fit(line, width, font))
    if words and out:
        out[-1] = fit(out[-1] + " " + " ".join(words), width, font)
    return out


# -- cards --------------------------------------------------------------------------


def card_width(card: Card, index: bool = False) -> int:
    """How wide :func:`draw_card` draws ``card``."""
    return (
        round(big().getlength(rank_name(card.rank), mode="1")) + 3 + _suit(card.suit, index).width
    )


@cache
def _rank(rank: int) -> Image.Image:
    """A rank in big type made bold by a 1-pixel stroke, baseline on row 22.

    The stroke is drawn in grey levels even in crisp mode, so it is drawn on
    a grey canvas and cut at half: every pixel of the result is lit or dark.
    """
    text = rank_name(rank)
    canvas = Image.new("L", (round(big().getlength(text, mode="1")) + 3, 26))
    draw = ImageDraw.Draw(canvas)
    draw.fontmode = "1"
    draw.text((1, 22), text, font=big(), fill=LIT, anchor="ls", stroke_width=1, stroke_fill=LIT)
    return canvas.point(lambda v: LIT if v >= 128 else DARK).convert("1")


def draw_card(
    image: Image.Image, x: int, baseline: int, card: Card, index: bool = False, ink: int = LIT
) -> None:
    """A card: its rank in big bold type, its suit beside it, top-aligned like a card's index."""
    image.paste(ink, (x - 1, baseline - 22), _rank(card.rank))
    suit = _suit(card.suit, index)
    at = (x + round(big().getlength(rank_name(card.rank), mode="1")) + 3, baseline - 20)
    image.paste(ink, at, suit)
