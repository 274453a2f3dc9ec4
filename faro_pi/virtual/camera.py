"""A camera over a simulated dealing box: the top card's face, as the camera would see it.

The simulator deals through it instead of the barcode reader: it is handed a design (52
face images named by their codes, ``KD.png``, ``10H.png``) and shows each card as it comes
on top, rendered by the camera's model (:func:`faro_pi.camera.scene.view`, its nominal
view: straight down, the light even, the card either way up) on the box's grain. Like a
real camera it gives frames one at a time: while a card is drawn the view is between
the old top card and the new one; once it lies still, frames differ only by the sensor's
noise. Only the view is simulated; reading it is the camera reader's own code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from faro_pi.camera import images, scene
from faro_pi.exc import FaroError
from faro_pi.game.cards import CARD_BY_CODE, DECK, Card

NOISE = 2.0
"""The sensor's noise on a still frame, in grey levels."""
EXPOSURE = 0.92
"""The camera's exposure as a club sets it by the aiming view: the card's paper a little
under white (about 235), where the light check passes, not clipped."""
FIELDS = 5
HAND = 3
"""Frames a hand passing over the box is seen in."""
"""Fields of the sensor's noise the frames take in turn."""
DRAWN = (0.3, 0.7)
"""The frames while a card is drawn: this much of the way from the old view to the new."""


class DesignError(FaroError):
    """A design folder that is not the 52 faces of one deck."""


def load_design(folder: str | Path) -> dict[Card, np.ndarray]:
    """The 52 faces (RGBA) in ``folder``, each an image named by its code (``T`` for 10 is
    taken); :class:`DesignError` names what is wrong: no folder, a card missing or twice."""
    try:
        paths = images.in_folder(folder)
    except images.ImageError as exc:
        raise DesignError(f"{exc}: a design is a folder of 52 faces, KD.png, 10H.png...") from None
    faces: dict[Card, np.ndarray] = {}
    for path in paths:
        card = CARD_BY_CODE.get(path.stem.upper().replace("T", "10", 1))
        if card in faces:
            raise DesignError(f"{path}: {card.code} is given twice")
        if card is not None:
            faces[card] = images.read_face(path)
    missing = [card.code for card in DECK if card not in faces]
    if missing:
        raise DesignError(
            f"{folder}: a design is 52 faces named by their codes (KD.png, 10H.png): "
            f"missing {' '.join(missing)}"
        )
    return faces


class VirtualCamera:
    """The box under a camera: :meth:`lay` a card on top (or none), then take frames."""

    def __init__(self, faces: dict[Card, np.ndarray], rng: np.random.Generator, size=(640, 480)):
        self.faces, self.rng, self.size = faces, rng, size
        self._view = scene.empty(rng, size).astype(np.float32)
        self._drawn: list[np.ndarray] = []
        shape = (size[1], size[0], 3)
        # a few fields of noise, taken in turn: drawing it afresh costs more than the read
        self._noise = [rng.standard_normal(shape, np.float32) * NOISE for _ in range(FIELDS)]
        self._frames = 0
        self.at_rest = True
        """Whether the frame given last showed the box at rest: no card being drawn, no hand."""

    def lay(self, card: Card | None) -> None:
        """``card`` comes on top (None: the box is emptied); the next frames show it drawn."""
        if card is None:
            new = scene.empty(self.rng, self.size)
        else:
            new = scene.view(self.faces[card], self.rng, self.size, nominal=True)
        new = new.astype(np.float32)
        self._drawn += [self._view + (new - self._view) * share for share in DRAWN]
        self._view = new

    def still(self, card: Card) -> np.ndarray:
        """A frame of ``card`` lying in the box, the view left as it is."""
        view = scene.view(self.faces[card], self.rng, self.size, nominal=True).astype(np.float32)
        return np.clip(view * EXPOSURE + self._noise[0], 0, 255).astype(np.uint8)

    def pass_hand(self) -> None:
        """A hand over the box and away: the next frames show it, then the box again."""
        hand = scene.hand(np.clip(self._view, 0, 255).astype(np.uint8), self.rng)
        self._drawn += [hand.astype(np.float32)] * HAND

    def frame(self) -> np.ndarray:
        """The camera's next frame: the card being drawn, then the box at rest."""
        self.at_rest = not self._drawn
        image = self._drawn.pop(0) if self._drawn else self._view
        self._frames += 1
        noisy = image * EXPOSURE + self._noise[self._frames % FIELDS]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def resting(self) -> np.ndarray:
        """A frame of the box at rest as it lies now, taking none of the frames of a card
        being drawn (the aiming view's, between cards)."""
        noisy = self._view * EXPOSURE + self._noise[self._frames % FIELDS]
        return np.clip(noisy, 0, 255).astype(np.uint8)

    def close(self) -> None:
        self._drawn = []
