"""A new deck taught from the lookout's page, inside the live reader.

The console asks in the pictures' folder (:mod:`faro_pi.pictures`: ``teach.wanted``), and
the reader looks once a second. While a deck is taught, the watcher's decisions go to the
teacher instead of the table: the dealer deals the new deck once through the box in its
factory order (A to K of spades, hearts, diamonds, clubs) and no card of that deal is sent,
since it is no game's. Each still is cut to its face as it is taken, so a card that cannot
be taught is named at once; then :func:`.teach.teach` learns the deck into the decks'
folder (``decks`` beside the journal: ``/var/lib/faro-pi/decks/NAME`` on a table), and the
reader reads with it from the next card on, and after every restart: ``in-use`` there
names it, ahead of ``camera.deck``. How far it is goes to ``teach.json`` for the page.
"""

from __future__ import annotations

import copy
import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from faro_pi.camera import teach as teaching
from faro_pi.camera.recognise import DeckError, Reading, load_deck
from faro_pi.camera.watch import Seen, Watch
from faro_pi.game.cards import DECK, Card
from faro_pi.pictures import DECK_NAME, Folder

log = logging.getLogger("faro_pi.camera")

ASK_EVERY = 1.0
"""Seconds between two looks for the console's ask (and two words of how far it is)."""
IN_USE = "in-use"
"""The file in the decks' folder naming the deck taught last, read from then on."""


class BoxTeacher:
    """A stand-in for the recogniser while a deck is taught from the box: each settled
    view is the next card of ``order``, and its still is kept."""

    def __init__(self, order: Sequence[Card]):
        self.order = list(order)
        self.stills: dict[Card, object] = {}
        self._latest = None

    @property
    def expected(self) -> Card | None:
        return self.order[len(self.stills)] if len(self.stills) < len(self.order) else None

    def read(self, image) -> Reading:
        self._latest = image
        return Reading(self.expected, 1.0)

    def keep(self, card: Card) -> None:
        self.stills[card] = self._latest


def deck_in_use(config) -> Path | None:
    """The deck the camera reader reads with: the one taught last from the page, else the
    config's ``camera.deck`` (None: the model's own, untaught)."""
    return in_use(config.journal.path.parent / "decks") or config.camera.deck


def in_use(decks: Path) -> Path | None:
    """The deck taught last from the page, if there is one: its folder."""
    try:
        name = (decks / IN_USE).read_text().strip()
    except OSError:
        return None
    return decks / name if DECK_NAME.fullmatch(name) else None


class Cancelled(Exception):
    """The lookout cancelled the deck being taught."""


