"""A change sent twice is applied once: the console's answers to ``Idempotency-Key``.

A phone on the table's Wi-Fi cannot tell a change the table never got from
one whose answer was lost on the way back: the table may have hung, the
connection dropped. So a write may carry a key of its own, made afresh for
each of the lookout's actions, and sent again unchanged with the same
change (``Idempotency-Key``, as the IETF's httpapi draft names it: a string,
quoted or bare). The console keeps the table's answer to each key for a while
and answers a repeat with it, marked ``Idempotent-Replayed: true``, applying
nothing. The key with another change is refused (422, rule ``idempotency-key``):
it is a mistake of the sender's, not a repeat.

The memory is bounded: :data:`KEPT` answers a session for :data:`KEPT_FOR`
seconds, for :data:`SESSIONS` sessions (a phone's cookie, or the token), the
longest unheard forgotten first; a restart forgets them all. A write without a
key is applied as it always was.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import NamedTuple

from starlette.responses import Response

from faro_pi.console.login import COOKIE

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
"""Set on an answer given again to a repeat (a name some payment APIs use)."""

LONGEST = 255
"""Characters of a key, at most (a random id of a page is 32)."""

KEPT = 128
"""Answers kept for one session: more than a lookout enters in the minutes a retry may take."""

KEPT_FOR = 600.0
"""Seconds an answer is kept: far past any retry of a phone that lost its answer."""

SESSIONS = 32
"""Sessions whose answers are kept: a table has a few phones and a shell or two."""

PARAMETER = {
    "name": HEADER,
    "in": "header",
    "schema": {"type": "string", "minLength": 1, "maxLength": LONGEST},
    "description": "A key of the sender's, made anew for each change and sent again with it "
    "unchanged: a repeat is answered as the first was (Idempotent-Replayed: true) and applies "
    "nothing; the key with another change is refused (422, rule 'idempotency-key').",
}
"""The header in the console's OpenAPI document."""


class Answer(NamedTuple):
    """The table's answer to a keyed write, as it was sent."""

    response: Response
    change: bytes
    """A digest of the change it answered, to tell a repeat from the key's reuse."""
    until: float


class BadKey(ValueError):
    """A key that is none: empty, too long, or not plain visible ASCII."""


class Reused(ValueError):
    """A key already answered for another change."""


def key_of(headers: Mapping[str, str]) -> str | None:
    """The request's key (a structured-field string's quotes taken off), or None."""
    given = headers.get(HEADER)
    if given is None:
        return None
    key = given.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not 0 < len(key) <= LONGEST or not all("!" <= c <= "~" for c in key):
        raise BadKey(
            f"an {HEADER} is 1 to {LONGEST} visible ASCII characters, made anew for each change"
        )
    return key


class Answers:
    """The answers given to keyed writes, by session then key, within bounds."""

    def __init__(
        self,
        *,
        kept: int = KEPT,
        kept_for: float = KEPT_FOR,
        sessions: int = SESSIONS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.kept, self.kept_for, self.sessions, self.clock = kept, kept_for, sessions, clock
        self._by_session: OrderedDict[bytes, OrderedDict[str, Answer]] = OrderedDict()

    def answer(
        self,
        request,
        change: bytes,
        enter: Callable[[bytes], Response],
        refuse: Callable[[int, dict], Response],
    ) -> Response:
        """The answer to a write whose body is ``change``: what ``enter`` answers the first
        time, the same again to a repeat of its key; ``refuse`` answers a key that is wrong.

        Nothing awaits between looking the key up and keeping the answer, so a repeat that
        came while the first was read finds the first's answer.
        """
        try:
            key = key_of(request.headers)
        except BadKey as exc:
            return refuse(400, {"rule": "idempotency-key", "error": str(exc)})
        if key is None:
            return enter(change)
        session = request.headers.get("authorization") or request.cookies.get(COOKIE, "")
        try:
            earlier = self.earlier(session, key, change)
        except Reused as exc:
            return refuse(422, {"rule": "idempotency-key", "error": str(exc)})
        if earlier is not None:
            first = earlier.response
            return Response(first.body, first.status_code, {**first.headers, REPLAYED: "true"})
        answer = enter(change)
        if answer.status_code != 503:  # the journal could not be written: nothing was applied
            self.keep(session, key, change, answer)
        return answer

    def earlier(self, session: str, key: str, change: bytes) -> Answer | None:
        """The answer already given to ``key`` in ``session``, or None; :class:`Reused` if it
        answered another change."""
        answers = self._by_session.get(_digest(session.encode()))
        if answers is None:
            return None
        self._forget_old(answers)
        answer = answers.get(key)
        if answer is not None and answer.change != _digest(change):
            raise Reused(
                f"this {HEADER} was sent with another change: each change needs a key of its own"
            )
        return answer

    def keep(self, session: str, key: str, change: bytes, response: Response) -> None:
        """Keeps the answer to ``key``, forgetting the oldest past the bounds."""
        name = _digest(session.encode())
        answers = self._by_session.pop(name, None) or OrderedDict()
        self._by_session[name] = answers  # the session heard last is forgotten last
        while len(self._by_session) > self.sessions:
            self._by_session.popitem(last=False)
        self._forget_old(answers)
        answers[key] = Answer(response, _digest(change), self.clock() + self.kept_for)
        while len(answers) > self.kept:
            answers.popitem(last=False)

    def __len__(self) -> int:
        return sum(len(answers) for answers in self._by_session.values())

    def _forget_old(self, answers: OrderedDict[str, Answer]) -> None:
        now = self.clock()
        while answers and next(iter(answers.values())).until <= now:
            answers.popitem(last=False)


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()
