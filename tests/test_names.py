"""Names and the text of an entry: what cannot be written, printed or told apart is refused.

JSON's ``\\ud800`` escape carries a lone surrogate, which UTF-8 cannot write:
the journal, the log and the console would fail on it after the rules had
applied it. A name must also look like itself alone: a Cyrillic А, a
fullwidth Ａ or an invisible character must not seat a second "Ann".
"""

from __future__ import annotations

import json

import pytest

from faro_pi.exc import Refused
from faro_pi.game.codec import decode_event, event_from_json
from faro_pi.game.confusables import prototypes
from faro_pi.game.events import Join, Leave, Session
from faro_pi.game.names import resembles, skeleton
from faro_pi.game.rules import Table
from hardware import confusables_table
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


async def test_the_console_refuses_a_lone_surrogate_with_422_and_the_table_goes_on(tmp_path):
    console_config(tmp_path)

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
        await lookout.refused({"type": "join", "player": "\u0410nn"}, "look-alike", 409)
        await lookout.refused({"type": "join", "player": "A\u202enn"}, "name", 422)
        await lookout.enter({"type": "join", "player": "Dee"})
        assert (await lookout.state())["seats"] == ["Ann", "Bob", "Cy", "Dee"]


ANNS = {
    "\u0410nn": "look-alike",  # Cyrillic capital A
    "\uff21nn": "look-alike",  # fullwidth A
    "A\u0578n": "look-alike",  # Armenian vo, an n
    "ANN": "look-alike",  # the same name in capitals
    "An\u200bn": "name",  # zero-width space
    "An\u200dn": "name",  # zero-width joiner
    "\ufeffAnn": "name",  # byte-order mark
    "An\u034fn": "name",  # combining grapheme joiner
    "\u202eAnn": "name",  # right-to-left override
    "Ann\u2066": "name",  # a bidi isolate
}
"""Names that all print "Ann", with the rule that refuses each beside a seated Ann."""


@pytest.mark.parametrize("name", ANNS)
def test_a_name_that_looks_like_a_seated_one_is_refused_naming_the_seat(name):
    table = Table()
    table.apply(Session(("Ann", "Bob", "Cy"), "Cy"))
    with pytest.raises(Refused) as caught:
        table.apply(decode_event(json.dumps({"type": "join", "player": name})))
    assert caught.value.rule == ANNS[name]
    if ANNS[name] == "look-alike":
        assert "'Ann'" in caught.value.message
    else:
        assert "U+" in caught.value.message  # which character, by its code point and name
    assert table.seats == ("Ann", "Bob", "Cy")
    session = {"type": "session", "seats": ["Ann", name, "Cy"], "banker": "Cy"}
    with pytest.raises(Refused) as caught:  # in one session as well
        Table().apply(decode_event(json.dumps(session)))
    assert caught.value.rule == ANNS[name]


def test_names_that_read_differently_sit_together_and_one_who_left_comes_back():
    table = Table()
    table.apply(Session(("Ann", "Anne", "Bob", "Zoë", "Ян"), "Bob"))
    table.apply(Leave("Ann"))
    table.apply(Join("Ann"))  # the very name: the same participant again
    assert table.seats == ("Anne", "Bob", "Zoë", "Ян", "Ann")
    table.apply(Leave("Zoë"))
    with pytest.raises(Refused) as caught:  # nor a look-alike of one who left tonight
        table.apply(Join("Zo\u0435\u0308"))  # Cyrillic e with a diaeresis
    assert caught.value.rule == "look-alike" and "Zoë" in caught.value.message


def test_the_skeleton_is_unicodes():
    assert skeleton("\u0410nn") == skeleton("Ann")  # Cyrillic А → A
    assert skeleton("rn") == skeleton("m")  # a sequence for a letter
    assert skeleton("I") == skeleton("l") == skeleton("1")
    assert skeleton("Ann") != skeleton("Anne")
    assert resembles("\uff21NN", ["Bob", "Ann"]) == "Ann"
    assert resembles("Ann", ["Ann"]) is None  # a name does not resemble itself


def test_the_table_is_made_by_its_script_from_unicodes_file(tmp_path):
    source = tmp_path / "confusables.txt"
    source.write_text(
        "\ufeff# confusables.txt\n# Date: 2020-02-13, 01:38:49 GMT\n# Version: 13.0.0\n"
        "0410 ;\t0041 ;\tMA\t# ( \u0410 → A ) CYRILLIC CAPITAL LETTER A\n"
        "006D ;\t0072 006E ;\tMA\t# ( m → rn ) LATIN SMALL LETTER M\n"
        "1D400 ;\t0041 ;\tMA\t# ( 𝐀 → A ) MATHEMATICAL BOLD CAPITAL A\n",
        encoding="utf-8",
    )
    out = tmp_path / "table.py"
    assert confusables_table.main([str(source), "--out", str(out)]) == 0
    made: dict = {}
    exec(compile(out.read_text(encoding="utf-8"), str(out), "exec"), made)
    assert made["prototypes"]() == {"\u0410": "A", "m": "rn", "\U0001d400": "A"}
    assert made["VERSION"] == "version 13.0.0 of 2020-02-13, 01:38:49 GMT"
    shipped = prototypes()
    assert len(shipped) > 6000 and shipped["\u0578"] == "n" and shipped["\uff21"] == "A"


def test_the_rules_check_names_made_in_code_too():
    """An event built in code, not read from JSON, meets the same rules."""
    for session in (Session(("\ud800x", "Bob"), "Bob"), Session(("Ann", "B\u200bob"), "Ann")):
        with pytest.raises(Refused) as caught:
            Table().apply(session)
        assert caught.value.rule == "name"
    table = Table()
    table.apply(Session(("Ann", "Bob"), "Bob"))
    with pytest.raises(Refused) as caught:
        table.apply(Join("Z\udc80"))
    assert caught.value.rule == "name" and table.seats == ("Ann", "Bob")


@pytest.mark.parametrize("name", ["\u0301", "\u0301Ann", "\u20dd", "\u0903x"])
def test_a_name_that_starts_with_a_mark_is_refused(name):
    """A combining acute accent alone was seated: a seat no one can read or say. A name
    starts with something a mark can sit on; a mark after it is part of the name."""
    table = Table()
    table.apply(Session(("Ann", "Bob"), "Bob"))
    with pytest.raises(Refused, match="not a mark that belongs on one") as refused:
        table.apply(Join(name))
    assert refused.value.rule == "name"
    table.apply(Join("Zoe\u0301"))  # Zoé, decomposed: a mark on a letter is fine
