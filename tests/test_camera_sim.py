"""The camera reader end to end: a pack through the simulator's virtual camera, and a deck
taught from the box.

The design is one the model never saw: a held-out group of Debian's decks
(``designs.TEST_GROUPS``), rendered from its package with librsvg as the training script
renders the others.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from faro_pi import cli
from faro_pi.camera import finder
from faro_pi.camera.live import box_order, stills_from_box
from faro_pi.camera.source import CameraError
from faro_pi.game.cards import DECK
from faro_pi.virtual.camera import DesignError, VirtualCamera, load_design
from tests import decks

UNSEEN = "bellot"
"""A design of ``designs.TEST_GROUPS``: held out of training and calibration alike."""


def design_folder(name: str, folder: Path) -> Path:
    """``name``'s 52 faces, ``KD.png``..., and nothing else, as a club would give them."""
    rendered = decks.folder(name)
    for card in DECK:
        shutil.copy(rendered / f"{card.code}.png", folder / f"{card.code}.png")
    return folder


@pytest.fixture(scope="module")
def unseen(tmp_path_factory) -> Path:
    return design_folder(UNSEEN, tmp_path_factory.mktemp("design"))


def cards_of(out: Path) -> list[str]:
    return [json.loads(line)["card"] for line in (out / "table.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("name", [UNSEEN, "plastic"])
def test_a_pack_of_a_design_never_seen_goes_through_the_camera_never_wrong(name, tmp_path):
    """The very pack faro-pi sim --seed 11 deals, through the virtual camera: every card is
    read right or raises the table's no-read alarm, none is read wrong, none is sent twice.
    (How many of the 52 are read is the model's figure, which make bench prints.) Plastic
    is the design read least: many no-reads, each a hand over the box and the card laid
    again, and never the card before taken for the card laid."""
    (tmp_path / "design").mkdir()
    unseen = design_folder(name, tmp_path / "design")
    barcode, camera = tmp_path / "barcode", tmp_path / "camera"
    assert cli.main(["sim", "--seed", "11", "--speed", "0", "--out", str(barcode)]) == 0
    cli.main(["sim", "--camera", str(unseen), "--seed", "11", "--speed", "0", "--out", str(camera)])
    summary = json.loads((camera / "summary.json").read_text())
    read = summary["camera"]
    assert (read["wrong"], read["missed"]) == ([], 0), read
    dealt, pack = cards_of(camera), cards_of(barcode)
    assert len(dealt) == read["right"] and len(set(dealt)) == len(dealt)  # each card once
    unread = iter(pack)
    assert all(card in unread for card in dealt)  # in the pack's order, the unread left out
    events = [json.loads(line) for line in (camera / "events.jsonl").read_text().splitlines()]
    assert sum(e["type"] == "card" for e in events) == read["right"]
    noreads = [e for e in events if e["type"] == "alarm" and e["kind"] == "noread"]
    assert len(noreads) == read["noreads"]  # each no-read was said, as the table says
    assert read["right"] + read["noreads"] - read["relaid"] == 52  # read, or left to the lookout


def test_a_design_folder_must_hold_all_52_faces_and_t_stands_for_10(unseen, tmp_path):
    for card in DECK:
        name = "TH.png" if card.code == "10H" else f"{card.code}.png"
        shutil.copy(unseen / f"{card.code}.png", tmp_path / name)
    assert len(load_design(tmp_path)) == 52
    (tmp_path / "KC.png").unlink()
    with pytest.raises(DesignError, match="missing KC"):
        load_design(tmp_path)


def test_a_design_of_jpegs_is_taken_and_a_folder_that_is_none_is_named_for_what_it_is(
    unseen, tmp_path
):
    design = tmp_path / "design"
    design.mkdir()
    for card in DECK:
        cv2.imwrite(str(design / f"{card.code}.jpg"), cv2.imread(str(unseen / f"{card.code}.png")))
    assert len(load_design(design)) == 52
    with pytest.raises(DesignError, match=r"nowhere: no such folder: a design is a folder"):
        load_design(tmp_path / "nowhere")
    with pytest.raises(DesignError, match=r"KC\.jpg: a file, not a folder of images"):
        load_design(design / "KC.jpg")
    shutil.copy(unseen / "KC.png", design / "KC.png")
    with pytest.raises(DesignError, match=r"KC is given twice"):
        load_design(design)


class Dealer:
    """A camera over the box while a deck is dealt through it: a card every few frames."""

    def __init__(self, camera: VirtualCamera, order, frames_each: int = 8):
        self.camera, self.order, self.each = camera, list(order), frames_each
        self.shown = 0

    def frame(self) -> np.ndarray:
        if self.shown % self.each == 0:
            if not self.order:
                raise CameraError("the deck is dealt")
            self.camera.lay(self.order.pop(0))
        self.shown += 1
        return self.camera.frame()

    def close(self) -> None:
        pass


def test_teaching_from_the_box_takes_one_still_of_each_card_in_the_order_dealt(unseen, tmp_path):
    order = box_order(None)
    camera = VirtualCamera(load_design(unseen), np.random.default_rng(3))
    said: list[str] = []
    paths = stills_from_box(Dealer(camera, order), order, tmp_path / "views", said.append)
    assert [p.stem for p in paths] == [card.code for card in order]
    assert said[0] == "deal the deck through the box in order: first AS"
    assert said[-1] == "52/52 KC taken; next none: done"
    for path in paths[:3]:  # each a whole still of its card at rest
        assert finder.outline(cv2.imread(str(path))) is not None


def test_an_order_file_must_name_each_card_once(tmp_path):
    codes = [card.code for card in reversed(DECK)]
    (tmp_path / "order").write_text("\n".join(codes))
    assert [card.code for card in box_order(str(tmp_path / "order"))] == codes
    (tmp_path / "order").write_text(" ".join(codes[:-1] + codes[:1]))
    with pytest.raises(ValueError, match="each of the 52 codes once"):
        box_order(str(tmp_path / "order"))


def test_a_deck_the_page_asks_for_is_dealt_through_the_simulated_box_and_taught(unseen, tmp_path):
    """``sim --camera --console``: the page's Teach a new deck is played by the dealer at
    the virtual box, in the deck's order, to the camera reader's own lesson; the deck is
    then the one read with."""
    from faro_pi.camera.recognise import Recogniser
    from faro_pi.camera.watch import Watch
    from faro_pi.pictures import Folder
    from faro_pi.sim.camera import CameraShoe

    camera = VirtualCamera(load_design(unseen), np.random.default_rng(3))
    pictures = tmp_path / "pictures"
    shoe = CameraShoe(camera, Watch(Recogniser.load()), None, pictures, views=2)
    assert shoe.watch.recogniser.taught is None
    Folder(pictures).ask_teaching({"deck": "club-deck"})
    shoe.between_cards()
    said = json.loads((pictures / "teach.json").read_text())
    assert said["state"] == "taught", said
    assert said["refused"] == {}
    assert (tmp_path / "decks" / "in-use").read_text().strip() == "club-deck"
    assert shoe.watch.recogniser.taught is not None  # read with from the next card on
