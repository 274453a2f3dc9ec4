"""The pip witness's training: pips cut from views of the training designs, the pip net, and
the table of what the pips' count and figure say of each rank.

Pips are found by the reader's own finder (``faro_pi.camera.pips``) on views made as the
face net's are (``dataset``). A number card's pips are labelled with its suit when their
count is its rank; a court's blobs, a figure's pieces, are "not a pip", so that a figure
lends no suit. The signature table counts, for each rank, how often each count and figure
was found: what the count of a hidden or odd index is worth. Development time only; what
ships is ``pips.onnx`` and the table in ``model.json``.
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from faro_pi.camera import pips, scene
from faro_pi.camera.finder import find
from faro_pi.camera.recognise import index_symbols
from faro_pi.camera.training import dataset
from faro_pi.game.cards import CARD_BY_CODE, SUITS

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


def _block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class PipNet(nn.Module):
    """A pip's suit, or "not a pip", from its 2×32×32 cut: a small convolutional net."""

    def __init__(self, width: int = 16):
        super().__init__()
        w = width
        self.body = nn.Sequential(
            _block(2, w),
            nn.MaxPool2d(2),  # 16
            _block(w, 2 * w),
            nn.MaxPool2d(2),  # 8
            _block(2 * w, 4 * w),
            nn.MaxPool2d(2),  # 4
            _block(4 * w, 4 * w),
            nn.AvgPool2d(4),
            nn.Flatten(),
        )
        self.head = nn.Linear(4 * w, NOT_A_PIP + 1)

    def forward(self, x):
        return self.head(self.body(x))


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """A few pixels of slack, a few degrees of turn, a little size and contrast, and the
    ink a pixel bolder or finer (``_weight``)."""
    n = x.shape[0]
    angle = (torch.rand(n, generator=gen) - 0.5) * math.radians(16)
    scale = 1 + (torch.rand(n, generator=gen) - 0.5) * 0.2
    shift = (torch.rand(n, 2, generator=gen) - 0.5) * 0.15
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )
    grid = F.affine_grid(theta, list(x.shape), align_corners=False)
    x = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    contrast = 1 + 0.2 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    return _weight(torch.cat([x[:, :1] * contrast, x[:, 1:]], 1), gen)


BOLDER, FINER = 0.3, 0.2
"""The shares of pips drawn a pixel bolder and a pixel finer in training."""


def _weight(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Some pips' ink grown or shrunk by a pixel all round: one design draws its clubs'
    lobes so plump that they merge, another its spades lean, and the pip net should know a
    suit by its outline's shape, not by how heavily one training deck inked it. Ink is dark
    in the first feature and bright in the second (``pips._inked``)."""
    u = torch.rand(x.shape[0], 1, 1, 1, generator=gen)
    light, chroma = x[:, :1], x[:, 1:]

    def grown(a):
        return F.max_pool2d(a, 3, 1, 1)

    bolder = torch.cat([-grown(-light), grown(chroma)], 1)
    finer = torch.cat([grown(light), -grown(-chroma)], 1)
    return torch.where(u < BOLDER, bolder, torch.where(u < BOLDER + FINER, finer, x))


def train(
    x: np.ndarray, y: np.ndarray, *, epochs: int = 6, batch: int = 256, seed: int = 0, log=print
):
    """A trained :class:`PipNet` on stored pip cuts ``x`` and labels ``y``; each class
    drawn equally often, so that the rarer suits' pips and the figures' pieces count."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = PipNet()
    freq = np.bincount(y, minlength=NOT_A_PIP + 1).astype(np.float64)
    weight = torch.from_numpy(1 / np.maximum(freq[y], 1))
    steps = epochs * math.ceil(len(x) / batch)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    labels = torch.from_numpy(y)
    start = time.time()
    for epoch in range(epochs):
        model.train()
        order = torch.multinomial(weight, len(x), replacement=True, generator=gen)
        total = 0.0
        for i in range(0, len(x), batch):
            idx = order[i : i + batch]
            xb = _augment(torch.from_numpy(dataset.dequantise(x[idx.numpy()])), gen)
            loss = F.cross_entropy(model(xb), labels[idx], label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        log(
            f"pip net {epoch + 1}/{epochs}: loss {total / len(x):.4f} ({time.time() - start:.0f} s)"
        )
    model.eval()
    return model


@torch.no_grad()
def probabilities(model: PipNet, x: np.ndarray, batch: int = 1024) -> np.ndarray:
    parts = [
        F.softmax(model(torch.from_numpy(dataset.dequantise(x[i : i + batch]))), 1)
        for i in range(0, len(x), batch)
    ]
    return torch.cat(parts).numpy() if parts else np.zeros((0, NOT_A_PIP + 1), np.float32)


def export(model: PipNet, path) -> None:
    """The pip net as ONNX for ``cv2.dnn``, checked against torch on a batch of pips."""
    import cv2

    x = torch.randn(7, 2, pips.PIP, pips.PIP)
    torch.onnx.export(
        model.eval(),
        (x,),
        str(path),
        input_names=["pips"],
        output_names=["suit"],
        opset_version=13,
        dynamic_axes={"pips": {0: "n"}, "suit": {0: "n"}},
        dynamo=False,
    )
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(x.numpy(), "pips")
    got = net.forward("suit")
    with torch.no_grad():
        want = model(x).numpy()
    if got.shape != want.shape or not np.allclose(got, want, atol=1e-3):
        raise RuntimeError("the ONNX pip net differs from torch's under OpenCV")
