"""Reading a card from a still: find the face, run the models, say how sure.

Five witnesses: the face (pips, figures), the index corners (cut sharp), a joint head
over both, the pips themselves (``pips``: their count and figure, and each pip's suit by
the pip net), and the suit's symbol under each index, by the pip net too. Each gives a
log-likelihood of each of the 52 cards; the read is their weighted sum's posterior (the
weights fitted on designs the model never saw, so that the posterior is a probability),
and a card only when that posterior clears the threshold chosen there for the wrong-card
goal first. One witness fooled (a 9 laid out like a 10, an index hidden under the rim, a
club drawn plump as a spade) then pulls the posterior down rather than the read over.
Anything else is a no-read (the table's ``noread`` alarm), never a guess: a wrong card
costs a void and a dispute, a no-read costs a tap. A taught deck (``teach``) adds a
classifier over the model's embedding for the 52 faces of the deck in use and for "none
of them"; a taught read must also agree with the nearest taught card.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from faro_pi.camera import finder, pips
from faro_pi.game.cards import DECK, Card

MODEL = Path(__file__).with_name("model.onnx")
PIPS = Path(__file__).with_name("pips.onnx")
"""The pip net: a pip's suit, or "not a pip" (``training/pipnet.py``)."""
SETTINGS = Path(__file__).with_name("model.json")
"""The temperatures and thresholds the training script chose for ``MODEL``."""
NONE = 13
"""The rank head's class for what is not a card face (a back, a joker, a hand)."""
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


@dataclass(frozen=True)
class Look:
    """What the model makes of a card, the face read both ways up."""

    rank: np.ndarray
    """The joint head's probabilities of A..K and of "not a face", temperature-scaled."""
    suit: np.ndarray
    embed: np.ndarray
    """The last hidden layers, of unit length: what taught cards are matched on."""
    heads: dict[str, np.ndarray] = field(default_factory=dict)
    """Each witness's own probabilities: ``face_rank``, ``face_suit``, ``index_rank``,
    ``index_suit``."""


@dataclass(frozen=True)
class PipLook:
    """What the pips say: their count and figure, and each suit's mean log-probability over
    the pips (None with no pips, or beside a figure, whose pieces are no suit's pips); and
    over the symbols under the indices (None when neither index showed one)."""

    signature: int
    suit: np.ndarray | None
    symbol: np.ndarray | None = None


WITNESS_HEADS = ("face_rank", "face_suit", "index_rank", "index_suit")
"""The face's and the index's own heads, beside the joint one."""
HEADS = ("rank", "suit", *WITNESS_HEADS)
"""The heads a temperature is fitted for."""


def not_a_card(look: Look) -> bool:
    """Whether a view is no card's face to the fused read: the joint head and the face's own
    head both find "not a card" likelier than any card (the index head cannot say it).
    Either alone may balk at a court figure unlike any it was taught while the other
    witnesses read the card surely; a back, a joker, a hand over the face or two cards
    askew are seldom seen by one and not the other, and the threshold still stands behind."""
    return look.rank[NONE] > 0.5 and look.heads["face_rank"][NONE] > 0.5


def agreement(look: Look, rank: int, suit: int, witnesses: dict[str, float]) -> float:
    """How surely the witnesses agree on one card: the weighted geometric mean of each
    one's probability of it (the joint head's weight is 1)."""
    logs = [np.log(look.rank[rank] * look.suit[suit] + 1e-12)]
    weights = [1.0]
    for name, weight in witnesses.items():
        if weight:
            p = look.heads[f"{name}_rank"][rank] * look.heads[f"{name}_suit"][suit]
            logs.append(weight * np.log(p + 1e-12))
            weights.append(weight)
    return float(np.exp(sum(logs) / sum(weights)))


EVIDENCE = ("joint", "index", "face", "count", "pips", "symbol")
"""The fused read's terms, each weighed by ``settings["fusion"]``."""


