"""Input lines read from the kernel's GPIO character device: an edge wakes the reader, nothing else.

On a Pi, gpiozero's lgpio backend hands edges to a thread of lgpio's own that
polls every 0.5 ms while any line is watched (``ppoll`` with a 0.5 ms timeout
in lgpio's ``lgPthAlerts.c``): 2,000 wake-ups a second for three idle buttons.
The kernel can do the watching itself. :func:`request_lines` asks
``/dev/gpiochipN`` for the lines as inputs, pulled up, with both edges
reported and debounced by the kernel (the GPIO uAPI v2, Linux 5.10 and later),
and :meth:`LineEvents.watch` blocks in ``poll`` until an edge or ``close``.

The request and the events are the kernel's structs, packed here by hand from
``include/uapi/linux/gpio.h``; :func:`line_request` and :func:`edges` are plain
bytes in, bytes out, so they are tested without a Pi.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

LINES_MAX = 64
NAME_SIZE = 32
ATTRS_MAX = 10
FLAG_INPUT = 1 << 2
FLAG_EDGE_RISING = 1 << 4
FLAG_EDGE_FALLING = 1 << 5
FLAG_BIAS_PULL_UP = 1 << 8
ATTR_DEBOUNCE = 3
EDGE_RISING, EDGE_FALLING = 1, 2

_ATTR = struct.Struct("=III4xQ")
"""``gpio_v2_line_config_attribute``: id, padding, the value's union (here its first member,
the debounce in µs), mask."""
_CONFIG = struct.Struct(f"=QI20x{_ATTR.size * ATTRS_MAX}s")
"""``gpio_v2_line_config``: flags, num_attrs, padding, attrs."""
_REQUEST = struct.Struct(f"={LINES_MAX}I{NAME_SIZE}s{_CONFIG.size}sII20xi")
"""``gpio_v2_line_request``: offsets, consumer, config, num_lines, event buffer, padding, fd."""
_EVENT = struct.Struct("=QIIII24x")
"""``gpio_v2_line_event``: timestamp_ns, id (the edge), offset, seqno, line_seqno, padding."""
FD_AT = _REQUEST.size - 4
"""Where the kernel writes the lines' file descriptor into the request."""


def _ioc_readwrite(number: int, size: int) -> int:
    """``_IOWR(0xB4, number, size)``, the GPIO ioctls' direction, size, type and number."""
    return 3 << 30 | size << 16 | 0xB4 << 8 | number


GET_LINE = _ioc_readwrite(0x07, _REQUEST.size)
"""``GPIO_V2_GET_LINE_IOCTL``."""


class Edge(NamedTuple):
    """One edge on a line, as the kernel reports it."""

    line: int
    """The line's offset on the chip: its BCM number on a Pi's main chip."""
    rising: bool
    nanoseconds: int
    """When it happened, on the kernel's monotonic clock."""


def line_request(lines: Sequence[int], debounce: float, consumer: str = "faro-pi") -> bytearray:
    """The ``gpio_v2_line_request`` for ``lines`` as pulled-up inputs reporting both edges,
    each debounced for ``debounce`` seconds by the kernel (0: not at all)."""
    if not 0 < len(lines) <= LINES_MAX:
        raise ValueError(f"a request takes 1 to {LINES_MAX} lines, not {len(lines)}")
    attrs = b""
    count = 0
    if debounce > 0:
        everyone = (1 << len(lines)) - 1
        attrs = _ATTR.pack(ATTR_DEBOUNCE, 0, round(debounce * 1e6), everyone)
        count = 1
    flags = FLAG_INPUT | FLAG_EDGE_RISING | FLAG_EDGE_FALLING | FLAG_BIAS_PULL_UP
    config = _CONFIG.pack(flags, count, attrs)
    offsets = [*lines, *[0] * (LINES_MAX - len(lines))]
    name = consumer.encode()[: NAME_SIZE - 1]
    return bytearray(_REQUEST.pack(*offsets, name, config, len(lines), 0, -1))


def edges(data: bytes) -> Iterator[Edge]:
    """The edges in bytes read from the lines' file descriptor."""
    for stamp, kind, line, _seqno, _line_seqno in _EVENT.iter_unpack(data):
        yield Edge(line, kind == EDGE_RISING, stamp)


def request_lines(chip: int, lines: Sequence[int], debounce: float) -> int:
    """Asks ``/dev/gpiochip{chip}`` for ``lines`` (see :func:`line_request`); their descriptor."""
    request = line_request(lines, debounce)
    chip_fd = os.open(f"/dev/gpiochip{chip}", os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.ioctl(chip_fd, GET_LINE, request)
    finally:
        os.close(chip_fd)
    return struct.unpack_from("=i", request, FD_AT)[0]


class Chip(NamedTuple):
    """One of the kernel's GPIO chips, ``/dev/gpiochipN``, whose lines the buttons read.

    The composition root hands one to the buttons where the pins are a Pi's
    (:func:`faro_pi.devices.pins.kernel_chip`); the tests hand their own ``request``.
    """

    number: int

    def request(self, lines: Sequence[int], debounce: float) -> int:
        """The descriptor of ``lines`` (see :func:`request_lines`)."""
        return request_lines(self.number, lines, debounce)

    def __str__(self) -> str:
        return f"/dev/gpiochip{self.number}"


class LineEvents:
    """Requested lines (their descriptor, from :func:`request_lines`) and their edges, as
    they come; closing gives the lines back to the kernel."""

    def __init__(self, fd: int, lines: Sequence[int]):
        self.fd: int | None = fd
        self.lines = tuple(lines)
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None

    def watch(self, edge: Callable[[Edge], None]) -> None:
        """Calls ``edge`` with each edge, from a thread that sleeps in ``poll`` between them."""
        self._thread = threading.Thread(
            target=self._read, args=(edge,), name="gpiochip", daemon=True
        )
        self._thread.start()

    def _read(self, edge: Callable[[Edge], None]) -> None:
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        while True:
            ready = {fd for fd, _ in poller.poll()}
            if self._wake_r in ready:
                return
            data = os.read(self.fd, _EVENT.size * 16)
            if not data:
                return  # the other end is gone (only a pipe in the tests ends)
            for each in edges(data[: len(data) - len(data) % _EVENT.size]):
                edge(each)

    def close(self) -> None:
        """Ends :meth:`watch`, then closes the lines."""
        if self.fd is None:
            return
        os.write(self._wake_w, b"\0")
        if self._thread is not None:
            self._thread.join(timeout=5.0)
            self._thread = None
        for fd in (self._wake_r, self._wake_w, self.fd):
            os.close(fd)
        self.fd = None
