"""Reading a card from a still: find the face, run the models, say how sure.

The witnesses (:mod:`faro_pi.camera.fusion`) each say how likely each of the 52 cards
is; the read is their weighted posterior, and a card only when that posterior clears the
threshold chosen on designs the model never saw, for the wrong-card goal first. One
witness fooled (a 9 laid out like a 10, an index hidden under the rim, a club drawn plump
as a spade) then pulls the posterior down rather than the read over. Anything else is a
no-read (the table's ``noread`` alarm), never a guess: a wrong card costs a void and a
dispute, a no-read costs a tap. A taught deck (``teach``) adds a classifier over the
model's embedding for the 52 faces of the deck in use and for "none of them"; a taught
read must also agree with the nearest taught card. What the model files are and say is
:mod:`faro_pi.camera.model`'s contract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from faro_pi.camera import finder, light, pips
from faro_pi.camera import model as contract
from faro_pi.camera.fusion import (
    NONE,
    Look,
    PipLook,
    agreement,
    evidence,
    fused,
    log_cards,
    not_a_card,
    pip_suits,
    softmax,
    two_indices,
)
from faro_pi.camera.model import (
    FACE_OUTPUTS,
    INDEX_OUTPUTS,
    INPUTS,
    OUTPUTS,
    PIP_INPUT,
    PIP_OUTPUT,
    WITNESS_HEADS,
    Model,
)
from faro_pi.game.cards import DECK, Card

NOT_A_CARD = 52
"""A taught deck's class for what is none of its 52 faces."""
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
    lone: bool = True
    """Whether the view showed one card's face, as far as the reader could tell: False
    for no card found, two cards, or what is no card's face (a back, a hand over it). The
    live watcher waits a moment on those before it says no-read: they are how a dealer's
    pause mid-slide looks."""


NO_CARD = Reading(None, 0.0, lone=False)
"""A view that shows no lone card's face."""


@dataclass(frozen=True)
class Taught:
    """A taught deck: a softmax over the 52 cards and "none of them" on each look's
    features, each card's mean embedding (its prototype), and each card's gate: how much
    like "not a card" the general model may find it (its teaching views' most, at least
    ``GATE``, with ``GATE_MARGIN`` of log-odds to spare), since a deck's odd face may look
    so while a hand over a card looks more so."""

    weights: np.ndarray
    bias: np.ndarray
    prototypes: np.ndarray
    threshold: float
    gates: np.ndarray

    GATE = 0.5
    GATE_MOST = 0.995
    GATE_MARGIN = 2.0
    """Log-odds over the most doubt a card's teaching views showed: the most of a couple
    of dozen views is less than a night of views of that card will show."""

    @property
    def known(self) -> np.ndarray:
        """Which of the 52 were taught: a card whose image teach could not use has no
        prototype, and is read as an untaught deck reads it."""
        return np.linalg.norm(self.prototypes, axis=1) > 0.5

    def read(self, look: Look) -> Reading:
        p = softmax(self.weights @ taught_features(look) + self.bias)
        best = int(np.argmax(p))
        if best == NOT_A_CARD:
            return NO_CARD
        nearest = int(np.argmax(self.prototypes @ look.embed))
        if best != nearest or look.rank[NONE] > self.gates[best] or p[best] < self.threshold:
            return Reading(None, float(p[best]))
        return Reading(DECK[best], float(p[best]))


def taught_features(look: Look) -> np.ndarray:
    """A taught classifier's input: the embedding and the general model's log-odds."""
    rank, suit = np.log(look.rank + 1e-6), np.log(look.suit + 1e-6)
    return np.concatenate([4 * look.embed, 0.2 * rank, 0.2 * suit])


