"""Where the frames come from: a Camera Module, a USB camera, or stills already in hand.

Every source is a :class:`FrameSource`: ``frame()`` waits for the camera's next frame and
returns it as a BGR uint8 array (what OpenCV and the recogniser take), ``close()`` lets
the camera go. A source never decides anything; the watcher (:mod:`.watch`) does.

- :class:`Picamera2Source`: a Camera Module on the CSI connector, through Raspberry Pi
  OS's ``python3-picamera2`` (libcamera). Focus, exposure and white balance are locked
  once the first frames have settled them, so that neither a hand passing nor the light's
  drift changes them under the reader.
- :class:`UvcSource`: any UVC USB camera, through OpenCV's V4L2 back end. It keeps one
  frame of buffer, so a frame is never older than the one before it.
- :class:`StillSource`: frames from arrays or image files, in order: tests and benches.
- :func:`open_recording`: a recording of the box (a video file OpenCV reads, or a folder
  of frames in name order), for ``faro-pi camera watch`` and a dispute looked back at.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from faro_pi.camera import images
from faro_pi.exc import FaroError


class CameraError(FaroError):
    """The camera cannot be opened or has stopped giving frames."""


class NoMoreFrames(CameraError):
    """A recording's, or a list of stills', end."""


class FrameSource(Protocol):
    """A camera as the watcher sees it.

    Must override: ``frame()`` (the next frame, BGR uint8, waiting for it as the camera
    gives it; raises :class:`CameraError` when there is none to be had) and ``close()``.
    """

    def frame(self) -> np.ndarray: ...

    def close(self) -> None: ...


class StillSource:
    """Frames from arrays or image files, one a call; :class:`CameraError` after the last."""

    def __init__(self, frames: Iterable[np.ndarray | str | Path]):
        self._frames: Iterator = iter(frames)

    def frame(self) -> np.ndarray:
        try:
            item = next(self._frames)
        except StopIteration:
            raise NoMoreFrames("no more frames") from None
        if isinstance(item, np.ndarray):
            return item
        try:
            return images.read(item)
        except images.ImageError as exc:
            raise CameraError(str(exc)) from None

    def close(self) -> None:
        self._frames = iter(())


class VideoSource:
    """The frames of a video file, in order; :class:`CameraError` after the last."""

    def __init__(self, path: Path):
        self.path = path
        self._capture = cv2.VideoCapture(str(path))
        if not self._capture.isOpened():
            raise CameraError(f"{path}: not a video OpenCV can read")
        self.rate = float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0)
        """Frames a second, as the file says (0 when it says nothing)."""

    def frame(self) -> np.ndarray:
        ok, frame = self._capture.read()
        if not ok:
            raise NoMoreFrames(f"{self.path}: no more frames")
        return frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)

    def close(self) -> None:
        self._capture.release()


def open_recording(path: Path, rate: float | None = None) -> tuple[FrameSource, float]:
    """A recording of the box and its frames a second: a video file at its own rate, or a
    folder of frames (``images.SUFFIXES``) in name order at 15 a second; ``rate`` says otherwise."""
    if path.is_dir():
        try:
            return StillSource(images.in_folder(path)), rate or 15.0
        except images.ImageError as exc:
            raise CameraError(f"{exc}: a recording is frames in name order") from None
    if not path.exists():
        raise CameraError(f"{path}: no such file or folder")
    if not path.is_file():
        raise CameraError(f"{path}: not a video file nor a folder of frames")
    video = VideoSource(path)
    return video, rate or video.rate or 15.0


class UvcSource:
    """A USB (UVC) camera, ``/dev/videoN``, through OpenCV's V4L2 back end."""

    def __init__(self, device: int, size: tuple[int, int], rate: float):
        self.device = device
        self._capture = cv2.VideoCapture(device, cv2.CAP_V4L2)
        if not self._capture.isOpened():
            raise CameraError(
                f"/dev/video{device} does not open: plug the USB camera in, check "
                "camera.device, and that the user is in group video"
            )
        width, height = size
        self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self._capture.set(cv2.CAP_PROP_FPS, rate)
        self._capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # the newest frame, never a queue

    def frame(self) -> np.ndarray:
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"/dev/video{self.device} gave no frame: check its cable")
        return image

    def close(self) -> None:
        self._capture.release()


class Picamera2Source:
    """A Camera Module (v3, or any libcamera supports) on the CSI connector."""

    SETTLE_FRAMES = 15
    """Frames the automatic exposure and white balance get before they are locked."""

    def __init__(self, size: tuple[int, int], rate: float):
        try:
            from picamera2 import Picamera2  # Raspberry Pi OS's python3-picamera2
        except ImportError as exc:
            raise CameraError(
                f"picamera2 is missing ({exc}): apt install python3-picamera2 "
                "(the virtualenv sees it through --system-site-packages)"
            ) from exc
        try:
            self._camera = Picamera2()
        except (IndexError, RuntimeError) as exc:
            raise CameraError(
                f"no Camera Module answers ({exc}): check its ribbon cable and "
                "`rpicam-hello --list-cameras`"
            ) from exc
        # "RGB888" is libcamera's name for what numpy sees as B, G, R: OpenCV's order.
        settings = self._camera.create_video_configuration(
            main={"size": size, "format": "RGB888"},
            controls={"FrameRate": rate},
            buffer_count=2,
        )
        self._camera.configure(settings)
        self._camera.start()
        focusing = "AfMode" in self._camera.camera_controls  # the Camera Module 3's lens
        if focusing:
            self._camera.autofocus_cycle()
        for _ in range(self.SETTLE_FRAMES):
            self._camera.capture_array("main")
        metadata = self._camera.capture_metadata()
        held = {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": metadata["ExposureTime"],
            "AnalogueGain": metadata["AnalogueGain"],
            "ColourGains": metadata["ColourGains"],
        }
        if focusing:  # focused once on the box, then held: a hand must not refocus it
            held |= {"AfMode": 0, "LensPosition": metadata["LensPosition"]}  # 0: manual
        self._camera.set_controls(held)

    def frame(self) -> np.ndarray:
        try:
            return self._camera.capture_array("main")
        except RuntimeError as exc:
            raise CameraError(f"the Camera Module stopped: {exc}") from exc

    def close(self) -> None:
        self._camera.stop()
        self._camera.close()


def open_source(camera) -> FrameSource:
    """The source ``camera`` (the config's ``[camera]`` section) names, opened."""
    size = (camera.width, camera.height)
    if camera.source == "csi":
        return Picamera2Source(size, camera.rate)
    if camera.source == "usb":
        return UvcSource(camera.device, size, camera.rate)
    raise CameraError('camera.source is "none": set it to "csi" or "usb"')
