"""The OLED's type, drawn from pixels kept in :mod:`~faro_pi.devices.oled.aileron`.

The screens were drawn with Pillow's Aileron through FreeType. Pillow only
offers that font at a size from 10.1 on, and Raspberry Pi OS Bookworm has 9.4;
another FreeType also draws some glyphs a pixel apart. So the glyphs are kept
as the pixels FreeType drew once (``python -m tests.oled_face``), and a
:class:`Face` puts them down the way Pillow's crisp mode did: the same pen, the
same layout box, the same quirk of a glyph whose bitmap starts inside its box.
Only ``Image.new``, ``paste`` and ``ImageDraw.bitmap`` are used, which every
Pillow has, and a word costs a few pastes instead of a FreeType rendering.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from PIL import Image

from faro_pi.devices.oled import aileron

LIT = 255


class Glyph(NamedTuple):
    """One character: how far it moves the pen, its layout box, and its ink."""

    advance: int
    box: tuple[int, int, int, int]
    """Left, top, right, bottom from the pen on the baseline (y down), as Pillow lays it out."""
    ink: Image.Image | None
    at: tuple[int, int]
    """Where the ink's top-left pixel is from the pen."""
    corner: tuple[int, int]
    """The bitmap's left (≤ 0) and top (≥ 0) where they stick out of the pen line; a
    word's drawing is moved by the difference between these and its layout box."""


def _bitmap(width: int, rows: list[str]) -> Image.Image:
    image = Image.new("1", (width, len(rows)))
    image.putdata(
        [LIT if int(row, 16) >> (width - 1 - x) & 1 else 0 for row in rows for x in range(width)]
    )
    return image


def _glyph(entry: tuple) -> Glyph:
    advance, left, top, right, bottom, ax, ay, cx, cy, width, rows = entry
    ink = _bitmap(width, rows.split()) if width else None
    return Glyph(advance, (left, top, right, bottom), ink, (ax, ay), (cx, cy))


class Face:
    """A one-bit typeface at one size; :meth:`draw` puts a word where Pillow's ``text`` did.

    Measures as Pillow's ``FreeTypeFont`` did in mode ``"1"`` with the anchor
    ``"ls"`` (the baseline's left end): :meth:`getlength` and :meth:`getbbox`.
    """

    def __init__(self, glyphs: dict[str, tuple], missing: str = aileron.MISSING):
        self._glyphs = {char: _glyph(entry) for char, entry in glyphs.items()}
        self._missing = self._glyphs[missing]
        self.words = lru_cache(maxsize=512)(self._word)
        """The drawing of a word and where it goes from the pen, kept for the words that recur."""

    def glyph(self, char: str) -> Glyph:
        """The glyph of ``char``; the font's box for a character it lacks."""
        return self._glyphs.get(char, self._missing)

    def getlength(self, text: str) -> int:
        """How far the pen moves over ``text``."""
        return sum(self.glyph(char).advance for char in text)

    def getbbox(self, text: str) -> tuple[int, int, int, int]:
        """The layout box of ``text`` from the pen on the baseline: left, top, right, bottom.

        It holds every glyph's box and the pen's line from 0 to where it ends.
        """
        pen = left = top = right = bottom = 0
        for char in text:
            glyph = self.glyph(char)
            g_left, g_top, g_right, g_bottom = glyph.box
            left, right = min(left, pen + g_left), max(right, pen + g_right)
            top, bottom = min(top, g_top), max(bottom, g_bottom)
            pen += glyph.advance
        return left, top, max(right, pen), bottom

    def _word(self, text: str) -> tuple[Image.Image, tuple[int, int]] | None:
        left, top, right, bottom = self.getbbox(text)
        pen = corner_x = corner_y = 0
        placed = []
        for char in text:
            glyph = self.glyph(char)
            if glyph.ink is not None:
                corner_x = min(corner_x, pen + glyph.corner[0])
                corner_y = max(corner_y, glyph.corner[1])
                placed.append((pen, glyph))
            pen += glyph.advance
        if not placed or right <= left or bottom <= top:
            return None
        # Pillow sizes the word by its layout box and starts the pen at the bitmaps'
        # corner; whatever falls outside the box is cut, as there.
        word = Image.new("1", (right - left, bottom - top))
        for pen, glyph in placed:
            word.paste(LIT, (pen - corner_x + glyph.at[0], corner_y + glyph.at[1]), glyph.ink)
        return word, (left, top)

    def draw(self, draw, xy: tuple[float, float], text: str, fill: int = LIT) -> None:
        """Draws ``text`` with its baseline's left end at ``xy`` (whole pixels), in ``fill``."""
        word = self.words(text)
        if word is not None:
            image, (left, top) = word
            draw.bitmap((round(xy[0]) + left, round(xy[1]) + top), image, fill=fill)


class Ranks:
    """The ranks in big bold type, as whole pictures: baseline on row 22, one column in."""

    def __init__(self, ranks: dict[str, tuple]):
        self._ranks = {
            name: (advance, _bitmap(width, " ".join(rows).split()))
            for name, (advance, width, rows) in ranks.items()
        }

    def getlength(self, name: str) -> int:
        """How far the pen moves over the rank ``name`` (``"10"``, ``"K"``)."""
        return self._ranks[name][0]

    def image(self, name: str) -> Image.Image:
        return self._ranks[name][1]


SMALL = Face(aileron.SMALL)
"""11-pixel type: capitals 8 rows high."""
MEDIUM = Face(aileron.MEDIUM)
"""13-pixel type, for titles."""
RANKS = Ranks(aileron.RANKS)
"""28-pixel ranks made bold."""
