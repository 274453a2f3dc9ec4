"""``faro-pi camera run``: the live reader, and ``camera teach --from-box``.

The live reader is its own process (``systemd/faro-pi-camera.service``): a camera
(:mod:`.source`) watched frame by frame (:mod:`.watch`), the recogniser asked only when a
new card has settled, and each card or no-read sent to the daemon over fsp1
(:mod:`.line`), on the line the config's ``reader.port`` names. The line runs in a
thread of its own, so the resends and heartbeats keep their time while a card is read.

Teaching from the box (here for ``camera teach --from-box``, and from the lookout's page
while the reader runs, :mod:`.lesson`): a new deck, dealt once through the box in a known order (its
factory order, or laid out in the order given), gives the 52 camera stills that
``teach`` learns the deck from, taken in the very light and pose the reader will see.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import cv2

from faro_pi.camera.lesson import BoxTeacher, Lesson, deck_in_use
from faro_pi.camera.line import LineBusy, Link, open_line
from faro_pi.camera.pictures import Stills
from faro_pi.camera.recognise import DeckError, Recogniser
from faro_pi.camera.record import MINUTES, Recorder
from faro_pi.camera.source import CameraError, FrameSource, open_source
from faro_pi.camera.watch import CannotWatch, Seen, Watch
from faro_pi.config import Config, load_config
from faro_pi.exc import ConfigError
from faro_pi.game.cards import CARD_BY_CODE, DECK, Card
from faro_pi.pictures import Folder

log = logging.getLogger("faro_pi.camera")

HELLO = "faro-camera 1.0"
CANNOT_WATCH = {
    "flicker": "flicker: light the box with lamps on a steady supply",
}
"""What each of the watcher's alarms asks of the club: the text of the fsp1 fault the
table hears (its first word the watcher's), a second until the watcher can watch again.
Mains-driven or PWM-dimmed LEDs beat with the camera's shutter."""


def watch_frames(
    source: FrameSource,
    watch: Watch,
    link,
    running: Callable[[], bool] = lambda: True,
    recorder: Recorder | None = None,
    stills: Stills | None = None,
    lesson: Lesson | None = None,
) -> None:
    """The camera's loop: every frame to the watcher (and the ``recorder``, and the aiming
    view), what it decides to the link, each card's still written before its frame; and
    while the watcher cannot watch, a fault the table hears. While the page has a deck
    taught (``lesson``), the frames are the lesson's, and nothing is sent."""
    fault = None
    while running():
        frame = source.frame()
        _kept(frame, recorder, stills)
        if lesson is not None:
            taught = lesson.frame(frame, watch)
            if taught is None:
                continue
            watch = taught
        seen = watch.see(frame)
        if watch.cannot != fault:
            fault = watch.cannot
            link.fault(None if fault is None else CANNOT_WATCH[fault])
        if seen is None:
            continue
        if recorder is not None:
            recorder.decision(seen.words)
        if isinstance(seen, CannotWatch):
            log.error("camera: %s: %s", seen.why, CANNOT_WATCH[seen.why])
            continue
        if stills is not None:  # only this thread queues frames: the number holds
            stills.before(link.next_seq(), seen)
        if seen.card is None:
            seq = link.no_read()
            log.warning("camera: frame %d: a card could not be read surely: no-read", seq)
        else:
            seq = link.card(seen.card.code)
            log.info("camera: frame %d: %s", seq, seen.card.code)


def _kept(frame, recorder: Recorder | None, stills: Stills | None) -> None:
    """Every frame to the recording and the aiming view, whatever it shows."""
    if recorder is not None:
        recorder.frame(frame)
    if stills is not None:
        stills.frame(frame)


def run(config: Config, record: Path | None = None, minutes: float = MINUTES) -> int:
    """The live reader until SIGTERM or SIGINT; 2 for a config it cannot work with. With
    ``record``, the last ``minutes`` of frames are kept there (:mod:`.record`)."""
    if config.camera.source == "none":
        log.error('camera.source is "none": set it to "csi" or "usb" to run the camera reader')
        return 2
    if config.reader.protocol != "fsp1":
        log.error('the camera reader speaks fsp1: set reader.protocol = "fsp1"')
        return 2
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    deck = deck_in_use(config)
    try:
        recogniser = Recogniser.load(deck)
        line = _listen(config, stop)
    except (DeckError, OSError, ValueError) as exc:
        log.error("%s", exc)
        return 2
    if line is None:
        return 0
    if deck is not None:
        log.info("camera: reading with the deck taught into %s", deck)
    stills = Stills(Folder(config.camera.pictures), recogniser)
    decks = config.journal.path.parent / "decks"
    lesson = Lesson(Folder(config.camera.pictures), decks, recogniser, stills)
    stills.start()  # before the hello, which numbers frames from 1 again
    link = Link(line, HELLO, time.monotonic)
    serving = threading.Thread(target=link.serve, args=(stop,), name="fsp1", daemon=True)
    serving.start()
    status = 0
    try:
        source = open_source(config.camera)
        log.info("camera: watching, speaking fsp1 on %s", config.reader.port)
        recorder = None if record is None else Recorder(record, config.camera.rate, minutes)
        try:
            watch = Watch(recogniser, rate=config.camera.rate)
            running = lambda: not stop.is_set()  # noqa: E731
            watch_frames(source, watch, link, running, recorder, stills, lesson)
        finally:
            source.close()
            if recorder is not None:
                recorder.close()
    except CameraError as exc:
        log.error("camera: %s", exc)
        status = 1
    finally:
        stop.set()
        serving.join(5)
        link.close()
    return status


BUSY_RETRY = 2.0
"""Seconds between tries at a line another program holds."""


def _listen(config: Config, stop: threading.Event):
    """The line ``reader.port`` names, once no other reader holds it (None if stopped
    first): a socket in use is waited for, not a reason to give up, since a reader that
    exits is not restarted for a configuration error."""
    said = False
    while not stop.is_set():
        try:
            return open_line(config.reader.port, config.reader.baud, time.monotonic)
        except LineBusy as exc:
            if not said:
                log.warning("camera: %s; trying again every %g s", exc, BUSY_RETRY)
                said = True
            stop.wait(BUSY_RETRY)
    return None


def box_order(path: str | None) -> list[Card]:
    """The order the cards will come on top: the file's codes (spaces or lines), else
    the project's deck order (A to K of spades, hearts, diamonds, clubs)."""
    if path is None:
        return list(DECK)
    codes = Path(path).read_text().split()
    order = [CARD_BY_CODE.get(code.upper()) for code in codes]
    if None in order or len(set(order)) != 52:
        raise ValueError(f"{path}: the order is each of the 52 codes once (KD, 10H, ...)")
    return order


def stills_from_box(source: FrameSource, order: Sequence[Card], folder: Path, say=print):
    """Takes one settled still of each card as it comes on top; writes ``CODE.png`` files
    into ``folder`` and returns their paths, for ``teach``."""
    teacher = BoxTeacher(order)
    watch = Watch(teacher)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    say(f"deal the deck through the box in order: first {teacher.expected.code}")
    while teacher.expected is not None:
        seen = watch.see(source.frame())
        if not isinstance(seen, Seen) or seen.card is None:
            continue
        teacher.keep(seen.card)
        path = folder / f"{seen.card.code}.png"
        cv2.imwrite(str(path), teacher.stills[seen.card])
        paths.append(path)
        following = teacher.expected.code if teacher.expected else "none: done"
        say(f"{len(paths):2d}/52 {seen.card.code} taken; next {following}")
    return paths


def box_stills(config_path: str, deck: Path, order: str | None, say=print) -> list[Path] | None:
    """``teach --from-box``: the config's camera takes a still of each card of a deck dealt
    through the box, into ``deck``/views; None (after saying why) when it cannot."""
    try:
        config = load_config(config_path)
        cards = box_order(order)
        source = open_source(config.camera)
    except (ConfigError, CameraError, OSError, ValueError) as exc:
        say(f"faro-pi camera teach: {exc}")
        return None
    try:
        return stills_from_box(source, cards, deck / "views", say)
    except CameraError as exc:
        say(f"faro-pi camera teach: {exc}")
        return None
    finally:
        source.close()
