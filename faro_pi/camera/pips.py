"""The pips of a face: how many, whether a figure stands there, and each pip cut out large.

A third witness beside the face and the index. Where the rim hides an index, or a design
draws its index in a hand the model never saw, a number card still says what it is by
its pips: their count is its rank and their shape its suit. They are found on a sharper
cut of the face (``finder.DETAIL``): ink judged against the paper's light nearby, so a gradient
or glare does not count as ink; the blobs that touch the cut's edge or stand where an
index stands are left out; the pips are the biggest family of blobs of like size. Each is
cut square and turned upright (a pip below the middle is drawn upside down) for the pip
net, which knows the four suits and "not a pip" and nothing else, so a design need not
look like any it saw in the whole.

The suit's symbol under each index (``symbol``) is cut the same way for the same net: the
one suit witness a court has beside the model's, and one drawn by a hand the pip net
knows from the pips of many designs.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from faro_pi.camera.finder import paper_of, sample

PIP = 32
"""The side of each pip's cut, what the pip net reads."""
MOST = 12
"""The most pips a family may have: no face has more than ten, so more is a figure's hatching."""
INDEX_BAND = 0.17
"""How far in from either long side an index stands; a pip's centre never does."""
INK = 0.62
"""Darker than this share of the paper's light nearby is ink."""
COLOURED = 0.22
"""Or more colourful than this (on the white-balanced scale), for a pale red."""
LIKE = 1.7
"""The most two pips of one family may differ in area, as a ratio (a corner pip is cut
smaller by a little rim or tilt)."""
SIDES = 1.45
"""The most two pips of one family may differ in width or in height, as a ratio (and 2 px)."""
SMALLEST = 14
"""The least area of a pip in pixels of ``finder.DETAIL``: less is a dot of print or of noise."""
FIGURE = 0.045
"""A blob over this share of the cut is a court's figure or an ace's great pip."""
COUNTS = 13
"""A count of 0..12 (``MOST``)."""
SIGNATURES = 4 * COUNTS
"""Signatures: a count, with a figure or without, in a whole layout or not."""
HALF_TURN = 0.5
"""How far, in pip sizes, a pip turned half round the layout's middle may land from another
and the layout still be whole."""


@dataclass(frozen=True)
class Pips:
    count: int
    """How many pips the biggest family has (0: none found)."""
    figure: bool
    """Whether a blob too large for a pip stands on the face."""
    cuts: np.ndarray
    """Each pip's features (N×2×``PIP``×``PIP``, float32), upright."""
    whole: bool = False
    """Whether a half-turn maps the pips onto themselves, as it does every number card's
    but the seven's: one pip lost under the rim or in a glare leaves the rest lopsided,
    so a whole five is not a six that lost a pip."""

    @property
    def signature(self) -> int:
        """The count, the figure and the layout as one number, 0 .. ``SIGNATURES`` - 1."""
        return min(self.count, COUNTS - 1) + COUNTS * (int(self.figure) + 2 * int(self.whole))


def find(detail: np.ndarray) -> Pips:
    """The pips on ``detail``: the visible face cut at ``DETAIL``, BGR, either way up."""
    h, w = detail.shape[:2]
    margin = 3
    ink, seen = _inked(detail, paper_of(detail), margin)
    _, _, stats, centres = cv2.connectedComponentsWithStats(ink.view(np.uint8), 8)
    x, y, bw, bh, area = (stats[1:, i] for i in range(5))
    cx = centres[1:, 0]
    edge = (x <= margin) | (y <= margin) | (x + bw >= w - margin) | (y + bh >= h - margin)
    inside = (cx > INDEX_BAND * w) & (cx < (1 - INDEX_BAND) * w) & ~edge
    figure = bool(np.any(inside & (area > FIGURE * w * h)))
    blob = np.nonzero(inside & (area >= SMALLEST) & (area <= FIGURE * w * h))[0]
    family = _family(area[blob], bw[blob], bh[blob])
    chosen = blob[family]
    cuts = [_cut(seen, x[i], y[i], bw[i], bh[i], y[i] + bh[i] / 2 > h / 2) for i in chosen]
    stacked = np.stack(cuts) if cuts else np.zeros((0, 2, PIP, PIP), np.float32)
    size = np.maximum(bw[chosen], bh[chosen])
    return Pips(len(chosen), figure, stacked, _whole(centres[1:][chosen], size))


