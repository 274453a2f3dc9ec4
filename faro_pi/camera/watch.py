"""Watching the box: noticing a new top card, reading it on a few frames, and voting.

Each frame is shrunk to a small grey thumbnail (80×60) and compared with the frame
before it and with the last settled view: a change, then frames that no longer change,
is a card that has come to rest. Only then is the recogniser asked: on the first two
still frames at once, then on each next one, until two agree (or ``VOTES`` frames have
been read). Watching an unchanged box costs one thumbnail a frame; recognition runs only
on a change.

What the vote says, and what the shoe is told:
- a card, read alike twice and never read as another: sent, unless it is the card sent
  last (the same card still on top after a hand passed over it);
- a face not read surely: a no-read (the table's ``noread`` alarm: the lookout re-feeds
  or enters the card), never a guess; and anything else new that lies still for
  ``HOLD`` (two cards held still, a card the finder cannot outline, a hand left over
  the box): a no-read too, never silence. A dealer's pause mid-slide is mostly shorter,
  and the card is read when it comes to rest;
- the empty box (dark where the last card was bright): nothing; it forgets the card sent
  last, so that the next pack's soda is sent even if it is the card the last pack ended
  on. The view of the card read last, come back after a hand passed over it: nothing;
- a view that never settles though nothing in it moves (lamps on the mains or dimmed by
  PWM, beating with the shutter): the ``flicker`` alarm, once, ``FLICKER`` seconds on.

Under a lamp that flickers every frame differs in its light: once ``LIT`` frames in a row
have changed in nothing but each row's and column's brightness (a rolling shutter's
bands, or the whole frame for a global one), frames are compared ``levelled`` until one
is still as it came, so that a card is seen to come to rest; a card fading in lasts a
frame or two and is never taken for still.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from faro_pi.camera import finder
from faro_pi.game.cards import Card

SMALL = (80, 60)
"""Width and height of the thumbnail frames are compared at."""
MOVED = 18
"""Grey levels by which a thumbnail's pixel must differ to count as changed."""
CHANGED = 0.004
"""Share of a thumbnail's pixels that must change for the view to have changed (about 19
of 4800): a hand, a card drawn, a card nudged; never sensor noise (σ 6 at full size is
under 1 level in the thumbnail)."""
STILL = 1
"""Frames alike after a change before the first of them is read."""
VOTES = 3
"""The most still frames read for one card; two alike decide it sooner."""
HOLD = 0.5
"""Seconds something new with no lone card's face in it must lie still before it is a
no-read (a card face read unsurely is one at once): about as long as a dealer's pause
mid-slide (4–8 frames), short enough that the table hears of a card the finder cannot
outline before the next is drawn (a card every 0.8 s at speed)."""
DARK = 0.5
"""An empty box: its brightest part under this share of the last card's paper."""
RATE = 15.0
"""Frames a second, unless the watcher is told the camera's own."""
FLICKER = 2.0
"""Seconds a view may go on changing in its light alone before the table hears of it."""
LIT_CHANGED = 0.02
"""Share of a levelled thumbnail's pixels that must change (by ``LIT_MOVED``) for the view
to have changed: a card drawn or a hand is far over."""
LIT_MOVED = 30
"""Grey levels by which a levelled thumbnail's pixel must differ to count as changed: what
levelling leaves of a ±30 % flicker on a court's coloured face stays under 20 (a card's
paper clipped in the bright phase, the JPEG), while a card sliding moves its edges and
pips by 60 and more, to its last smeared frame."""
LIT = 4
"""Frames in a row changing in their light alone before the watcher compares them levelled."""
LIGHT_REACH = 3.0
"""Pixels of the thumbnail over which the light is taken to be even (σ of a Gaussian)."""
LIGHT_ONLY = 0.25
"""A change is the light's alone when, ``relit``, less than this share of it is left."""


class Reads(Protocol):
    """What the watcher asks of the recogniser (:class:`faro_pi.camera.recognise.Recogniser`)."""

    def read(self, image: np.ndarray): ...


@dataclass(frozen=True)
class Seen:
    """What the shoe is told: ``card``, or None for a no-read."""

    card: Card | None
    confidence: float = 0.0
    """The least confidence of the reads that agreed on ``card``."""
    still: np.ndarray | None = field(default=None, compare=False, repr=False)
    """The frame read last: the card as it lay, for the lookout's page."""

    @property
    def words(self) -> str:
        """As ``camera watch`` prints it after the seconds: ``KD 0.998`` or ``noread``."""
        return "noread" if self.card is None else f"{self.card.code} {self.confidence:.3f}"


@dataclass(frozen=True)
class CannotWatch:
    """What the table must hear when the watcher cannot do its work: ``why`` is one word,
    ``flicker`` (the light changes too fast to see a card come to rest)."""

    why: str

    @property
    def words(self) -> str:
        """As ``camera watch`` prints it after the seconds: ``alarm flicker``."""
        return f"alarm {self.why}"


