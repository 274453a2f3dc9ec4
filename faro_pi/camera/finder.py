"""Finding the top card in a still and cutting it out upright: the first step of a read.

The face is bright on a dark box: threshold, the largest outline, its rotated rectangle,
warped to a canonical portrait crop. The two index corners are cut again, sharper, from
the still at a larger size: in the face crop an index is a dozen pixels tall, too few to
tell a serif 9 from a 10. Which way up the card lies is left open (the model reads the face
both ways up, and the two corners are cut so that each shows its index upright whichever
way the card lies); whatever is not a lone card-shaped bright patch (an empty box, a hand,
two cards overlapping) is no card at all, so the reader says no-read without guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CROP = (96, 128)
"""Width and height of the canonical crop of the visible face."""

CORNER = (48, 72)
"""Width and height of the cut of each index corner."""

CORNER_SHARE = (0.24, 0.26)
"""How much of the visible face's width and height an index corner takes: a poker card's
index stands within its first 15 mm across and 23 mm down."""

STRIP = (48, 116)
"""Width and height of each index corner cut taller, down past its suit's symbol (``pips``
reads that symbol); the corner is its top ``CORNER[1]`` rows, cut by the same warp."""

DETAIL = (144, 200)
"""Width and height of the sharper cut of the face the pips are found on: a ten's pips some
twenty pixels tall."""

CORNER_SOURCE = 280
"""About the card's height in pixels in the still the corners are cut from: a corner's cut
is then about its own size there, so no detail is lost and little time is spent."""


@dataclass(frozen=True)
class Cut:
    """What the model reads of one card: the face, and its two index corners."""

    face: np.ndarray
    """The visible face, upright or upside down (BGR, ``CROP``)."""
    strips: tuple[np.ndarray, np.ndarray]
    """The top-left index strip, and the bottom-right one turned half round (BGR,
    ``STRIP``): either way up the card lies, both show an index upright."""
    detail: np.ndarray
    """The visible face again, sharper (BGR, ``DETAIL``): where the pips are found."""

    @property
    def corners(self) -> tuple[np.ndarray, np.ndarray]:
        """The index corners the model reads (BGR, ``CORNER``): the strips' tops."""
        return self.strips[0][: CORNER[1]], self.strips[1][: CORNER[1]]

    def turned(self) -> Cut:
        """The same card seen the other way up."""
        face, detail = (image[::-1, ::-1].copy() for image in (self.face, self.detail))
        return Cut(face, (self.strips[1], self.strips[0]), detail)


WORK_HEIGHT = 240
"""About the height the card is found and cut at: enough for the model, cheap on a Pi."""

ASPECT = (0.60, 0.82)
"""Width over height of the visible face: a 63×88 card (0.72), less up to 4 mm of rim on
any side (0.62 to 0.79), seen up to 10° off straight down, and a little more. A card drawn
a fifth of its way off the next, across or along, shows a patch of the two outside it."""

MIN_AREA = 0.04
"""The least share of the still the visible face covers (45 % of the height, less the rim)."""

UPRIGHT_DEG = 20.0
"""How far the long side may lean from the still's vertical: the contract's 8°, and room for
tilt; a card lying askew is a card that fell across the top one."""

SOLIDITY = 0.88
"""The least share of its rectangle the outline's hull fills: two cards askew, or a card
and a hand, fall short."""

FILLED = 0.5
"""The least share of its hull the bright outline fills. A face's ink may run to its edge
(big pips under a rim, a court's frame) and bite deep into the bright patch, a third of
it on a ten of plump clubs; fingers over the card bite deeper."""


