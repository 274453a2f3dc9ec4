"""fsp1, the card reader's serial protocol, as the host speaks it.

The shoe's card reader sends one checksummed line per card and repeats it
until the host acknowledges it; ``hardware/PROTOCOL.md`` is the specification.
This module turns bytes into frames (:class:`FrameParser`), decides what each
frame means for the journal (:class:`Receiver`), builds frames for the other
direction (:func:`encode`, :func:`ack`) and reads barcode scanners that send
bare card codes (:class:`PlainParser`). The reader's half is
:mod:`faro_pi.shoe.fsp1_reader`.

Nothing here opens a port, starts a thread or reads a clock: the daemon, the
simulator and the tests feed in the same bytes and times and get the same
answers, so every line-level mishap can be replayed in a test.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from enum import StrEnum

from faro_pi.exc import Refused
from faro_pi.game.cards import Card, parse_card

MAX_FRAME = 80
"""Longest frame in bytes, from ``$`` to the line end inclusive."""

SEQ_MOD = 65536
"""Sequence numbers count modulo this (0..65535, then 0 again)."""

RETRY = 0.2
"""Seconds the reader waits for an acknowledgement before sending a frame again."""

PLAIN_REPEAT = 0.5
"""Seconds within which a scanner's repeated code is the same read."""

_DOLLAR, _STAR, _CR, _LF = 0x24, 0x2A, 0x0D, 0x0A
_HEX = frozenset(b"0123456789ABCDEFabcdef")
_DIGITS = frozenset("0123456789")


def crc(body: bytes) -> int:
    """CRC-16/CCITT-FALSE of a frame body: what the ``*XXXX`` trailer carries."""
    return binascii.crc_hqx(body, 0xFFFF)


def _printable(raw: bytes) -> bool:
    """Whether ``raw`` may stand in a body: printable ASCII without ``$`` or ``*``."""
    return all(0x20 <= b <= 0x7E and b != _DOLLAR and b != _STAR for b in raw)


def encode(*fields: str | int) -> bytes:
    """One complete frame (``$BODY*CRC\\r\\n``) carrying ``fields``, ready to write."""
    body = ",".join(str(field) for field in fields)
    raw = body.encode("ascii", "replace")
    if not body.isascii() or not _printable(raw):
        raise Refused(
            "fsp1-frame", f"{body!r} cannot be sent: use printable ASCII without '$' or '*'"
        )
    frame = b"$%s*%04X\r\n" % (raw, crc(raw))
    if len(frame) > MAX_FRAME:
        raise Refused("fsp1-frame", f"{body!r} makes a frame over {MAX_FRAME} bytes")
    return frame


def _check_seq(seq: int) -> None:
    if type(seq) is not int or not 0 <= seq < SEQ_MOD:
        raise Refused("fsp1-seq", f"{seq!r} is not a sequence number (0..{SEQ_MOD - 1})")


@dataclass(frozen=True, slots=True)
class CardFrame:
    """``C``: the reader read ``card``."""

    seq: int
    card: Card

    def __post_init__(self) -> None:
        _check_seq(self.seq)

    def to_bytes(self) -> bytes:
        return encode("C", self.seq, self.card.code)


@dataclass(frozen=True, slots=True)
class NoRead:
    """``N``: a card went past the reader unread; the dealer must re-feed or key it."""

    seq: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)

    def to_bytes(self) -> bytes:
        return encode("N", self.seq)


@dataclass(frozen=True, slots=True)
class Hello:
    """``H``: the reader (re)started and numbers from 0 again; ``text`` names its firmware."""

    seq: int = 0
    text: str = ""

    def __post_init__(self) -> None:
        if self.seq != 0:
            raise Refused("fsp1-seq", f"a hello carries sequence number 0, not {self.seq!r}")

    def to_bytes(self) -> bytes:
        return encode("H", self.seq, self.text)


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """``P``: the reader is alive and idle; ``seq`` is the last number it sent."""

    seq: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)

    def to_bytes(self) -> bytes:
        return encode("P", self.seq)


@dataclass(frozen=True, slots=True)
class Fault:
    """``F``: the reader is alive but cannot read cards (``text`` says why, its first word
    the cause: ``flicker``...); sent in place of heartbeats while that lasts, ``seq`` the
    last number it sent. A heartbeat or any numbered frame after it ends it."""

    seq: int
    text: str

    def __post_init__(self) -> None:
        _check_seq(self.seq)

    def to_bytes(self) -> bytes:
        return encode("F", self.seq, self.text)


