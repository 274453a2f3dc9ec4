"""JSON-lines files a person hands over (a simulator's scenario, a file to replay): looked
at before they are read, so that a pipe, a device or a huge file is one line of refusal,
never a hang or a traceback."""

from __future__ import annotations

import io
import json
import os
from typing import Any, TextIO

from faro_pi import handed
from faro_pi.exc import FaroError

MOST_BYTES = 64 * 1024 * 1024
"""The largest file read: a year of nights' journal exported is a few megabytes."""


def open_lines(path: str | os.PathLike[str]) -> TextIO:
    """The file's text, once it is known to be a regular file of a sane size: a FIFO or
    ``/dev/zero`` would never end. Bytes that are not UTF-8 are refused when read."""
    try:
        why = handed.refusal(path, MOST_BYTES, "a file of lines")
    except OSError as exc:
        raise FaroError(f"{os.fspath(path)}: {exc.strerror or exc}") from None
    if why is not None:
        raise FaroError(why)
    try:
        data = open(path, "rb").read(MOST_BYTES + 1)  # noqa: SIM115 (read whole, at once)
        return io.StringIO(data.decode("utf-8"))
    except OSError as exc:
        raise FaroError(f"{os.fspath(path)}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FaroError(f"{os.fspath(path)}:{line}: not UTF-8 text ({exc.reason})") from None


def parse(text: str, where: str) -> Any:
    """One line's JSON; a line that is not JSON, or nests too deep to be an event, is
    refused naming ``where`` (``FILE:LINE``)."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise FaroError(f"{where}: not JSON: {exc}") from None
    except RecursionError:
        raise FaroError(f"{where}: nested too deeply to be an event") from None
