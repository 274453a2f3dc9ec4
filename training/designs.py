"""The card designs the recogniser learns from: Debian's aisleriot and KDE decks.

Each design is rendered once per height with librsvg into the cache (never into git)
as ``<CARD>.png`` for each card it has, plus ``joker*.png`` and ``back.png`` where the
sheet draws them: those teach the model what is not a face. Near-duplicate sheets (two
colourings or a bitmap copy of one artwork, or one deck packaged twice) share a group:
leave-designs-out holds out whole groups.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from faro_pi.game.cards import DECK, Card

AISLERIOT = Path("/usr/share/aisleriot/cards")
KDE = Path("/usr/share/carddecks")
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "faro-pi" / "camera"
SYSTEM_PYTHON = "/usr/bin/python3"
"""Debian's Python, which has librsvg's bindings (see rsvg_render.py)."""


@dataclass(frozen=True)
class Design:
    name: str
    sheet: Path
    group: str
    """Designs of one group are one artwork: held out together."""


# name, sheet, group
_SHEETS = (
    ("ancient_french", AISLERIOT / "ancient_french.svgz", "ancient_french"),
    ("anglo", AISLERIOT / "anglo.svgz", "anglo"),
    ("anglo_bitmap", AISLERIOT / "anglo_bitmap.svgz", "anglo"),
    ("anglo_poker", AISLERIOT / "anglo_poker.svgz", "anglo"),
    ("anglo_modern", AISLERIOT / "anglo_modern.svgz", "anglo_modern"),
    ("anglo_modern_4", AISLERIOT / "anglo_modern_4_color.svgz", "anglo_modern"),
    ("atlasnye", AISLERIOT / "atlasnye.svgz", "atlasnye"),
    ("atlasnye_skat", AISLERIOT / "atlasnye_skat.svgz", "atlasnye"),
    ("atlasnye_ru", AISLERIOT / "Атласные.svgz", "atlasnye"),
    ("bellot", AISLERIOT / "bellot.svgz", "bellot"),
    ("berlin", AISLERIOT / "berlin.svgz", "berlin"),
    ("dondorf", AISLERIOT / "dondorf.svgz", "dondorf"),
    ("dondorf_kde", KDE / "svg-dondorf/dondorf.svgz", "dondorf"),
    ("gnomangelo", AISLERIOT / "gnomangelo.svgz", "gnomangelo"),
    ("gnomangelo_bitmap", AISLERIOT / "gnomangelo_bitmap.svgz", "gnomangelo"),
    ("guyenne", AISLERIOT / "guyenne-classic.svgz", "guyenne"),
    ("lattmann", AISLERIOT / "lattmann.svgz", "lattmann"),
    ("neoclassical", AISLERIOT / "neoclassical.svgz", "neoclassical"),
    ("neoclassical_4", AISLERIOT / "neoclassical_4_color.svgz", "neoclassical"),
    ("orell", AISLERIOT / "orell.svgz", "orell"),
    ("ornamental", AISLERIOT / "ornamental.svgz", "ornamental"),
    ("ornamental_kde", KDE / "svg-nicu-ornamental/ornamental.svgz", "ornamental"),
    ("paris", AISLERIOT / "paris.svgz", "paris"),
    ("paris_kde", KDE / "svg-gm-paris/paris.svgz", "paris"),
    ("plastic", AISLERIOT / "plastic.svgz", "plastic"),
    ("rheinland", AISLERIOT / "rheinland.svgz", "rheinland"),
    ("simplistic", AISLERIOT / "simplistic.svgz", "simplistic"),
    ("slavic", AISLERIOT / "slavic_costumes.svgz", "slavic"),
    ("swiss", AISLERIOT / "swiss-xvii.svgz", "swiss"),
    ("tango", AISLERIOT / "tango.svgz", "tango"),
    ("tango_nuevo", AISLERIOT / "tango_nuevo.svgz", "tango"),
    ("tarocco", AISLERIOT / "tarocco.svgz", "tarocco"),
    ("tigullio", AISLERIOT / "tigullio.svgz", "tigullio"),
    ("tigullio_kde", KDE / "svg-tigullio-international/tigullio-international.svgz", "tigullio"),
    ("egyptians", KDE / "svg-ancient-egyptians/Ancient_Egyptians.svgz", "egyptians"),
    ("future", KDE / "svg-future/future.svgz", "future"),
    ("jolly_royal", KDE / "svg-jolly-royal/jolly-royal.svgz", "jolly_royal"),
    ("konqi", KDE / "svg-konqi-modern/konqi.svgz", "konqi"),
    ("nicu_white", KDE / "svg-nicu-white/white.svgz", "nicu_white"),
    ("oxygen", KDE / "svg-oxygen/oxygen.svgz", "oxygen"),
    ("oxygen_air", KDE / "svg-oxygen-air/oxygen-air.svgz", "oxygen"),
    ("oxygen_white", KDE / "svg-oxygen-white/oxygen-white.svgz", "oxygen"),
    ("penguins", KDE / "svg-penguins/penguins.svgz", "penguins"),
    ("standard", KDE / "svg-standard/standard.svgz", "standard"),
    ("xskat_french", KDE / "svg-xskat-french/french.svgz", "xskat_french"),
)
LEFT_OUT = {
    "future": "its indices are not a French deck's (Ø, B, C for the courts)",
    "oxygen": "a dark face: not the light card the reader is made for",
    "swiss": "Swiss suits and figures, not French ones",
    "dondorf": "the sheet's courts do not render apart; its KDE copy stands for it",
    "tigullio_kde": "no element of the sheet renders apart; its aisleriot copy stands for it",
}
"""Sheets of the packages not learnt from, and why."""

DESIGNS = tuple(Design(n, s, g) for n, s, g in _SHEETS if n not in LEFT_OUT)

TEST_GROUPS = ("standard", "bellot", "plastic", "neoclassical")
"""Held out of training and calibration alike: what the benchmark measures on."""
CALIBRATION_GROUPS = ("gnomangelo", "orell", "tigullio", "rheinland")
"""Held out of training: the temperature and the threshold are chosen on them."""


def split(designs=DESIGNS) -> dict[str, list[Design]]:
    """The designs by role: ``train``, ``calibrate``, ``test`` (whole groups each)."""
    roles: dict[str, list[Design]] = {"train": [], "calibrate": [], "test": []}
    for design in designs:
        if design.group in TEST_GROUPS:
            roles["test"].append(design)
        elif design.group in CALIBRATION_GROUPS:
            roles["calibrate"].append(design)
        else:
            roles["train"].append(design)
    return roles


_SUIT_WORDS = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
_RANK_WORDS = {1: ("1", "ace"), 11: ("jack",), 12: ("queen",), 13: ("king",)}
NOT_A_FACE = {
    "joker_black": ("black_joker", "joker_black", "joker"),
    "joker_red": ("red_joker", "joker_red"),
    "back": ("back", "card_back", "cardback", "back_c1"),
}
"""What else a sheet may draw, and the ids it goes by."""


def element_ids(card: Card) -> tuple[str, ...]:
    """The ids an aisleriot (``club_king``) or KDE (``king_club``) sheet gives ``card``."""
    suit = _SUIT_WORDS[card.suit]
    ranks = _RANK_WORDS.get(card.rank, (str(card.rank),))
    return tuple(f"{suit}_{r}" for r in ranks) + tuple(f"{r}_{suit}" for r in ranks)


def render(design: Design, height: int, cache: Path = CACHE) -> Path:
    """The folder of ``design``'s cards at ``height`` px, rendered on first use.

    Rendered into a folder of its own and then renamed into place, so that another
    process (a test beside this one, a training worker) never reads half a design."""
    folder = cache / "designs" / str(height) / design.name
    if (folder / ".done").exists():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{design.name}-", dir=folder.parent))
    wanted = [f"{card.code}={','.join(element_ids(card))}" for card in DECK]
    wanted += [f"{name}={','.join(ids)}" for name, ids in NOT_A_FACE.items()]
    script = Path(__file__).with_name("rsvg_render.py")
    try:
        subprocess.run(
            [SYSTEM_PYTHON, str(script), str(design.sheet), str(work), str(height), *wanted],
            check=True,
            capture_output=True,
        )
        (work / ".done").touch()
        if folder.exists() and not (folder / ".done").exists():
            shutil.rmtree(folder, ignore_errors=True)  # a render cut short, before this one
        os.rename(work, folder)
    except OSError:
        if not (folder / ".done").exists():
            raise
    finally:
        shutil.rmtree(work, ignore_errors=True)  # gone when renamed; another won the race
    return folder


def render_all(designs=DESIGNS, height: int = 400, workers: int = 2) -> dict[str, Path]:
    with ThreadPoolExecutor(workers) as pool:
        folders = list(pool.map(lambda d: render(d, height), designs))
    return {d.name: f for d, f in zip(designs, folders, strict=True)}


if __name__ == "__main__":
    for name, folder in render_all().items():
        cards = sum(1 for p in folder.glob("*.png") if p.stem[0].isalnum() and "_" not in p.stem)
        extra = sorted(
            p.stem for p in folder.glob("*.png") if not p.stem[0].isdigit() and len(p.stem) > 3
        )
        print(name, cards, extra)
