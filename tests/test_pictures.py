"""The camera's stills of the cards: written before their frames, kept by the daemon under
their hash and named in the card's row, held to that hash by ``faro-pi verify``.

The camera reader runs on a design the model never saw (``tests.decks``), dealt through the
virtual box, against the daemon over a loopback socket, as in ``tests/test_camera_live.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from faro_pi import pictures
from faro_pi.camera.line import Link, SocketLine
from faro_pi.camera.live import watch_frames
from faro_pi.camera.pictures import Stills
from faro_pi.camera.recognise import Reading, Recogniser
from faro_pi.camera.source import CameraError, StillSource
from faro_pi.camera.watch import Watch
from faro_pi.config import load_config
from faro_pi.game.cards import parse_card
from faro_pi.pictures import Folder
from faro_pi.service.journal import Journal
from faro_pi.service.verify import main as verify
from faro_pi.virtual.camera import DRAWN, VirtualCamera, load_design
from tests import decks
from tests.conftest import daemon_on, until
from tests.ports import free_port
from tests.test_camera_live import camera_config, serving

DEALT = ["9S", "QH", "4D", "7C"]
UNSURE = "4D"
"""The card the camera reads unsurely: a no-read, re-fed by hand later."""


class Unsure:
    """The real recogniser, but for one card it reads unsurely (a card dealt askew, say)."""

    def __init__(self, recogniser: Recogniser, unsure: str):
        self.recogniser, self.unsure = recogniser, parse_card(unsure)

    def read(self, image: np.ndarray) -> Reading:
        reading = self.recogniser.read(image)
        return Reading(None, 0.4) if reading.card == self.unsure else reading


class Watched(SocketLine):
    """The camera's line, noting at each card or no-read frame it writes whether that
    frame's still was in the pictures' folder by then."""

    def __init__(self, host: str, port: int, folder: Folder):
        super().__init__(host, port)
        self.folder = folder
        self.sent: dict[int, bool] = {}

    def write(self, data: bytes) -> None:
        body = data[1 : data.index(b"*")].decode()
        kind, seq = body.split(",")[:2]
        if kind in "CN" and int(seq) not in self.sent:
            self.sent[int(seq)] = (self.folder.pending / f"{seq}.jpg").exists()
        super().write(data)


@pytest.fixture(scope="module")
def recogniser() -> Recogniser:
    return Recogniser.load()


def frames_of(codes: list[str]) -> list[np.ndarray]:
    """The virtual box's frames as each of ``codes`` is dealt on top and lies there."""
    camera = VirtualCamera(load_design(decks.folder("bellot")), np.random.default_rng(3))
    frames = []
    for code in codes:
        camera.lay(parse_card(code))
        frames += [camera.frame() for _ in range(len(DRAWN) + 6)]
    return frames


def deal_through_the_camera(tmp_path: Path, recogniser: Recogniser) -> tuple[Watched, Path]:
    """``DEALT`` through the camera reader to a daemon; returns the camera's line and the
    daemon's journal, once the daemon has every card and the no-read."""
    port = free_port()
    config = load_config(camera_config(tmp_path, f"socket://127.0.0.1:{port}"), environ={})
    folder = Folder(config.camera.pictures)
    assert folder.path == tmp_path / "pictures"  # beside the journal, by default
    stills = Stills(folder, recogniser)
    (folder.pending).mkdir(parents=True)
    (folder.pending / "1.jpg").write_bytes(b"left by a reader before this one")
    stills.start()
    line = Watched("127.0.0.1", port, folder)
    link = Link(line, "faro-camera test", time.monotonic, retry=0.05)
    source = StillSource(frames_of(DEALT))

    def camera() -> None:
        with contextlib.suppress(CameraError):  # the stills run out
            watch_frames(source, Watch(Unsure(recogniser, UNSURE)), link, stills=stills)

    async def scenario() -> None:
        async with daemon_on(config) as daemon:
            with serving(link):
                threading.Thread(target=camera, daemon=True).start()
                await until(daemon, lambda t: len(t.pack.exposed) == len(DEALT) - 1, timeout=60)

    asyncio.run(scenario())
    return line, config.journal.path


