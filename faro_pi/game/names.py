"""What a participant's name may be, and the text an entry may carry.

A name is shown on the OLED, the page, the log and ``faro-pi status``, and
journaled as UTF-8: it must be text that can be written (no lone surrogate,
which JSON's ``\\ud800`` escape can carry but UTF-8 cannot), that prints (no
control character) and that fits.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from faro_pi.game.exc import Refused

MAX_NAME = 24
"""Code points in a participant's name, so that it fits the OLED and a log line."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8: it holds no lone surrogate."""
    return _SURROGATE.search(value) is None


def require_text(value: Any, key: str = "event") -> None:
    """Refuses an entry holding a string, anywhere in it, that is not text UTF-8 can write.

    The journal, the log and the console write every string they are given as
    UTF-8; one that cannot be written must be refused here, before the table
    applies it. The walk is a loop, so a deep object cannot exhaust the stack.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not is_text(item):
                raise Refused(
                    "text", f"the {key} holds {item!r}: not valid text (a lone surrogate)"
                )
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def normal_name(name: str) -> str:
    """A name as seats compare it: trimmed, then in Unicode's composed form (NFC)."""
    return unicodedata.normalize("NFC", name.strip())


def seat_name(name: object, key: str = "player") -> str:
    """A name fit to seat: valid text, 1 to 24 code points once normalised, no control."""
    if not isinstance(name, str):
        raise Refused("name", f"{key!r} must be a participant's name, not {name!r}")
    if not is_text(name):
        raise Refused("name", f"{name!r}: a name must be valid text (it holds a lone surrogate)")
    name = normal_name(name)
    if not 1 <= len(name) <= MAX_NAME:
        raise Refused("name", f"a name has 1 to {MAX_NAME} characters, not {len(name)}")
    if any(unicodedata.category(c) == "Cc" for c in name):
        raise Refused("name", f"{name!r}: a name may not hold control characters")
    return name