ABSENT = object()
"""A vote's reading of a frame with no card-shaped face in it."""


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """The small grey view of a BGR (or grey) frame that changes are looked for in."""
    small = cv2.resize(frame, SMALL, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small


def levelled(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Thumbnail ``b`` with each row's, then each column's, brightness brought to ``a``'s:
    what a flickering lamp changes between two frames (the gain of a rolling shutter's
    rows, or of the columns of a camera turned a quarter round) taken out, what a card
    changes kept. Only the gains' change is undone, so a dark row's noise is not raised."""
    level, to = b.astype(np.float32), a.astype(np.float32)
    level *= (to.mean(axis=1, keepdims=True) + 1.0) / (level.mean(axis=1, keepdims=True) + 1.0)
    level *= (to.mean(axis=0, keepdims=True) + 1.0) / (level.mean(axis=0, keepdims=True) + 1.0)
    return np.clip(level, 0, 255).astype(np.uint8)


def relit(b: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Thumbnail ``b`` in ``a``'s light, however it falls: each pixel times the ratio of
    the two thumbnails' brightness nearby (blurred over ``LIGHT_REACH`` pixels). Bands of
    light that no row or column holds are smooth and mostly go; a card's or a hand's
    sharp edges stay. What tells a view changing in its light alone."""
    level, to = b.astype(np.float32) + 1.0, a.astype(np.float32) + 1.0
    near = cv2.GaussianBlur(to, (0, 0), LIGHT_REACH) / cv2.GaussianBlur(level, (0, 0), LIGHT_REACH)
    return np.clip(level * near - 1.0, 0, 255).astype(np.uint8)


def changed(a: np.ndarray, b: np.ndarray, by: int = MOVED) -> int:
    """How many pixels of two thumbnails differ by more than ``by`` grey levels."""
    _, moved = cv2.threshold(cv2.absdiff(a, b), by, 255, cv2.THRESH_BINARY)
    return cv2.countNonZero(moved)


def differs(a: np.ndarray, b: np.ndarray, level: bool = False) -> bool:
    """Whether two thumbnails show a different view (see ``MOVED`` and ``CHANGED``); with
    ``level``, the light's flicker aside (see ``LIT_CHANGED``)."""
    if level:
        return changed(a, levelled(b, a), LIT_MOVED) > LIT_CHANGED * a.size
    return changed(a, b) > CHANGED * a.size


def card_shaped(frame: np.ndarray) -> bool:
    """Whether a lone card-shaped face shows: the recogniser's own finder is asked."""
    return finder.outline(frame) is not None


class Watch:
    """Frames in, what to tell the shoe out; one per camera, fed every frame in order.

    ``recogniser`` reads a still; ``present`` says whether a card-shaped face shows at
    all (the recogniser's finder by default): a face it cannot read is a no-read, while
    a view without one is no card at all.
    """

    def __init__(
        self,
        recogniser: Reads,
        present: Callable[[np.ndarray], bool] = card_shaped,
        still: int = STILL,
        votes: int = VOTES,
        rate: float = RATE,
    ):
        self.recogniser, self.present = recogniser, present
        self.still, self.votes = still, votes
        self.hold = max(votes, round(HOLD * rate))
        """Still frames before something new and not read surely is a no-read."""
        self.flicker_frames = max(2, round(FLICKER * rate))
        """Frames of a view changing in its light alone before ``flicker`` is said."""
        self._flickering = 0
        self._told_flicker = False
        self._lit = 0
        """Frames in a row whose change was the light's alone."""
        self.last: Card | None = None
        """The card sent last, not to be sent again while it lies on top."""
        self.reads = 0
        """Frames read by the recogniser: what watching has cost."""
        self._settled: np.ndarray | None = None
        self._before: np.ndarray | None = None
        self._previous: np.ndarray | None = None
        self._run = 0
        self._readings: list = []
        self._paper: float | None = None
        self._looked: np.ndarray | None = None
        """The last view with a card in it that was voted on."""
        self._read_last = False
        """Whether that card was read surely: after a no-read, a hand over the box and away
        is the dealer asking for another look."""

    def handed_to(self, recogniser: Reads, *, forget: bool = False) -> Watch:
        """A watcher for ``recogniser`` that sees the box as this one does now, so what
        lies on top is not new to it; with ``forget``, no card is the card sent last (the
        deck taught from the box may begin with the card the table saw last)."""
        other = copy.copy(self)
        other.recogniser, other._readings = recogniser, []
        if forget:
            other.last = None
        return other

    def see(self, frame: np.ndarray) -> Seen | CannotWatch | None:
        """One frame from the camera; what the shoe must be told once a new view settles,
        or that the watcher cannot see one settle."""
        small = thumbnail(frame)
        decided = self._run < 0
        moving = self._moving(small)
        if decided and not moving:
            # a view reached by changes too slow to see frame to frame is a change too
            moving = differs(small, self._settled, self._levelling)
        flicker = self._flicker(small, moving)
        self._before = small
        previous, self._previous = self._previous, frame
        if moving:
            self._run, self._readings = 0, []
            return flicker
        if decided:
            return None
        self._run += 1
        if self._run == 1 and self._back_to_last(small):
            self._run = -1  # back to the card read last: a hand passed, nothing was put down
            return None
        if self._run < self.still:
            return None
        # the first still frame is read as well as this one: the vote is a frame sooner
        return self._vote([previous, frame] if self._run == self.still else [frame], small)

    def _back_to_last(self, small: np.ndarray) -> bool:
        """Whether a view come to rest is the card read surely last, not to be read again.
        Never said under a flickering lamp: levelling each row's and column's light can
        make two sparse faces (an ace, a three) look alike, so the card is read again."""
        return self._read_last and not self._levelling and not differs(small, self._looked)

    @property
    def cannot(self) -> str | None:
        """Why the watcher cannot watch (``flicker``), from when it says so until a view
        is still again; None while it can."""
        return "flicker" if self._told_flicker else None

    @property
    def _levelling(self) -> bool:
        """Whether frames are compared levelled: the light has been flickering."""
        return self._lit >= LIT

    def _moving(self, small: np.ndarray) -> bool:
        """Whether the view changed since the frame before. Under a lamp that flickers,
        every frame differs in its light: after ``LIT`` frames in a row whose change the
        levelling takes out, the frames are compared levelled until one is still as it
        came. A card fading in between two frames (a change levelling could also take out)
        lasts a frame or two, and is never taken for still."""
        if self._before is None:
            return True
        if not differs(small, self._before):
            self._lit = 0
            return False
        if differs(small, self._before, level=True):
            return True
        self._lit += 1
        return not self._levelling

    def _flicker(self, small: np.ndarray, moving: bool) -> CannotWatch | None:
        """``flicker``, once, when the view has gone on changing for ``flicker_frames``
        mostly in its light (``relit``, the thumbnails differ by under ``LIGHT_ONLY`` of
        what they do as they came), so that no card can be seen to settle; a still view
        again lets it be said again later. Levelling makes most flicker still: this is
        what is left."""
        if not moving:
            self._flickering, self._told_flicker = 0, False
            return None
        if self._before is not None:
            light = changed(small, self._before)
            if changed(small, relit(self._before, small)) < LIGHT_ONLY * light:
                self._flickering += 1
        if self._flickering >= self.flicker_frames and not self._told_flicker:
            self._told_flicker = True
            return CannotWatch("flicker")
        return None

    def _vote(self, frames: list[np.ndarray], small: np.ndarray) -> Seen | None:
        for frame in frames[: self.votes - len(self._readings)]:
            if self.present(frame):
                self.reads += 1
                self._readings.append(self.recogniser.read(frame))
            else:
                self._readings.append(ABSENT)
        verdict = self._verdict(small)
        if verdict is _WAIT:
            return None
        voted = self._readings
        self._settled, self._run, self._readings = small, -1, []
        if verdict is ABSENT:
            return None
        self._looked, self._read_last = small, verdict is not None
        if verdict is None:
            return Seen(None, still=frames[-1])
        self._paper = float(np.percentile(small, 99))
        if verdict == self.last:
            return None
        self.last = verdict
        sure = [r.confidence for r in voted if r is not ABSENT and r.card == verdict]
        return Seen(verdict, min(sure), frames[-1])

    def _verdict(self, small: np.ndarray):
        """The vote so far: a card, None (a no-read), ABSENT (nothing to say), or _WAIT
        for another frame. A face read unsurely is a no-read at once; a view with no lone
        face in it (``present`` finds none, or the reader sees two cards or none) only
        once it has lain still ``hold`` frames: a dealer's pause mid-slide is shorter."""
        readings = self._readings
        cards = [r.card for r in readings if r is not ABSENT and r.card is not None]
        lone = [r for r in readings if r is not ABSENT and r.lone]
        if cards and len(set(cards)) == 1 and len(cards) >= 2:
            return cards[0]
        if len(readings) - len(lone) >= 2 or (len(readings) >= self.votes and not lone):
            if self._empty(small):
                self.last, self._read_last = None, False
                return ABSENT
            if (
                self._looked is not None
                and not self._levelling
                and not differs(small, self._looked)
            ):
                return ABSENT  # the view voted on last, back after something passed over it
            return None if self._run >= self.hold else _WAIT
        return None if len(readings) >= self.votes else _WAIT

    def _empty(self, small: np.ndarray) -> bool:
        """Whether the box is empty: dark where the last card was bright."""
        paper = self._paper if self._paper is not None else 120.0
        return float(np.percentile(small, 99)) < DARK * paper


_WAIT = object()
