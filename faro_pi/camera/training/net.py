"""The recogniser's network, its training loop, its calibration and its export (PyTorch).

Development time only: what ships is the ONNX file that OpenCV's ``dnn`` module reads on
the Pi. A small all-convolutional net on the 2×128×96 crop (brightness, colourfulness),
with two heads, rank (13 and "not a card face") and suit, and the last hidden layer as the
embedding a taught deck is matched on.
"""

from __future__ import annotations

import math
import time

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from faro_pi.camera.training.dataset import NONE, dequantise

OUTPUTS = ("rank", "suit", "embed")


def _block(cin: int, cout: int, stride: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()
    )


class Net(nn.Module):
    def __init__(self, width: int = 16, embed: int = 128):
        super().__init__()
        w = width
        self.body = nn.Sequential(
            _block(2, w, 2),
            _block(w, 2 * w, 2),
            _block(2 * w, 4 * w, 2),
            _block(4 * w, 8 * w, 2),
            _block(8 * w, 8 * w, 1),
        )
        self.pool = nn.AvgPool2d(2)  # 8×6 -> 4×3: where on the card still counts
        self.embed = nn.Sequential(nn.Flatten(), nn.Linear(8 * w * 12, embed), nn.ReLU())
        self.rank = nn.Linear(embed, NONE + 1)
        self.suit = nn.Linear(embed, 4)

    def forward(self, x):
        e = self.embed(self.pool(self.body(x)))
        return self.rank(e), self.suit(e), e


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Either way up, a few pixels of slack in the cut, a little contrast."""
    n = x.shape[0]
    flip = torch.rand(n, generator=gen) < 0.5
    x = torch.where(flip[:, None, None, None], x.flip(-1, -2), x)
    dy, dx = (int(v) for v in torch.randint(-3, 4, (2,), generator=gen))
    x = torch.roll(x, (dy, dx), (-2, -1))
    scale = 1 + 0.15 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    return torch.cat([x[:, :1] * scale, x[:, 1:]], 1)


def loss_of(model: Net, x, rank, suit):
    r, s, _ = model(x)
    loss = F.cross_entropy(r, rank)
    card = rank != NONE
    if card.any():
        loss = loss + F.cross_entropy(s[card], suit[card])
    return loss


COURT_WEIGHT = 2.0
"""Courts are drawn twice as often: J, Q and K differ by a letter in the index and a
figure no two designs draw alike, the hardest reads there are."""
NONE_WEIGHT = 1.5


def train(
    data, *, epochs: int, batch: int = 128, seed: int = 0, width: int = 16, init=None, log=print
):
    """A trained :class:`Net` on ``data`` (stored x, rank, suit), in ``epochs`` passes;
    from the weights in ``init`` (a saved state) when given, at a third of the rate."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    x, rank, suit = data
    court = (rank >= 10) & (rank < NONE)
    weight = np.where(court, COURT_WEIGHT, 1.0) * np.where(rank == NONE, NONE_WEIGHT, 1.0)
    weight = torch.from_numpy(weight / weight.sum())
    model = Net(width)
    rate = 3e-3
    if init is not None:
        model.load_state_dict(torch.load(init))
        rate = 1e-3
    steps = epochs * math.ceil(len(x) / batch)
    opt = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=rate, total_steps=steps, pct_start=0.15)
    rank_t, suit_t = torch.from_numpy(rank), torch.from_numpy(suit)
    start = time.time()
    for epoch in range(epochs):
        model.train()
        order = torch.multinomial(weight, len(x), replacement=True, generator=gen)
        total, seen = 0.0, 0
        for i in range(0, len(x), batch):
            idx = order[i : i + batch]
            xb = _augment(torch.from_numpy(dequantise(x[idx.numpy()])), gen)
            loss = loss_of(model, xb, rank_t[idx], suit_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
            seen += len(idx)
        log(f"epoch {epoch + 1}/{epochs}: loss {total / seen:.4f} ({time.time() - start:.0f} s)")
    model.eval()
    return model


@torch.no_grad()
def logits(model: Net, x: np.ndarray, batch: int = 512):
    """Rank and suit logits and embeddings of stored samples, as numpy arrays."""
    outs = [model(torch.from_numpy(dequantise(x[i : i + batch]))) for i in range(0, len(x), batch)]
    return tuple(torch.cat([o[k] for o in outs]).numpy() for k in range(3))


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


def export(model: Net, path) -> None:
    """The model as ONNX, for ``cv2.dnn.readNetFromONNX``; checked to give torch's answers."""
    import cv2

    from faro_pi.camera.finder import CROP

    dummy = torch.randn(2, 2, CROP[1], CROP[0])
    torch.onnx.export(
        model,
        dummy,
        str(path),
        input_names=["crop"],
        output_names=list(OUTPUTS),
        opset_version=13,
        dynamic_axes={"crop": {0: "n"}, **{o: {0: "n"} for o in OUTPUTS}},
        dynamo=False,
    )
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(dummy.numpy())
    got = net.forward(list(OUTPUTS))
    with torch.no_grad():
        want = model(dummy)
    for name, a, b in zip(OUTPUTS, got, want, strict=True):
        if not np.allclose(a, b.numpy(), atol=1e-3):
            raise RuntimeError(f"the ONNX model's {name} differs from torch's under OpenCV")