@dataclass(frozen=True, slots=True)
class Ack:
    """``A``: the host has journaled frame ``seq`` (or had already); the reader may move on."""

    seq: int

    def __post_init__(self) -> None:
        _check_seq(self.seq)

    def to_bytes(self) -> bytes:
        return encode("A", self.seq)


Frame = CardFrame | NoRead | Hello | Heartbeat | Fault | Ack


def ack(seq: int) -> bytes:
    """The bytes that acknowledge frame ``seq``."""
    return Ack(seq).to_bytes()


def _seq(text: str) -> int | None:
    if 1 <= len(text) <= 5 and set(text) <= _DIGITS:
        value = int(text)
        if value < SEQ_MOD:
            return value
    return None


def _fields(text: str, to_reader: bool) -> Frame | None:
    """The frame a checked body describes, or None if a field is wrong."""
    kind, _, rest = text.partition(",")
    if to_reader:
        if kind == "A" and (seq := _seq(rest)) is not None:
            return Ack(seq)
        return None
    if kind == "C":
        seq_text, _, code = rest.partition(",")
        seq = _seq(seq_text)
        if seq is None or "," in code:
            return None
        try:
            return CardFrame(seq, parse_card(code))
        except Refused:
            return None
    if kind == "H":
        seq_text, _, hello = rest.partition(",")
        return Hello(0, hello) if _seq(seq_text) == 0 else None
    if kind == "F":
        seq_text, _, why = rest.partition(",")
        seq = _seq(seq_text)
        return Fault(seq, why) if seq is not None and why.strip() else None
    if kind in ("N", "P") and (seq := _seq(rest)) is not None:
        return NoRead(seq) if kind == "N" else Heartbeat(seq)
    return None