def symbol(strip: np.ndarray, paper: np.ndarray) -> np.ndarray | None:
    """The suit's symbol under the index of one strip (``finder.STRIP``, BGR, upright), cut
    as a pip is (2×``PIP``×``PIP``), or None when no symbol stands under a rank there (a
    design with its suit beside the rank, an index under the rim). ``paper`` is the face's
    level (``finder.paper_of``): a strip alone may be mostly ink.

    The rank is the glyph nearest the corner; the symbol the first blob below its row,
    under it, and of about its size or less (a design with a large index draws a symbol
    nearly as wide as the strip)."""
    h, w = strip.shape[:2]
    margin = 2  # the box's dark edge beyond a card cut a little wide
    ink, seen = _inked(strip, paper, margin)
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink.view(np.uint8), 8)
    x, y, bw, bh, area = (stats[1:, i] for i in range(5))
    glyph = np.nonzero(
        (area >= 20) & (bw >= 3) & (bw < 0.8 * w) & (bh < 0.45 * h) & (x < 0.7 * w) & (y < 0.4 * h)
    )[0]
    if len(glyph) == 0:
        return None
    rank = glyph[np.argmin(y[glyph] + bh[glyph] / 2 + x[glyph] + bw[glyph] / 2)]
    middle = y[rank] + bh[rank] / 2
    row = glyph[
        (y[glyph] < middle) & (y[glyph] + bh[glyph] > middle) & (bh[glyph] > 0.4 * bh[rank])
    ]
    lines = (row, [rank]) if len(row) > 1 else (row,)
    for line in lines:  # the rank alone when the row took in a figure's great pip
        top, bottom = y[line].min(), (y[line] + bh[line]).max()
        left, right = x[line].min(), (x[line] + bw[line]).max()
        tall = bottom - top
        under = np.nonzero(
            (area >= 10)
            & (y >= bottom - 1)
            & (y < bottom + 0.8 * tall)
            & (x + bw > left)
            & (x < right)
            & (x + bw < w - margin)
            & (y + bh < h - margin)
            & (bw < 1.5 * max(right - left, tall) + 2)  # a J is narrow, its symbol not
            & (bh > 0.25 * tall)
            & (bh < 1.5 * tall)
        )[0]
        if len(under):
            s = under[np.argmin(y[under])]
            return _cut(seen, x[s], y[s], bw[s], bh[s], turn=False)
    return None


def _inked(image: np.ndarray, paper: np.ndarray, margin: int) -> tuple[np.ndarray, np.ndarray]:
    """Where ``image`` (BGR) has ink, ``margin`` pixels at its edges left out, and what the
    pip net sees of it (the model's features, as ``finder.features``, H×W×2)."""
    b, g, r = (
        np.minimum(channel.astype(np.float32) * np.float32(1.0 / (level + 1.0)), 1.2)
        for channel, level in zip(cv2.split(image), paper, strict=True)
    )
    light = (b + g + r) * (1 / 3)
    chroma = cv2.max(cv2.max(b, g), r) - cv2.min(cv2.min(b, g), r)
    ink = (light < INK * _nearby_paper(light)) | (chroma > COLOURED)
    ink[:margin], ink[-margin:], ink[:, :margin], ink[:, -margin:] = 0, 0, 0, 0
    return ink, cv2.merge([light - 0.6, chroma * 2])


def _nearby_paper(light: np.ndarray) -> np.ndarray:
    """The paper's light around each pixel: the brightest nearby, smoothed, from a quarter
    size (a pip is darker than the paper about it, a gradient is not)."""
    h, w = light.shape
    small = cv2.resize(light, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    small = cv2.dilate(small, np.ones((7, 7), np.uint8))
    small = cv2.blur(small, (5, 5))
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _family(area: np.ndarray, bw: np.ndarray, bh: np.ndarray) -> np.ndarray:
    """The indices of the biggest family of like-sized blobs (the larger on a tie), or none.
    A family is a blob with those within ``LIKE`` of it in area and ``SIDES`` in each
    side; a family of over ``MOST`` is hatching, not pips."""
    if len(area) == 0:
        return np.zeros(0, np.int64)
    a = area.astype(np.float32)
    like = (
        (np.maximum(a[:, None], a[None]) <= LIKE * np.minimum(a[:, None], a[None]))
        & (np.maximum(bw[:, None], bw[None]) <= SIDES * np.minimum(bw[:, None], bw[None]) + 2)
        & (np.maximum(bh[:, None], bh[None]) <= SIDES * np.minimum(bh[:, None], bh[None]) + 2)
    )
    size = like.sum(axis=1)
    score = np.where(size <= MOST, size * 1e6 + a, -1)
    best = int(np.argmax(score))
    if score[best] < 0:
        return np.zeros(0, np.int64)
    return np.nonzero(like[best])[0]


def _whole(centres: np.ndarray, size: np.ndarray) -> bool:
    """Whether each pip, turned half round the middle of the pips' span, lands on a pip."""
    if len(centres) < 2:
        return False
    turned = centres.min(axis=0) + centres.max(axis=0) - centres
    apart = np.linalg.norm(turned[:, None] - centres[None], axis=2).min(axis=1)
    return bool(apart.max() < HALF_TURN * np.median(size))


def _cut(seen, x, y, bw, bh, turn: bool) -> np.ndarray:
    """One pip's square cut, turned half round when ``turn`` (a pip in a face's lower half
    is drawn upside down); sampled as the finder cuts a face, so every OpenCV cuts it alike."""
    side = 1.3 * max(bw, bh) + 2
    step = -side / PIP if turn else side / PIP
    across = (np.arange(PIP) - PIP / 2) * step
    columns, rows = np.meshgrid(x + bw / 2 + across, y + bh / 2 + across)
    return sample(seen, columns, rows, edge=True).transpose(2, 0, 1)
