"""Training samples: views of the designs' faces through the reader's own finder.

Each sample is what the model sees at run time, made the way the run time makes it: a
still from :func:`faro_pi.camera.scene.view` (the contract's nuisances, and wider), cut
cut by :func:`faro_pi.camera.finder.find`, turned into :func:`finder.inputs`. Labels
are the rank (0..12, or ``NONE`` for anything that is not one card's face: a joker, a
back, a hand over the card, two cards askew) and the suit. Stored quantised to uint8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from faro_pi.camera import images, scene
from faro_pi.camera.finder import find, inputs
from faro_pi.game.cards import CARD_BY_CODE, DECK, SUITS

NONE = 13
"""The rank label of what is not a card face."""

SIZES = ((240, 180), (180, 240), (280, 210), (210, 280), (320, 240), (240, 320))
"""Still sizes drawn for training, mostly small: the face is cut at 96×128 whatever the
still's size, and blur and JPEG cover the difference."""
LARGE = ((640, 480), (480, 640), (800, 600))
"""Sizes drawn for a share ``LARGE_SHARE`` of the samples: only in a larger still are the
index corners cut at their full sharpness, as a camera at the box gives them."""
LARGE_SHARE = 0.2


@dataclass
class Faces:
    """One design's faces: the cards it has, and what it draws that is not a face."""

    name: str
    cards: dict[str, np.ndarray]
    others: list[np.ndarray]


def load_faces(name: str, folder) -> Faces:
    """The faces in ``folder`` (``<CARD>.png`` and the rest); cards of the wrong shape (a
    sheet's broken element) are left out."""
    from pathlib import Path

    folder = Path(folder)
    cards, others = {}, []
    for path in sorted(folder.glob("*.png")):
        face = _card_shaped(images.read_face(path))
        if path.stem.upper() in CARD_BY_CODE:
            cards[CARD_BY_CODE[path.stem.upper()].code] = face
        elif 0.5 < face.shape[1] / face.shape[0] < 0.85:
            others.append(face)
    if cards:
        middle = np.median([f.shape[1] / f.shape[0] for f in cards.values()])
        cards = {c: f for c, f in cards.items() if abs(f.shape[1] / f.shape[0] - middle) < 0.06}
    return Faces(name, cards, others)


def _card_shaped(face: np.ndarray) -> np.ndarray:
    """Stretched to 63:88 once, so that each view need not (the view would do it too)."""
    import cv2

    fh = face.shape[0]
    fw = round(fh * scene.CARD_MM[0] / scene.CARD_MM[1])
    return cv2.resize(face, (fw, fh), interpolation=cv2.INTER_AREA)


def quantise(feature: np.ndarray) -> np.ndarray:
    light = np.clip((feature[0] + 0.6) / 1.2 * 255, 0, 255)
    chroma = np.clip(feature[1] / 2.4 * 255, 0, 255)
    return np.stack([light, chroma]).astype(np.uint8)


def dequantise(stored: np.ndarray) -> np.ndarray:
    """Back to the model's input (works on a batch: N×2×H×W)."""
    stored = stored.astype(np.float32) / 255
    out = np.empty_like(stored)
    out[..., 0, :, :] = stored[..., 0, :, :] * 1.2 - 0.6
    out[..., 1, :, :] = stored[..., 1, :, :] * 2.4
    return out


def recolour(face: np.ndarray, suit: str, rng: np.random.Generator) -> np.ndarray:
    """A four-colour deck's ink, or a one-colour one's: breaks "red means hearts or
    diamonds", so the suit is read from its shape as well as its colour."""
    rgb = face[..., :3].astype(np.float32)
    lo = np.minimum(np.minimum(rgb[..., 0], rgb[..., 1]), rgb[..., 2])
    hi = np.maximum(np.maximum(rgb[..., 0], rgb[..., 1]), rgb[..., 2])
    out = face.copy()
    if suit in "SC":
        ink = (hi < 110) & (hi - lo < 40)
        colour = rng.permutation([rng.uniform(0, 60), rng.uniform(90, 200), rng.uniform(0, 120)])
        out[ink, :3] = colour.astype(np.uint8)
    else:
        ink = (rgb[..., 0] > 120) & (rgb[..., 0] - np.maximum(rgb[..., 1], rgb[..., 2]) > 60)
        grey = rng.uniform(0, 70)
        out[ink, :3] = (
            np.uint8(grey)
            if rng.random() < 0.5
            else rng.permutation([30, rng.uniform(60, 160), rng.uniform(150, 230)]).astype(np.uint8)
        )
    return out