@pytest.fixture(scope="module")
def dealt(tmp_path_factory, recogniser) -> tuple[Watched, Path]:
    return deal_through_the_camera(tmp_path_factory.mktemp("table"), recogniser)


def rows(journal: Path) -> list[dict]:
    with Journal.open(journal, readonly=True) as opened:
        return [entry.event for entry in opened.rows()]


def test_the_camera_writes_each_still_before_the_frame_it_goes_with(dealt):
    line, _ = dealt
    assert line.sent == dict.fromkeys(range(1, len(DEALT) + 1), True)


def test_each_cards_row_names_its_still_kept_under_its_hash(dealt):
    _, journal = dealt
    folder = Folder(journal.parent / "pictures")
    cards = [row for row in rows(journal) if row["type"] == "card"]
    assert [row["card"] for row in cards] == [c for c in DEALT if c != UNSURE]
    for row in cards:
        kept = (folder.path / f"{row['picture']}.jpg").read_bytes()
        assert hashlib.sha256(kept).hexdigest() == row["picture"]
        assert kept[:2] == b"\xff\xd8"  # a JPEG
    assert len({row["picture"] for row in cards}) == len(cards)
    assert list(folder.pending.iterdir()) == []  # each journaled, its pending files gone


def test_a_no_reads_row_names_its_still_and_its_likeliest_cards(dealt):
    _, journal = dealt
    (noread,) = [row for row in rows(journal) if row["type"] == "alarm"]
    assert UNSURE in noread["likely"] and 1 <= len(noread["likely"]) <= 3
    kept = journal.parent / "pictures" / f"{noread['picture']}.jpg"
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == noread["picture"]


def test_verify_finds_a_changed_still_and_passes_over_a_pruned_one(dealt, tmp_path):
    _, journal = dealt
    folder = tmp_path / "pictures"
    kept = sorted((journal.parent / "pictures").glob("*.jpg"))
    folder.mkdir()
    for path in kept:
        (folder / path.name).write_bytes(path.read_bytes())
    out = io.StringIO()
    assert verify(journal, out=out, pictures=folder) == 0
    assert f"{len(kept)} stills of the cards as kept" in out.getvalue()

    (folder / kept[0].name).unlink()  # pruned: not an error
    assert verify(journal, out=io.StringIO(), pictures=folder) == 0

    changed = folder / kept[1].name
    changed.write_bytes(changed.read_bytes() + b"\x00")
    out = io.StringIO()
    assert verify(journal, out=out, pictures=folder) == 1
    assert f"still {kept[1].stem}.jpg is not what was kept" in out.getvalue()


def test_a_reader_that_leaves_no_still_deals_as_before_and_its_rows_are_unchanged(tmp_path):
    """The Pico writes no stills: no picture is no error, and the rows are as they were."""
    folder = Folder(tmp_path)
    assert folder.keep(7) is None
    assert folder.check("0" * 64) is None
    assert folder.picture("../journal.sqlite3") is None


def test_only_the_newest_stills_are_kept(tmp_path):
    folder = Folder(tmp_path)
    for seq in range(1, 6):
        folder.put_pending(seq, f"still {seq}".encode())
        kept = folder.keep(seq)
        stamp = time.time() - 100 + seq  # kept a second apart
        os.utime(folder.picture(kept.picture), (stamp, stamp))
    assert folder.prune(keep=2) == 3
    left = {path.read_bytes() for path in tmp_path.glob("*.jpg")}
    assert left == {b"still 4", b"still 5"}


def test_a_no_reads_likeliest_cards_are_written_beside_its_still(tmp_path):
    folder = Folder(tmp_path)
    folder.put_pending(3, b"jpeg", [("KD", 0.5), ("KH", 0.3), ("QD", 0.1), ("JD", 0.05)])
    said = json.loads((folder.pending / "3.json").read_text())
    assert [code for code, _ in said["likely"]] == ["KD", "KH", "QD"]
    assert folder.keep(3).likely == ("KD", "KH", "QD")
    assert pictures.PICTURE.fullmatch(folder.keep(3).picture)
