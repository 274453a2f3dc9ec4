"""The machine's fonts that made-up designs set their indices and suits in: Debian's font
packages (the Makefile's CAMERA_DEBS), each checked to draw every index character."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from PIL import ImageFont

FONT_FOLDERS = (
    Path("/usr/share/fonts/opentype/urw-base35"),
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/truetype/freefont"),
    Path("/usr/share/fonts/truetype/liberation"),
    Path("/usr/share/texmf/fonts/opentype/public/tex-gyre"),
    Path("/usr/share/fonts/opentype/linux-libertine"),
    Path("/usr/share/fonts/opentype/ebgaramond"),
    Path("/usr/share/fonts/truetype/open-sans"),
    Path("/usr/share/fonts/truetype/lato"),
    Path("/usr/share/fonts/truetype/roboto/unhinted"),
    Path("/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF"),
    Path("/usr/share/fonts/opentype/cantarell"),
    Path("/usr/share/fonts/truetype/fonts-oldstandard"),
    Path("/usr/share/fonts/opentype/comic-neue"),
    Path("/usr/share/texmf/fonts/opentype/public/lm"),
    Path("/usr/share/fonts/truetype/cmu"),
    Path("/usr/share/fonts/opentype/didot"),
    Path("/usr/share/fonts/truetype/adf"),
    Path("/usr/share/fonts/truetype/fonts-century-catalogue"),
    Path("/usr/share/fonts/opentype/junicode"),
    Path("/usr/share/fonts/truetype/crosextra"),
    Path("/usr/share/fonts/opentype/yanone-kaffeesatz"),
    Path("/usr/share/fonts/opentype/bebas-neue"),
    Path("/usr/share/fonts/opentype/league-spartan"),
    Path("/usr/share/fonts/opentype/inter"),
    Path("/usr/share/fonts/opentype/stix"),
    Path("/usr/share/fonts/truetype/gentium"),
)
NOT_LETTERS = ("Math", "Symbol", "D050000L", "LinBiolinum_K")
"""Math, symbol and dingbat faces, and Biolinum's keyboard keys: no index is set in them."""
HELD_OUT = ("lato", "gentium", "cantarell", "crosextra", "liberation")
"""Font families (folders) the training's made-up designs never use: the calibration's
made-up designs are set in them alone, so the threshold is chosen on typefaces and suit
glyphs the model never saw, as it will meet them on a club's deck."""
INDEX_CHARS = "A2345678910JQK"
SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def fonts(held: bool = False) -> tuple[list[Path], list[Path]]:
    """The fonts that draw every index character, and those that draw the suit symbols too:
    of the families training uses, or of those ``HELD_OUT`` of it when ``held``."""
    latin, suited = [], []
    for folder in FONT_FOLDERS:
        if (folder.name in HELD_OUT) != held:
            continue
        for path in sorted(folder.glob("*.[ot]tf")):
            if any(word in path.name for word in NOT_LETTERS):
                continue
            font = ImageFont.truetype(str(path), 40)
            if not all(has(font, char) for char in INDEX_CHARS):
                continue
            latin.append(path)
            if all(font.getbbox(s)[2] > 4 and has(font, s) for s in SYMBOLS.values()):
                suited.append(path)
    return latin, suited


def pick(paths: list[Path], rng) -> Path:
    """A font drawn family by family (a font package's folder), then face by face: Latin
    Modern's 72 optical sizes and weights are one family's look, not 72 designs' worth."""
    families = _families(tuple(paths))
    faces = families[rng.integers(len(families))]
    return faces[rng.integers(len(faces))]


@lru_cache(maxsize=8)
def _families(paths: tuple[Path, ...]) -> list[list[Path]]:
    """``paths`` by family, the families in order of their folders' names."""
    by_family: dict[Path, list[Path]] = {}
    for path in paths:
        by_family.setdefault(path.parent, []).append(path)
    return [by_family[family] for family in sorted(by_family)]


def has(font, char: str) -> bool:
    """Whether the font draws ``char`` itself (not the missing-glyph box)."""
    mask, missing = font.getmask(char), font.getmask("\uffff")
    return mask.size != missing.size or bytes(mask) != bytes(missing)


@lru_cache(maxsize=512)
def loaded(path: Path, size: int) -> ImageFont.FreeTypeFont:
    """A font at a size, loaded once: a design draws each glyph many times."""
    return ImageFont.truetype(str(path), max(6, size))
