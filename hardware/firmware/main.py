"""faro-reader: the dealing shoe's card reader, MicroPython on a Raspberry Pi Pico.

A serial barcode-scanner module reads the code printed on each card as it
leaves the shoe (hardware/card-codes.svg) and sends it, one line per read, to
the Pico's UART1. The Pico reports each card to the Raspberry Pi over its USB
serial port in fsp1 (hardware/PROTOCOL.md), sending every frame again until
the Pi acknowledges it; the Pi sees it as /dev/faro-reader.

Wiring (GP numbers are the Pico's GPIOs, "pin" its physical pins):

    scanner TX   -> GP5 (UART1 RX, pin 7)
    scanner RX   <- GP4 (UART1 TX, pin 6)
    scanner VCC  -> VBUS (pin 40, 5 V from the Pi's USB) or 3V3 (pin 36)
    scanner GND  -> GND (pin 38)
    no-read button: GP15 (pin 20) to GND (pin 18); the pull-up is internal
    USB          -> the Raspberry Pi

Set the scanner module to serial (UART) output at 9600 baud, 8N1, with a CR
or LF after each code. A read that is not a card code (including a scanner's
own "no read" message, if it is set to send one) counts as a card that went
past unread: the Pi raises a no-read alarm. So does a press of the button,
for the dealer who sees a card pass unread. The Pico's LED is lit while a
frame waits for the Pi's acknowledgement.

Install MicroPython on the Pico (hold BOOTSEL, plug it in, copy the RP2 UF2
from micropython.org onto the drive that appears), then copy the two files:

    pip install mpremote
    mpremote cp faro_pi/shoe/fsp1_reader.py :fsp1_reader.py
    mpremote cp hardware/firmware/main.py :main.py
    mpremote reset

All the decisions are in :class:`Reader` and :func:`run`, which take their
I/O as plain callables; only :func:`main` touches the Pico's hardware. The
host's tests run the same code under CPython against the daemon's parser.
Like fsp1_reader.py it keeps to what MicroPython compiles: no annotations,
no f-strings, no dataclasses.
"""

import sys

try:
    from fsp1_reader import Sender
except ImportError:  # under CPython, from the repository
    from faro_pi.shoe.fsp1_reader import Sender

VERSION = "1.0"
HELLO = "faro-reader " + VERSION

SCANNER_UART = 1
SCANNER_TX = 4
SCANNER_RX = 5
SCANNER_BAUD = 9600
BUTTON_PIN = 15

RETRY_MS = 200
HEARTBEAT_MS = 1000
REPEAT_MS = 1000
"""The same card read again within this long is the scanner reading it twice."""
DEBOUNCE_MS = 30
TICK_MS = 10
"""Longest sleep of the loop, so the button is looked at often enough."""
MAX_LINE = 32

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = "SHDC"


def card_code(text):
    """The fsp1 code of a scanned text (``"kd"`` -> ``"KD"``, ``"TH"`` -> ``"10H"``), or None."""
    text = text.strip().upper()
    if len(text) < 2:
        return None
    rank = text[:-1]
    suit = text[-1]
    if rank == "T":
        rank = "10"
    if rank in RANKS and suit in SUITS:
        return rank + suit
    return None


