"""The live camera reader: the watcher's decisions, and its fsp1 side against the daemon's.

The watcher is fed frames a test makes, and a stand-in recogniser (handed in, not
patched) reads a mark the frame carries, so each test says exactly what the camera saw
and what a read made of it. The line is tested on a real pty against the daemon's own
parser and receiver, and on a loopback socket against the daemon itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pty
import random
import select
import socket
import threading
import time
import tty
from pathlib import Path

import numpy as np
import pytest
import serial

from faro_pi.camera import line as camera_line
from faro_pi.camera import live
from faro_pi.camera.line import LineBusy, Link, SerialLine, SocketLine, UnixLine, open_line
from faro_pi.camera.live import watch_frames
from faro_pi.camera.recognise import Reading
from faro_pi.camera.source import CameraError, StillSource
from faro_pi.camera.watch import HOLD, RATE, Seen, Watch
from faro_pi.config import load_config
from faro_pi.game.cards import DECK, parse_card
from faro_pi.shoe.fsp1 import (
    Action,
    CardFrame,
    FrameParser,
    Heartbeat,
    Hello,
    NoRead,
    Receiver,
    ack,
)
from faro_pi.shoe.urls import protocol_unix
from tests.conftest import CONFIG, daemon_on, shuffled, until
from tests.ports import free_port
from tests.test_camera_watch import Sent

SIZE = (320, 240)
UNSURE = 200
HELD = round(HOLD * RATE) + 1
"""Frames a view must lie still to be a no-read when it is not read as a card."""
"""The mark of a face the stand-in cannot read surely."""


class Marks:
    """The stand-in recogniser: a frame's top-left pixel says what it shows."""

    def __init__(self):
        self.reads = 0

    def read(self, image: np.ndarray) -> Reading:
        self.reads += 1
        mark = int(image[0, 0, 0])
        if mark == UNSURE:
            return Reading(None, 0.4)
        return Reading(DECK[mark - 1], 0.99)


def present(image: np.ndarray) -> bool:
    """A card-shaped face shows: the stand-in draws one as a bright patch."""
    return int(image[120, 160, 1]) > 150


class Box:
    """Frames of a box seen from above: a card face (a pattern of its own), a hand, none."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def empty(self) -> np.ndarray:
        frame = np.full((SIZE[1], SIZE[0], 3), 30, np.uint8)
        return frame

    def card(self, code: str | None, mark: int | None = None) -> np.ndarray:
        """``code``'s face (None: a face no one can read)."""
        frame = self.empty()
        index = UNSURE if code is None else parse_card(code).index + 1
        pattern = np.random.default_rng(index).integers(170, 255, (20, 12), dtype=np.uint8)
        face = np.kron(pattern, np.ones((8, 8), np.uint8))
        frame[40:200, 112:208] = face[..., None]
        frame[120, 160, 1] = 255
        frame[0, 0, 0] = index if mark is None else mark
        return frame

    def hand(self, under: np.ndarray) -> np.ndarray:
        frame = under.copy()
        frame[60:240, 100:260] = (90, 140, 200)
        return frame

    def still(self, frame: np.ndarray, count: int = 4) -> list[np.ndarray]:
        """``count`` frames of the view at rest: the sensor's noise only."""
        out = []
        for _ in range(count):
            noise = self.rng.normal(0, 2, frame.shape)
            noisy = np.clip(frame + noise, 0, 255).astype(np.uint8)
            noisy[0, 0, 0] = frame[0, 0, 0]
            noisy[120, 160, 1] = frame[120, 160, 1]
            out.append(noisy)
        return out

    def drawn(self, old: np.ndarray, new: np.ndarray) -> list[np.ndarray]:
        """A card drawn: the view between the two."""
        return [(old * (1 - s) + new * s).astype(np.uint8) for s in (0.3, 0.7)]


