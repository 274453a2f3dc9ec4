"""A live deal as the camera over the dealing box sees it, frame by frame.

The cards lie face up in the box, one on another; drawing a card slides the top one out
sideways or lengthwise, uncovering the next, which lies a little differently. Around
that plain deal, the scenes a night brings (``SCENES``): the dealer pausing mid-slide,
a hand reaching over the box, the top card held still half off the next, and a lamp on
the mains or dimmed by PWM beating with a rolling shutter. The views are the camera's
model (:mod:`faro_pi.camera.scene`): its box, rim, light and sensor; a moving card is
smeared along its way as a frame's exposure smears it.

The same frames serve the benchmark of live deals and the tests of the watcher, played
through ``faro-pi camera watch`` as a recording of the box.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from faro_pi.camera import scene
from faro_pi.game.cards import Card

SCENES = ("dealing", "pauses", "hand", "two_cards", "flicker")
"""What a deal may bring beside the plain slide of each card."""
RATE = 15.0
"""Frames a second."""
SLIDE = (3, 6)
"""Frames a card takes to slide off the next (the least, the most)."""
REST = (8, 14)
"""Frames a card lies uncovered before the next is drawn."""
PAUSE = (4, 8)
"""Frames the dealer stops mid-slide, the top card ``PAUSED_AT`` of its way off."""
PAUSED_AT = (0.30, 0.65)
HELD = 30
"""Frames the top card is held still half off the next (two seconds)."""
HAND = (3, 10)
"""Frames a hand stays over the box."""
NOISE = 3.0


@dataclass
class Deal:
    """A deal's frames and what lay on top: ``tops[i]`` is the card uncovered by the
    ``i``-th draw and ``starts[i]`` the frame its drawing began on (the soda: the pack
    laid in)."""

    frames: list[np.ndarray] = field(default_factory=list)
    tops: list[Card] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)


class Box:
    """The dealing box under the camera, its rim and light fixed for the night."""

    def __init__(self, faces: dict[Card, np.ndarray], rng: np.random.Generator, size=(640, 480)):
        self.faces, self.rng, self.size = faces, rng, size
        w, h = size
        self.floor = scene.empty(rng, size).astype(np.float32)
        self.rim = scene.empty(rng, size).astype(np.float32) * 1.4
        self.card_h = rng.uniform(0.6, 0.8) * h
        shape = next(iter(faces.values())).shape
        self.shape = (shape[0], round(shape[0] * scene.CARD_MM[0] / scene.CARD_MM[1]))
        self.base = scene.pose(rng, w, h, self.card_h, self.shape, nominal=True)
        opening = _opening(self.shape, rng.uniform(0, 3, 4))
        self.opening = np.zeros((h, w), np.float32)
        cv2.fillPoly(self.opening, [scene.project(self.base, opening)], 1.0)
        self.opening = cv2.GaussianBlur(self.opening, (0, 0), 1.0)[..., None]
        self.gain = rng.uniform(0.8, 1.2) * _gradient(rng, w, h) * _white(rng)
        self.away = rng.choice([(1, 0), (-1, 0), (0, 1), (0, -1)])
        """Which way a drawn card leaves: along the face's width or its height."""
        self._noise = [rng.standard_normal((h, w, 3)).astype(np.float32) * NOISE for _ in range(4)]
        self._n = 0

    def pose(self) -> np.ndarray:
        """Where the next card lies: as the others, within a millimetre and a degree."""
        fh, fw = self.shape
        jitter = self.rng.uniform(-1, 1, 2) * fh / scene.CARD_MM[1]
        turn = math.radians(self.rng.uniform(-1, 1))
        c, s = math.cos(turn), math.sin(turn)
        move = np.array(
            [
                [c, -s, fw / 2 - c * fw / 2 + s * fh / 2 + jitter[0]],
                [s, c, fh / 2 - s * fw / 2 - c * fh / 2 + jitter[1]],
                [0, 0, 1],
            ]
        )
        return self.base @ move

    def view(self, cards: list[tuple[Card, np.ndarray, float]], hand: bool = False):
        """The box with ``cards`` laid bottom first, each (card, pose, smear in pixels of
        the face along ``away``), in the box's light (``frame`` adds the sensor). The pack
        lies up to the box's opening, so a card slid off passes over the rim."""
        image = self.floor * self.opening + self.rim * (1 - self.opening)
        for card, pose, smear in cards:
            face = scene.rgba(self.faces[card])
            if smear >= 1:
                face = _smeared(face, smear, self.away)
            image, _ = scene.lay(image, face, pose)
        image = image * self.gain
        if hand:
            image = scene.hand(np.clip(image, 0, 255).astype(np.uint8), self.rng).astype(np.float32)
        return image

    def frame(self, image: np.ndarray, lamp=None) -> np.ndarray:
        """The camera's frame of a view: the lamp's flicker, the sensor's noise, JPEG."""
        self._n += 1
        if lamp is not None:
            image = image * lamp(self._n)[..., None]
        image = image + self._noise[self._n % len(self._noise)]
        out = np.clip(image, 0, 255).astype(np.uint8)
        _, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 85])
        return cv2.imdecode(data, cv2.IMREAD_COLOR)


