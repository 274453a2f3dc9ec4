"""What the OLED's screens are drawn with: the suits, the type, the words, the cards.

Everything is one bit, so every pixel is lit or dark and nothing is
thresholded: the type and the bold ranks are Aileron as FreeType drew it once
(:mod:`~faro_pi.devices.oled.face`), the suits are bitmaps. Where each thing
goes on the screen is :mod:`~faro_pi.devices.oled.screens`' business.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from PIL import Image

from faro_pi.devices.oled.face import MEDIUM, RANKS, SMALL, Face
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


def small() -> Face:
    return SMALL


def medium() -> Face:
    return MEDIUM


# -- type ---------------------------------------------------------------------------


def write(draw, x: float, y: int, text: str, font=None, fill: int = LIT) -> float:
    """Draws ``text`` with its baseline on row ``y``, word by word; returns where it ends."""
    font = font or small()
    for word in text.split(" "):
        if word:
            font.draw(draw, (x, y), word, fill)
        x += font.getlength(word) + SPACE
    return x - SPACE


def write_right(draw, y: int, text: str, font=None, fill: int = LIT, end: int = WIDTH) -> float:
    """Draws ``text`` with its last lit column just before ``end``; returns where it starts."""
    font = font or small()
    head, _, last = text.rpartition(" ")
    ink = font.getbbox(last)[2]
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


def text_width(text: str, font: Face | None = None) -> float:
    """How wide :func:`write` draws ``text``."""
    font = font or small()
    words = text.split(" ")
    return sum(font.getlength(w) for w in words) + SPACE * (len(words) - 1)


def fit(text: str, width: float, font: Face | None = None) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    font = font or small()
    text = plain(text)
    if text_width(text, font) <= width:
        return text
    while text and text_width(text + "…", font) > width:
        text = text[:-1]
    return text + "…"


def wrap(text: str, font: Face, width: int, lines: int) -> list[str]:
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
    return RANKS.getlength(rank_name(card.rank)) + 3 + _suit(card.suit, index).width


def draw_card(
    image: Image.Image, x: int, baseline: int, card: Card, index: bool = False, ink: int = LIT
) -> None:
    """A card: its rank in big bold type, its suit beside it, top-aligned like a card's index."""
    image.paste(ink, (x - 1, baseline - 22), RANKS.image(rank_name(card.rank)))
    suit = _suit(card.suit, index)
    at = (x + RANKS.getlength(rank_name(card.rank)) + 3, baseline - 20)
    image.paste(ink, at, suit)