class Reader:
    """The reader's decisions: scanner lines and button presses in, fsp1 frames out.

    Times are milliseconds from a clock that never wraps (see :func:`clock`).
    """

    def __init__(
        self,
        hello=HELLO,
        retry=RETRY_MS,
        heartbeat=HEARTBEAT_MS,
        repeat=REPEAT_MS,
        debounce=DEBOUNCE_MS,
    ):
        self.sender = Sender(hello, retry=retry, heartbeat=heartbeat)
        self.repeat = repeat
        self.debounce = debounce
        self.cards = 0
        self.no_reads = 0
        self.repeats = 0
        self._line = bytearray()
        self._long = False
        self._last_code = None
        self._last_at = 0
        self._raw = False
        self._raw_at = 0
        self._pressed = False

    def from_host(self, data):
        """The Pi's bytes: acknowledgements. Returns the frame numbers they took."""
        return self.sender.feed(data)

    def from_scanner(self, data, now):
        """The scanner's bytes: one code per line, ended by CR, LF or both."""
        for byte in data:
            if byte == 13 or byte == 10:
                if self._long:
                    self.no_read()
                elif len(self._line):
                    self.scanned(bytes(self._line), now)
                self._line = bytearray()
                self._long = False
            elif self._long:
                continue
            elif len(self._line) >= MAX_LINE:
                self._long = True
            else:
                self._line.append(byte)

    def scanned(self, raw, now):
        """One line from the scanner."""
        try:
            text = raw.decode()
        except UnicodeError:
            text = ""
        if not text.strip():
            return
        code = card_code(text)
        if code is None:
            self.no_read()
            return
        if code == self._last_code and now - self._last_at < self.repeat:
            self._last_at = now
            self.repeats += 1
            return
        self._last_code = code
        self._last_at = now
        self.cards += 1
        self.sender.card(code)

    def no_read(self):
        """A card went past unread."""
        self.no_reads += 1
        self.sender.no_read()

    def button(self, down, now):
        """The no-read button's level (True while pressed), debounced; a press is a no-read."""
        if down != self._raw:
            self._raw = down
            self._raw_at = now
        elif down != self._pressed and now - self._raw_at >= self.debounce:
            self._pressed = down
            if down:
                self.no_read()

    def poll(self, now):
        """The frame to write now, or None."""
        return self.sender.poll(now)

    def waiting(self):
        """True while a frame waits for the Pi's acknowledgement."""
        return self.sender.pending() > 0


def clock(ticks_ms, ticks_diff):
    """Milliseconds since the first call, from a wrapping tick counter; it never wraps."""
    state = [ticks_ms(), 0]

    def now():
        ticks = ticks_ms()
        state[1] += ticks_diff(ticks, state[0])
        state[0] = ticks
        return state[1]

    return now


def run(
    reader, read_host, write_host, read_scanner, now, button=None, wait=None, led=None, running=None
):
    """The firmware's loop, until ``running()`` is false (never, by default).

    ``read_host()`` and ``read_scanner()`` return the bytes that arrived (or
    None) without waiting; ``write_host(data)`` sends to the Pi; ``now()`` is
    :func:`clock`'s; ``button()`` is True while the no-read button is down;
    ``wait(ms)`` sleeps until input arrives or ``ms`` have passed; ``led(on)``
    shows whether a frame waits for its acknowledgement.
    """
    lit = None
    while running is None or running():
        moment = now()
        data = read_host()
        if data:
            reader.from_host(data)
        data = read_scanner()
        if data:
            reader.from_scanner(data, moment)
        if button is not None:
            reader.button(button(), moment)
        out = reader.poll(moment)
        if out is not None:
            write_host(out)
        if led is not None and reader.waiting() != lit:
            lit = reader.waiting()
            led(lit)
        if wait is not None:
            due = reader.sender.next_due(moment)
            pause = TICK_MS if due is None else min(TICK_MS, max(0, due - moment))
            wait(pause)


def main():
    """The Pico: UART1 to the scanner, USB serial (stdin/stdout) to the Pi."""
    import select
    import time

    from machine import UART, Pin

    uart = UART(
        SCANNER_UART, baudrate=SCANNER_BAUD, tx=Pin(SCANNER_TX), rx=Pin(SCANNER_RX), timeout=0
    )
    key = Pin(BUTTON_PIN, Pin.IN, Pin.PULL_UP)
    try:
        lamp = Pin("LED", Pin.OUT)
    except (TypeError, ValueError):
        lamp = None
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer  # raw bytes: text output would turn LF into CR LF
    host_ready = select.poll()
    host_ready.register(sys.stdin, select.POLLIN)
    anything = select.poll()
    anything.register(sys.stdin, select.POLLIN)
    anything.register(uart, select.POLLIN)

    def read_host():
        data = bytearray()
        while len(data) < 128 and host_ready.poll(0):
            data += stdin.read(1)
        return data

    def read_scanner():
        return uart.read() if uart.any() else None

    def led(on):
        if lamp is not None:
            lamp.value(1 if on else 0)

    run(
        Reader(),
        read_host,
        stdout.write,
        read_scanner,
        clock(time.ticks_ms, time.ticks_diff),
        button=lambda: key.value() == 0,
        wait=anything.poll,
        led=led,
    )


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # mpremote stopping the program: back to the REPL
        raise
    except Exception as exc:  # anything else: start again rather than sit dead in the shoe
        import time

        import machine

        sys.print_exception(exc)
        time.sleep(1)
        machine.reset()
