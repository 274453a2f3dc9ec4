"""A change sent twice under one ``Idempotency-Key`` is applied once, and answered twice alike.

Over real HTTP against the daemon in this process (``tests/test_console.py``'s
``console_table``), then :class:`~faro_pi.console.idempotency.Answers`'s bounds on a
clock of the test's own.
"""

from __future__ import annotations

from starlette.responses import Response

from faro_pi.console.idempotency import HEADER, REPLAYED, Answers
from tests.test_console import SEATS, console_config, console_table

BET = {"type": "bet", "player": "Ann", "rank": "J", "weight": 2}


async def seated(lookout) -> None:
    await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})


async def test_a_change_sent_again_with_its_key_is_applied_once_and_answered_the_same(tmp_path):
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        await seated(lookout)
        rows = lookout.daemon.journal.count()
        keyed = {**lookout.auth, HEADER: "8e03978e40d543e8bc936894a57f9324"}
        first = await lookout.http.post("/api/events", json=BET, headers=keyed)
        again = await lookout.http.post("/api/events", json=BET, headers=keyed)

        assert first.status_code == again.status_code == 200
        assert again.json() == first.json()  # the same version too: nothing happened since
        assert REPLAYED not in first.headers and again.headers[REPLAYED] == "true"
        assert [(p.player, p.rank, p.weight) for p in lookout.daemon.table.predictions] == [
            ("Ann", 11, 2)
        ]
        assert lookout.daemon.journal.count() == rows + 1

        # Quoted, as a structured field's string: the same key.
        quoted = {**lookout.auth, HEADER: '"8e03978e40d543e8bc936894a57f9324"'}
        assert (await lookout.http.post("/api/events", json=BET, headers=quoted)).json() == (
            first.json()
        )
        # A new key is a new entry; so is a post with none, as the command line sends.
        await lookout.http.post("/api/events", json=BET, headers={**lookout.auth, HEADER: "k2"})
        await lookout.enter(BET)
        assert len(lookout.daemon.table.predictions) == 3
        assert lookout.daemon.journal.count() == rows + 3


async def test_a_refusal_is_the_answer_a_repeat_gets_though_the_table_has_changed(tmp_path):
    """The key names one attempt: its repeat may not turn a refused bet into a bet."""
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        keyed = {**lookout.auth, HEADER: "before-the-seats"}
        refused = await lookout.http.post("/api/events", json=BET, headers=keyed)
        assert refused.status_code == 409
        await seated(lookout)
        again = await lookout.http.post("/api/events", json=BET, headers=keyed)
        assert (again.status_code, again.json()) == (409, refused.json())
        assert lookout.daemon.table.predictions == []


async def test_a_key_with_another_change_or_no_key_at_all_is_refused_and_applies_nothing(
    tmp_path,
):
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        await seated(lookout)
        keyed = {**lookout.auth, HEADER: "one-tap"}
        assert (await lookout.http.post("/api/events", json=BET, headers=keyed)).status_code == 200
        rows = lookout.daemon.journal.count()
        other = {**BET, "rank": "Q"}
        reused = await lookout.http.post("/api/events", json=other, headers=keyed)
        assert (reused.status_code, reused.json()["rule"]) == (422, "idempotency-key")
        for bad in ("", '""', "x" * 256, "two words", "naïve"):
            answer = await lookout.http.post(
                "/api/events",
                json=other,
                headers={**lookout.auth, HEADER: bad.encode()},
            )
            assert (answer.status_code, answer.json()["rule"]) == (400, "idempotency-key"), bad
        assert lookout.daemon.journal.count() == rows
        assert len(lookout.daemon.table.predictions) == 1


async def test_one_session_s_keys_are_not_another_s(tmp_path):
    """A phone's key is looked up among its own answers: the same key from the shell is new."""
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        await seated(lookout)
        cookie = lookout.console.login.sessions.log_in("test")
        phone = {HEADER: "same", "Cookie": f"faro-pi={cookie}"}
        shell = {**lookout.auth, HEADER: "same"}
        assert (await lookout.http.post("/api/events", json=BET, headers=phone)).status_code == 200
        assert (await lookout.http.post("/api/events", json=BET, headers=shell)).status_code == 200
        assert len(lookout.daemon.table.predictions) == 2


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def answered(text: str) -> Response:
    return Response(text.encode(), 200)


def test_the_answers_kept_are_bounded_per_session_in_time_and_in_sessions():
    clock = Clock()
    answers = Answers(kept=3, kept_for=60.0, sessions=2, clock=clock)
    for n in range(5):
        answers.keep("phone", f"k{n}", b"bet", answered(f"a{n}"))
    assert len(answers) == 3  # the oldest two forgotten
    assert answers.earlier("phone", "k1", b"bet") is None
    assert answers.earlier("phone", "k4", b"bet").response.body == b"a4"

    clock.now = 59.0
    answers.keep("phone", "late", b"bet", answered("late"))
    clock.now = 61.0  # k2..k4 were kept at 0: gone; "late" stays
    assert answers.earlier("phone", "k4", b"bet") is None
    assert answers.earlier("phone", "late", b"bet") is not None

    answers.keep("tablet", "t", b"bet", answered("t"))
    answers.keep("shell", "s", b"bet", answered("s"))  # a third session: the phone's go
    assert answers.earlier("phone", "late", b"bet") is None
    assert answers.earlier("tablet", "t", b"bet") is not None
    assert len(answers) == 2
