"""Views just past the camera's contract (:mod:`.scene`): where the reader must say no-read
rather than guess. What ``bench_camera_past`` and the tests hold the reader to."""

from __future__ import annotations

import numpy as np

from faro_pi.camera import scene

KINDS = (
    "sliding",
    "two_cards",
    "glare_on_indices",
    "back",
    "empty_glare",
    "dim",
    "bright",
    "askew",
    "off_centre",
)
"""Views just past the contract, where the reader must say no-read rather than guess: a
card being drawn off the next (smeared), the top card held still 25–65 % off the next,
glare on both index corners, a card's back, an empty box with a glare spot on its floor,
light ×0.3 and ×2.0, a card turned up to 15° and up to 20 % off centre."""
NO_CARD = ("back", "empty_glare")
"""Kinds that show no card's face: any card read is wrong."""
TWO = ("sliding", "two_cards")
"""Kinds that show two cards: reading either is fair, a third card is wrong."""


def view(
    kind: str, face: np.ndarray, under: np.ndarray, rng: np.random.Generator, size=(640, 480)
) -> np.ndarray:
    """A still of ``kind`` (one of ``KINDS``): ``face`` on top, ``under`` the card below."""
    if kind == "sliding":
        pulled, smear = rng.uniform(0.1, 0.9), rng.uniform(0.03, 0.15)
        return scene.view(face, rng, size, under=under, pulled=pulled, smear=smear)
    if kind == "two_cards":
        return scene.view(face, rng, size, under=under, pulled=rng.uniform(0.25, 0.65))
    if kind == "back":
        return scene.view(scene.back(rng), rng, size)
    if kind == "empty_glare":
        return _empty_glare(rng, size)
    ranges = {
        "glare_on_indices": scene.Ranges(glare_on_indices=True),
        "dim": scene.Ranges(light=(0.3, 0.3)),
        "bright": scene.Ranges(light=(2.0, 2.0)),
        "askew": scene.Ranges(roll_deg=15.0),
        "off_centre": scene.Ranges(offset=0.20),
    }[kind]
    return scene.view(face, rng, size, ranges=ranges)


def _empty_glare(rng, size) -> np.ndarray:
    """The empty box, a lamp's glare on its floor."""
    w, h = size
    floor = scene.texture(rng, h, w, 1.0)
    everywhere = np.ones((h, w), np.float32)
    scene.glare(rng, floor, rng.uniform((0.2 * w, 0.2 * h), (0.8 * w, 0.8 * h)), everywhere)
    noisy = floor + rng.normal(0, 3, floor.shape).astype(np.float32)
    return np.clip(noisy, 0, 255).astype(np.uint8)