class FrameParser:
    """Cuts a byte stream into fsp1 frames, dropping and counting whatever is not one.

    By default it reads what the reader sends (``C``, ``N``, ``H``, ``P``);
    with ``to_reader=True`` it reads what the host sends (``A``). A frame of
    the other direction is a bad field. ``feed`` never raises and never holds
    more than one frame's worth (:data:`MAX_FRAME`) of bytes, whatever arrives.

    ``discarded`` counts what was dropped, by reason: ``noise`` bytes outside
    any frame; frames with a wrong or missing ``crc``; frames with a bad
    ``field``; frames too ``long``; frames ``cut`` short by a new ``$``.
    """

    def __init__(self, *, to_reader: bool = False):
        self.to_reader = to_reader
        self.discarded: dict[str, int] = dict.fromkeys(("noise", "crc", "field", "long", "cut"), 0)
        self._buf = bytearray()
        self._in_frame = False
        self._skipping = False

    def feed(self, data: bytes) -> list[Frame]:
        """The frames completed by ``data``, in the order they arrived."""
        frames: list[Frame] = []
        buf = self._buf
        for byte in data:
            if byte == _DOLLAR:
                if self._in_frame:
                    self.discarded["cut"] += 1
                buf.clear()
                buf.append(byte)
                self._in_frame, self._skipping = True, False
            elif self._in_frame:
                buf.append(byte)
                if byte == _LF:
                    frame = self._decode(bytes(buf))
                    if frame is not None:
                        frames.append(frame)
                    buf.clear()
                    self._in_frame = False
                elif len(buf) >= MAX_FRAME:
                    self.discarded["long"] += 1
                    buf.clear()
                    self._in_frame, self._skipping = False, True
            elif self._skipping:
                self._skipping = byte != _LF
            else:
                self.discarded["noise"] += 1
        return frames

    def _decode(self, line: bytes) -> Frame | None:
        """The frame in one ``$...\\n`` line, or None after counting why not."""
        line = line[1:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        trailer = line[-4:]
        if len(line) < 5 or line[-5] != _STAR or not set(trailer) <= _HEX:
            self.discarded["crc"] += 1
            return None
        body = line[:-5]
        if crc(body) != int(trailer, 16):
            self.discarded["crc"] += 1
            return None
        frame = _fields(body.decode("ascii"), self.to_reader) if _printable(body) else None
        if frame is None:
            self.discarded["field"] += 1
        return frame


class Action(StrEnum):
    """What the host does with a ``C``, ``N`` or ``H`` frame."""

    APPLY = "apply"
    """New: journal it, then call :meth:`Receiver.committed`, then acknowledge."""
    REPEAT = "repeat"
    """Already journaled (its acknowledgement was lost): acknowledge again, nothing else."""
    STALE = "stale"
    """Behind the journal, so reader and journal disagree: acknowledge, do not apply, alarm."""
    HELLO = "hello"
    """The reader restarted: note it, call :meth:`Receiver.committed`, then acknowledge."""


@dataclass(frozen=True, slots=True)
class Decision:
    """The verdict on one frame; ``missed`` sequence numbers were skipped before it."""

    action: Action
    missed: int = 0


class Receiver:
    """The host's half of stop-and-wait: which frames are new, and when the count moves.

    ``last`` is the sequence number of the last frame journaled, or None for
    a fresh journal; the daemon restores it on start so that a frame journaled
    just before a restart, but never acknowledged, is not journaled twice.
    :meth:`decide` only looks; :meth:`committed` moves ``last``, and must be
    called once the frame's event is durable and before acknowledging it.
    """

    def __init__(self, last: int | None = None):
        if last is not None:
            _check_seq(last)
        self.last = last
        self._at_hello = False

    def decide(self, frame: CardFrame | NoRead | Hello) -> Decision:
        """What ``frame`` means now, without changing anything."""
        if isinstance(frame, Hello):
            return Decision(Action.REPEAT if self._at_hello else Action.HELLO)
        if not isinstance(frame, CardFrame | NoRead):
            raise TypeError(f"only C, N and H frames are sequenced, not {frame!r}")
        if self.last is None:
            return Decision(Action.APPLY)
        ahead = (frame.seq - self.last) % SEQ_MOD
        if ahead == 0:
            return Decision(Action.REPEAT)
        if ahead < SEQ_MOD // 2:
            return Decision(Action.APPLY, missed=ahead - 1)
        return Decision(Action.STALE)

    def unheard(self, seq: int) -> int:
        """How many frames a reader that says its last was ``seq`` (a heartbeat's or a
        fault's number) sent that never reached the journal: 0 when it is the journal's
        last, behind it, or the journal is fresh."""
        if self.last is None:
            return 0
        ahead = (seq - self.last) % SEQ_MOD
        return ahead if ahead < SEQ_MOD // 2 else 0

    def committed(self, frame: CardFrame | NoRead | Hello) -> None:
        """Records that ``frame`` is journaled; a repeat or a stale frame changes nothing."""
        action = self.decide(frame).action
        if action is Action.APPLY:
            self.last, self._at_hello = frame.seq, False
        elif action is Action.HELLO:
            self.last, self._at_hello = 0, True


class PlainParser:
    """Reads a barcode scanner in serial mode: one card code a line, nothing else.

    Lines may end in CR, LF or both. A scanner often reads the card under it
    twice, so the same card again less than :data:`PLAIN_REPEAT` seconds after
    it was last seen is the same read. ``discarded`` counts lines that are
    not a card (``bad``), lines too ``long`` to be one, and ``repeat`` reads.
    ``feed`` never raises.
    """

    MAX_LINE = 16

    def __init__(self, repeat_window: float = PLAIN_REPEAT):
        self.repeat_window = repeat_window
        self.discarded: dict[str, int] = dict.fromkeys(("bad", "long", "repeat"), 0)
        self._buf = bytearray()
        self._skipping = False
        self._last: Card | None = None
        self._last_seen = 0.0

    def feed(self, data: bytes, now: float) -> list[Card]:
        """The cards read in ``data``, which arrived at time ``now`` (seconds)."""
        cards: list[Card] = []
        for byte in data:
            if byte in (_CR, _LF):
                if not self._skipping and self._buf.strip():
                    card = self._line(bytes(self._buf), now)
                    if card is not None:
                        cards.append(card)
                self._buf.clear()
                self._skipping = False
            elif self._skipping:
                continue
            elif len(self._buf) >= self.MAX_LINE:
                self.discarded["long"] += 1
                self._buf.clear()
                self._skipping = True
            else:
                self._buf.append(byte)
        return cards

    def _line(self, line: bytes, now: float) -> Card | None:
        try:
            card = parse_card(line.decode("ascii"))
        except (UnicodeDecodeError, Refused):
            self.discarded["bad"] += 1
            return None
        repeat = card is self._last and now - self._last_seen < self.repeat_window
        self._last, self._last_seen = card, now
        if repeat:
            self.discarded["repeat"] += 1
            return None
        return card
