"""A new deck taught from the lookout's page while the camera reader runs
(``faro_pi/camera/lesson.py``): the ask in the pictures' folder, the deal through the box
to the teacher and never to the table, how far it is in ``teach.json``, the deck read with
at once.

The box is the simulator's virtual camera with a design the model never saw; the reader is
the live loop (``watch_frames``) with the real watcher and recogniser. What the table is
sent is what a stand-in link is handed: the frames ``faro-pi camera run`` would send.
"""

from __future__ import annotations

import numpy as np
import pytest

from faro_pi.camera.lesson import Lesson, in_use
from faro_pi.camera.live import watch_frames
from faro_pi.camera.pictures import Stills
from faro_pi.camera.recognise import Recogniser
from faro_pi.camera.source import CameraError
from faro_pi.camera.watch import Watch
from faro_pi.game.cards import DECK, parse_card
from faro_pi.pictures import Folder
from faro_pi.virtual.camera import VirtualCamera, load_design
from tests import decks
from tests.test_camera_watch import Sent

UNSEEN = "bellot"
"""A design of ``designs.TEST_GROUPS``: held out of training and calibration alike."""
RATE = 15.0


class Table:
    """The box under the camera, and the lookout's page: each step lays a card (or asks
    through the folder) and then the box lies still for a number of frames."""

    def __init__(self, camera: VirtualCamera, folder: Folder, steps):
        self.camera, self.folder, self.steps = camera, folder, list(steps)
        self.shown = 0
        self.left = 0
        self.said: list[str] = []
        """What the page was told after each card laid: teach.json's words."""

    def clock(self) -> float:
        return self.shown / RATE

    def frame(self) -> np.ndarray:
        while self.left == 0:
            if not self.steps:
                raise CameraError("the night is over")
            what, frames = self.steps.pop(0)
            self.said.append(self.folder.teaching().get("said", ""))
            if isinstance(what, dict):
                self.folder.ask_teaching(what)
            else:
                self.camera.lay(parse_card(what))
            self.left = frames
        self.left -= 1
        self.shown += 1
        return self.camera.frame()

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def recogniser():
    return Recogniser.load()


@pytest.fixture(scope="module")
def faces():
    return load_design(decks.folder(UNSEEN))


def test_a_deck_dealt_from_the_page_is_taught_read_with_at_once_and_never_sent(
    tmp_path, recogniser, faces
):
    """The table's last card lies in the box; the lookout asks for a new deck; the dealer
    deals it in factory order. Not one card of that deal reaches the table (nor the last,
    left on top); the page hears of each card as it is taken and then where the deck is;
    the deck loads, and it is the one read with from the next card on, and after a restart."""
    folder, decks_folder = Folder(tmp_path / "pictures"), tmp_path / "decks"
    camera = VirtualCamera(faces, np.random.default_rng(5))
    steps = [("5D", 12), ({"deck": "bellot-red"}, 20)]
    steps += [(card.code, 8) for card in DECK] + [("AS", 30)]  # a new game's first card
    table, sent = Table(camera, folder, steps), Sent()
    stills = Stills(folder, recogniser)
    lesson = Lesson(folder, decks_folder, recogniser, stills, views=2, clock=table.clock)
    with pytest.raises(CameraError):
        watch_frames(table, Watch(recogniser), sent, stills=stills, lesson=lesson)

    assert sent.frames[0] == "5D"
    assert sent.frames[1:] in (["AS"], ["N"])  # the new game's card, read (or said) once
    assert "12 of 52: QS taken; next KS" in table.said
    assert "51 of 52: QC taken; next KC" in table.said
    assert table.said[-1] == f"taught 52 of 52 cards into {decks_folder / 'bellot-red'}: read "\
        "with from the next card on"  # fmt: skip
    said = folder.teaching()
    assert said["state"] == "taught" and said["refused"] == {}
    assert said["path"] == str(decks_folder / "bellot-red")
    assert in_use(decks_folder) == decks_folder / "bellot-red"
    taught = Recogniser.load(in_use(decks_folder))  # what the reader loads when it starts
    assert taught.taught is not None
    assert lesson.recogniser.taught is not None and stills.recogniser is lesson.recogniser


def test_a_lesson_cancelled_sends_none_of_its_cards_and_teaches_nothing(
    tmp_path, recogniser, faces
):
    folder, decks_folder = Folder(tmp_path / "pictures"), tmp_path / "decks"
    camera = VirtualCamera(faces, np.random.default_rng(6))
    steps = [("5D", 12), ({"deck": "spare"}, 20)]
    steps += [(card.code, 8) for card in DECK[:5]] + [({"cancel": True}, 20), ("9H", 20)]
    table, sent = Table(camera, folder, steps), Sent()
    lesson = Lesson(folder, decks_folder, recogniser, views=2, clock=table.clock)
    with pytest.raises(CameraError):
        watch_frames(table, Watch(recogniser), sent, lesson=lesson)
    assert sent.frames[0] == "5D" and sent.frames[1:] in (["9H"], ["N"])
    assert "5 of 52: 5S taken; next 6S" in table.said
    said = folder.teaching()
    assert said["state"] == "cancelled" and "spare not taught" in said["said"]
    assert in_use(decks_folder) is None and not (decks_folder / "spare").exists()


def test_a_deck_name_that_is_no_folders_is_refused_and_nothing_stops(tmp_path, recogniser, faces):
    folder = Folder(tmp_path / "pictures")
    camera = VirtualCamera(faces, np.random.default_rng(7))
    steps = [("5D", 12), ({"deck": "../journal"}, 15), ("9H", 12)]
    table, sent = Table(camera, folder, steps), Sent()
    lesson = Lesson(folder, tmp_path / "decks", recogniser, views=2, clock=table.clock)
    with pytest.raises(CameraError):
        watch_frames(table, Watch(recogniser), sent, lesson=lesson)
    assert folder.teaching()["state"] == "refused"
    assert sent.frames[0] == "5D" and sent.frames[1:] in (["9H"], ["N"])  # the game goes on
