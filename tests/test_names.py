"""Names and the text of an entry: what cannot be written, printed or told apart is refused.

JSON's ``\\ud800`` escape carries a lone surrogate, which UTF-8 cannot write:
the journal, the log and the console would fail on it after the rules had
applied it. A name must also look like itself alone: a Cyrillic А, a
fullwidth Ａ or an invisible character must not seat a second "Ann".
"""

from __future__ import annotations

import asyncio
import json

import pytest

from faro_pi.exc import Refused
from faro_pi.game.decode import event_from_json
from faro_pi.game.quick import decode_event
from tests.test_console import console_config, console_table

LONE = ["\ud800x", "Z\udc80", "\udfff", "A\ud83dB"]
"""Lone surrogates: high without low, low alone, and a high between two letters."""


def raw(obj: dict) -> bytes:
    """The entry as a client sends it: JSON with ``\\uXXXX`` escapes, as ASCII bytes."""
    return json.dumps(obj).encode("ascii")


def refusal(obj: dict) -> Refused:
    """The refusal of an entry, the long way and the quick way alike."""
    with pytest.raises(Refused) as long_way:
        event_from_json(json.loads(raw(obj)))
    with pytest.raises(Refused) as quick_way:
        decode_event(raw(obj))
    assert quick_way.value.rule == long_way.value.rule
    return long_way.value


@pytest.mark.parametrize("name", LONE)
def test_a_name_with_a_lone_surrogate_is_refused_as_text(name):
    for entry in (
        {"type": "session", "seats": [name, "Bob", "Cy"], "banker": "Cy"},
        {"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": name},
        {"type": "join", "player": name},
    ):
        refused = refusal(entry)
        assert refused.rule == "text"
        assert "not valid text" in refused.message
        refused.message.encode("utf-8")  # the message itself can be written


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "bet", "player": "\ud800", "rank": "K", "weight": 2},
        {"type": "remove", "player": "Z\udc80", "rank": "K"},
        {"type": "call", "player": "\ud800", "weight": 2, "order": ["A", "2", "3"]},
        {"type": "leave", "player": "\udc80"},
        {"type": "alarm", "kind": "noread", "text": "the shoe \ud800"},
        {"type": "card", "card": "KD", "source": "\udc80"},
        {"type": "integrity", "pack": 1, "flagged": ["\ud800"], "report": {}},
        {"type": "integrity", "pack": 1, "flagged": [], "report": {"\ud800": 1}},
        {"type": "integrity", "pack": 1, "flagged": [], "report": {"a": [{"b": "\udfff"}]}},
    ],
)
def test_every_string_an_entry_carries_to_the_journal_must_be_text(entry):
    assert refusal(entry).rule == "text"


def test_a_deep_entry_is_walked_without_exhausting_the_stack():
    report: dict = {}
    inner = report
    for _ in range(5000):
        inner["x"] = {}
        inner = inner["x"]
    inner["y"] = "\ud800"
    with pytest.raises(Refused) as refused:
        event_from_json({"type": "integrity", "pack": 1, "flagged": [], "report": report})
    assert refused.value.rule == "text"


def test_the_console_refuses_a_lone_surrogate_with_422_and_the_table_goes_on(tmp_path):
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            for body in (
                {"type": "session", "seats": ["\ud800x", "Bob", "Cy"], "banker": "Cy"},
                {"type": "session", "seats": ["Ann", "Bob", "Z\udc80"], "banker": "Z\udc80"},
            ):
                answer = await lookout.post(raw(body))
                assert answer.status_code == 422, answer.text
                assert answer.json()["rule"] == "text"
            assert lookout.daemon.journal.count() == 0
            await lookout.enter({"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": "Cy"})
            rows = lookout.daemon.journal.count()
            for body in (
                {"type": "join", "player": "Z\udc80"},
                {"type": "alarm", "kind": "noread", "text": "\ud800"},
                {"type": "card", "card": "KD", "source": "\udc80"},
            ):
                answer = await lookout.post(raw(body))
                assert answer.status_code == 422, answer.text
            assert lookout.daemon.journal.count() == rows
            state = await lookout.state()
            assert state["seats"] == ["Ann", "Bob", "Cy"]
            await lookout.enter({"type": "join", "player": "Dee"})
            assert (await lookout.state())["seats"] == ["Ann", "Bob", "Cy", "Dee"]

    asyncio.run(scenario())
