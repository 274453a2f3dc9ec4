"""The recogniser's network, its training loop, its calibration and its export (PyTorch).

Development time only: what ships is the ONNX file that OpenCV's ``dnn`` module reads on
the Pi. A small convolutional net on the 2×128×96 face crop and the two 2×72×48 index
corners (brightness, colourfulness), with rank (13 and "not a card face") and suit heads,
and the last hidden layers as the embedding a taught deck is matched on.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from faro_pi.camera.model import FACE_OUTPUTS, INDEX_OUTPUTS, INPUTS, OUTPUTS
from training.dataset import NONE, dequantise


def _block(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()
    )


def _branch(blocks, pool: int, cells: int, embed: int) -> nn.Sequential:
    """Convolutions of (channels, stride), pooled to ``cells`` places, then an embedding."""
    layers, cin = [], 2
    for cout, stride in blocks:
        layers.append(_block(cin, cout, stride))
        cin = cout
    return nn.Sequential(
        *layers, nn.AvgPool2d(pool), nn.Flatten(), nn.Linear(cin * cells, embed), nn.ReLU()
    )


class Net(nn.Module):
    """Two branches, three witnesses: the face (pips, figures, the index small), the index
    corners (sharp; one branch for both, pooled by their maximum so either corner may be
    the legible one), and a joint head over both. Each witness has a rank and a suit head."""

    def __init__(self, width: int = 16, embed: int = 128):
        super().__init__()
        w = width
        self.face = _branch([(w, 2), (2 * w, 2), (4 * w, 2), (8 * w, 2), (8 * w, 1)], 2, 12, embed)
        # 8×6 -> 4×3: where on the card still counts
        self.index = _branch([(w, 1), (2 * w, 2), (4 * w, 2), (6 * w, 2), (6 * w, 1)], 3, 6, embed)
        # 9×6 -> 3×2: the rank above, the suit below
        self.face_rank, self.face_suit = nn.Linear(embed, NONE + 1), nn.Linear(embed, 4)
        self.index_rank, self.index_suit = nn.Linear(embed, NONE), nn.Linear(embed, 4)
        self.joint_face_rank = nn.Linear(embed, NONE + 1)
        self.joint_face_suit = nn.Linear(embed, 4)
        self.joint_index_rank = nn.Linear(embed, NONE + 1, bias=False)
        self.joint_index_suit = nn.Linear(embed, 4, bias=False)

    def face_branch(self, x):
        e = self.face(x)
        return (
            self.face_rank(e),
            self.face_suit(e),
            e,
            self.joint_face_rank(e),
            self.joint_face_suit(e),
        )

    def index_branch(self, a, b):
        e = torch.maximum(self.index(a), self.index(b))
        return (
            self.index_rank(e),
            self.index_suit(e),
            e,
            self.joint_index_rank(e),
            self.joint_index_suit(e),
        )

    def forward(self, x, a, b):
        """Every head's logits for cards seen one way up: what training fits."""
        fr, fs, fe, jfr, jfs = self.face_branch(x)
        ir, is_, ie, jir, jis = self.index_branch(a, b)
        return {
            "rank": jfr + jir,
            "suit": jfs + jis,
            "face_rank": fr,
            "face_suit": fs,
            "index_rank": ir,
            "index_suit": is_,
            "embed": torch.cat([fe, ie], 1),
        }


class Exported(nn.Module):
    """The graph that ships: both branches side by side, each with its own batch."""

    def __init__(self, net: Net):
        super().__init__()
        self.net = net

    def forward(self, crop, corner_a, corner_b):
        return (*self.net.face_branch(crop), *self.net.index_branch(corner_a, corner_b))


def _augment(x, a, b, gen: torch.Generator):
    """Either way up, a few pixels of slack in the cuts, a little contrast."""
    n = x.shape[0]
    flip = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(-1, -2), x)
    turned = flip[:, None, None, None]
    a, b = torch.where(turned, b, a), torch.where(turned, a, b)
    dy, dx = (int(v) for v in torch.randint(-3, 4, (2,), generator=gen))
    x = torch.roll(x, (dy, dx), (-2, -1))
    dy, dx = (int(v) for v in torch.randint(-2, 3, (2,), generator=gen))
    a, b = torch.roll(a, (dy, dx), (-2, -1)), torch.roll(b, (dy, dx), (-2, -1))
    scale = 1 + 0.15 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    return tuple(torch.cat([t[:, :1] * scale, t[:, 1:]], 1) for t in (x, a, b))


