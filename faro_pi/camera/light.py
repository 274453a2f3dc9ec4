"""The light a card can be read in: what the reader and the doctor's ``light`` check both
hold a card's face to.

The face's paper is its grey level's 90th percentile (the face being mostly paper), its
contrast the paper against the darkest ink (the 2nd percentile). Under ``READABLE`` the
box is too dim to read in: the reader says no-read there rather than read a face it was
never made for; under ``PAPER[0]``, a little higher, the doctor says to light it better.
The contrast and the evenness are the doctor's alone: a card of pale ink in the
contract's light may show less contrast than ``CONTRAST`` and still read.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from faro_pi.camera import finder

PAPER = (110, 250)
"""The card's paper, grey levels, as the doctor would have it: under it the light is too
dim, over it washed out (the sensor clips: the palest ink is lost)."""
READABLE = 100
"""The paper's least level that the reader reads at: under the doctor's, since the view
contract's dimmest light with its fall-off across the card brings the paper to about
109 (and no lower in 800 views of five held-out designs), while a third of that light
puts it near 80."""
CONTRAST = 90
"""The least spread of grey levels on the card (ink against paper) for its indices."""
EVEN = 0.65
"""The dimmest quarter of the paper against the brightest: under it, light or glare is
uneven across the card."""


def paper_level(face: np.ndarray) -> float:
    """A face's paper (BGR, its upright cut): its grey level's 90th percentile."""
    return float(np.percentile(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), 90))


def readable(face: np.ndarray) -> bool:
    """Light enough to read in: the reader's no-read under ``READABLE``, never a guess.
    The paper alone is measured: this is on every read's path."""
    return paper_level(face) >= READABLE


@dataclass(frozen=True)
class Light:
    """How a card's face is lit, measured on its upright cut (BGR)."""

    paper: float
    contrast: float
    evenness: float

    @classmethod
    def of(cls, face: np.ndarray) -> Light:
        grey = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        paper = paper_level(face)
        quarters = [q for half in np.array_split(grey, 2) for q in np.array_split(half, 2, 1)]
        levels = [float(np.percentile(q, 90)) for q in quarters]
        return cls(paper, paper - float(np.percentile(grey, 2)), min(levels) / max(*levels, 1.0))

    @property
    def too_dim(self) -> bool:
        """Too dim a box for the doctor to pass the light."""
        return self.paper < PAPER[0]

    @property
    def inkless(self) -> bool:
        """Too little ink for the doctor to pass the light: the lens out of focus, or
        dirty."""
        return self.contrast < CONTRAST

    def __str__(self) -> str:
        return (
            f"paper {self.paper:.0f}/255, contrast {self.contrast:.0f}, "
            f"evenness {self.evenness:.2f}"
        )


@dataclass(frozen=True)
class Verdict:
    """The light check's verdict on a view of the box: the doctor's ``light`` and the
    lookout's aiming view say the same."""

    good: bool
    said: str
    fix: str = ""
    outline: np.ndarray | None = None
    """The card's four corners as the finder sees them, in the frame's pixels; None when
    it finds none."""


def judge(frame: np.ndarray) -> Verdict:
    """Whether the card in ``frame`` (BGR) is found, and its light in range."""
    quad = finder.outline(frame)
    if quad is None:
        level = float(np.percentile(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), 99))
        return Verdict(
            False,
            f"no card found in the box (its brightest part is {level:.0f}/255)",
            "lay a card face up in the box; light it from above with a diffuse lamp, "
            "and aim the camera so that the whole card shows",
        )
    light = Light.of(finder.cut(frame, quad))
    wrong = (
        (light.too_dim, "the card is too dark",
         "more light over the box, or a longer exposure (a brighter lamp; camera.rate lower)"),
        (light.paper > PAPER[1], "the card is washed out",
         "less light, or diffuse it more (a sheet of opal acrylic)"),
        (light.inkless, "the card's ink hardly shows",
         "focus the camera on the card; clean the lens"),
        (light.evenness < EVEN, "the light is uneven across the card",
         "move the lamp so that no glare or shadow falls on the card"),
    )  # fmt: skip
    for bad, what, fix in wrong:
        if bad:
            return Verdict(False, f"{what} ({light})", fix, quad)
    return Verdict(True, f"card found, {light}", outline=quad)
