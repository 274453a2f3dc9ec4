"""The pip witness's views: pips cut from views of the training designs, and the table of
what the pips' count and figure say of each rank.

Pips are found by the reader's own finder (``faro_pi.camera.pips``) on views made as the
face net's are (``dataset``). A number card's pips are labelled with its suit when their
count is its rank; a court's blobs, a figure's pieces, are "not a pip", so that a figure
lends no suit. The signature table counts, for each rank, how often each count and figure
was found: what the count of a hidden or odd index is worth. No PyTorch here: the tests
draw pips through this module without loading it; ``pipnet`` trains on what it makes.
"""

from __future__ import annotations

import numpy as np

from faro_pi.camera import pips, scene
from faro_pi.camera.finder import find
from faro_pi.camera.recognise import index_symbols
from faro_pi.game.cards import CARD_BY_CODE, SUITS
from training import dataset

NOT_A_PIP = 4
"""The pip net's fifth class: a blob that is no number card's pip."""
SHARDS = 4
"""The shards' format (2: with the index symbols; 3: a wide symbol too; 4: the symbol
under a narrow rank or beside a figure's great pip, and the layout in the signature): a
cache of another is made anew."""


def sample(designs: list[dataset.Faces], rng: np.random.Generator):
    """One view's (cuts N×2×32×32 uint8 of its pips and its index symbols, their labels,
    rank, signature), or None when no card was found. An index symbol is labelled with the
    card's suit, a court's too: it is what the reader asks of the pip net there."""
    sizes = dataset.LARGE if rng.random() < 0.4 else dataset.SIZES
    size = sizes[rng.integers(len(sizes))]
    design = designs[rng.integers(len(designs))]
    code = list(design.cards)[rng.integers(len(design.cards))]
    card = CARD_BY_CODE[code]
    face = design.cards[code]
    if rng.random() < 0.2:
        face = dataset.recolour(face, card.suit, rng)
    cut = find(scene.view(face, rng, size, wide=rng.random() < 0.7))
    if cut is None:
        return None
    found = pips.find(cut.detail)
    suit = SUITS.index(card.suit)
    if card.rank > 10:
        label = NOT_A_PIP
    elif found.count == card.rank and not found.figure:
        label = suit
    elif card.rank == 1 and found.count == 1:
        label = suit  # an ace's one pip beside its great one, or its only pip
    elif card.rank == 1:
        label = NOT_A_PIP
    else:
        label = -1  # miscounted: which blobs are pips is not known
    symbols = index_symbols(cut)
    kept = [*found.cuts, *symbols] if label >= 0 else list(symbols)
    labels = [label] * (len(kept) - len(symbols)) + [suit] * len(symbols)
    stored = np.stack([dataset.quantise(c) for c in kept]) if kept else None
    return stored, np.array(labels, np.int64), card.rank - 1, found.signature


def generate(designs, count: int, seed: int):
    """``count`` views' pips: cuts M×2×32×32 (uint8), labels M; and per view rank, signature."""
    rng = np.random.default_rng(seed)
    cuts, labels, ranks, signatures = [], [], [], []
    while len(ranks) < count:
        one = sample(designs, rng)
        if one is None:
            continue
        stored, labelled, rank, signature = one
        ranks.append(rank)
        signatures.append(signature)
        if stored is not None:
            cuts.append(stored)
            labels += labelled.tolist()
    empty = np.zeros((0, 2, pips.PIP, pips.PIP), np.uint8)
    return (
        np.concatenate(cuts) if cuts else empty,
        np.array(labels, np.int64),
        np.array(ranks, np.int64),
        np.array(signatures, np.int64),
    )


def _shard(job) -> str:
    folders, count, seed, path = job
    faces = [dataset.load_faces(name, folder) for name, folder in folders]
    x, y, ranks, signatures = generate(faces, count, seed)
    np.savez(path, x=x, y=y, rank=ranks, signature=signatures)
    return path


def shards(folders, count: int, seed: int, out, per_shard: int = 2000, workers: int = 2):
    """``count`` views' pips of the designs in ``folders``, made in ``workers`` processes and
    cached as ``out/pips<SHARDS>-<seed>-<i>.npz``; loaded as one set."""
    made = dataset.cached(
        _shard,
        folders,
        count,
        seed,
        out,
        prefix=f"pips{SHARDS}-",
        per_shard=per_shard,
        workers=workers,
    )
    return tuple(made[k] for k in ("x", "y", "rank", "signature"))


def signature_table(ranks: np.ndarray, signatures: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """log P(signature | rank), 13 × ``pips.SIGNATURES``, with ``prior`` views of each signature
    added to every rank: a count no training view showed is unlikely, never impossible."""
    counts = np.full((13, pips.SIGNATURES), prior)
    np.add.at(counts, (ranks, signatures), 1)
    return np.log(counts / counts.sum(axis=1, keepdims=True))