def deal(box: Box, codes: list[str | None], start: np.ndarray | None = None) -> list[np.ndarray]:
    """The frames of ``codes`` coming on top one after the other."""
    frames, view = [], box.empty() if start is None else start
    for code in codes:
        new = box.card(code)
        frames += box.drawn(view, new) + box.still(new, HELD if code is None else 4)
        view = new
    return frames


def told(watch: Watch, frames: list[np.ndarray]) -> list[str]:
    """What the shoe is told, in order: card codes and ``noread``."""
    out = []
    for frame in frames:
        seen = watch.see(frame)
        if seen is not None:
            out.append(seen.card.code if seen.card else "noread")
    return out


# -- the watcher -----------------------------------------------------------------------


def test_each_card_that_comes_on_top_is_sent_once_in_order():
    box, marks = Box(), Marks()
    codes = shuffled(1)[:12]
    watch = Watch(marks, present)
    assert told(watch, deal(box, codes)) == codes
    assert marks.reads == 2 * len(codes)  # two reads alike decide a card


def test_an_unchanged_box_is_never_read_again():
    box, marks = Box(), Marks()
    watch = Watch(marks, present)
    frames = deal(box, ["KD"])
    assert told(watch, frames) == ["KD"]
    reads = marks.reads
    assert told(watch, box.still(frames[-1], 100)) == []
    assert marks.reads == reads


def test_a_hand_over_the_box_sends_nothing_and_the_same_card_is_not_sent_again():
    box, marks = Box(), Marks()
    watch = Watch(marks, present)
    frames = deal(box, ["7S"])
    card = box.card("7S")
    hand = box.hand(card)
    frames += box.drawn(card, hand) + box.still(hand, 5) + box.drawn(hand, card) + box.still(card)
    assert told(watch, frames) == ["7S"]


def test_a_face_not_read_surely_is_a_no_read_and_the_card_follows_when_read():
    box, marks = Box(), Marks()
    watch = Watch(marks, present)
    unsure = box.card(None)
    later = box.card("QH")
    frames = deal(box, ["2C"]) + box.drawn(box.card("2C"), unsure) + box.still(unsure, HELD)
    hand = box.hand(unsure)  # the dealer's hand over the box: read again once it is gone
    frames += box.drawn(unsure, hand) + box.still(hand) + box.drawn(hand, later) + box.still(later)
    assert told(watch, frames) == ["2C", "noread", "QH"]


def test_after_a_no_read_a_hand_over_the_box_and_away_asks_for_another_look():
    box, marks = Box(), Marks()
    watch = Watch(marks, present)
    unsure = box.card(None)
    better = box.card(None, mark=parse_card("QH").index + 1)  # the same view, read this time
    hand = box.hand(unsure)
    frames = deal(box, ["2C"]) + box.drawn(box.card("2C"), unsure) + box.still(unsure, HELD)
    frames += box.drawn(unsure, hand) + box.still(hand) + box.drawn(hand, better)
    assert told(watch, frames + box.still(better)) == ["2C", "noread", "QH"]
    # a card read surely is not read again for a hand passing over it
    reads = marks.reads
    frames = box.drawn(better, box.hand(better)) + box.still(box.hand(better))
    assert told(watch, frames + box.drawn(box.hand(better), better) + box.still(better)) == []
    assert marks.reads == reads


def test_reads_that_disagree_are_a_no_read_never_a_guess():
    box = Box()
    watch = Watch(Marks(), present)
    frames = deal(box, ["AS"])
    # frames alike to the eye that the reads disagree on: 9H, then 9D twice
    flicker = [box.card("9D", mark=parse_card(c).index + 1) for c in ("9D", "9H", "9D", "9D")]
    rest = box.still(flicker[0], 1) + flicker[1:] + box.still(flicker[-1], HELD)
    assert told(watch, frames + box.drawn(frames[-1], flicker[0]) + rest) == ["AS", "noread"]