class Lesson:
    """The live reader's side of teaching a deck from the page: one per reader.

    ``recogniser`` is the one reading now (the deck is taught for its model); ``stills``
    reads the no-reads' likeliest cards with it, and is handed the taught one too.
    ``views`` of each card are made to teach it (:data:`.teach.VIEWS` unless given).
    """

    def __init__(
        self,
        folder: Folder,
        decks: Path,
        recogniser,
        stills=None,
        views: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.folder, self.decks, self.recogniser, self.stills = folder, decks, recogniser, stills
        self.views, self.clock = views or teaching.VIEWS, clock
        self.teacher: BoxTeacher | None = None
        self.watch: Watch | None = None
        """The watcher of the teaching deal, while there is one."""
        self.deck = ""
        self.faces: dict[Card, np.ndarray] = {}
        self.refused: dict[str, str] = {}
        self._looked: float | None = None
        self._said: dict = {}

    def frame(self, frame: np.ndarray, watch: Watch) -> Watch | None:
        """Each frame the camera gives: None while a deck is taught (the frame is the
        lesson's, and nothing goes to the table), else the watcher to go on with:
        ``watch``, or once a deck is taught, one that reads with it."""
        now = self.clock()
        if self._looked is None or now - self._looked >= ASK_EVERY:
            self._looked = now
            watch = self._asked(self.folder.teaching_asked(), watch)
            if self.teacher is not None:
                self._say(**self._said)  # still at it: fresh words for the page
        if self.teacher is None:
            return watch
        seen = self.watch.see(frame)
        if isinstance(seen, Seen) and seen.card is not None:
            self._take(seen.card)
            if self.teacher.expected is None:
                return self._teach()
        return None

    def _asked(self, asked: dict | None, watch: Watch) -> Watch:
        if asked is None:
            return watch
        if asked.get("cancel"):
            if self.teacher is None:
                return watch
            return self._stop("cancelled", f"cancelled: {self.deck} not taught")
        name = asked.get("deck")
        if not isinstance(name, str) or not DECK_NAME.fullmatch(name):
            self._say(state="refused", deck=str(name), said="a deck's name is lowercase "
                      "letters, digits and dashes, 1 to 40")  # fmt: skip
            return watch
        log.info("camera: teaching deck %s: no card is sent to the table till it is done", name)
        self.teacher, self.deck = BoxTeacher(DECK), name
        self.faces, self.refused = {}, {}
        self.watch = (self.watch or watch).handed_to(self.teacher, forget=True)
        self._say(state="dealing", said=f"deal the deck through the box in order: first "
                  f"{DECK[0].code}")  # fmt: skip
        return watch

    def _take(self, card: Card) -> None:
        """The still of ``card`` taken: cut to its face now, so a refusal is said now."""
        self.teacher.keep(card)
        still = self.teacher.stills[card]
        rgba = np.dstack([still[..., ::-1], np.full(still.shape[:2], 255, np.uint8)])
        try:
            self.faces[card] = teaching.face_in(rgba, card.code)
        except (teaching.TeachError, ValueError) as exc:
            self.refused[card.code] = str(exc)
        taken = len(self.teacher.stills)
        following = self.teacher.expected.code if self.teacher.expected else "none: teaching"
        self._say(state="dealing", taken=taken, last=card.code, said=f"{taken} of 52: "
                  f"{card.code} taken; next {following}")  # fmt: skip

    def _teach(self) -> Watch:
        """The deck dealt: taught, saved, and read with from now on."""
        name, folder = self.deck, self.decks / self.deck
        if not self.faces:
            return self._stop("refused", "no card of the 52 could be taught: see each why")
        self._say(state="teaching", taken=52, said=f"teaching {name}: 0 of {len(self.faces)}")

        def told(done: int, card: Card) -> None:
            asked = self.folder.teaching_asked()
            if asked is not None and asked.get("cancel"):
                raise Cancelled
            self._say(
                state="teaching", taken=52, said=f"teaching {name}: {done} of {len(self.faces)}"
            )

        try:
            rng = np.random.default_rng(0)
            taught = teaching.teach(self.recogniser, self.faces, rng, self.views, told=told)
            teaching.save(taught, folder, self.recogniser.model_id)
            reader = copy.copy(self.recogniser)
            reader.taught = load_deck(folder, reader.model_id)
            _use(self.decks, name)
        except Cancelled:
            return self._stop("cancelled", f"cancelled: {name} not taught")
        except (OSError, DeckError) as exc:
            return self._stop("refused", f"{name} could not be kept: {exc}")
        self.recogniser = reader
        if self.stills is not None:
            self.stills.recogniser = reader
        log.info("camera: deck %s taught into %s, read with from now on", name, folder)
        return self._stop(
            "taught",
            f"taught {len(self.faces)} of 52 cards into {folder}: read with from the next card on",
            path=str(folder),
        )

    def _stop(self, state: str, said: str, **more) -> Watch:
        """The lesson over: the table's watcher sees the box as the lesson's left it, so
        the deal's last card, still on top, is not sent."""
        watch = self.watch.handed_to(self.recogniser)
        self.teacher = self.watch = None
        self._say(state=state, said=said, **more)
        self._said = {}
        return watch

    def _say(self, **said) -> None:
        self._said = said
        try:
            self.folder.put_teaching({"deck": self.deck, "refused": self.refused, **said})
        except OSError as exc:
            log.warning("camera: cannot say how far the teaching is: %s", exc)


def _use(decks: Path, name: str) -> None:
    """``name`` is the deck read with from now on, after restarts too."""
    temporary = decks / f".{IN_USE}.part"
    temporary.write_text(f"{name}\n")
    os.replace(temporary, decks / IN_USE)
