"""Image files as the camera reader takes them: looked at before they are decoded.

A still, a frame of a recording, a card's face for teaching or for the simulator: each is
a file a person hands over, and a file can be anything. Before OpenCV decodes it, it must
be a regular file (a FIFO named ``KH.png`` would hang the reader), of a sane size, and its
header (read by Pillow, which decodes nothing to read it) must claim a sane number of
pixels: a PNG that says 60000×60000 would take gigabytes. A face bigger than the reader
ever needs is scaled down as it is read. Each refusal is one line naming the file.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, UnidentifiedImageError

from faro_pi import handed

MOST_BYTES = 64 * 1024 * 1024
"""The largest image file taken: a 1200 dpi scan of a card as a PNG is about 30 MB."""
MOST_PIXELS = 40_000_000
"""The most pixels an image may claim: a 1200 dpi scan of a card is 13 million, a camera
still 2 to 12 million."""
FACE_HEIGHT = 1200
"""A face taller than this is scaled down as it is read: the reader cuts faces at a few
hundred pixels, and a 4740×7380 scan would cost the simulator 2 GB."""


SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".pgm", ".tif", ".tiff", ".webp"})
"""The files of a folder that are images: stills, frames of a recording, faces."""


class ImageError(ValueError):
    """A file that is not an image the camera reader takes; the message names it and why."""


def check(path: str | os.PathLike[str]) -> tuple[int, int]:
    """The width and height an image file claims, once it is known to be one that may be
    decoded; :class:`ImageError` if it is not."""
    try:
        why = handed.refusal(path, MOST_BYTES, "an image of a card")
    except OSError as exc:
        raise ImageError(f"{path}: {exc.strerror.lower()}") from None
    if why is not None:
        raise ImageError(why)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                width, height = image.size
    except Image.DecompressionBombError as exc:  # Pillow's own bound, far past ours
        claimed = re.search(r"\d+ pixels", str(exc))
        raise _too_many(path, claimed.group(0) if claimed else "too many pixels") from None
    except (UnidentifiedImageError, OSError, SyntaxError):
        raise ImageError(f"{path}: not an image file") from None
    if width * height > MOST_PIXELS:
        raise _too_many(path, f"{width}×{height} pixels")
    return width, height


def in_folder(folder: str | os.PathLike[str]) -> list[Path]:
    """The image files (``SUFFIXES``) in ``folder``, in name order; :class:`ImageError`
    saying what ``folder`` is when it is not a folder of images."""
    folder = Path(folder)
    if not folder.exists():
        raise ImageError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise ImageError(f"{folder}: a file, not a folder of images")
    found = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    if not found:
        raise ImageError(f"{folder}: no images in the folder (PNG or JPEG files)")
    return found


def _too_many(path, claimed: str) -> ImageError:
    return ImageError(
        f"{path}: {claimed}, more than an image of a card needs (at most "
        f"{MOST_PIXELS // 1_000_000} million)"
    )


def read(path: str | os.PathLike[str], flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    """The image in ``path`` as OpenCV decodes it (``flags``), once :func:`check` passes."""
    check(path)
    image = cv2.imread(str(path), flags)
    if image is None:
        raise ImageError(f"{path}: not an image file OpenCV can read")
    return image


def read_face(path: str | os.PathLike[str]) -> np.ndarray:
    """A face image file as RGBA uint8 (opaque when the file has no alpha), no taller than
    ``FACE_HEIGHT``."""
    image = read(Path(path), cv2.IMREAD_UNCHANGED)
    if image.dtype != np.uint8:
        image = (image / 257).astype(np.uint8)
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 3:
        image = np.dstack([image, np.full(image.shape[:2], 255, np.uint8)])
    if image.shape[0] > FACE_HEIGHT:
        width = round(image.shape[1] * FACE_HEIGHT / image.shape[0])
        image = cv2.resize(image, (width, FACE_HEIGHT), interpolation=cv2.INTER_AREA)
    return image[..., [2, 1, 0, 3]]