def evidence(look: Look, pip_look: PipLook | None, counts: np.ndarray) -> np.ndarray:
    """Each term's log-likelihood of each of the 52 cards (6 × 4 suits × 13 ranks): the
    joint head's, the index's and the face's rank and suit (the face's rank alone where
    the pips were read), the pips' count and figure (``counts``: log P(signature | rank)),
    the pips' suits and the index symbols'."""
    out = np.zeros((len(EVIDENCE), 4, 13))
    for i, (rank, suit) in enumerate(
        (
            (look.rank, look.suit),
            *((look.heads[f"{w}_rank"], look.heads[f"{w}_suit"]) for w in ("index", "face")),
        )
    ):
        out[i] = np.log(rank[:13] + 1e-9)[None] + np.log(suit + 1e-9)[:, None]
    if pip_look is not None:
        out[3] = counts[:, pip_look.signature][None]
        if pip_look.suit is not None:
            out[4] = pip_look.suit[:, None]
            out[2] = face_rank_only(out[2])
        if pip_look.symbol is not None:
            out[5] = pip_look.symbol[:, None]
    return out


def face_rank_only(face: np.ndarray) -> np.ndarray:
    """The face's term (… × 4 × 13) without its suit. Where the pips were read, the face's
    suit is read from those same pips in the whole face's crop: the pip witness counts
    them already, and a net fooled by a design's plump clubs is fooled by them once, not
    twice."""
    return np.broadcast_to(face.mean(axis=-2, keepdims=True), face.shape)


def pip_suits(p: np.ndarray) -> np.ndarray:
    """Each pip's log-likelihood of each suit from the pip net's probabilities (N × 5):
    a blob that is "not a pip" says nothing of the suit, so its share is spread evenly."""
    return np.log(p[:, :4] + p[:, 4:] / 4)