def find(image: np.ndarray) -> Cut | None:
    """The card's face and index corners, or None when no lone card shows."""
    small, shrink = working(image)
    quad = _outline(small)
    if quad is None:
        return None
    card_height = float(np.linalg.norm(quad[3] - quad[0])) * shrink
    scale = max(1, int(card_height // CORNER_SOURCE))
    source = small if scale == shrink else _shrunk(image, scale)[0]
    there = quad * (shrink / scale)
    return Cut(cut(small, quad), strips(source, there), cut(source, there, DETAIL))


def working(image: np.ndarray) -> tuple[np.ndarray, int]:
    """The still shrunk by a whole factor (OpenCV's fast path) to about ``WORK_HEIGHT``:
    the card is found and cut there, so a 1080p still costs little more than a small one
    and the model sees the face at the size it learnt it."""
    return _shrunk(image, max(1, image.shape[0] // WORK_HEIGHT))


def _shrunk(image: np.ndarray, shrink: int) -> tuple[np.ndarray, int]:
    if shrink == 1:
        return image, 1
    h, w = image.shape[:2]
    return cv2.resize(image, (w // shrink, h // shrink), interpolation=cv2.INTER_AREA), shrink


def outline(image: np.ndarray) -> np.ndarray | None:
    """The four corners of the visible face in ``image``'s pixels, top-left first, clockwise
    with the long side vertical; None when the bright patch is not card-shaped."""
    small, shrink = working(image)
    quad = _outline(small)
    return None if quad is None else quad * shrink


def _outline(small: np.ndarray) -> np.ndarray | None:
    b, g, r = cv2.split(small)
    grey = cv2.GaussianBlur(cv2.max(cv2.max(b, g), r), (5, 5), 0)
    level, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    if level < 40 or np.percentile(grey, 99) - np.percentile(grey, 1) < 60:
        return None  # nothing bright against the box: empty, or a dark hand over it
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    biggest = max(contours, key=cv2.contourArea)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(biggest)
    area = cv2.contourArea(cv2.convexHull(biggest))
    if rw * rh <= 0 or area / (rw * rh) < SOLIDITY or cv2.contourArea(biggest) / area < FILLED:
        return None
    if rw * rh < MIN_AREA * small.shape[0] * small.shape[1]:
        return None
    if not ASPECT[0] <= min(rw, rh) / max(rw, rh) <= ASPECT[1]:
        return None
    quad = _order(cv2.boxPoints(((cx, cy), (rw, rh), angle)))
    down = (quad[3] + quad[2] - quad[0] - quad[1]) / 2
    if abs(np.degrees(np.arctan2(down[0], down[1]))) > UPRIGHT_DEG:
        return None
    return quad


def _order(corners: np.ndarray) -> np.ndarray:
    """Top-left, top-right, bottom-right, bottom-left of a portrait rectangle."""
    centre = corners.mean(axis=0)
    sides = [np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]
    start = 0 if sides[0] < sides[1] else 1  # a short side first: the top edge
    ring = [corners[(start + i) % 4] for i in range(4)]
    top = (ring[0] + ring[1]) / 2
    if top[1] > centre[1]:  # that short side is the bottom one: take the other
        ring = ring[2:] + ring[:2]
    (ax, ay), (bx, by) = ring[1] - ring[0], ring[2] - ring[1]
    if ax * by - ay * bx < 0:  # counter-clockwise on screen
        ring = [ring[1], ring[0], ring[3], ring[2]]
    return np.array(ring, np.float32)


def cut(image: np.ndarray, quad: np.ndarray, size: tuple[int, int] = CROP) -> np.ndarray:
    """The face outlined by ``quad`` in ``image``, stretched to ``size`` (width, height)."""
    return warp(image, quad, size)


def strips(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The top-left index strip of the face outlined by ``quad`` in ``image``, and the
    bottom-right one turned half round."""
    fw, fh = CORNER_SHARE[0], CORNER_SHARE[1] * STRIP[1] / CORNER[1]
    tl, tr, br, bl = quad.astype(np.float32)
    across, down = tr - tl, bl - tl
    top_left = np.array([tl, tl + fw * across, tl + fw * across + fh * down, tl + fh * down])
    bottom_right = np.array([br, br - fw * across, br - fw * across - fh * down, br - fh * down])
    return warp(image, top_left, STRIP), warp(image, bottom_right, STRIP)


def warp(image: np.ndarray, quad: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The quadrilateral ``quad`` (top-left first, clockwise) of ``image`` (uint8, H×W×C)
    stretched to a ``size`` (width, height) rectangle: each pixel bilinear between its four
    neighbours, black beyond the image's edge, in floating point and rounded once.

    Not ``cv2.warpPerspective``: OpenCV 4 rounds each source position to 1/32 of a pixel
    and its weights to fixed point, OpenCV 5 does neither, so one still gave cuts some
    grey levels apart and reads whose confidence differed by the version installed. Here
    every version cuts the same face."""
    w, h = size
    target = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    back = cv2.getPerspectiveTransform(target, quad.astype(np.float32)).astype(np.float32)
    across, down = np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32)[:, None]
    x, y, z = (row[0] * across + (row[1] * down + row[2]) for row in back)  # output -> still
    return np.rint(sample(image, x / z, y / z)).astype(np.uint8)


def sample(image: np.ndarray, x: np.ndarray, y: np.ndarray, edge: bool = False) -> np.ndarray:
    """``image`` (H×W or H×W×C) at the positions ``x``, ``y`` (H'×W', pixel centres at
    whole numbers, taken as float32), bilinear, as float32: beyond the image black, or with
    ``edge`` its nearest pixel. OpenCV only fetches the four neighbours, at whole positions
    (``INTER_NEAREST``: nothing is left to round); the weighing is numpy's, the same
    everywhere."""
    h, w = image.shape[:2]
    x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
    left, top = np.floor(x), np.floor(y)
    fx, fy = x - left, y - top
    if image.ndim == 3:
        fx, fy = fx[..., None], fy[..., None]
    np.clip(left, -2, w, out=left)
    np.clip(top, -2, h, out=top)
    border = cv2.BORDER_REPLICATE if edge else cv2.BORDER_CONSTANT

    def at(dx: int, dy: int) -> np.ndarray:
        return cv2.remap(image, left + dx, top + dy, cv2.INTER_NEAREST, borderMode=border)

    def between(a: np.ndarray, b: np.ndarray, share: np.ndarray) -> np.ndarray:
        step = np.subtract(b, a, dtype=np.float32)
        step *= share
        return np.add(step, a, out=step)

    return between(between(at(0, 0), at(1, 0), fx), between(at(0, 1), at(1, 1), fx), fy)


def features(crop: np.ndarray, paper: np.ndarray | None = None) -> np.ndarray:
    """The model's input from a crop: brightness and colourfulness, float32 2×H×W.

    White-balanced on the card's own paper (its bright pixels, or ``paper``: a BGR level
    measured on the whole face), so the light's colour and strength fall away; hue is
    dropped, so a four-colour deck is only "coloured ink".
    """
    if paper is None:
        paper = paper_of(crop)
    b, g, r = (
        np.minimum(channel.astype(np.float32) / (level + 1.0), 1.2)
        for channel, level in zip(cv2.split(crop), paper, strict=True)
    )
    light = (b + g + r) / 3
    chroma = cv2.max(cv2.max(b, g), r) - cv2.min(cv2.min(b, g), r)
    return np.stack([light - 0.6, chroma * 2])


def paper_of(crop: np.ndarray) -> np.ndarray:
    """The paper's level in each channel: the 90th percentile, the face being mostly paper."""
    flat = crop.reshape(-1, 3)
    k = int(len(flat) * 0.9)
    return np.partition(flat, k, axis=0)[k].astype(np.float32)


def inputs(cut: Cut) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The model's three inputs for a card: the face's features and each corner's, all
    white-balanced on the face's paper (a corner alone may be mostly ink)."""
    paper = paper_of(cut.face)
    return (
        features(cut.face, paper),
        features(cut.corners[0], paper),
        features(cut.corners[1], paper),
    )
