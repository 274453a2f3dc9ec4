"""The camera reader's end of the pictures' folder (:mod:`faro_pi.pictures`).

Before it sends a card or a no-read, the reader writes the still it read (the card as it
lay, a small JPEG) where the daemon finds it by the frame's number; for a no-read also the
cards it was likeliest to be, so that the lookout settles it with one tap. While the
lookout's page asks for the aiming view, it writes a still a second with the card's outline
as the finder sees it and the light check's verdict. A picture that cannot be written is
said once in the log and the reader reads on: a picture is never worth a card.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import cv2
import numpy as np

from faro_pi.camera import finder
from faro_pi.camera.fusion import NONE
from faro_pi.camera.light import judge
from faro_pi.camera.watch import Seen
from faro_pi.game.cards import DECK
from faro_pi.pictures import LIKELY, Folder

log = logging.getLogger("faro_pi.camera")

HEIGHT = 320
"""Pixels of a card's still, top to bottom: its indices and pips plain on a phone."""
QUALITY = 80
"""The stills' JPEG quality: about 20 kB each."""
VIEW_EVERY = 1.0
"""Seconds between two aiming views."""
GOOD, BAD = (60, 200, 60), (40, 40, 230)
"""The outline's colour (BGR) when the light passes, and when it does not."""


def jpeg(frame: np.ndarray, height: int = HEIGHT) -> bytes:
    """``frame`` (BGR) scaled to ``height`` pixels tall, as JPEG."""
    scale = height / frame.shape[0]
    small = cv2.resize(frame, (round(frame.shape[1] * scale), height), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
    if not ok:
        raise ValueError("OpenCV could not encode the still as JPEG")
    return data.tobytes()


def likeliest(recogniser, still: np.ndarray, count: int = LIKELY) -> list[tuple[str, float]]:
    """The cards ``still`` was likeliest to be, with their posterior, the likeliest first:
    the witnesses' fused posterior where the view is one card's face, else the joint head's
    rank and suit; none when the finder finds no face."""
    cut = finder.find(still)
    if cut is None:
        return []
    look = recogniser.look([cut])[0]
    p = None
    if recogniser.weights is not None:
        p = recogniser.posterior(look, recogniser.pip_looks([cut])[0])
    if p is None:  # DECK's order: suit by suit, A to K in each
        p = np.outer(look.suit, look.rank[:NONE]).ravel()
        p = p / max(float(p.sum()), 1e-9)
    best = np.argsort(p)[::-1][:count]
    return [(DECK[int(i)].code, float(p[i])) for i in best]


def aiming(frame: np.ndarray) -> tuple[bytes, str]:
    """The aiming view of ``frame``: the card's outline drawn on it, green when the light
    check passes and red when not, and the verdict in words."""
    verdict = judge(frame)
    shown = frame.copy()
    if verdict.outline is not None:
        corners = np.round(verdict.outline).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(shown, [corners], True, GOOD if verdict.good else BAD, 3)
    said = verdict.said if verdict.good else f"{verdict.said}: {verdict.fix}"
    return jpeg(shown, max(HEIGHT, min(frame.shape[0], 480))), said


class Stills:
    """What the live reader writes into the pictures' folder; one per reader."""

    def __init__(self, folder: Folder, recogniser, clock: Callable[[], float] = time.monotonic):
        self.folder, self.recogniser, self.clock = folder, recogniser, clock
        self._said = False
        self._viewed: float | None = None
        self._asked: float | None = None
        self._wanted = False

    def start(self) -> None:
        """Clears what a reader before this one left pending: this one's frames are
        numbered from 1 again. Before the hello."""
        self._try(self.folder.clear_pending)

    def before(self, seq: int, seen: Seen) -> None:
        """Frame ``seq``'s still (and a no-read's likeliest cards), before it is sent."""
        if seen.still is None:
            return
        likely = None if seen.card is not None else likeliest(self.recogniser, seen.still)
        self._try(lambda: self.folder.put_pending(seq, jpeg(seen.still), likely))

    def frame(self, frame: np.ndarray) -> None:
        """Every frame: a still a second for the aiming view while the page asks for it.
        Whether it asks is looked at once a second, not every frame."""
        now = self.clock()
        if self._asked is None or now - self._asked >= VIEW_EVERY:
            self._asked, self._wanted = now, self.folder.view_wanted()
        if not self._wanted or (self._viewed is not None and now - self._viewed < VIEW_EVERY):
            return
        self._viewed = now
        self._try(lambda: self.folder.put_view(*aiming(frame)))

    def _try(self, write: Callable[[], None]) -> None:
        try:
            write()
        except (OSError, ValueError) as exc:
            if not self._said:
                log.warning("camera: no pictures for the console: %s", exc)
                self._said = True