def fused(terms: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The 52 cards' posterior (in ``DECK`` order) from ``evidence``'s terms, weighed."""
    return softmax(np.tensordot(weights, terms, 1).ravel())


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

    def read(self, look: Look) -> Reading:
        p = softmax(self.weights @ taught_features(look) + self.bias)
        best = int(np.argmax(p))
        if best == NOT_A_CARD:
            return Reading(None, 0.0)
        nearest = int(np.argmax(self.prototypes @ look.embed))
        if best != nearest or look.rank[NONE] > self.gates[best] or p[best] < self.threshold:
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

    def __init__(
        self, net, settings: dict, taught: Taught | None = None, model: str = "", pip_net=None
    ):
        self._net = net
        self._pip_net = pip_net
        self.settings = settings
        self.taught = taught
        self.model = model
        fusion = settings.get("fusion")
        self.weights = None if fusion is None else np.array([fusion.get(k, 0.0) for k in EVIDENCE])
        self.counts = np.array(settings.get("counts", np.zeros((13, pips.SIGNATURES))))

    @classmethod
    def load(cls, deck: Path | None = None, model: Path = MODEL) -> Recogniser:
        """The shipped model, and the deck taught into ``deck`` when one is given.

        OpenCV is set to one thread for the process: a still is too little work to share,
        and its thread pool costs more than it saves (on 2 cores, half the CPU a still
        and no more time to wait)."""
        cv2.setNumThreads(1)
        settings = json.loads(model.with_suffix(".json").read_text())
        net = cv2.dnn.readNetFromONNX(str(model))
        pip_model = model.with_name(PIPS.name)
        pip_net = cv2.dnn.readNetFromONNX(str(pip_model)) if "fusion" in settings else None
        me = cls(net, settings, model=model_id(model), pip_net=pip_net)
        if me.counts.shape != (13, pips.SIGNATURES):
            raise ValueError(
                f"{model.with_suffix('.json')}: its count table ({me.counts.shape[1]} "
                f"signatures) is for another pip finder ({pips.SIGNATURES}): make the pip "
                "witness again (python -m faro_pi.camera.training --net DIR)"
            )
        if deck is not None:
            me.taught = load_deck(Path(deck), me.model)
        return me

    def read(self, image: np.ndarray) -> Reading:
        """The card in a whole still (BGR uint8), or a no-read."""
        cut = finder.find(image)
        if cut is None:
            return Reading(None, 0.0)
        return self.read_cut(cut)

    def read_cut(self, cut: finder.Cut) -> Reading:
        look = self.look([cut])[0]
        if self.taught is not None:
            return self.taught.read(look)
        if self.weights is None:
            return self.untaught(look)
        return self.untaught(look, self.pip_looks([cut])[0])

    def untaught(self, look: Look, pip_look: PipLook | None = None) -> Reading:
        """The shipped model's read: the witnesses' fused posterior over the 52 cards when
        the model has a pip witness, else the agreement of the face's and index's heads."""
        if self.weights is not None:
            if not_a_card(look):
                return Reading(None, 0.0)
            p = fused(evidence(look, pip_look, self.counts), self.weights)
            best = int(np.argmax(p))
            if p[best] < self.settings["threshold"]:
                return Reading(None, float(p[best]))
            return Reading(DECK[best], float(p[best]))
        rank = int(np.argmax(look.rank))
        if rank == NONE:
            return Reading(None, 0.0)
        suit = int(np.argmax(look.suit))
        confidence = agreement(look, rank, suit, self.settings["witnesses"])
        if confidence < self.settings["threshold"]:
            return Reading(None, confidence)
        return Reading(DECK[suit * 13 + rank], confidence)

    def look(self, cuts: list[finder.Cut]) -> list[Look]:
        """The model's view of each card. The face is read both ways up and the two
        readings averaged, so a card upside down in the box costs nothing; the corners are
        read once, since each is cut to show its index upright."""
        n = len(cuts)
        made = [finder.inputs(cut) for cut in cuts]
        faces, corner_a, corner_b = (np.stack([m[i] for m in made]) for i in range(3))
        faces = np.concatenate([faces, faces[:, :, ::-1, ::-1]])  # a new, contiguous array
        self._net.setInput(faces, "crop")
        self._net.setInput(corner_a, "corner_a")
        self._net.setInput(corner_b, "corner_b")
        out = dict(zip(OUTPUTS, self._net.forward(list(OUTPUTS)), strict=True))
        both = {k: (out[k][:n] + out[k][n:]) / 2 for k in FACE_OUTPUTS}
        logit = {
            "rank": both["joint_face_rank"] + out["joint_index_rank"],
            "suit": both["joint_face_suit"] + out["joint_index_suit"],
            "face_rank": both["face_rank"],
            "face_suit": both["face_suit"],
            "index_rank": out["index_rank"],
            "index_suit": out["index_suit"],
        }
        temperature = self.settings["temperatures"]
        p = {k: softmax(v / temperature[k]) for k, v in logit.items()}
        embed = np.concatenate([_unit(both["face_embed"]), _unit(out["index_embed"])], 1)
        embed = embed / np.sqrt(2)
        return [
            Look(p["rank"][i], p["suit"][i], embed[i], {k: p[k][i] for k in WITNESS_HEADS})
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
            self._pip_net.setInput(np.concatenate(stack), "pips")
            each = pip_suits(softmax(self._pip_net.forward("suit")))
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


FACE_OUTPUTS = ("face_rank", "face_suit", "face_embed", "joint_face_rank", "joint_face_suit")
INDEX_OUTPUTS = ("index_rank", "index_suit", "index_embed", "joint_index_rank", "joint_index_suit")
OUTPUTS = FACE_OUTPUTS + INDEX_OUTPUTS
"""The exported model's outputs (see ``training/net.py``): the face branch's for each face
crop, the index branch's for each card's pair of corners; the joint heads are linear, so
each branch gives its share."""


def _unit(v: np.ndarray) -> np.ndarray:
    return v / (np.linalg.norm(v, axis=1, keepdims=True) + 1e-9)


def load_deck(folder: Path, model: str) -> Taught:
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
    if stored != model:
        raise DeckError(f"{path}: taught for another model: teach the deck again")
    return taught
