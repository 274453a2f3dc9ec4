"""The console's JSON, which can always be written.

The table's state lives on until the next change: were one value in it past
what JSON can write (an integer of more than 4,300 digits, which Python
refuses to turn into text, or a float that is not finite), every answer and
every state pushed to the streams would fail until then, and a journal that
holds the event would bring it back at every start. So a value that cannot
be written is written ``null``, and the log says so once for each reason.
"""

from __future__ import annotations

import json
import logging
import math
from typing import Any

from starlette.responses import Response

log = logging.getLogger("faro_pi")

_REASONS = 16
"""Different reasons told in the log at most; past that, nulls are written silently."""


class Render:
    """JSON for the console's answers and its event stream, with a null for what can't be."""

    def __init__(self) -> None:
        self._told: set[str] = set()

    def __call__(self, body: Any) -> bytes:
        try:
            return _dumps(body)
        except (ValueError, TypeError, RecursionError) as exc:
            self._tell(exc)
            return _dumps(_writable(body))

    def response(self, status: int, body: Any, headers: dict[str, str] | None = None):
        """A JSON answer, never cached."""
        return Response(
            self(body),
            status,
            headers={"Cache-Control": "no-store", **(headers or {})},
            media_type="application/json",
        )

    def message(self, state: dict) -> bytes:
        """One state as a Server-Sent Event, its version as the event's id."""
        return b"event: state\nid: %d\ndata: %s\n\n" % (state["version"], self(state))

    def _tell(self, exc: Exception) -> None:
        reason = f"{type(exc).__name__}: {exc}"[:200]
        if reason in self._told or len(self._told) >= _REASONS:
            return
        self._told.add(reason)
        log.error("console: a value cannot be written as JSON and is shown as null (%s)", reason)


def _dumps(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def _writable(value: Any) -> Any:
    """``value`` with every part JSON cannot write made None."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        try:
            int.__repr__(value)
        except ValueError:  # past sys.get_int_max_str_digits()
            return None
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _writable(v) for k, v in value.items() if isinstance(k, str)}
    if isinstance(value, (list, tuple)):
        return [_writable(item) for item in value]
    return None