class Recogniser:
    """Reads a card from a still; ``load`` it once, then ``read`` each still."""

    def __init__(self, net, model: Model, taught: Taught | None = None, model_id="", pip_net=None):
        self._net = net
        self._pip_net = pip_net
        self.model = model
        self.taught = taught
        self.model_id = model_id
        """The net's name (:func:`model.model_id`): a taught deck is for one net."""
        self.weights = None if model.fusion is None else np.array(model.fusion.weights())
        self.counts = np.array(model.counts) if model.counts else None

    @classmethod
    def load(cls, deck: Path | None = None, model: Path = contract.SHIPPED) -> Recogniser:
        """The model ``model`` (a ``model.json``) describes, and the deck taught into
        ``deck`` when one is given.

        OpenCV is set to one thread for the process: a still is too little work to share,
        and its thread pool costs more than it saves (on 2 cores, half the CPU a still
        and no more time to wait)."""
        cv2.setNumThreads(1)
        spec = contract.load(model)
        net_path = model.parent / spec.net
        net = _onnx(net_path)
        pip_net = _onnx(model.parent / spec.pip_net) if spec.fusion is not None else None
        me = cls(net, spec, model_id=contract.model_id(net_path), pip_net=pip_net)
        if deck is not None:
            me.taught = load_deck(Path(deck), me.model_id, spec.same_net)
        return me

    def read(self, image: np.ndarray) -> Reading:
        """The card in a whole still (BGR uint8), or a no-read."""
        cut = finder.find(image)
        if cut is None:
            return NO_CARD
        return self.read_cut(cut)

    def read_cut(self, cut: finder.Cut) -> Reading:
        if not light.readable(cut.face):
            return Reading(None, 0.0)  # a box too dim to read in: said, never guessed
        look = self.look([cut])[0]
        if self.taught is not None:
            return self.taught_read(look, cut)
        if self.weights is None:
            return self.untaught(look)
        return self.untaught(look, self.pip_looks([cut])[0])

    def taught_read(self, look: Look, cut: finder.Cut) -> Reading:
        """The taught deck's read, which must also pass the untaught reader's checks: the
        view is a card's face (``not_a_card``), and the witnesses together find the taught
        card the likeliest of the 52. Teaching makes the reader surer of the deck in use,
        never readier to name a card the witnesses dispute (two cards held still, a card
        sliding, glare on both indices)."""
        taught = self.taught.read(look)
        known = self.taught.known
        if self.weights is None or taught is NO_CARD:
            return taught
        p = self.posterior(look, self.pip_looks([cut])[0])
        if p is None:
            return NO_CARD
        if taught.card is None:  # perhaps a card teach could not take: read untaught
            untaught = self.untaught_read(p)
            return (
                untaught if untaught.card is not None and not known[untaught.card.index] else taught
            )
        if DECK[int(np.argmax(p))] is not taught.card:
            return Reading(None, taught.confidence)
        return taught

    def untaught(self, look: Look, pip_look: PipLook | None = None) -> Reading:
        """The shipped model's read: the witnesses' fused posterior over the 52 cards when
        the model has a pip witness, else the agreement of the face's and index's heads."""
        if self.weights is not None:
            return self.untaught_read(self.posterior(look, pip_look))
        rank = int(np.argmax(look.rank))
        if rank == NONE:
            return NO_CARD
        suit = int(np.argmax(look.suit))
        confidence = agreement(look, rank, suit, self.model.witnesses)
        if confidence < self.model.threshold:
            return Reading(None, confidence)
        return Reading(DECK[suit * 13 + rank], confidence)

    def posterior(self, look: Look, pip_look: PipLook | None) -> np.ndarray | None:
        """The witnesses' fused posterior over the 52 cards, or None for a view that is no
        lone card's face (``not_a_card``, ``two_indices``)."""
        if not_a_card(look) or two_indices(look):
            return None
        return fused(evidence(look, pip_look, self.counts), self.weights)

    def untaught_read(self, p: np.ndarray | None) -> Reading:
        """A card from the fused posterior ``p`` when it clears the untaught threshold."""
        if p is None:
            return NO_CARD
        best = int(np.argmax(p))
        if p[best] < self.model.threshold:
            return Reading(None, float(p[best]))
        return Reading(DECK[best], float(p[best]))

    def look(self, cuts: list[finder.Cut]) -> list[Look]:
        """The model's view of each card. The face is read both ways up and the two
        readings averaged, so a card upside down in the box costs nothing; the corners are
        read together, since each is cut to show its index upright, and each alone (the
        pair given twice), so that two indices of two cards are seen to differ."""
        n = len(cuts)
        made = [finder.inputs(cut) for cut in cuts]
        faces, corner_a, corner_b = (np.stack([m[i] for m in made]) for i in range(3))
        faces = np.concatenate([faces, faces[:, :, ::-1, ::-1]])  # a new, contiguous array
        first = np.concatenate([corner_a, corner_a, corner_b])
        second = np.concatenate([corner_b, corner_a, corner_b])
        for name, blob in zip(INPUTS, (faces, first, second), strict=True):
            self._net.setInput(blob, name)
        out = dict(zip(OUTPUTS, self._net.forward(list(OUTPUTS)), strict=True))
        both = {k: (out[k][:n] + out[k][n : 2 * n]) / 2 for k in FACE_OUTPUTS}
        index = {k: out[k][:n] for k in INDEX_OUTPUTS}
        logit = {
            "rank": both["joint_face_rank"] + index["joint_index_rank"],
            "suit": both["joint_face_suit"] + index["joint_index_suit"],
            "face_rank": both["face_rank"],
            "face_suit": both["face_suit"],
            "index_rank": index["index_rank"],
            "index_suit": index["index_suit"],
        }
        temperature = self.model.temperatures
        p = {k: softmax(v / getattr(temperature, k)) for k, v in logit.items()}
        alone = [
            log_cards(
                softmax(out["index_rank"][at] / temperature.index_rank),
                softmax(out["index_suit"][at] / temperature.index_suit),
            )
            for at in range(n, 3 * n)
        ]
        embed = np.concatenate([_unit(both["face_embed"]), _unit(index["index_embed"])], 1)
        embed = embed / np.sqrt(2)
        return [
            Look(
                p["rank"][i],
                p["suit"][i],
                embed[i],
                {k: p[k][i] for k in WITNESS_HEADS},
                (alone[i], alone[n + i]),
            )
            for i in range(n)
        ]

    def pip_looks(self, cuts: list[finder.Cut]) -> list[PipLook]:
        """What each card's pips and index symbols say, all their cuts read by the pip net
        in one batch."""
        found = [pips.find(cut.detail) for cut in cuts]
        used = [f.cuts if f.count and not f.figure else f.cuts[:0] for f in found]
        symbols = [index_symbols(cut) for cut in cuts]
        stack = [c for pair in zip(used, symbols, strict=True) for c in pair]
        each = np.zeros((0, 4))
        if sum(map(len, stack)):
            self._pip_net.setInput(np.concatenate(stack), PIP_INPUT)
            each = pip_suits(softmax(self._pip_net.forward(PIP_OUTPUT)))
        looks, at = [], 0
        for f, mine, theirs in zip(found, used, symbols, strict=True):
            suit = each[at : at + len(mine)].mean(axis=0) if len(mine) else None
            at += len(mine)
            symbol = each[at : at + len(theirs)].mean(axis=0) if len(theirs) else None
            at += len(theirs)
            looks.append(PipLook(f.signature, suit, symbol))
        return looks


