"""The doctor's look at the card reader: its port opens, and an fsp1 frame arrives.

It only listens: the reader keeps every frame it sends until the daemon
acknowledges it, so the doctor takes nothing from the daemon.
"""

from __future__ import annotations

import errno
import os
import time

import serial

from faro_pi.config import Config
from faro_pi.doctor.check import SERVICE_STOPPED, Check, one_line, verdicts
from faro_pi.shoe import urls
from faro_pi.shoe.fsp1 import CardFrame, Fault, FrameParser, Heartbeat, Hello, NoRead


def check_reader(config: Config, timeout: float) -> Check:
    """The reader's port opens and, for an fsp1 reader, a frame arrives within ``timeout``."""
    passed, failed, _ = verdicts("reader")
    reader = config.reader
    if reader.port.startswith("/") and not os.path.exists(reader.port):
        return failed(
            f"no {reader.port}",
            "plug the reader in (its USB cable to the Pi); if it is plugged in, "
            "install hardware/99-faro-reader.rules (make install does) and replug it, "
            "or set reader.port to what `ls /dev/serial/by-id/` shows",
        )
    try:
        port = serial.serial_for_url(reader.port, baudrate=reader.baud, timeout=0.1)
    except (serial.SerialException, OSError, ValueError) as exc:
        fix = _PORT_FIXES.get(getattr(exc, "errno", None), "check reader.port")
        if reader.port.startswith(("socket://", "unix:")):  # the camera reader listens there
            fix = "start the camera reader: sudo systemctl start faro-pi-camera"
            if "not the camera reader" in str(exc):
                fix = "find what holds it (sudo ss -xlp) and stop it: only the camera may read"
        return failed(f"{reader.port} does not open ({one_line(str(exc))})", fix)
    with port:
        if reader.protocol != "fsp1":
            return passed(
                f"{reader.port} opens (plain protocol: the scanner speaks only when it reads)",
            )
        return _listen(port, config, timeout)


urls.register()

_DIALOUT = "run as a member of group dialout (sudo -u faro-pi ...; the service has it)"
_PORT_FIXES = {errno.EACCES: _DIALOUT, errno.EPERM: _DIALOUT, errno.EBUSY: SERVICE_STOPPED}
"""What to do when the reader's port does not open, by the error's errno."""


def _listen(port, config: Config, timeout: float) -> Check:
    """Reads until the first fsp1 frame, or ``timeout``; acknowledges nothing."""
    passed, failed, _ = verdicts("reader")
    reader = config.reader
    parser = FrameParser()
    received = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            data = port.read(256)
        except (serial.SerialException, OSError) as exc:
            return failed(
                f"{reader.port} failed while reading ({one_line(str(exc))})",
                "check the cable and the reader's power",
            )
        received += len(data)
        for frame in parser.feed(data):
            if isinstance(frame, Fault):
                return failed(
                    f"{reader.port}: the reader is there but cannot read cards: {frame.text}",
                    "do what it asks; it says so once a second until it can read again",
                )
            if what := _frame_said(frame):
                return passed(f"{reader.port}: fsp1 {what}")
    if received:
        dropped = ", ".join(f"{n} {why}" for why, n in parser.discarded.items() if n)
        return failed(
            f"{reader.port}: {received} bytes in {timeout:g} s but no fsp1 frame ({dropped})",
            f"make reader.baud ({reader.baud}) match the firmware's, and reader.protocol "
            '("fsp1") what it speaks ("plain" for a bare barcode scanner)',
        )
    return failed(
        f"{reader.port}: silent for {timeout:g} s (an fsp1 reader sends a heartbeat every second)",
        "check that the reader runs its firmware (hardware/firmware/main.py and "
        f"fsp1_reader.py on the Pico); {SERVICE_STOPPED}",
    )


def _frame_said(frame) -> str | None:
    """What a frame from the reader shows about it, or None for a frame that shows nothing."""
    if isinstance(frame, Hello):
        return f"a hello ({frame.text or 'no name'})"
    if isinstance(frame, Heartbeat):
        return f"a heartbeat (last frame {frame.seq})"
    if isinstance(frame, CardFrame | NoRead):
        return f"frame {frame.seq}, waiting for the daemon to take it"
    return None
