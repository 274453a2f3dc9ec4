"""Sending a frame to the OLED's controller: only the columns that changed.

luma.oled's SSD1306 and SH1106 drivers send the whole frame every time (its
``diff_to_previous`` framebuffer serves only the colour and greyscale
chips), about 23 ms of a 400 kHz bus for an SSD1306. :class:`SSD1306` and
:class:`SH1106` here are luma's drivers sending only the columns of each
8-row page that changed, in as few address windows as pays. Working out
what changed (:func:`frame_pages`, :func:`changed_runs`, :func:`windows`)
is plain arithmetic on bytes, tested without a device.
"""

from __future__ import annotations

from luma.oled.device import sh1106, ssd1306
from PIL import Image

WIDTH, PAGES = 128, 8
COLUMN_WINDOW, PAGE_WINDOW, NOP = 0x21, 0x22, 0xE3
BLOCK = 32
"""Data bytes in one I²C write when the bus is handed to luma (smbus's block limit)."""


# -- what changed, in the controller's terms --------------------------------------


def frame_pages(image: Image.Image) -> bytes:
    """A 128×64 one-bit image as the controller stores it: 8 pages of 128 column bytes.

    Byte ``page * 128 + x`` holds column ``x`` of rows ``8 * page`` to
    ``8 * page + 7``, top row in bit 0.
    """
    # Turned a quarter clockwise, each image column becomes a row of 8 bytes,
    # one per page, bottom row first and most significant: the bits already in
    # the controller's order, the pages reversed.
    turned = image.transpose(Image.Transpose.ROTATE_270).tobytes()
    return b"".join(turned[PAGES - 1 - page :: PAGES] for page in range(PAGES))


def changed_runs(old: bytes | None, new: bytes, gap: int) -> list[tuple[int, int, int]]:
    """``(page, start, end)`` for each run of changed columns (``end`` exclusive).

    Runs closer than ``gap`` unchanged columns are joined: sending those few
    bytes again is cheaper than addressing a second window.
    """
    if old is None:
        return [(page, 0, WIDTH) for page in range(PAGES)]
    runs = []
    for page in range(PAGES):
        at = page * WIDTH
        a, b = old[at : at + WIDTH], new[at : at + WIDTH]
        if a == b:
            continue
        start = end = None
        for x in range(WIDTH):
            if a[x] != b[x]:
                if start is None:
                    start = x
                elif x - end > gap:
                    runs.append((page, start, end))
                    start = x
                end = x + 1
        runs.append((page, start, end))
    return runs


def window_cost(pages: int, columns: int) -> int:
    """Bytes on the wire to send one window: its address command, then its data in blocks."""
    data = pages * columns
    return 8 + data + 2 * -(-data // BLOCK)


def windows(runs: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``(first page, last page, start, end)`` windows covering the runs, joining
    a run to the window above it when one window costs less than two."""
    done, open_ = [], []
    for page, start, end in runs:
        best = None
        for w in open_:
            first, last, s, e = w
            if last != page - 1:
                continue
            s2, e2 = min(s, start), max(e, end)
            saving = (
                window_cost(last - first + 1, e - s)
                + window_cost(1, end - start)
                - window_cost(page - first + 1, e2 - s2)
            )
            if saving > 0 and (best is None or saving > best[0]):
                best = (saving, w, (first, page, s2, e2))
        if best is None:
            open_.append((page, page, start, end))
        else:
            open_[open_.index(best[1])] = best[2]
        done.extend(w for w in open_ if w[1] < page - 1)
        open_ = [w for w in open_ if w[1] >= page - 1]
    # the window holding the bottom-right corner goes last: it ends the frame
    return sorted(done + open_, key=lambda w: (w[1], w[3], w[0], w[2]))


class SSD1306(ssd1306):
    """luma's SSD1306 driver, sending only the changed windows of the frame.

    Each window is set with the column and page address commands (horizontal
    addressing wraps the data from one page to the next within it); a flush
    ends with a NOP so that a listener on the bus knows the frame is done.
    """

    gap = 6

    def __init__(self, serial_interface=None, **kwargs):
        self.sent: bytes | None = None
        """The frame the controller holds, as :func:`frame_pages`; None if unknown."""
        self._window: tuple[tuple[int, int], tuple[int, int]] | None = None
        super().__init__(serial_interface, **kwargs)

    def forget(self, sent: bytes | None = None) -> None:
        """The controller was reset or its state is unknown: say what it holds now."""
        self.sent, self._window = sent, None

    def display(self, image: Image.Image) -> None:
        pages = frame_pages(self.preprocess(image))
        runs = changed_runs(self.sent, pages, self.gap)
        self.sent = None  # until the flush is through
        for first, last, start, end in windows(runs):
            # A written window leaves the pointers at its own start, so a range
            # the controller already has needs no command.
            columns, rows = (start, end - 1), (first, last)
            command = []
            if self._window is None or columns != self._window[0]:
                command += [COLUMN_WINDOW, *columns]
            if self._window is None or rows != self._window[1]:
                command += [PAGE_WINDOW, *rows]
            self._window = None
            if command:
                self.command(*command)
            self.data(
                b"".join(pages[p * WIDTH + start : p * WIDTH + end] for p in range(first, last + 1))
            )
            self._window = (columns, rows)
        if runs:
            self.command(NOP)
        self.sent = pages


class SH1106(sh1106):
    """luma's SH1106 driver, sending only the changed columns of each page.

    The SH1106 has only page addressing: a window is one page, set with the
    page command and the column's low and high nibbles, 2 columns in (its
    memory is 132 columns wide, the glass 128).
    """

    gap = 7

    def __init__(self, serial_interface=None, **kwargs):
        self.sent: bytes | None = None
        super().__init__(serial_interface, **kwargs)

    def forget(self, sent: bytes | None = None) -> None:
        self.sent = sent

    def display(self, image: Image.Image) -> None:
        pages = frame_pages(self.preprocess(image))
        runs = changed_runs(self.sent, pages, self.gap)
        self.sent = None
        for page, start, end in runs:
            column = start + self._page_address_offset
            self.command(0xB0 | page, column & 0x0F, 0x10 | column >> 4)
            self.data(pages[page * WIDTH + start : page * WIDTH + end])
        if runs:
            self.command(NOP)
        self.sent = pages


DRIVERS = {"ssd1306": SSD1306, "sh1106": SH1106}
