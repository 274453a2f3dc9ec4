"""Makes faro_pi/devices/oled/aileron.py: the OLED's type as FreeType drew it, kept as pixels.

The screens were drawn with Pillow's own Aileron (``ImageFont.load_default(size)``,
Pillow ≥ 10.1). Raspberry Pi OS Bookworm has Pillow 9.4, which has no such
call, and another FreeType draws some glyphs a pixel apart. So the OLED no
longer asks FreeType at all: this script draws every glyph of that font once,
here, with the Pillow of the virtualenv, and writes each glyph's pixels, where
Pillow put them and the box it laid them out by, into a plain Python module.
:class:`faro_pi.devices.oled.face.Face` draws words from those pixels exactly
as Pillow drew them (the golden pictures say so), on any Pillow.

Run after a deliberate change of the type, then look at the goldens:
``.venv/bin/python -m tests.oled_face``. Needs Pillow ≥ 10.1.
"""

from __future__ import annotations

import io
from pathlib import Path

import PIL
from PIL import Image, ImageChops, ImageDraw, ImageFont, features

from faro_pi.game.cards import RANKS

OUT = Path(__file__).parent.parent / "faro_pi" / "devices" / "oled" / "aileron.py"
SIZES = {"SMALL": 11, "MEDIUM": 13}
"""The faces the screens write with, by the name the module gives them, and their size."""
RANK_SIZE = 28
MISSING = "\uffff"
"""A character no font maps: FreeType draws glyph 0 (the font's .notdef) for it."""
X, Y = 40, 48
"""Where the test drawings put their origin on a canvas that holds any glyph."""


def aileron() -> bytes:
    """The TrueType bytes Pillow draws ``load_default(size)`` with."""
    return ImageFont.load_default(RANK_SIZE).font_bytes


def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(io.BytesIO(aileron()), size, layout_engine=ImageFont.Layout.BASIC)


def drawn(f: ImageFont.FreeTypeFont, text: str) -> Image.Image:
    """``text`` as the screens drew it: crisp, its baseline's left end at (X, Y)."""
    image = Image.new("1", (4 * X, 2 * Y))
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    draw.text((X, Y), text, font=f, fill=255, anchor="ls")
    return image


def charset(f: ImageFont.FreeTypeFont) -> str:
    """The characters the font has a glyph of (the others draw its .notdef)."""
    missing = (drawn(f, MISSING).tobytes(), f.getlength(MISSING, mode="1"))
    return "".join(
        chr(code)
        for code in range(0x20, 0x3000)
        if (drawn(f, chr(code)).tobytes(), f.getlength(chr(code), mode="1")) != missing
    )


def glyph(f: ImageFont.FreeTypeFont, char: str) -> tuple:
    """``(advance, l, t, r, b, ink x, ink y, corner x, corner y, width, rows)`` of one glyph.

    ``l t r b`` is Pillow's layout box of the glyph alone (``getbbox``); the ink
    is measured behind "H " so that nothing but the pen places it; the corner
    is how far Pillow's drawing of the glyph alone moves it from there (its
    bitmap's corner, where it sticks out of the pen line). ``rows`` are hex,
    the leftmost column the most significant bit of ``width``.
    """
    advance = int(f.getlength(char, mode="1"))
    left, top, right, bottom = f.getbbox(char, mode="1", anchor="ls")
    prefix = "H "
    pen = int(f.getlength(prefix, mode="1"))
    ink = ImageChops.logical_xor(drawn(f, prefix + char), drawn(f, prefix))
    box = ink.getbbox()
    if box is None:
        return (advance, left, top, right, bottom, 0, 0, 0, 0, 0, "")
    ax, ay = box[0] - X - pen, box[1] - Y
    alone = drawn(f, char).getbbox()
    corner_x = left - (alone[0] - X - ax)
    corner_y = -top + (alone[1] - Y - ay)
    width = box[2] - box[0]
    return (
        advance,
        left,
        top,
        right,
        bottom,
        ax,
        ay,
        corner_x,
        corner_y,
        width,
        hex_rows(ink.crop(box)),
    )


def hex_rows(image: Image.Image) -> str:
    width = image.width
    return " ".join(
        f"{sum(1 << (width - 1 - x) for x in range(width) if image.getpixel((x, y))):x}"
        for y in range(image.height)
    )


def rank(rank: int) -> Image.Image:
    """A rank in big type made bold by a 1-pixel stroke, baseline on row 22.

    The stroke is drawn in grey levels even in crisp mode, so it is drawn on
    a grey canvas and cut at half: every pixel of the result is lit or dark.
    """
    big = font(RANK_SIZE)
    text = rank_text(rank)
    canvas = Image.new("L", (round(big.getlength(text, mode="1")) + 3, 26))
    draw = ImageDraw.Draw(canvas)
    draw.fontmode = "1"
    draw.text((1, 22), text, font=big, fill=255, anchor="ls", stroke_width=1, stroke_fill=255)
    return canvas.point(lambda v: 255 if v >= 128 else 0).convert("1")


def quoted(char: str) -> str:
    """A string literal in double quotes, as ruff writes them; escapes only where needed."""
    if not char.isprintable():
        return f'"\\u{ord(char):04x}"'
    return '"' + char.replace("\\", "\\\\").replace('"', '\\"') + '"'


def rank_text(rank: int) -> str:
    return RANKS[rank - 1]


def module() -> str:
    """The text of faro_pi/devices/oled/aileron.py."""
    made_with = f"Pillow {PIL.__version__}, FreeType {features.version('freetype2')}"
    lines = [
        '"""Aileron Regular as the OLED draws it: one-bit glyphs, and the ranks made bold.',
        "",
        "Made by ``python -m tests.oled_face`` (see there) from the subset of Aileron",
        "Regular (Sora Sagano, dotcolon.net; public domain, CC0) that Pillow embeds for",
        "``ImageFont.load_default(size)``, as FreeType drew it in crisp mode. Read by",
        ":mod:`faro_pi.devices.oled.face`; do not edit by hand.",
        "",
        "Each glyph: ``(advance, l, t, r, b, ink x, ink y, corner x, corner y, width, rows)``,",
        "the rows in hex, the leftmost column the most significant of ``width`` bits.",
        '"""',
        "",
        f'MADE_WITH = "{made_with}"',
        f"MISSING = {quoted(MISSING)}",
        '"""The key of the glyph drawn for a character the font lacks."""',
        "",
        "# fmt: off",
    ]
    for name, size in SIZES.items():
        f = font(size)
        lines.append(f"{name} = {{  # {size} px")
        for char in [*charset(f), MISSING]:
            advance, *box, rows = glyph(f, char)
            numbers = ", ".join(map(str, (advance, *box)))
            lines.append(f'    {quoted(char)}: ({numbers}, "{rows}"),')
        lines.append("}")
    lines.append(f"RANKS = {{  # {RANK_SIZE} px, stroked: (advance, width, rows)")
    big = font(RANK_SIZE)
    for number in range(1, len(RANKS) + 1):
        image = rank(number)
        advance = round(big.getlength(rank_text(number), mode="1"))
        rows = hex_rows(image).split(" ")
        lines.append(f"    {quoted(rank_text(number))}: ({advance}, {image.width}, (")
        for at in range(0, len(rows), 9):
            lines.append(f'        "{" ".join(rows[at : at + 9])}",')
        lines.append("    )),")
    lines += ["}", "# fmt: on", ""]
    return "\n".join(lines)


def main() -> None:
    OUT.write_text(module(), encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