WITNESS_WEIGHT = 0.5
"""The face's and the index's own heads against the joint one: each must stand alone,
since a read needs all three witnesses to agree."""


def loss_of(model: Net, x, a, b, rank, suit):
    out = model(x, a, b)
    card = rank != NONE
    loss = F.cross_entropy(out["rank"], rank) + WITNESS_WEIGHT * F.cross_entropy(
        out["face_rank"], rank
    )
    if card.any():
        loss = loss + F.cross_entropy(out["suit"][card], suit[card])
        loss = loss + WITNESS_WEIGHT * (
            F.cross_entropy(out["face_suit"][card], suit[card])
            + F.cross_entropy(out["index_rank"][card], rank[card])
            + F.cross_entropy(out["index_suit"][card], suit[card])
        )
    return loss


COURT_WEIGHT = 2.0
"""Courts are drawn twice as often: J, Q and K differ by a letter in the index and a
figure no two designs draw alike, the hardest reads there are."""
NONE_WEIGHT = 1.5


def train(
    data,
    *,
    epochs: int,
    batch: int = 128,
    seed: int = 0,
    width: int = 16,
    init=None,
    keep=None,
    log=print,
):
    """A trained :class:`Net` on ``data`` (stored x, a, b, rank, suit), in ``epochs``
    passes; from the weights in ``init`` (a saved state, or an exported model) when given,
    at a third of the rate.
    With ``keep`` (a path) every finished pass is saved there, and a run that was stopped
    goes on from its last pass: a full run takes hours."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x, a, b, rank, suit = data
    court = (rank >= 10) & (rank < NONE)
    weight = np.where(court, COURT_WEIGHT, 1.0) * np.where(rank == NONE, NONE_WEIGHT, 1.0)
    weight = torch.from_numpy(weight / weight.sum())
    model = Net(width)
    rate = 3e-3
    if init is not None:
        if str(init).endswith(".onnx"):
            model = from_onnx(init)
        else:
            model.load_state_dict(torch.load(init))
        rate = 1e-3
    steps = epochs * math.ceil(len(x) / batch)
    opt = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=rate, total_steps=steps, pct_start=0.15)
    rank_t, suit_t = torch.from_numpy(rank), torch.from_numpy(suit)
    start = time.time()
    done = 0
    if keep is not None and Path(keep).exists():
        kept = torch.load(keep)
        for part, state in ((model, "model"), (opt, "opt"), (sched, "sched")):
            part.load_state_dict(kept[state])
        gen.set_state(kept["gen"])
        done = kept["done"]
        log(f"going on after pass {done} saved in {keep}", flush=True)
    for epoch in range(done, epochs):
        model.train()
        if init is not None:
            _hold_norms(model)
        order = torch.multinomial(weight, len(x), replacement=True, generator=gen)
        total, seen = 0.0, 0
        for i in range(0, len(x), batch):
            idx = order[i : i + batch]
            pick = idx.numpy()
            xb, ab, bb = _augment(*(torch.from_numpy(dequantise(t[pick])) for t in (x, a, b)), gen)
            loss = loss_of(model, xb, ab, bb, rank_t[idx], suit_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            seen += len(idx)
        if keep is not None:
            state = {"model": model.state_dict(), "opt": opt.state_dict()}
            state |= {"sched": sched.state_dict(), "gen": gen.get_state(), "done": epoch + 1}
            torch.save(state, keep)
        log(
            f"epoch {epoch + 1}/{epochs}: loss {total / seen:.4f} ({time.time() - start:.0f} s)",
            flush=True,
        )
    model.eval()
    return model


def _hold_norms(model: Net) -> None:
    """Going on from trained weights, the batch norms keep the statistics they were
    trained with (a shipped ONNX file has them folded into its convolutions); their scale
    and shift still learn."""
    for part in model.modules():
        if isinstance(part, nn.BatchNorm2d):
            part.eval()


def from_onnx(path) -> Net:
    """A :class:`Net` with the weights of an exported one (``export``'s file), so that a
    shipped model can be trained further when its PyTorch state is gone; its width is the
    first convolution's. The exporter folds each batch norm into the convolution before
    it: here each norm is left as the identity and the convolution takes the folded
    weights and bias."""
    import onnx
    from onnx import numpy_helper

    stored = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}

    def anonymous(kind: str) -> list:
        names = [k for k in stored if k.startswith(f"onnx::{kind}_")]
        return [stored[k] for k in sorted(names, key=lambda k: int(k.rsplit("_", 1)[1]))]

    convs = anonymous("Conv")
    model = Net(len(convs[1]) if len(convs) > 1 else 16)
    state = model.state_dict()
    blocks = [f"{branch}.{i}" for branch in ("face", "index") for i in range(5)]
    if len(convs) != 2 * len(blocks):
        raise ValueError(f"{path} is not an exported Net: {len(convs) // 2} convolutions")
    for block, weight, bias in zip(blocks, convs[::2], convs[1::2], strict=True):
        n = len(bias)
        state[f"{block}.0.weight"] = torch.from_numpy(weight.copy())
        state[f"{block}.1.weight"] = torch.ones(n)
        state[f"{block}.1.bias"] = torch.from_numpy(bias.copy())
        state[f"{block}.1.running_mean"] = torch.zeros(n)
        state[f"{block}.1.running_var"] = torch.full((n,), 1 - model.face[0][1].eps)
    for name, value in stored.items():
        if name.startswith("net."):
            state[name.removeprefix("net.")] = torch.from_numpy(value.copy())
    rank, suit = anonymous("MatMul")  # the joint index heads have no bias: bare products
    state["joint_index_rank.weight"] = torch.from_numpy(rank.T.copy())
    state["joint_index_suit.weight"] = torch.from_numpy(suit.T.copy())
    model.load_state_dict(state)
    return model.eval()


@torch.no_grad()
def logits(model: Net, x: np.ndarray, a: np.ndarray, b: np.ndarray, batch: int = 512) -> dict:
    """Every head's logits, and the embeddings, of stored samples, as numpy arrays."""
    outs = [
        model(*(torch.from_numpy(dequantise(t[i : i + batch])) for t in (x, a, b)))
        for i in range(0, len(x), batch)
    ]
    return {k: torch.cat([o[k] for o in outs]).numpy() for k in outs[0]}


def temperature(logit: np.ndarray, label: np.ndarray) -> float:
    """The temperature that makes ``softmax(logit / T)`` honest on held-out designs: the
    one of least negative log-likelihood (a grid: one number, no optimiser needed)."""
    best, best_nll = 1.0, math.inf
    for t in np.exp(np.linspace(np.log(0.3), np.log(5), 60)):
        z = logit / t
        z = z - z.max(axis=1, keepdims=True)
        nll = -(z[np.arange(len(z)), label] - np.log(np.exp(z).sum(axis=1))).mean()
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best


def export(model: Net, path, views=None) -> None:
    """The model as ONNX, for ``cv2.dnn.readNetFromONNX``, without the ``Identity`` nodes
    OpenCV 4.6 cannot load (:mod:`training.onnx_file`); checked to give torch's answers
    when the face crops and the corner pairs come in batches of their own sizes, and the
    same answers under OpenCV 4.6 as here on ``views`` (stored samples ``x, a, b``; noise
    when None)."""
    import cv2

    from faro_pi.camera.finder import CORNER, CROP
    from training import onnx_file

    crop = torch.randn(4, 2, CROP[1], CROP[0])
    a, b = torch.randn(2, 2, CORNER[1], CORNER[0]), torch.randn(2, 2, CORNER[1], CORNER[0])
    graph = Exported(model).eval()  # the exporter puts the wrapper's mode back afterwards
    torch.onnx.export(
        graph,
        (crop, a, b),
        str(path),
        input_names=list(INPUTS),
        output_names=list(OUTPUTS),
        opset_version=13,
        dynamic_axes={
            **dict(zip(INPUTS, ({0: "n"}, {0: "m"}, {0: "m"}), strict=True)),
            **{o: {0: "n"} for o in FACE_OUTPUTS},
            **{o: {0: "m"} for o in INDEX_OUTPUTS},
        },
        dynamo=False,
    )
    onnx_file.fold(Path(path))
    net = cv2.dnn.readNetFromONNX(str(path))
    for name, blob in zip(INPUTS, (crop, a, b), strict=True):
        net.setInput(blob.numpy(), name)
    got = net.forward(list(OUTPUTS))
    with torch.no_grad():
        want = graph(crop, a, b)
    for name, mine, theirs in zip(OUTPUTS, got, want, strict=True):
        if mine.shape != tuple(theirs.shape) or not np.allclose(mine, theirs.numpy(), atol=1e-3):
            raise RuntimeError(f"the ONNX model's {name} differs from torch's under OpenCV")
    blobs = (crop, a, b) if views is None else (dequantise(t) for t in views)
    onnx_file.check(Path(path), dict(zip(INPUTS, (np.asarray(t) for t in blobs), strict=True)))