def deal(
    faces: dict[Card, np.ndarray],
    order: list[Card],
    scene_name: str,
    rng: np.random.Generator,
    size=(640, 480),
    draws: int | None = None,
) -> Deal:
    """The frames of ``order`` dealt off the box, the soda first, with ``scene_name``'s
    nuisance (one of ``SCENES``) on about a third of the draws (on every frame for
    ``flicker``). With ``draws``, only the soda and that many draws: the same frames as
    the whole deal's first ones."""
    if scene_name not in SCENES:
        raise ValueError(f"no scene {scene_name!r}: one of {', '.join(SCENES)}")
    box = Box(faces, rng, size)
    lamp = _lamp(rng, size) if scene_name == "flicker" else None
    out = Deal()

    def show(image, count: int = 1) -> None:
        for _ in range(count):
            out.frames.append(box.frame(image, lamp))

    empty = box.view([])
    show(empty, 4)
    poses = [box.pose() for _ in order]
    out.tops.append(order[0]), out.starts.append(len(out.frames))
    show(box.view([(order[0], poses[0], 0)]), int(rng.integers(*REST)))
    for i in range(1, len(order) if draws is None else min(len(order), draws + 1)):
        below, top = order[i], order[i - 1]
        under = (below, poses[i], 0.0)
        out.tops.append(below), out.starts.append(len(out.frames))
        steps = int(rng.integers(SLIDE[0], SLIDE[1] + 1))
        stop = None
        if scene_name in ("pauses", "two_cards") and rng.random() < 0.35:
            at = rng.uniform(*PAUSED_AT)
            frames = int(rng.integers(*PAUSE)) if scene_name == "pauses" else HELD
            stop = (at, frames)
        shares = list(np.linspace(0, 1.25, steps + 1)[1:])
        if stop is not None:
            shares = [s for s in shares if s < stop[0]] + [stop[0]] * stop[1]
            shares += list(np.linspace(stop[0], 1.25, steps)[1:])
        before = 0.0
        for share in shares:
            slid = _slid(box, poses[i - 1], share)
            smear = abs(share - before) * _reach(box) * 0.5
            show(box.view([under, (top, slid, smear)]))
            before = share
        settled = box.view([under])
        show(settled, int(rng.integers(*REST)))
        if scene_name == "hand" and rng.random() < 0.35:
            held = box.view([under], hand=True)
            show(held, int(rng.integers(*HAND)))
            show(settled, int(rng.integers(*REST)))
    out.starts.append(len(out.frames))
    return out


def _reach(box: Box) -> float:
    """How far, in face pixels, a card goes to leave the next uncovered."""
    fh, fw = box.shape
    return fw if box.away[0] else fh


