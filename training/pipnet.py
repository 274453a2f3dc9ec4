"""The pip net: a pip's suit, or "not a pip", from a 32×32 cut, trained on ``pipviews``'
pips of the packaged designs. Development time only; what ships is ``pips.onnx`` and the
table in ``model.json``.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from faro_pi.camera import pips
from faro_pi.camera.model import PIP_INPUT, PIP_OUTPUT
from training import dataset
from training.pipviews import NOT_A_PIP


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


def export(model: PipNet, path, views=None) -> None:
    """The pip net as ONNX for ``cv2.dnn``, without the ``Identity`` nodes OpenCV 4.6
    cannot load (:mod:`training.onnx_file`); checked against torch on a batch of pips, and
    under OpenCV 4.6 against this one on ``views`` (stored pip cuts; noise when None)."""
    import cv2

    from training import onnx_file

    x = torch.randn(7, 2, pips.PIP, pips.PIP)
    torch.onnx.export(
        model.eval(),
        (x,),
        str(path),
        input_names=[PIP_INPUT],
        output_names=[PIP_OUTPUT],
        opset_version=13,
        dynamic_axes={PIP_INPUT: {0: "n"}, PIP_OUTPUT: {0: "n"}},
        dynamo=False,
    )
    onnx_file.fold(Path(path))
    net = cv2.dnn.readNetFromONNX(str(path))
    net.setInput(x.numpy(), PIP_INPUT)
    got = net.forward(PIP_OUTPUT)
    with torch.no_grad():
        want = model(x).numpy()
    if got.shape != want.shape or not np.allclose(got, want, atol=1e-3):
        raise RuntimeError("the ONNX pip net differs from torch's under OpenCV")
    blob = x.numpy() if views is None else dataset.dequantise(views)
    onnx_file.check(Path(path), {PIP_INPUT: blob})