def test_a_view_with_no_lone_card_is_a_no_read_only_once_it_lies_still_past_a_pause():
    """Two cards, the top one stopped half off the next, are no lone card to the finder:
    a dealer's pause is waited out and the card read when it lies uncovered; held still
    past ``HOLD``, the same view is a no-read."""
    box = Box()
    watch = Watch(Marks(), present)
    paused = box.card("9D")
    paused[120, 160, 1] = 0  # no card-shaped face: two cards, one half off the other
    frames = deal(box, ["2C"]) + box.drawn(box.card("2C"), paused) + box.still(paused, 5)
    assert told(watch, frames + deal(box, ["QH"], start=paused)) == ["2C", "QH"]
    held = box.drawn(box.card("QH"), paused) + box.still(paused, HELD)
    assert told(watch, held) == ["noread"]


def test_a_face_read_unsurely_is_a_no_read_at_once():
    box = Box()
    watch = Watch(Marks(), present)
    unsure = box.card(None)
    frames = deal(box, ["2C"]) + box.drawn(box.card("2C"), unsure) + box.still(unsure, 3)
    assert told(watch, frames) == ["2C", "noread"]


def test_something_new_lying_still_that_shows_no_card_is_a_no_read_never_silence():
    box, marks = Box(), Marks()
    watch = Watch(marks, present)
    frames = deal(box, ["2C"])
    odd = box.card("7D")
    odd[120, 160, 1] = 0  # the finder cannot outline it: a card whose ink runs to its edge
    assert told(watch, frames + box.drawn(frames[-1], odd) + box.still(odd, HELD)) == [
        "2C",
        "noread",
    ]


def test_after_an_empty_box_the_last_packs_hock_may_be_the_new_packs_soda():
    box = Box()
    watch = Watch(Marks(), present)
    frames = deal(box, ["5H"])
    empty = box.empty()
    frames += box.drawn(frames[-1], empty) + box.still(empty)
    frames += deal(box, ["5H", "6H"], start=empty)
    assert told(watch, frames) == ["5H", "5H", "6H"]


def test_a_hand_passing_over_an_empty_box_is_no_card_at_all():
    box, marks = Box(), Marks()
    watch = Watch(marks, present)
    hand = box.hand(box.empty())
    assert told(watch, box.drawn(box.empty(), hand) + box.still(hand, 6)) == []
    assert marks.reads == 0


# -- the line --------------------------------------------------------------------------


