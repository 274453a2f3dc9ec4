"""fsp1, the card reader's half: numbering, framing and repeating what it reads.

This file runs unchanged on the reader's microcontroller under MicroPython
as well as in the simulator's virtual reader: it imports nothing and uses no
dataclasses, annotations or f-strings. Like the host's half
(:mod:`faro_pi.shoe.fsp1`) it does no I/O: the firmware hands it the bytes that
came from the host and the time from its own clock, and writes out whatever
:meth:`Sender.poll` returns. ``hardware/PROTOCOL.md`` is the specification.
"""

RETRY = 0.2
HEARTBEAT = 1.0
CAPACITY = 32
SEQ_MOD = 65536
MAX_FRAME = 80

_HEX = b"0123456789ABCDEFabcdef"


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE, bit by bit, since MicroPython has no ``crc_hqx``."""
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc


def frame(body):
    """The complete frame for ``body`` (a str such as ``"C,17,10H"``), ending CR LF."""
    raw = body.encode()
    for byte in raw:
        if byte < 0x20 or byte > 0x7E or byte == 0x24 or byte == 0x2A:
            raise ValueError("frame body must be printable ASCII without $ or *")
    check = crc16(raw)
    trailer = bytes(_HEX[check >> shift & 0xF] for shift in (12, 8, 4, 0))
    out = b"$" + raw + b"*" + trailer + b"\r\n"
    if len(out) > MAX_FRAME:
        raise ValueError("frame longer than 80 bytes")
    return out


def ack_seq(line):
    """The sequence number acknowledged by one ``$A,SEQ*CRC`` line, or None.

    ``line`` runs from ``$`` up to, but not including, its LF.
    """
    if line[-1:] == b"\r":
        line = line[:-1]
    if len(line) < 9 or line[0] != 0x24 or line[-5] != 0x2A:
        return None
    trailer = line[-4:]
    for byte in trailer:
        if byte not in _HEX:
            return None
    body = line[1:-5]
    if crc16(body) != int(trailer.decode(), 16) or body[:2] != b"A,":
        return None
    digits = body[2:]
    if not 1 <= len(digits) <= 5:
        return None
    for byte in digits:
        if not 0x30 <= byte <= 0x39:
            return None
    seq = int(digits.decode())
    return seq if seq < SEQ_MOD else None


class Sender:
    """Stop-and-wait from the reader: one frame in flight, sent again until acknowledged.

    It starts with the hello (sequence number 0, ``hello`` as its text);
    :meth:`card` and :meth:`no_read` queue frames numbered from 1, wrapping
    after 65535 to 0. :meth:`poll` hands out the head of the queue at once,
    then again every ``retry`` seconds until :meth:`acked` (or :meth:`feed`)
    takes it off; when the queue is empty and nothing was sent for
    ``heartbeat`` seconds it hands out a heartbeat instead.

    At most ``capacity`` frames wait; a frame beyond that is dropped but keeps
    its number, so the host sees the gap and raises an alarm rather than
    missing a card in silence. ``dropped`` counts them, ``rejected`` counts
    lines from the host that were not a good acknowledgement.

    Times are in seconds, from any origin; firmware that counts milliseconds
    passes ``retry=200, heartbeat=1000`` and its millisecond count instead.
    ``heartbeat=None`` turns heartbeats off.
    """

    def __init__(self, hello="", retry=RETRY, heartbeat=HEARTBEAT, capacity=CAPACITY):
        self.retry = retry
        self.heartbeat = heartbeat
        self.capacity = capacity
        self.dropped = 0
        self.rejected = 0
        self.last_seq = 0
        self._queue = [(0, frame("H,0," + hello))]
        self._next = 1
        self._sent_at = None
        self._last_sent = None
        self._rx = bytearray()
        self._rx_skip = False
        self._fault = None

    def fault(self, text):
        """The reader cannot read cards, ``text`` says why (``"flicker: ..."``); None when it
        can again. While it lasts, faults go out in place of heartbeats, the first at once."""
        if text is not None:
            text = text[:64]  # a frame's 80 bytes: F, the number, and the text
        if text != self._fault:
            self._fault = text
            if self._last_sent is not None:
                self._last_sent -= self.heartbeat or 0

    def next_seq(self):
        """The number the next card or no-read queued will carry."""
        return self._next

    def card(self, code):
        """Queues a card read, given by its code (``"KD"``, ``"10H"``); returns its number."""
        return self._push("C", "," + code)

    def no_read(self):
        """Queues a no-read: a card went past that could not be read; returns its number."""
        return self._push("N", "")

    def _push(self, kind, tail):
        seq = self._next
        data = frame(kind + "," + str(seq) + tail)
        self._next = (seq + 1) % SEQ_MOD
        if len(self._queue) >= self.capacity:
            self.dropped += 1
        else:
            self._queue.append((seq, data))
        return seq

    def pending(self):
        """How many frames wait for an acknowledgement, the one in flight included."""
        return len(self._queue)

    def next_due(self, now):
        """When :meth:`poll` next has something to send (``now`` if already), or None."""
        if self._queue:
            if self._sent_at is None:
                return now
            return max(now, self._sent_at + self.retry)
        if self.heartbeat is None:
            return None
        if self._last_sent is None:
            return now
        return max(now, self._last_sent + self.heartbeat)

    def poll(self, now):
        """The bytes to write at time ``now``, or None if nothing is due."""
        if self._queue:
            if self._sent_at is not None and now - self._sent_at < self.retry:
                return None
            seq, data = self._queue[0]
            self._sent_at = self._last_sent = now
            self.last_seq = seq
            return data
        if self.heartbeat is None:
            return None
        if self._last_sent is not None and now - self._last_sent < self.heartbeat:
            return None
        self._last_sent = now
        if self._fault is not None:
            return frame("F," + str(self.last_seq) + "," + self._fault)
        return frame("P," + str(self.last_seq))

    def acked(self, seq):
        """Takes the frame in flight off the queue if ``seq`` is its number; True if so."""
        if self._queue and self._sent_at is not None and self._queue[0][0] == seq:
            self._queue.pop(0)
            self._sent_at = None
            return True
        return False

    def feed(self, data):
        """Reads the host's bytes and applies the acknowledgements; returns the numbers taken."""
        taken = []
        for byte in data:
            if byte == 0x24:
                self._rx = bytearray(b"$")
                self._rx_skip = False
            elif self._rx_skip:
                self._rx_skip = byte != 0x0A
            elif not self._rx:
                continue
            elif byte == 0x0A:
                seq = ack_seq(bytes(self._rx))
                self._rx = bytearray()
                if seq is None:
                    self.rejected += 1
                elif self.acked(seq):
                    taken.append(seq)
            elif len(self._rx) >= MAX_FRAME - 1:
                self.rejected += 1
                self._rx = bytearray()
                self._rx_skip = True
            else:
                self._rx.append(byte)
        return taken
