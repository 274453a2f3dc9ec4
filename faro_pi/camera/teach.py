"""Teaching the reader the deck in use: 52 images in, a taught deck folder out.

Each image is one card of the deck, named by its code (``KD.png``, ``10H.png``): either a
face file (the whole upright face, transparent or not outside its corners) or a still from
the camera of that card in the box in nominal light. From each face the camera's model
(:mod:`faro_pi.camera.scene`) makes views across the whole contract; the model's look at
each view trains a small softmax over the 52 cards and "none of them" (numpy, a few
seconds), and gives each card's prototype. "None of them" is taught from this deck's own
cards under a hand, two of them askew and made-up backs, so the deck's odd faces (a seven
laid out as no deck the model saw) are known for cards and a hand over one is not. A
taught read must win that softmax, match the nearest prototype, look not much less like a
card to the general model than the card's own teaching views did, and clear the taught
threshold the training script chose on designs it never saw.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from faro_pi.camera import finder, images, scene
from faro_pi.camera.fusion import NONE, softmax
from faro_pi.camera.recognise import DECK_FILE, NOT_A_CARD, Recogniser, Taught, taught_features
from faro_pi.game.cards import CARD_BY_CODE, DECK, Card

VIEWS = 24
"""Views made of each taught card: about half a minute of CPU for a deck here."""
NOT_CARDS = 156
"""Views of what is none of the deck's faces (a hand over a card, two cards, a back) beside
``VIEWS`` of each card: fewer views a card take as many fewer of these."""
CARD_LIKE = (0.62, 0.82)
"""Width over height of an image that is a card's face itself, cut to its edge."""
SIZES = ((320, 240), (640, 480), (480, 640), (800, 600))
"""Stills of the sizes a camera gives: the corners are cut sharper from larger ones."""


class TeachError(ValueError):
    """Images that do not make a deck: a name that is not a card, a card missing or twice."""


def faces_of(
    paths: list[Path],
) -> tuple[dict[Card, np.ndarray], list[Path], dict[Card, str]]:
    """The faces (RGBA) named by the images' stems; the images left out since their names
    are no card's code (a design folder's back.png, a joker); and the cards whose image
    could not be used, each with why (no card found in a still, no image at all). Refuses
    a card given twice or not at all, and names those left out when a card is missing, in
    case one of them was it, misnamed."""
    faces: dict[Card, np.ndarray] = {}
    odd: list[Path] = []
    refused: dict[Card, str] = {}
    for path in paths:
        card = CARD_BY_CODE.get(Path(path).stem.upper())
        if card is None:
            odd.append(Path(path))
            continue
        if card in faces or card in refused:
            raise TeachError(f"{path}: {card.code} is given twice")
        try:
            faces[card] = face_in(images.read_face(path), path)
        except (TeachError, ValueError, OSError) as exc:
            refused[card] = str(exc)
    missing = [card.code for card in DECK if card not in faces and card not in refused]
    if missing:
        named = "".join(
            f"; {path.name} is left out: the file's name must be its card's code, e.g. KD.png"
            for path in odd
        )
        raise TeachError(f"a deck is all 52 cards: missing {' '.join(missing)}{named}")
    if not faces:
        raise TeachError("no card of the 52 could be taught: " + "; ".join(refused.values()))
    return faces, odd, refused


def face_in(image: np.ndarray, path) -> np.ndarray:
    """The face in a teaching image: the image itself when it is a face file, else the
    card found in the still, cut out upright (which way up is the model's affair)."""
    rgb = image[..., :3]
    border = np.concatenate([rgb[:4].reshape(-1, 3), rgb[-4:].reshape(-1, 3)])
    if image[..., 3].min() < 255 or border.mean() > 110:
        return image
    bgr = np.ascontiguousarray(rgb[..., ::-1])
    quad = finder.outline(bgr)
    if quad is None:
        if CARD_LIKE[0] <= image.shape[1] / image.shape[0] <= CARD_LIKE[1]:
            return image  # a face file cut to the card's edge, with no margin to find it in
        raise TeachError(f"{path}: no card found in the still: the box's view, well lit")
    h = int(np.linalg.norm(quad[3] - quad[0]))
    w = int(np.linalg.norm(quad[1] - quad[0]))
    face = finder.warp(bgr, quad, (w, h))
    return np.dstack([face[..., ::-1], np.full((h, w), 255, np.uint8)])


def faces_from_stills(stills: dict[Card, np.ndarray]) -> dict[Card, np.ndarray]:
    """The faces in camera stills (BGR, as the camera gives them) of each of the 52 cards:
    how the live reader teaches from the box, the new deck dealt once in factory order."""
    missing = [card.code for card in DECK if card not in stills]
    if missing:
        raise TeachError(f"a deck is all 52 cards: missing {' '.join(missing)}")
    faces = {}
    for card, still in stills.items():
        rgba = np.dstack([still[..., ::-1], np.full(still.shape[:2], 255, np.uint8)])
        faces[card] = face_in(rgba, card.code)
    return faces