def index_symbols(cut: finder.Cut) -> np.ndarray:
    """The suit symbols found under the card's two indices (0..2 × 2 × ``pips.PIP``²)."""
    paper = finder.paper_of(cut.face)
    found = [s for s in (pips.symbol(strip, paper) for strip in cut.strips) if s is not None]
    return np.stack(found) if found else np.zeros((0, 2, pips.PIP, pips.PIP), np.float32)


def _onnx(path: Path):
    """An ONNX file loaded by OpenCV's dnn module; one it cannot load is refused by name."""
    try:
        return cv2.dnn.readNetFromONNX(str(path))
    except cv2.error as exc:
        raise contract.ModelError(
            f"{path}: OpenCV {cv2.__version__} cannot load the camera's model ({why(exc)})"
        ) from exc


def why(error: cv2.error) -> str:
    """OpenCV's reason, without the source file and line it names: the last line of its
    message that says something (an importer's ends with a line of ``>``)."""
    said = [line.strip("> ") for line in str(error).splitlines()]
    return _WHERE.sub("", next((line for line in reversed(said) if line), "")).strip()


_WHERE = re.compile(r"OpenCV\([^)]*\) \S+:\d+: error: ")


def _unit(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)


def load_deck(folder: Path, model: str, same: tuple[str, ...] = ()) -> Taught:
    """The deck taught in ``folder`` for the net ``model`` (or one of the ``same`` net's
    earlier files)."""
    path = folder / DECK_FILE
    try:
        data = np.load(path)
        stored = str(data["model"])
        taught = Taught(
            data["weights"],
            data["bias"],
            data["prototypes"],
            float(data["threshold"]),
            data["gates"],
        )
    except KeyError as exc:
        older = f"{path}: taught by an older faro-pi ({exc}): teach the deck again"
        raise DeckError(older) from exc
    except (OSError, ValueError) as exc:
        raise DeckError(f"{path}: no taught deck here ({exc}): run faro-pi camera teach") from exc
    if stored != model and stored not in same:
        raise DeckError(f"{path}: taught for another model: teach the deck again")
    return taught
