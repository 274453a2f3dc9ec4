"""The doctor's look at the camera reader: a frame can be had, and the box is well lit.

Two findings. ``camera``: the configured camera opens and gives a frame. ``light``: a
card lies in the box and is found, and its paper is neither dark nor washed out, with
enough contrast for its indices; a glare spot or a shadow shows as too bright or too
dark a part of the paper. Lay a card face up in the box before running it. The camera
is opened only for the one frame; the camera reader's service holds it while it runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from faro_pi.config import Config
from faro_pi.doctor.check import Check, verdicts

BUSY = "if the camera reader runs, stop it first: sudo systemctl stop faro-pi-camera"
GADGET_PORT = "/dev/ttyGS"
"""The USB gadget's serial ports: a board at the shoe writes the reader's frames there."""


def gadget_check(config: Config) -> Check:
    """At the shoe: the USB gadget's serial port is there, for the camera reader to send on."""
    passed, failed, _ = verdicts("gadget")
    port = config.reader.port
    if os.path.exists(port):
        return passed(f"{port} is there: the table's Pi hears this board on its USB cable")
    fix = "sudo make install sets dtoverlay=dwc2 and loads g_serial at boot: then reboot"
    return failed(f"{port} is not there: the USB gadget serial driver is not loaded", fix)


def at_the_shoe(config: Config) -> bool:
    """Whether this is a board of its own at the shoe: a camera, and the reader's frames
    sent over the USB gadget's serial port to the table's Pi, which runs the rest."""
    return config.camera.source != "none" and config.reader.port.startswith(GADGET_PORT)


def camera_checks(config: Config) -> Iterator[Check]:
    passed, failed, skipped = verdicts("camera")
    if config.camera.source == "none":
        yield skipped('camera.source is "none": no camera reader')
        return
    try:
        # the camera's extra (numpy, OpenCV): only a table with a camera has it
        from faro_pi.camera.source import CameraError, open_source
    except ImportError as exc:
        fix = "apt install python3-opencv python3-numpy (or pip install 'faro-pi[camera]')"
        yield failed(f"the camera reader's libraries are missing ({exc})", fix)
        return
    try:
        source = open_source(config.camera)
        try:
            frame = source.frame()
        finally:
            source.close()
    except CameraError as exc:
        yield failed(str(exc), BUSY)
        return
    height, width = frame.shape[:2]
    yield passed(f"{config.camera.source} camera gives {width}×{height} frames")
    yield light_check(frame)


def light_check(frame) -> Check:
    """The card in ``frame`` (BGR) is found, and its light is in range."""
    from faro_pi.camera.light import judge

    passed, failed, _ = verdicts("light")
    verdict = judge(frame)
    return passed(verdict.said) if verdict.good else failed(verdict.said, verdict.fix)