class Host:
    """The daemon's side of a pty: its own parser and receiver, losing some acks."""

    def __init__(self, rng: random.Random, lose_acks: float):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.rng, self.lose_acks = rng, lose_acks
        self.parser, self.receiver = FrameParser(), Receiver()
        self.taken: list = []
        self.heartbeats = self.repeats = self.lost = 0

    def pump(self) -> None:
        """Takes whatever has arrived within 50 ms."""
        select.select([self.master], [], [], 0.05)
        with contextlib.suppress(BlockingIOError, OSError):
            for frame in self.parser.feed(os.read(self.master, 4096)):
                self.frame(frame)

    def until(self, done, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            assert time.monotonic() < deadline, f"{len(self.taken)} frames taken"
            self.pump()

    def frame(self, frame) -> None:
        if isinstance(frame, Heartbeat):
            self.heartbeats += 1
            return
        action = self.receiver.decide(frame).action
        if action in (Action.APPLY, Action.HELLO):
            self.taken.append(frame)
            self.receiver.committed(frame)
        else:
            assert action is Action.REPEAT
            self.repeats += 1
        if self.rng.random() < self.lose_acks:
            self.lost += 1
            return
        os.write(self.master, ack(frame.seq))

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


@contextlib.contextmanager
def serving(link: Link):
    stop = threading.Event()
    thread = threading.Thread(target=link.serve, args=(stop, 0.05), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(5)
        link.close()
    assert not thread.is_alive()


def test_over_a_pty_every_card_and_no_read_reaches_the_host_once_in_order_though_acks_are_lost():
    host = Host(random.Random(4), lose_acks=0.3)
    link = Link(SerialLine(host.path, 115200, time.monotonic), "faro-camera test", time.monotonic,
                heartbeat=0.1, retry=0.02)  # fmt: skip
    order = shuffled(2)
    try:
        with serving(link):
            for code in order[:20]:
                link.card(code)
            link.no_read()
            for code in order[20:]:
                link.card(code)
            host.until(lambda: len(host.taken) == 54 and not link.pending())
            beats = host.heartbeats
            host.until(lambda: host.heartbeats >= beats + 2, timeout=5)  # idle: heartbeats
    finally:
        host.close()
    assert host.taken[0] == Hello(0, "faro-camera test")
    assert [f.card.code for f in host.taken if isinstance(f, CardFrame)] == order
    assert [f.seq for f in host.taken[1:]] == list(range(1, 54))
    assert isinstance(host.taken[21], NoRead)
    assert host.lost and host.repeats  # the line really lost acknowledgements
    assert host.parser.discarded == dict.fromkeys(host.parser.discarded, 0)


def camera_config(folder: Path, port: str) -> Path:
    """The table's config with the camera reader on ``port`` (``reader.port``)."""
    text = CONFIG.format(port=port, protocol="fsp1", heartbeat_timeout=3.5)
    (folder / "config.toml").write_text(text + '\n[camera]\nsource = "usb"\n')
    return folder / "config.toml"


def test_a_pack_from_the_camera_reaches_the_daemons_journal_over_its_socket(tmp_path):
    port = free_port()
    config = load_config(camera_config(tmp_path, f"socket://127.0.0.1:{port}"), environ={})
    box, order = Box(), shuffled(5)
    line = open_line(config.reader.port, config.reader.baud, time.monotonic)
    assert isinstance(line, SocketLine)
    link = Link(line, "faro-camera test", time.monotonic, retry=0.05)
    source = StillSource(deal(box, order))
    done = threading.Event()

    def camera() -> None:
        with contextlib.suppress(CameraError):  # the stills run out after the hock
            watch_frames(source, Watch(Marks(), present), link)
        done.set()

    async def scenario() -> None:
        async with daemon_on(config) as daemon:
            with serving(link):
                threading.Thread(target=camera, daemon=True).start()
                await until(daemon, lambda t: t.pack.complete, timeout=30)
                assert [c.code for c in daemon.table.pack.exposed] == order
                assert daemon.table.alarms == []
                # a second daemon on the same line is kept out while the first holds it
                with socket.create_connection(("127.0.0.1", port)) as second:
                    second.settimeout(5)
                    assert second.recv(100) == b""
        assert done.is_set()

    asyncio.run(scenario())


def test_the_daemon_restarting_loses_nothing_the_camera_read_meanwhile(tmp_path):
    port = free_port()
    config = load_config(camera_config(tmp_path, f"socket://127.0.0.1:{port}"), environ={})
    order = shuffled(6)
    link = Link(open_line(config.reader.port, 115200, time.monotonic), "cam", time.monotonic,
                retry=0.05)  # fmt: skip

    async def session(cards: list[str], expected: int) -> tuple[list[str], list[str]]:
        """The daemon up until ``expected`` cards are out, with ``cards`` read meanwhile."""
        async with daemon_on(config) as daemon:
            for code in cards:
                link.card(code)
            await until(daemon, lambda t: len(t.pack.exposed) == expected, timeout=20)
            return [c.code for c in daemon.table.pack.exposed], [
                a.kind for a in daemon.table.alarms
            ]

    with serving(link):
        exposed, alarms = asyncio.run(session(order[:10], 10))
        assert exposed == order[:10] and alarms == []
        for code in order[10:15]:  # read while the daemon is down: they wait in the queue
            link.card(code)
        exposed, alarms = asyncio.run(session([], 15))
    assert exposed == order[:15]
    assert alarms == []  # no gap: the numbers ran on, and nothing was sent twice


def test_a_port_another_program_holds_is_busy_and_the_camera_waits_for_it(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        url = f"socket://127.0.0.1:{taken.getsockname()[1]}"
        with pytest.raises(LineBusy, match="another program listens there"):
            open_line(url, 115200, time.monotonic)
    path = tmp_path / "reader.sock"
    held = open_line(f"unix://{path}", 115200, time.monotonic)
    config = load_config(camera_config(tmp_path, f"unix://{path}"), environ={})
    stop, got, said = threading.Event(), [], threading.Event()
    heard = logging.Handler()
    heard.emit = lambda record: "trying again" in record.getMessage() and said.set()
    logging.getLogger("faro_pi.camera").addHandler(heard)
    try:
        waiting = threading.Thread(target=lambda: got.append(live._listen(config, stop)))
        waiting.start()  # a reader already listens: this one waits, it does not exit
        assert said.wait(30)
        assert waiting.is_alive() and got == []
    finally:
        logging.getLogger("faro_pi.camera").removeHandler(heard)
    held.close()  # the other reader stops: this one takes the line
    waiting.join(30)
    assert isinstance(got[0], UnixLine)
    got[0].close()


def test_a_pack_from_the_camera_reaches_the_daemon_over_the_camera_services_socket(tmp_path):
    path = tmp_path / "reader.sock"
    config = load_config(camera_config(tmp_path, f"unix://{path}"), environ={})
    box, order = Box(), shuffled(7)
    line = open_line(config.reader.port, config.reader.baud, time.monotonic)
    assert isinstance(line, UnixLine) and oct(path.stat().st_mode & 0o777) == "0o600"
    link = Link(line, "faro-camera test", time.monotonic, retry=0.05)
    source = StillSource(deal(box, order))

    def camera() -> None:
        with contextlib.suppress(CameraError):
            watch_frames(source, Watch(Marks(), present), link)

    async def scenario() -> None:
        async with daemon_on(config) as daemon:
            with serving(link):
                threading.Thread(target=camera, daemon=True).start()
                await until(daemon, lambda t: t.pack.complete, timeout=30)
                assert [c.code for c in daemon.table.pack.exposed] == order
                assert daemon.table.alarms == []

    asyncio.run(scenario())
    assert not path.exists()  # the camera's socket goes with it


def test_only_the_tables_user_may_be_the_reader_or_read_it(tmp_path, monkeypatch):
    """The daemon asks who listens on the camera's socket, and the camera who connects
    (SO_PEERCRED): a program running as anyone but the table's user is refused either
    way, so it can neither pose as the shoe nor take the camera's cards."""
    path = tmp_path / "reader.sock"
    squatter = UnixLine(str(path))  # a listener; as another user, to the daemon below
    monkeypatch.setattr(protocol_unix, "own_uid", lambda: os.geteuid() + 1)
    with pytest.raises(serial.SerialException, match="not the camera reader, refused"):
        serial.serial_for_url(f"unix://{path}", timeout=0)
    monkeypatch.undo()
    intruder = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    intruder.connect(str(path))
    monkeypatch.setattr(camera_line, "own_uid", lambda: os.geteuid() + 1)
    assert squatter.readable() is None  # turned away: nothing of it is read
    intruder.settimeout(5)
    assert intruder.recv(100) == b""
    intruder.close()
    squatter.close()


def test_a_socket_file_left_by_a_killed_reader_is_taken_over(tmp_path):
    path = tmp_path / "reader.sock"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # bound and never listening: what a killed reader leaves
    dead.close()
    line = open_line(f"unix://{path}", 115200, time.monotonic)
    assert isinstance(line, UnixLine)
    line.close()


def test_what_the_watcher_decides_is_what_the_link_sends():
    box, sent = Box(), Sent()
    frames = deal(box, ["3S", None, "4S"])
    with pytest.raises(CameraError):
        watch_frames(StillSource(frames), Watch(Marks(), present), sent)
    assert sent.frames == ["3S", "N", "4S"]
    assert Seen(None).card is None
