"""The shoe's link as the daemon sees it: what counts as a sign of life, and what raises alarms."""

from __future__ import annotations

import asyncio
import errno

import serial

from faro_pi.exc import JournalError
from faro_pi.game.cards import parse_card
from faro_pi.game.events import Alarm, Clear
from faro_pi.shoe import link
from faro_pi.shoe.fsp1 import CardFrame, Fault, Heartbeat, Hello
from faro_pi.shoe.link import Fsp1Shoe, ReaderPort


class Owner:
    """The daemon's side of the link, kept to what the shoe asks of it."""

    def __init__(self, fail: bool = False):
        self.alarms: list[Alarm] = []
        self.readings: list = []
        self.fail = fail
        self.alarmed = asyncio.Event()

    def submit(self, event):
        if isinstance(event, Alarm):
            self.alarmed.set()
            self.alarms = [*(a for a in self.alarms if a.kind != event.kind), event]
        elif isinstance(event, Clear):
            self.alarms = [a for a in self.alarms if a.kind != event.kind]

    def record_reading(self, event, seq=None, gap=None):
        if self.fail:
            raise JournalError("disk full: the event is not journalled", "cannot-write")
        if gap is not None:
            self.submit(gap)
        self.readings.append((event, seq))

    def set_link_seq(self, seq):
        pass

    def has_alarm(self, kind):
        return any(a.kind == kind for a in self.alarms)


class Port:
    def __init__(self):
        self.written = b""

    def write(self, data):
        self.written += data


def shoe(owner: Owner, lost_after: float = 60.0) -> tuple[Fsp1Shoe, Port]:
    fsp1, port = Fsp1Shoe(owner, None, lost_after), Port()
    fsp1.attach(port)
    return fsp1, port


async def test_a_noise_byte_is_no_sign_of_life_and_a_stream_of_it_raises_its_own_alarm():
    owner = Owner()
    fsp1, _ = shoe(owner, lost_after=0.05)
    await asyncio.wait_for(owner.alarmed.wait(), 5)  # silence: the lost alarm
    assert [a.kind for a in owner.alarms] == ["lost"]
    fsp1.received(b"\x00")
    assert [a.kind for a in owner.alarms] == ["lost"]
    fsp1.received(bytes(range(1, 256)) * 3)  # a wrong baud rate's garbage
    assert [a.kind for a in owner.alarms] == ["lost", "noise"]
    assert "baud rate" in owner.alarms[-1].text
    fsp1.received(Heartbeat(0).to_bytes())  # a whole frame: alive, and quiet again
    assert owner.alarms == []
    fsp1.close()


async def test_a_reader_that_cannot_read_is_heard_in_its_own_words_until_it_reads_again():
    owner = Owner()
    fsp1, _ = shoe(owner)
    fsp1.received(Hello(0, "faro-camera 1.0").to_bytes())
    why = "flicker: light the box with lamps on a steady supply"
    for _ in range(3):  # once a second while it lasts: one alarm
        fsp1.received(Fault(0, why).to_bytes())
    assert [(a.kind, a.text) for a in owner.alarms] == [
        ("lost", f"the card reader cannot read: {why}")
    ]
    fsp1.received(Heartbeat(0).to_bytes())
    assert owner.alarms == []
    fsp1.close()


async def test_a_heartbeat_past_the_journal_is_a_gap_raised_once():
    """Frames the reader sent that never reached the journal (another host took them while
    the daemon was away) show in its heartbeat's number: the table must check its cards."""
    owner = Owner()
    fsp1, _ = shoe(owner)
    fsp1.received(Hello(0, "faro-camera 1.0").to_bytes())
    for seq in (1, 2, 3):
        fsp1.received(CardFrame(seq, parse_card(f"{seq + 1}H")).to_bytes())
    fsp1.received(Heartbeat(3).to_bytes())
    assert owner.alarms == []
    for _ in range(3):  # once a second: one alarm
        fsp1.received(Heartbeat(6).to_bytes())
    gaps = [a for a in owner.alarms if a.kind == "gap"]
    assert len(gaps) == 1 and "3 reading(s) after frame 3" in gaps[0].text
    assert len(owner.readings) == 3
    fsp1.close()


async def test_a_stale_frame_is_alarmed_though_a_gap_alarm_stands():
    owner = Owner()
    fsp1, port = shoe(owner)
    fsp1.received(Hello(0, "test").to_bytes())
    fsp1.received(CardFrame(5, parse_card("KD")).to_bytes())  # 4 missing: a gap
    gaps = [a for a in owner.alarms if a.kind == "gap"]
    assert len(gaps) == 1 and "never arrived" in gaps[0].text
    fsp1.received(CardFrame(2, parse_card("2C")).to_bytes())  # behind the journal
    gaps = [a for a in owner.alarms if a.kind == "gap"]
    assert "behind the journal" in gaps[0].text
    assert port.written.count(b"$A,") == 3  # all acknowledged, the stale one too
    fsp1.close()


async def test_a_reading_the_journal_cannot_keep_is_not_acknowledged_and_raises_nothing():
    owner = Owner(fail=True)
    fsp1, port = shoe(owner)
    fsp1.received(Hello(0, "test").to_bytes())
    written = port.written
    fsp1.received(CardFrame(1, parse_card("KD")).to_bytes())  # no traceback escapes
    assert port.written == written
    fsp1.close()


async def test_a_port_that_may_not_be_opened_raises_an_alarm_with_the_fix(monkeypatch):
    tries = asyncio.Event()
    count = [0]

    def denied(url, **kwargs):
        count[0] += 1
        if count[0] == 3:
            tries.set()
        raise serial.SerialException(13, f"could not open port {url}: [Errno 13] Permission denied")

    monkeypatch.setattr(serial, "serial_for_url", denied)

    said = asyncio.Event()
    why: list[str] = []
    port = ReaderPort("/dev/ttyACM0", 115200, lambda data: None, refused=lambda w: (
        why.append(w), said.set()), backoff=0.01)  # fmt: skip
    port.start()
    await asyncio.wait_for(said.wait(), 5)
    await asyncio.wait_for(tries.wait(), 5)  # more tries: still one alarm
    await port.close()
    assert len(why) == 1 and "permission denied" in why[0] and "dialout" in why[0]


def test_the_want_of_permission_is_read_from_the_errno_not_the_text():
    assert link._denied(serial.SerialException(errno.EACCES, "could not open port: ..."))
    assert link._denied(serial.SerialException(errno.EPERM, "could not open port: ..."))
    assert not link._denied(serial.SerialException(errno.ENOENT, "Permission denied, it says"))
    try:
        try:
            raise PermissionError(errno.EACCES, "Permission denied")
        except OSError:
            raise serial.SerialException("could not open port") from None
    except serial.SerialException as bare:
        assert not link._denied(bare)  # no errno and no context: not a want of permission
    try:
        try:
            raise PermissionError(errno.EACCES, "Permission denied")
        except OSError:
            raise serial.SerialException("could not open port")  # noqa: B904
    except serial.SerialException as wrapped:
        assert link._denied(wrapped)