def sample(designs: list[Faces], rng: np.random.Generator):
    """One (stored face, corner, corner, rank, suit) sample, or None when the finder found no card
    (the reader would say no-read, and there is nothing to learn)."""
    sizes = LARGE if rng.random() < LARGE_SHARE else SIZES
    size = sizes[rng.integers(len(sizes))]
    wide = rng.random() < 0.7
    design = designs[rng.integers(len(designs))]
    kind = rng.random()
    rank, suit = NONE, 0
    if kind < 0.86:
        code = list(design.cards)[rng.integers(len(design.cards))]
        card = CARD_BY_CODE[code]
        rank, suit = card.rank - 1, SUITS.index(card.suit)
        face = design.cards[code]
        if rng.random() < 0.2:
            face = recolour(face, card.suit, rng)
        still = scene.view(face, rng, size, wide=wide)
    elif kind < 0.90 and design.others:
        still = scene.view(design.others[rng.integers(len(design.others))], rng, size, wide=wide)
    elif kind < 0.92:
        still = scene.view(scene.back(rng), rng, size, wide=wide)
    elif kind < 0.96:
        faces = list(design.cards.values())
        still = scene.hand(
            scene.view(faces[rng.integers(len(faces))], rng, size, wide=wide),
            rng,
            cover=rng.uniform(0.25, 0.7),
        )
    else:
        faces = list(design.cards.values())
        a, b = rng.integers(len(faces), size=2)
        still = scene.overlapping(faces[a], faces[b], rng, size)
    cut = find(still)
    if cut is None:
        return None
    return (*(quantise(f) for f in inputs(cut)), rank, suit)


def generate(designs: list[Faces], count: int, seed: int):
    """``count`` samples as arrays: faces N×2×128×96 and corners N×2×72×48 (uint8),
    ranks N, suits N."""
    rng = np.random.default_rng(seed)
    made = []
    while len(made) < count:
        one = sample(designs, rng)
        if one is not None:
            made.append(one)
    x, a, b, ranks, suits = zip(*made, strict=True)
    return (
        np.stack(x),
        np.stack(a),
        np.stack(b),
        np.array(ranks, np.int64),
        np.array(suits, np.int64),
    )


__all__ = ["DECK", "NONE", "Faces", "generate", "load_faces"]


def _shard(job) -> str:
    folders, count, seed, path = job
    faces = [load_faces(name, folder) for name, folder in folders]
    x, a, b, ranks, suits = generate(faces, count, seed)
    np.savez(path, x=x, a=a, b=b, rank=ranks, suit=suits)
    return path


def shards(folders, count: int, seed: int, out, per_shard: int = 4000, workers: int = 2):
    """``count`` samples of the designs in ``folders`` ((name, folder) pairs), made in
    ``workers`` processes and cached as ``out/<seed>-<i>.npz``; loaded as one set."""
    made = cached(_shard, folders, count, seed, out, per_shard=per_shard, workers=workers)
    return tuple(made[k] for k in ("x", "a", "b", "rank", "suit"))


def cached(
    shard, folders, count: int, seed: int, out, *, prefix="", per_shard=4000, workers=2, extra=()
) -> dict:
    """``count`` samples made by ``shard`` (a module-level function of a job: the
    folders, how many, a seed, the path to save to, then ``extra``) in ``workers``
    processes, cached as ``out/<prefix><seed>-<i>.npz``; loaded as one set of arrays.
    The processes are spawned: a forked child of a process that ran torch or OpenCV may
    hang."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context
    from pathlib import Path

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{prefix}{seed}-{i}.npz" for i in range((count + per_shard - 1) // per_shard)]
    jobs = [
        (list(folders), min(per_shard, count - i * per_shard), seed * 1000 + i, str(path), *extra)
        for i, path in enumerate(paths)
        if not path.exists()
    ]
    if jobs:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            list(pool.map(shard, jobs))
    parts = [np.load(path) for path in paths]
    return {k: np.concatenate([part[k] for part in parts]) for k in parts[0].files}
