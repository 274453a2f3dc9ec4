"""What a participant's name may be, and the text an entry may carry.

A name is shown on the OLED, the page, the log and ``faro-pi status``, and
journaled as UTF-8: it must be text that can be written (no lone surrogate,
which JSON's ``\\ud800`` escape can carry but UTF-8 cannot), that prints (no
control character), that shows all it holds (no format, bidi-control or
other invisible character) and that fits.

Two seats must not look alike: :func:`resembles` compares names by their
compatibility form (NFKC, case folded: a fullwidth Ａ is an A) and by
Unicode's confusable skeleton (UTS #39: a Cyrillic А, an Armenian ո), from
the table in :mod:`faro_pi.game.confusables`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

from faro_pi.game.confusables import prototypes
from faro_pi.game.exc import Refused

MAX_NAME = 24
"""Code points in a participant's name, so that it fits the OLED and a log line."""

_SURROGATE = re.compile("[\ud800-\udfff]")

REFUSED_CATEGORIES = {
    "Cc": "a control character",
    "Cf": "a format or bidi-control character, which is invisible or reorders the text",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}
"""What a name may not hold, by Unicode general category, and why in words."""

_INVISIBLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\ufe00-\ufe0f\uffa0"
    "\U000e0100-\U000e01ef]"
)
"""Invisible characters outside the refused categories: Unicode's default-ignorable code
points that are marks or letters (the combining grapheme joiner, the variation selectors, the
Hangul fillers), and the blank braille pattern."""


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
    if unicodedata.category(name[0]).startswith("M"):
        raise Refused(
            "name",
            f"{name!r}: a name starts with a letter, a digit or a sign, not a mark that "
            f"belongs on one ({_named(name[0])})",
        )
    for c in name:
        why = REFUSED_CATEGORIES.get(unicodedata.category(c))
        if why is None and _INVISIBLE.match(c):
            why = "an invisible character"
        if why is not None:
            raise Refused("name", f"{name!r}: a name may not hold {why} ({_named(c)})")
    return name


def _named(c: str) -> str:
    return f"U+{ord(c):04X} {unicodedata.name(c, '')}".rstrip()


def skeleton(name: str) -> str:
    """UTS #39's skeleton: what the name looks like, each character as its prototype."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", name)
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed))


@functools.lru_cache(maxsize=1024)
def looks(name: str) -> frozenset[str]:
    """The forms a name is told apart by: its skeleton, and that of its folded form.

    Kept for the names seen lately: a night seats the same few names at every pack."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return frozenset({skeleton(name), skeleton(folded), folded})


def resembles(name: str, others) -> str | None:
    """The first of ``others`` that ``name`` looks like (itself excepted), or None."""
    mine = looks(name)
    for other in others:
        if other != name and mine & looks(other):
            return other
    return None


@functools.cache
def _prototypes() -> dict[str, str]:
    return prototypes()  # unpacked at the first name compared, not at every import
