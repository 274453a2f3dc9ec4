"""Weighing the witnesses: the fused read's weights and its threshold, from held-out designs.

Views of the calibration designs (never trained on) are read as the reader reads them:
the shipped face and index net through ``Recogniser.look``, the pips through the reader's
own finder and the pip net. The weights of ``model.EVIDENCE`` are those under which
the fused posterior best names the card (least log-loss), so that its confidence is a
probability; the threshold is then the lowest that keeps each calibration set's wrong
reads within the goal. Development time only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from faro_pi.camera import finder, pips, scene
from faro_pi.camera.fusion import (
    NONE,
    evidence,
    face_rank_only,
    fused,
    not_a_card,
    pip_suits,
)
from faro_pi.camera.model import EVIDENCE
from faro_pi.camera.recognise import Recogniser, index_symbols
from faro_pi.game.cards import CARD_BY_CODE, SUITS
from training import dataset

NOT_A_FACE = 0.1
"""The share of views that are no card's face: a back, a joker, a hand, two cards."""


def _view(faces: dataset.Faces, rng: np.random.Generator):
    size = scene.STILLS[rng.integers(len(scene.STILLS))]
    kind = rng.random()
    cards = list(faces.cards)
    if kind >= NOT_A_FACE:
        code = cards[rng.integers(len(cards))]
        card = CARD_BY_CODE[code]
        return scene.view(faces.cards[code], rng, size), card.rank - 1, SUITS.index(card.suit)
    if kind < 0.03 and faces.others:
        face = faces.others[rng.integers(len(faces.others))]
        return scene.view(face, rng, size), NONE, 0
    if kind < 0.05:
        return scene.view(scene.back(rng), rng, size), NONE, 0
    a, b = rng.integers(len(cards), size=2)
    if kind < 0.08:
        still = scene.view(faces.cards[cards[a]], rng, size)
        return scene.hand(still, rng, cover=rng.uniform(0.25, 0.7)), NONE, 0
    return scene.overlapping(faces.cards[cards[a]], faces.cards[cards[b]], rng, size), NONE, 0


def _shard(job) -> str:
    """Views of the designs read by the shipped net; the pips and the index symbols kept as
    cuts for the pip net."""
    import cv2

    cv2.setNumThreads(1)
    folders, count, seed, path, model = job
    designs = [dataset.load_faces(name, folder) for name, folder in folders]
    reader = Recogniser.load(model=Path(model))
    rng = np.random.default_rng(seed)
    terms, none, ranks, suits, signatures, used, cuts = [], [], [], [], [], [], []
    marked, symbols = [], []
    for _ in range(count):
        still, rank, suit = _view(designs[rng.integers(len(designs))], rng)
        cut = finder.find(still)
        if cut is None:
            continue
        look = reader.look([cut])[0]
        found = pips.find(cut.detail)
        terms.append(evidence(look, None, np.zeros((13, pips.SIGNATURES)))[:3])
        none.append(not_a_card(look))
        ranks.append(rank)
        suits.append(suit)
        signatures.append(found.signature)
        seen = found.count and not found.figure
        used.append(found.count if seen else 0)
        if seen:
            cuts.append(np.stack([dataset.quantise(c) for c in found.cuts]))
        under = index_symbols(cut)
        marked.append(len(under))
        symbols += [dataset.quantise(c) for c in under]
    empty = np.zeros((0, 2, pips.PIP, pips.PIP), np.uint8)
    np.savez(
        path,
        terms=np.array(terms, np.float32),
        none=np.array(none),
        rank=np.array(ranks),
        suit=np.array(suits),
        signature=np.array(signatures),
        used=np.array(used),
        cuts=np.concatenate(cuts) if cuts else empty,
        marked=np.array(marked),
        symbols=np.stack(symbols) if symbols else empty,
    )
    return path


SHARDS = 5
"""The shards' format (4: "not a card" as ``fusion.not_a_card`` says; 5: the layout in
the pips' signature, and more index symbols found): a cache of another is made anew."""


def views(folders, count: int, seed: int, out, model: Path, per_shard=1000, workers=2) -> dict:
    """``count`` views of the designs in ``folders`` as the shipped net reads them, made in
    ``workers`` processes and cached as ``out/fusion-<seed>-<i>.npz``."""
    return dataset.cached(
        _shard,
        folders,
        count,
        seed,
        out,
        prefix="fusion-",
        per_shard=per_shard,
        workers=workers,
        extra=(str(model),),
    )


def complete(data: dict, counts: np.ndarray, probabilities) -> np.ndarray:
    """Every view's terms (N × 6 × 4 × 13), the pips' and the symbols' added: ``counts`` is
    the signature table, ``probabilities`` the pip net's for given cuts."""
    n = len(data["rank"])
    terms = np.zeros((n, len(EVIDENCE), 4, 13), np.float32)
    terms[:, :3] = data["terms"]
    terms[:, 3] = counts[:, data["signature"]].T[:, None, :]
    for term, cuts, used in ((4, "cuts", "used"), (5, "symbols", "marked")):
        each = pip_suits(probabilities(data[cuts]))
        ends = np.cumsum(data[used])
        for i in np.nonzero(data[used])[0]:
            terms[i, term] = each[ends[i] - data[used][i] : ends[i]].mean(axis=0)[:, None]
    seen = data["used"] > 0
    terms[seen, 2] = face_rank_only(terms[seen, 2])
    return terms


BAYES = ("count", "pips", "symbol")
"""The witnesses apart from the face and index net: the pips' count read through a table
counted from training views, and the pip net's suit of the pips and of the index symbols,
found and read apart from that net. Each is a likelihood of its own, so each counts once,
at a weight of 1, as Bayes' rule counts evidence; only the net's three heads are fitted.
They share one net and are fooled together (a plump club read as a spade by the joint
head, the index and the face at once), so their fitted sum is no likelihood of anything.
Left free, the fit weighs the witnesses apart from the net at about half: the net reads the
calibration designs almost without fault, so the log-loss is flat along their weights,
though on designs unlike the calibration's they are what outvotes a net sure and wrong.
Fixed at 1 they also leave more of the calibration designs' cards read at the threshold."""
PRIOR = 0.5
"""The net's heads' weights before the calibration speaks."""
PULL = 1e-3
"""How hard the fit is drawn to ``PRIOR``: a little, so that a head the calibration says
nothing about keeps a weight."""


def fit(terms: np.ndarray, card: np.ndarray) -> np.ndarray:
    """The weights (``model.EVIDENCE``) of least log-loss of the true card (``card``:
    its index in ``DECK``): those of ``BAYES`` fixed at 1, the net's heads drawn a little
    to ``PRIOR``."""
    import torch

    t = torch.from_numpy(terms.reshape(len(terms), len(EVIDENCE), 52).astype(np.float64))
    y = torch.from_numpy(card)
    fixed = torch.tensor([k in BAYES for k in EVIDENCE])
    w = torch.full((len(EVIDENCE),), PRIOR, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([w], max_iter=200, line_search_fn="strong_wolfe")

    def weights():
        return torch.where(fixed, torch.ones_like(w), w)

    def closure():
        opt.zero_grad()
        z = torch.einsum("k,nkc->nc", weights(), t)
        loss = torch.nn.functional.cross_entropy(z, y) + PULL * ((w[~fixed] - PRIOR) ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return weights().detach().numpy()


def confidence(terms: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each view's card read (index in ``DECK``) and confidence, as the reader gives them."""
    p = np.stack([fused(t, weights) for t in terms])
    return p.argmax(axis=1), p.max(axis=1)
