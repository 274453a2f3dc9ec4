"""`faro-pi replay`: files of events in, one JSON summary a file out."""

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faro_pi.cli import main
from faro_pi.exc import Refused
from faro_pi.game.codec import decode_event, event_from_json

WORKED_EXAMPLE = """\
{"type":"session","seats":["Ann","Bob","Cy"],"banker":"Cy"}
{"type":"card","card":"5H"}
{"type":"bet","player":"Ann","rank":"9","weight":2,"copper":false}
{"type":"bet","player":"Bob","rank":"K","weight":2,"copper":true}
{"type":"lock"}
{"type":"card","card":"kd"}

{"type":"card","card":"9C"}
"""


def run(tmp_path, capsys, *texts):
    paths = []
    for i, text in enumerate(texts):
        path = tmp_path / f"game{i}.jsonl"
        path.write_text(text)
        paths.append(str(path))
    status = main(["replay", *paths])
    out, err = capsys.readouterr()
    return status, [json.loads(line) for line in out.splitlines()], err


def test_worked_example_replays_to_plus_two_plus_two_minus_four(tmp_path, capsys):
    status, [summary], err = run(tmp_path, capsys, WORKED_EXAMPLE)
    assert status == 0
    assert summary["balances"] == {"Ann": 2, "Bob": 2, "Cy": -4}
    assert summary["rejected"] == []
    assert summary["leaders"] == ["Ann", "Bob"]
    assert err == ""


def test_refused_lines_are_listed_by_line_number_with_messages_on_stderr(tmp_path, capsys):
    text = "\n".join(
        [
            '{"type":"session","seats":["Ann","Cy"],"banker":"Cy"}',
            "not json at all",
            '{"type":"card","card":"ZZ"}',
            '{"type":"card","card":"5H"}',
            '{"type":"card","card":"5h"}',
            '{"type":"teleport"}',
            "",
            '{"type":"bet","player":"Ann","rank":"9","weight":3}',
            '{"type":"bet","player":"Ann","rank":"9","weight":2.0}',
            '{"type":"bet","player":"Ann","rank":"9","weight":true}',
            '["a list"]',
            '{"type":"bet","player":"Ann","rank":"9","weight":2}',
        ]
    )
    status, [summary], err = run(tmp_path, capsys, text)
    assert status == 0
    assert summary["rejected"] == [2, 3, 5, 6, 8, 9, 10, 11]
    assert summary["balances"] == {"Ann": 0, "Cy": 0}
    lines = err.splitlines()
    assert len(lines) == 8
    assert "game0.jsonl:5: refused: 5H was already exposed" in lines[2]
    assert "unknown event type 'teleport'" in lines[3]
    assert "positive even" in lines[4]


def test_each_file_is_replayed_on_its_own_table(tmp_path, capsys):
    _, summaries, _ = run(tmp_path, capsys, WORKED_EXAMPLE, "", WORKED_EXAMPLE)
    assert [s["balances"] for s in summaries] == [
        {"Ann": 2, "Bob": 2, "Cy": -4},
        {},
        {"Ann": 2, "Bob": 2, "Cy": -4},
    ]
    assert summaries[1]["leaders"] == []


def test_a_card_after_the_52nd_is_refused(tmp_path, capsys):
    from faro_pi.game.cards import DECK

    lines = [json.dumps({"type": "card", "card": c.code}) for c in DECK]
    lines.append('{"type":"card","card":"KD"}')
    lines.append('{"type":"shuffle"}')
    lines.append('{"type":"card","card":"KD"}')
    _, [summary], err = run(tmp_path, capsys, "\n".join(lines))
    assert summary["rejected"] == [53]
    assert "shuffle for a new pack" in err
    assert summary["pack"] == 2