def _slid(box: Box, pose: np.ndarray, share: float) -> np.ndarray:
    dx, dy = (share * _reach(box) * np.array(box.away)).tolist()
    return pose @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], np.float64)


def _smeared(face: np.ndarray, length: float, away) -> np.ndarray:
    """The face smeared over ``length`` face pixels along ``away``: a frame's exposure of a
    card in motion."""
    n = max(1, round(length))
    kernel = np.full((1, n), 1.0 / n, np.float32)
    if away[1]:
        kernel = kernel.T
    return cv2.filter2D(face, -1, kernel, borderType=cv2.BORDER_CONSTANT)


def _opening(shape, inset_mm: np.ndarray) -> np.ndarray:
    """The box's opening in the base pose's face pixels: a little over the card's edges."""
    fh, fw = shape
    left, top, right, bottom = -inset_mm * fh / scene.CARD_MM[1]
    return np.array(
        [[left, top], [fw - right, top], [fw - right, fh - bottom], [left, fh - bottom]]
    )


def _gradient(rng, w: int, h: int) -> np.ndarray:
    xs = np.arange(w, dtype=np.float32)[None, :] / w - 0.5
    ys = np.arange(h, dtype=np.float32)[:, None] / h - 0.5
    angle = rng.uniform(0, 2 * math.pi)
    slope = rng.uniform(-0.3, 0.3)
    return (1 + slope * (xs * math.cos(angle) + ys * math.sin(angle)))[..., None]


def _white(rng) -> np.ndarray:
    t = rng.uniform(0, 1)
    warm = np.array([0.7, 0.86, 1.0], np.float32)
    return warm + (1 - warm) * t


def _lamp(rng, size):
    """A lamp on the mains or dimmed by PWM, seen by a rolling shutter: bands of ±10–30 %
    that roll from frame to frame (100 Hz or 50 Hz against 15 frames a second)."""
    w, h = size
    depth = rng.uniform(0.10, 0.30)
    hz = rng.choice([100.0, 50.0])
    bands = rng.uniform(1.5, 4.0)
    rows = np.arange(h, dtype=np.float32)[:, None] / h

    def gain(n: int) -> np.ndarray:
        phase = 2 * np.pi * (hz * n / RATE + bands * rows)
        return np.broadcast_to(1 + depth * np.sin(phase), (h, w)).astype(np.float32)

    return gain


@dataclass
class Tally:
    """How a watcher's decisions on a deal compare with what was dealt."""

    right: int = 0
    noread: int = 0
    wrong: int = 0
    twice: int = 0
    """Cards sent again: a card already sent, sent while another lay on top."""
    silent: int = 0
    """Cards uncovered that drew neither their card nor a no-read."""
    alarms: list[tuple[float, str]] = field(default_factory=list)

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            *(getattr(self, k) + getattr(other, k) for k in ("right", "noread", "wrong")),
            self.twice + other.twice,
            self.silent + other.silent,
            self.alarms + other.alarms,
        )


def tally(dealt: Deal, decisions: list[tuple[float, str]], rate: float = RATE) -> Tally:
    """Each decision (seconds from the first frame, and a card's code, ``noread`` or
    ``alarm WORD``) set against the card that lay uncovered when it was made."""
    out = Tally()
    told: list[list[str]] = [[] for _ in dealt.tops]
    sent: set[str] = set()
    for seconds, what in decisions:
        if what.startswith("alarm"):
            out.alarms.append((seconds, what.split()[-1]))
            continue
        frame = round(seconds * rate)
        drawn = [i for i, start in enumerate(dealt.starts[:-1]) if start <= frame]
        if drawn:
            told[drawn[-1]].append(what)
    for top, said in zip(dealt.tops, told, strict=True):
        answered = False
        for what in said:
            if what == "noread":
                out.noread += 1
                answered = True
            elif what == top.code and what not in sent:
                out.right += 1
                answered = True
            elif what in sent:
                out.twice += 1
            else:
                out.wrong += 1
            if what != "noread":
                sent.add(what)
        out.silent += not answered
    return out