def teach(
    recogniser: Recogniser,
    faces: dict[Card, np.ndarray],
    rng: np.random.Generator,
    views: int = VIEWS,
    not_cards: int | None = None,
    told: Callable[[int, Card], None] = lambda done, card: None,
) -> Taught:
    """The taught deck for ``faces``, from ``views`` views of each and ``not_cards`` views
    of what is none of them (by default as many to a card's view as ``NOT_CARDS`` are to
    ``VIEWS``). ``told`` hears of each card as it is taught. A card not in ``faces`` is
    not taught: it is read as an untaught deck reads it."""
    if not_cards is None:
        not_cards = max(13, NOT_CARDS * views // VIEWS)
    feats, labels, prototypes, doubts = [], [], {}, {}
    for card, face in faces.items():
        looks = recogniser.look(
            _found(
                lambda i, face=face: scene.view(face, rng, SIZES[i % len(SIZES)], nominal=i == 0),
                views,
            )
        )
        feats += [taught_features(look) for look in looks]
        labels += [card.index] * len(looks)
        prototypes[card] = np.mean([look.embed for look in looks], axis=0)
        doubts[card] = max((look.rank[NONE] for look in looks), default=0.0)
        told(len(prototypes), card)
    for look in recogniser.look(_not_cards(list(faces.values()), rng, not_cards)):
        feats.append(taught_features(look))
        labels.append(NOT_A_CARD)
    weights, bias = _fit(np.array(feats), np.array(labels))
    none = np.zeros_like(next(iter(prototypes.values())))
    prototypes = np.stack([prototypes.get(card, none) for card in DECK])  # the classes' order
    prototypes /= np.linalg.norm(prototypes, axis=1, keepdims=True) + 1e-9
    gates = gate([doubts.get(card, 0.0) for card in DECK])
    threshold = recogniser.model.taught_threshold
    return Taught(weights, bias, prototypes, threshold, gates)


def gate(doubts) -> np.ndarray:
    """Each card's gate on the general model's "not a card", from the most its teaching
    views showed: ``Taught.GATE_MARGIN`` more in log-odds, within ``GATE``..``GATE_MOST``."""
    doubt = np.clip(np.asarray(doubts, float), 1e-6, 1 - 1e-6)
    odds = np.log(doubt / (1 - doubt)) + Taught.GATE_MARGIN
    return np.clip(1 / (1 + np.exp(-odds)), Taught.GATE, Taught.GATE_MOST)


def _found(still, count: int) -> list[finder.Cut]:
    """The first ``count`` cards the finder finds in ``still(0)``, ``still(1)``... tried at
    most twice as many times."""
    cuts = []
    for i in range(count * 2):
        cut = finder.find(still(i))
        if cut is not None:
            cuts.append(cut)
        if len(cuts) == count:
            break
    return cuts


def _not_cards(faces: list[np.ndarray], rng: np.random.Generator, count: int) -> list:
    """Cuts of what the box may show that is none of the deck's faces, found as a card:
    a hand over a card, two cards askew, a back, in turn."""

    def still(i: int) -> np.ndarray:
        size = SIZES[i % len(SIZES)]
        a, b = rng.integers(len(faces), size=2)
        if i % 3 == 0:
            cover = rng.uniform(0.25, 0.7)
            return scene.hand(scene.view(faces[a], rng, size), rng, cover=cover)
        if i % 3 == 1:
            return scene.overlapping(faces[a], faces[b], rng, size)
        return scene.view(scene.back(rng), rng, size)

    return _found(still, count)


def _fit(x: np.ndarray, y: np.ndarray, steps: int = 500, decay: float = 1e-3):
    """A softmax over the 52 cards and "none of them" on ``x`` by gradient descent (full
    batch, numpy), on standardised features with the step the features' own scale allows;
    folded back to raw features."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - mean) / scale
    n, d = z.shape
    rate = 2.0 / float(np.linalg.eigvalsh(z.T @ z / n)[-1])
    classes = NOT_A_CARD + 1
    weights, bias = np.zeros((classes, d)), np.zeros(classes)
    target = np.eye(classes)[y]
    for _ in range(steps):
        grad = (softmax(z @ weights.T + bias) - target) / n
        weights -= rate * (grad.T @ z + decay * weights)
        bias -= rate * grad.sum(axis=0)
    weights = weights / scale
    return weights, bias - weights @ mean


def save(taught: Taught, folder: Path, model: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / DECK_FILE
    np.savez(
        path,
        weights=taught.weights,
        bias=taught.bias,
        prototypes=taught.prototypes,
        threshold=taught.threshold,
        gates=taught.gates,
        model=model,
    )
    return path
