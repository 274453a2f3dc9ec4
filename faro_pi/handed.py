"""Files a person hands over (a config, a still or a face, a scenario, a file to replay):
looked at before they are read. A pipe, a device or a folder would hang the reader or
never end (``/dev/zero``); a file far bigger than its kind ever is would fill the memory."""

from __future__ import annotations

import os
import stat


def refusal(path: str | os.PathLike[str], most: int, kind: str) -> str | None:
    """Why ``path`` is not to be read as ``kind`` (``"a config"``): not a regular file, or
    over ``most`` bytes; None when it may be read. ``OSError`` if it cannot be looked at."""
    info = os.stat(path)
    if stat.S_ISCHR(info.st_mode) and os.path.samefile(path, os.devnull):
        return None  # nothing, at once: a scenario of no steps
    if not stat.S_ISREG(info.st_mode):
        return f"{os.fspath(path)}: not a regular file (a pipe, a device or a folder)"
    if info.st_size > most:
        return f"{os.fspath(path)}: {info.st_size} bytes; {kind} is at most {_size(most)}"
    return None


def _size(count: int) -> str:
    mb = 1024 * 1024
    return f"{count // mb} MB" if count >= mb else f"{count // 1024} KB"
