"""The card designs the camera's tests read: Debian's decks, held out of the model's
training and calibration alike, drawn once per size into the cache and loaded once per
process. Through ``training.designs`` and ``training.dataset``, which import no PyTorch."""

from __future__ import annotations

import functools
from pathlib import Path

from training import designs
from training.dataset import Faces, load_faces

HEIGHT = 400
"""The height the faces are drawn at, as training draws its own."""


def folder(name: str, height: int = HEIGHT) -> Path:
    """The folder ``name`` (a design of ``designs.TEST_GROUPS``) is drawn into:
    ``KD.png``... and the back and jokers its sheet draws."""
    design = next(d for d in designs.split()["test"] if d.name == name)
    return designs.render(design, height)


@functools.cache
def held_out(name: str, height: int = HEIGHT) -> Faces:
    """The faces of ``name``, a design of ``designs.TEST_GROUPS``."""
    return load_faces(name, folder(name, height))
