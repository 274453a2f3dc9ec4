"""Simulator scenarios: the table's events, plus what happens to the hardware.

A scenario is JSON lines. Every event of the table's vocabulary may appear
(cards travel from the virtual reader over the pseudo-terminal; the other
events go through the lookout's entry point, as the console sends them), and
so may these, which only the simulator knows:

* ``{"type":"press","button":"signal"}`` (also ``"undo"``, ``"new_pack"``;
  ``"hold": 2.0`` keeps the button down that many seconds);
* ``{"type":"noread"}``: a card goes past the reader unread; ``"card": "KD"`` names it,
  for the camera (``--camera``), whose still of it goes with the no-read;
* ``{"type":"reader_reset"}``: the reader restarts and says hello;
* ``{"type":"unplug","seconds":1.5}``: the reader's cable is pulled for a while;
* ``{"type":"garble","bytes":40}``: noise on the serial line;
* ``{"type":"wait","seconds":0.2}``: nothing happens for a while.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path

from faro_pi import jsonl
from faro_pi.exc import FaroError, Refused
from faro_pi.game.cards import CARD_BY_CODE, DECK
from faro_pi.game.codec import event_from_json, event_to_json
from faro_pi.game.demo import play
from faro_pi.game.events import CardDrawn, Lock, Shuffle
from faro_pi.game.profile import DEFAULT_PROFILE

BUTTONS = ("signal", "undo", "new_pack")
HARDWARE = ("press", "noread", "reader_reset", "unplug", "garble", "wait")


MOST = {"hold": 60.0, "seconds": 3600.0, "bytes": 1_000_000}
"""How long a button may be held, a wait or a pulled cable last, and how much noise a
garble makes: a scenario is a night at most, and the noise a burst."""


def _number(obj: dict, key: str, default: float, line: int) -> float:
    value = obj.get(key, default)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not 0 <= value <= MOST[key]:  # NaN is no number between them either
        what = "bytes" if key == "bytes" else "seconds"
        raise FaroError(
            f"scenario line {line}: {key!r} must be a number of {what} from 0 to {MOST[key]:g}"
        )
    return value


def check_step(obj: object, line: int) -> dict:
    """One scenario line, checked for shape; the rules judge it later, at the table."""
    if not isinstance(obj, dict):
        raise FaroError(f"scenario line {line}: not a JSON object")
    kind = obj.get("type")
    if kind == "press":
        if obj.get("button") not in BUTTONS:
            raise FaroError(f"scenario line {line}: a press names a button: {', '.join(BUTTONS)}")
        _number(obj, "hold", 0, line)
    elif kind in ("unplug", "wait"):
        _number(obj, "seconds", 1.0, line)
    elif kind == "garble":
        _number(obj, "bytes", 40, line)
    elif kind == "noread" and "card" in obj and obj["card"] not in CARD_BY_CODE:
        raise FaroError(f"scenario line {line}: a no-read's card is a card's code (KD, 10H)")
    elif kind not in HARDWARE:
        try:
            event_from_json(obj)
        except Refused as exc:
            text = str(exc)
            if exc.rule == "event":  # no event type: the simulator's own lines are known too
                text = f"{exc.message}; or a line for the hardware: {', '.join(HARDWARE)}"
            raise FaroError(f"scenario line {line}: {text}") from None
    return obj


def load(path: str | Path) -> list[dict]:
    steps = []
    with jsonl.open_lines(path) as lines:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            steps.append(check_step(jsonl.parse(text, f"{path}:{number}"), number))
    return steps


DEMO_SEATS = ("Ann", "Bob", "Cy", "Dee")


def demo(
    seed: int = 7, packs: int = 1, faults: bool = False, profile: str = DEFAULT_PROFILE
) -> list[dict]:
    """The built-in demo: four seats, ordinary and coppered bets, the banker's
    lock before each pair, calling the turn at the end, whole packs. The
    ``profile`` is the house rules they play (the house's: odd weights, bets
    between cards and on the high card, leftovers collected, one banker).

    With ``faults`` the shoe misbehaves along the way: a no-read (the card
    re-fed), noise, a pulled cable, a misread card voided with the undo
    button, a duplicate card, a reader restart.
    """
    steps: list[dict] = []
    dealt = 0
    rng = random.Random(seed)
    for event in play(rng, DEMO_SEATS, packs=packs, profile=profile):
        if isinstance(event, Lock):
            steps.append({"type": "press", "button": "signal"})
            continue
        if isinstance(event, Shuffle):
            steps.append({"type": "press", "button": "new_pack"})
            continue
        if isinstance(event, CardDrawn):
            dealt += 1
            if faults:
                steps.extend(_fault(dealt, event, steps))
        steps.append(event_to_json(event))
    return steps


def _fault(dealt: int, card: CardDrawn, before: Iterable[dict]) -> list[dict]:
    """The trouble the demo with faults puts in before its ``dealt``-th card."""
    if dealt == 6:
        return [{"type": "noread"}]  # the card went past unread; it is re-fed next
    if dealt == 12:
        return [{"type": "garble", "bytes": 60}]
    if dealt == 20:
        return [{"type": "unplug", "seconds": 1.0}]
    if dealt == 27:
        # A misread: the reader reports a wrong card, the lookout holds undo.
        wrong = next(code for code in _unseen(before) if code != card.card.code)
        return [
            {"type": "card", "card": wrong},
            {"type": "press", "button": "undo", "hold": 0.6},
        ]
    if dealt == 33:
        seen = [s["card"] for s in before if s.get("type") == "card"]
        return [{"type": "card", "card": seen[-1]}]  # a duplicate: refused, alarm
    if dealt == 34:
        return [{"type": "press", "button": "undo"}]  # a short press clears the alarm
    if dealt == 40:
        return [{"type": "reader_reset"}]
    return []


def unread_named(steps: list[dict]) -> list[dict]:
    """The steps with each no-read naming the card that went past unread, where it names
    none: the next card dealt, which is that card re-fed. For the camera, whose still of
    it goes with the no-read."""
    named = list(steps)
    for at, step in enumerate(steps):
        if step.get("type") == "noread" and "card" not in step:
            dealt = (s for s in steps[at + 1 :] if s.get("type") == "card" and "card" in s)
            if (card := next(dealt, None)) is not None:
                named[at] = {**step, "card": card["card"]}
    return named


def _unseen(before: Iterable[dict]) -> list[str]:
    seen = {s["card"] for s in before if s.get("type") == "card"}
    return [c.code for c in DECK if c.code not in seen]
