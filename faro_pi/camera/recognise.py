"""Reading a card from a camera still: find the face, run the model, say how sure.

A read is a card only when the model is sure enough on a calibrated scale: the rank's and
the suit's probabilities after temperature scaling, multiplied, against a threshold chosen
on designs the model never saw, for the wrong-card goal first. Anything else is a no-read
(the table's ``noread`` alarm), never a guess: a wrong card costs a void and a dispute, a
no-read costs a tap. A taught deck (``teach``) adds a classifier over the model's
embedding for the 52 faces of the deck in use; a taught read must also agree with the
nearest taught card.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from faro_pi.camera import finder
from faro_pi.game.cards import DECK, Card

MODEL = Path(__file__).with_name("model.onnx")
SETTINGS = Path(__file__).with_name("model.json")
"""The temperatures and thresholds the training script chose for ``MODEL``."""
NONE = 13
"""The rank head's class for what is not a card face (a back, a joker, a hand)."""
DECK_FILE = "deck.npz"
"""What ``teach`` writes into a deck folder."""


class DeckError(ValueError):
    """A taught deck folder that cannot be used: missing, damaged, or for another model."""


@dataclass(frozen=True)
class Reading:
    card: Card | None
    """The card read, or None for a no-read."""
    confidence: float
    """0..1, calibrated: how likely the reading is right."""


@dataclass(frozen=True)
class Look:
    """What the model makes of a crop, both ways up averaged."""

    rank: np.ndarray
    """Probabilities of A..K and of "not a face", after temperature scaling."""
    suit: np.ndarray
    embed: np.ndarray
    """The last hidden layer, of unit length: what taught cards are matched on."""


@dataclass(frozen=True)
class Taught:
    """A taught deck: a softmax over the 52 cards on each look's features, and each
    card's mean embedding (its prototype)."""

    weights: np.ndarray
    bias: np.ndarray
    prototypes: np.ndarray
    threshold: float

    def read(self, look: Look) -> Reading:
        p = softmax(self.weights @ taught_features(look) + self.bias)
        best = int(np.argmax(p))
        nearest = int(np.argmax(self.prototypes @ look.embed))
        if best != nearest or look.rank[NONE] > 0.5 or p[best] < self.threshold:
            return Reading(None, float(p[best]))
        return Reading(DECK[best], float(p[best]))


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def taught_features(look: Look) -> np.ndarray:
    """A taught classifier's input: the embedding and the general model's log-odds."""
    rank, suit = np.log(look.rank + 1e-6), np.log(look.suit + 1e-6)
    return np.concatenate([4 * look.embed, 0.2 * rank, 0.2 * suit])


def model_id(path: Path = MODEL) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class Recogniser:
    """Reads a card from a still; ``load`` it once, then ``read`` each still."""

    def __init__(self, net, settings: dict, taught: Taught | None = None, model: str = ""):
        self._net = net
        self.settings = settings
        self.taught = taught
        self.model = model

    @classmethod
    def load(cls, deck: Path | None = None, model: Path = MODEL) -> Recogniser:
        """The shipped model, and the deck taught into ``deck`` when one is given."""
        settings = json.loads(model.with_suffix(".json").read_text())
        net = cv2.dnn.readNetFromONNX(str(model))
        me = cls(net, settings, model=model_id(model))
        if deck is not None:
            me.taught = load_deck(Path(deck), me.model)
        return me

    def read(self, image: np.ndarray) -> Reading:
        """The card in a whole still (BGR uint8), or a no-read."""
        crop = finder.find(image)
        if crop is None:
            return Reading(None, 0.0)
        return self.read_crop(crop)

    def read_crop(self, crop: np.ndarray) -> Reading:
        look = self.look([crop])[0]
        if self.taught is not None:
            return self.taught.read(look)
        return self.untaught(look)

    def untaught(self, look: Look) -> Reading:
        rank = int(np.argmax(look.rank))
        if rank == NONE:
            return Reading(None, 0.0)
        suit = int(np.argmax(look.suit))
        confidence = float(look.rank[rank] * look.suit[suit])
        if confidence < self.settings["threshold"]:
            return Reading(None, confidence)
        return Reading(DECK[suit * 13 + rank], confidence)

    def look(self, crops: list[np.ndarray]) -> list[Look]:
        """The model's view of each crop: it reads each crop both ways up, and the two
        readings are averaged, so a card upside down in the box costs nothing."""
        x = np.stack([finder.features(c) for c in crops])
        batch = np.concatenate([x, x[:, :, ::-1, ::-1]])
        self._net.setInput(np.ascontiguousarray(batch))
        rank, suit, embed = self._net.forward(["rank", "suit", "embed"])
        n = len(crops)
        rank = (rank[:n] + rank[n:]) / 2 / self.settings["rank_temperature"]
        suit = (suit[:n] + suit[n:]) / 2 / self.settings["suit_temperature"]
        embed = embed[:n] + embed[n:]
        embed = embed / (np.linalg.norm(embed, axis=1, keepdims=True) + 1e-9)
        pr, ps = softmax(rank), softmax(suit)
        return [Look(pr[i], ps[i], embed[i]) for i in range(n)]


def load_deck(folder: Path, model: str) -> Taught:
    path = folder / DECK_FILE
    try:
        data = np.load(path)
        stored = str(data["model"])
        taught = Taught(data["weights"], data["bias"], data["prototypes"], float(data["threshold"]))
    except (OSError, KeyError, ValueError) as exc:
        raise DeckError(f"{path}: no taught deck here ({exc}): run faro-pi camera teach") from exc
    if stored != model:
        raise DeckError(f"{path}: taught for another model: teach the deck again")
    return taught
