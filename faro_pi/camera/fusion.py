"""The fused read's arithmetic: what each witness says of the 52 cards, and how sure they are
together.

Five witnesses: the face (pips, figures), the index corners (cut sharp), a joint head over
both, the pips themselves (their count and figure, and each pip's suit by the pip net),
and the suit's symbol under each index. Each gives a log-likelihood of each of the 52
cards; the read is their weighted sum's posterior, the weights (:class:`model.Fusion`)
fitted on designs the net never saw. Pure numpy: the reader and the training script that
fits the weights compute it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from faro_pi.camera.model import EVIDENCE, Witnesses

NONE = 13
"""The rank head's class for what is not a card face (a back, a joker, a hand)."""


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


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
    corners: tuple[np.ndarray, np.ndarray] | None = None
    """What each index corner alone says: the log-probability of each of the 52 cards (in
    ``DECK`` order), by the index head."""


@dataclass(frozen=True)
class PipLook:
    """What the pips say: their count and figure, and each suit's mean log-probability over
    the pips (None with no pips, or beside a figure, whose pieces are no suit's pips); and
    over the symbols under the indices (None when neither index showed one)."""

    signature: int
    suit: np.ndarray | None
    symbol: np.ndarray | None = None


def not_a_card(look: Look) -> bool:
    """Whether a view is no card's face to the fused read: the joint head and the face's own
    head both find "not a card" likelier than any card (the index head cannot say it).
    Either alone may balk at a court figure unlike any it was taught while the other
    witnesses read the card surely; a back, a joker, a hand over the face or two cards
    askew are seldom seen by one and not the other, and the threshold still stands behind."""
    return look.rank[NONE] > 0.5 and look.heads["face_rank"][NONE] > 0.5


SPLIT = 8.0
"""Nats of doubt the two index corners may share: the least that one or the other must
give up of its own reading for both to name one card. A lone card's two indices name the
same card, even where a design's odd index fools the head alike in both (neoclassical
fives read as sixes); a card drawn off another shows one card's index in one corner and
the other's in the other. Above it, it is two cards: a no-read, never a third card made
of one's index and the other's pips."""


def log_cards(rank: np.ndarray, suit: np.ndarray) -> np.ndarray:
    """The log-probability of each of the 52 cards (``DECK`` order: suit by suit, ace to
    king) from a head's rank (A..K, and perhaps "not a face") and suit probabilities."""
    return (np.log(suit + 1e-9)[:, None] + np.log(rank[:13] + 1e-9)[None]).ravel()


def two_indices(look: Look) -> bool:
    """Whether the two index corners name different cards (see ``SPLIT``)."""
    if look.corners is None:
        return False
    a, b = look.corners
    return float(((a.max() - a) + (b.max() - b)).min()) > SPLIT


def agreement(look: Look, rank: int, suit: int, witnesses: Witnesses) -> float:
    """How surely the witnesses agree on one card: the weighted geometric mean of each
    one's probability of it (the joint head's weight is 1)."""
    logs = [np.log(look.rank[rank] * look.suit[suit] + 1e-12)]
    weights = [1.0]
    for name in Witnesses.__struct_fields__:
        weight = getattr(witnesses, name)
        if weight:
            p = look.heads[f"{name}_rank"][rank] * look.heads[f"{name}_suit"][suit]
            logs.append(weight * np.log(p + 1e-12))
            weights.append(weight)
    return float(np.exp(sum(logs) / sum(weights)))


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