def test_an_unreadable_file_is_reported_and_the_others_still_replay(tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    good.write_text(WORKED_EXAMPLE)
    status = main(["replay", str(tmp_path / "missing.jsonl"), str(good)])
    out, err = capsys.readouterr()
    assert status == 1
    assert "cannot read" in err and "missing.jsonl" in err
    assert json.loads(out)["balances"]["Cy"] == -4


def test_the_installed_command_runs(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(WORKED_EXAMPLE)
    done = subprocess.run(
        [sys.executable, "-m", "faro_pi.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(done.stdout)["balances"] == {"Ann": 2, "Bob": 2, "Cy": -4}


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "bet", "player": "", "rank": "9", "weight": 2},
        {"type": "bet", "player": "Ann", "rank": "11", "weight": 2},
        {"type": "bet", "player": "Ann", "rank": "9", "weight": 2, "copper": "yes"},
        {"type": "call", "player": "Ann", "weight": 2, "order": ["7", "J"]},
        {"type": "call", "player": "Ann", "weight": 2},
        {"type": "call", "player": "Ann", "weight": 2, "order": ["7", "J", "3"], "colours": []},
        {"type": "call", "player": "Ann", "weight": 2, "colours": ["red", "green", "red"]},
        {"type": "session", "seats": "Ann,Bob", "banker": "Ann"},
        {"type": "card", "card": 10},
        {"type": "card", "card": "1H"},
        {"type": "alarm", "kind": "fire"},
        {"card": "KD"},
        {"type": ["bet"]},
    ],
)
def test_malformed_events_are_refused_with_a_message(obj):
    with pytest.raises(Refused) as caught:
        event_from_json(obj)
    assert str(caught.value)


def test_ten_is_accepted_as_t_and_extra_fields_are_ignored():
    event = event_from_json({"type": "card", "card": "th", "seq": 17, "at": "x"})
    assert event.card.code == "10H"


# The one decoder reads a line (the journal, replays) and an object already parsed (the
# console, the simulator) alike: the same events, the same refusals, the same messages, and
# never anything but a refusal for a line of JSON however odd.
_VALUES = st.sampled_from(
    [None, True, False, 0, 2, 3, -2, 2.0, "", " ", "Ann", " Ann ", "9", "t", "10", "Z",
     "KD", "kd", " 10H", "XX", "red", "RED", "black", "lost", "gap", "nope",
     ["Ann", "Bob"], ["Ann", ""], ["7", "J", "3"], ["7", "J"], ["red", "black", "red"],
     ["red", "black", "blue"], {}, [1, 2, 3], ["9", "10"], ["9", "9"], ["A", "2", "K", "Q"],
     ["9", "t"], "house", "teaching", "casino", {"cat_hop_pays": 1}, {"nope": True},
     "René", "Rene\u0301", "a" * 24, "a" * 25, "Ann\n", "\x1b"]
)  # fmt: skip
_KEYS = st.sampled_from(
    ["seats", "banker", "card", "source", "player", "rank", "weight", "copper", "order",
     "colours", "kind", "text", "extra", "ranks", "high_card", "call", "profile", "options"]
)  # fmt: skip
_TYPES = st.sampled_from(
    ["session", "card", "bet", "remove", "lock", "call", "shuffle", "void", "alarm", "clear",
     "join", "leave", "close", "bank", "nope", 3, None]
)  # fmt: skip


RULES = {
    "event", "player", "name", "seats", "weight", "limit", "profile", "options", "copper",
    "rank", "ranks", "place", "high-card", "call", "colour", "card-code", "source", "alarm",
}  # fmt: skip
"""Every rule a malformed event is refused by."""


def _outcome(decode, line):
    try:
        return ("event", decode(line))
    except Refused as exc:
        assert exc.rule in RULES and exc.message, exc
        return ("refused", exc.rule, exc.message)


@settings(max_examples=3000)
@given(_TYPES, st.dictionaries(_KEYS, _VALUES, max_size=5))
def test_a_line_decodes_exactly_as_its_object_with_a_refusal_by_a_known_rule(kind, fields):
    line = json.dumps({"type": kind, **fields})
    assert _outcome(decode_event, line) == _outcome(lambda x: event_from_json(json.loads(x)), line)
