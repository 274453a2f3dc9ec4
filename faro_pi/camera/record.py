"""``faro-pi camera run --record DIR``: the last minutes of the box, kept for a dispute.

Each run records into a folder of its own under DIR, named by its start (UTC,
``20261206-201500``): every frame the watcher saw, as ``000001234.jpg`` (the frame's
number from the run's start, so frame N was seen N / rate seconds in), the oldest deleted
so that only the last ``minutes`` stay, and ``decisions.txt``: what the reader told the
table, a line each in ``faro-pi camera watch``'s words with the frame's number added
(``SECONDS CARD CONF``, ``SECONDS noread``, ``SECONDS alarm WORD``, then ``frame N``).
A disputed card is looked back at by playing the folder again through ``faro-pi camera
watch --fps RATE``, or by opening its frames. Only the last ``RUNS`` runs' folders are
kept.

The frames are written by a thread of their own, so a slow card never delays the reader;
when it falls behind, frames are left out of the recording (and counted), never out of
the watching.
"""

from __future__ import annotations

import logging
import queue
import shutil
import threading
import time
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger("faro_pi.camera")

MINUTES = 3.0
"""How much of the box is kept by default: at 640×480 and 15 frames a second, about
120 MB (point ``--record`` at a RAM disk, ``/run/...``, to spare an SD card)."""
RUNS = 3
"""Runs' folders kept: the one recording and the two before it (a restart after a
dispute keeps what was seen before it)."""
QUALITY = 85
BEHIND = 30
"""Frames that may wait to be written before new ones are left out."""


class Recorder:
    """Keeps the frames of one run of the reader in a folder of its own under ``folder``."""

    def __init__(self, folder: Path, rate: float, minutes: float = MINUTES, now=time.gmtime):
        self.rate = rate
        self.keep = max(1, round(minutes * 60 * rate))
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder / time.strftime("%Y%m%d-%H%M%S", now())
        self.folder.mkdir(exist_ok=True)
        for old in sorted(p for p in folder.iterdir() if p.is_dir())[:-RUNS]:
            shutil.rmtree(old, ignore_errors=True)
        self.frames = 0
        self.left_out = 0
        """Frames not recorded because the writer had fallen behind."""
        self._queue: queue.Queue = queue.Queue(BEHIND)
        self._decisions = (self.folder / "decisions.txt").open("a", encoding="utf-8")
        self._writer = threading.Thread(target=self._write, name="record", daemon=True)
        self._writer.start()

    def frame(self, image: np.ndarray) -> None:
        """The next frame the watcher sees."""
        number = self.frames
        self.frames += 1
        try:
            self._queue.put_nowait((number, image))
        except queue.Full:
            self.left_out += 1

    def decision(self, words: str) -> None:
        """What the reader told the table about the frame given last (``KD 0.998``,
        ``noread``, ``alarm flicker``)."""
        number = self.frames - 1
        self._decisions.write(f"{number / self.rate:.3f} {words} frame {number}\n")
        self._decisions.flush()

    def close(self) -> None:
        self._queue.put(None)
        self._writer.join(10)
        self._decisions.close()
        if self.left_out:
            log.warning("camera: %d frames left out of the recording", self.left_out)

    def _write(self) -> None:
        while (item := self._queue.get()) is not None:
            number, image = item
            path = self.folder / f"{number:09d}.jpg"
            cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
            old = self.folder / f"{number - self.keep:09d}.jpg"
            old.unlink(missing_ok=True)
