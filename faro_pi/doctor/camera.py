"""The doctor's look at the camera reader: its model reads, a frame can be had, and the
box is well lit.

Three findings. ``model``: the camera's model (and the taught deck, when one is set)
loads on the OpenCV installed and reads a card drawn here, so that a Pi whose OpenCV
cannot read the model's files says so in a line rather than the reader failing on every
card. ``camera``: the configured camera opens and gives a frame. ``light``: a card lies
in the box and is found, and its paper is neither dark nor washed out, with enough
contrast for its indices; a glare spot or a shadow shows as too bright or too dark a part
of the paper. Lay a card face up in the box before running it. The camera is opened only
for the one frame; the camera reader's service holds it while it runs.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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
        from faro_pi.camera.lesson import deck_in_use
        from faro_pi.camera.source import CameraError, open_source
    except ImportError as exc:
        fix = "apt install python3-opencv python3-numpy (or pip install 'faro-pi[camera]')"
        yield failed(f"the camera reader's libraries are missing ({exc})", fix)
        return
    yield model_check(deck=deck_in_use(config))
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


UPGRADE = (
    "sudo make install from an up-to-date faro-pi checkout: its model loads on OpenCV 4.6 "
    "(Raspberry Pi OS Bookworm's python3-opencv) and newer"
)


def model_check(model: Path | None = None, deck: Path | None = None) -> Check:
    """The camera's model (``model``, a ``model.json``; the shipped one by default) and
    the taught ``deck`` load on this OpenCV, and read a card drawn here."""
    import cv2

    from faro_pi.camera import model as contract
    from faro_pi.camera.recognise import DeckError, Recogniser, why

    passed, failed, _ = verdicts("model")
    try:
        Recogniser.load(deck, model or contract.SHIPPED).read(drawn_card())
    except contract.ModelError as exc:
        return failed(str(exc), UPGRADE)
    except DeckError as exc:
        return failed(str(exc), "faro-pi camera teach, or leave camera.deck unset meanwhile")
    except cv2.error as exc:
        said = f"OpenCV {cv2.__version__} cannot read a card with the camera's model ({why(exc)})"
        return failed(said, UPGRADE)
    taught = " and the taught deck" if deck else ""
    return passed(f"the model{taught} loads on OpenCV {cv2.__version__} and reads a drawn card")


def drawn_card():
    """A still of a card drawn here (two pips, and a 2 in each corner) lying in the box: the
    whole read runs on it, both nets among it, whatever it makes of so plain a card."""
    import cv2
    import numpy as np

    from faro_pi.camera import scene

    face = np.full((352, 252, 3), 235, np.uint8)  # 63×88 mm at 4 px a mm
    ink = (40, 40, 40)
    for centre in ((126, 96), (126, 256)):
        cv2.circle(face, centre, 26, ink, -1)
    cv2.putText(face, "2", (10, 44), cv2.FONT_HERSHEY_SIMPLEX, 1.3, ink, 4)
    face[-56:, -48:] = face[:56, :48][::-1, ::-1]  # the other corner's index, turned
    return scene.view(face, np.random.default_rng(0), nominal=True)
