"""The lookout's console over real HTTP: the daemon in this process, clients on its loop.

Each test runs the real daemon (virtual reader on a pty, mock pins) with the
console on a free port of the loopback, and talks to it as a phone would:
httpx on the same loop, or, for the schema-driven fuzz and the command line,
from a thread or a child process.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import socket
import stat
import sys
import time
import typing
from pathlib import Path

import httpx
import jsonschema
import msgspec
import zxingcpp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import ImageChops
from starlette.routing import Route

from faro_pi.console import login, sessions
from faro_pi.console.openapi import openapi
from faro_pi.console.server import Console
from faro_pi.console.stream import HEARTBEAT, beat
from faro_pi.console.token import TOKEN_FILE
from faro_pi.devices.oled import screens
from faro_pi.exc import Refused
from faro_pi.game import calls, events, rules, seats
from faro_pi.game.cards import DECK
from faro_pi.game.codec import EVENTS, event_from_json, event_to_json
from faro_pi.game.pack import stage
from faro_pi.service import view
from faro_pi.service.export import export_lines
from faro_pi.service.journal import Journal
from tests.conftest import running_table, until, write_config
from tests.ports import free_port

SEATS = ["Ann", "Bob", "Cy"]


def console_config(folder: Path, token: str | None = None, port: int | None = None) -> int:
    """The test table's config with the console on; returns its port."""
    port = port or free_port()
    path = write_config(folder)
    section = f"[console]\nenabled = true\nport = {port}\n"
    if token is not None:
        section += f'token = "{token}"\n'
    path.write_text(path.read_text().replace("[console]\nenabled = false\n", section))
    return port


def console_of(daemon) -> Console | None:
    for watcher in daemon.watchers:
        if isinstance(getattr(watcher, "__self__", None), Console):
            return watcher.__self__
    return None


class Lookout:
    """A phone at the table: an HTTP client holding the token."""

    def __init__(self, daemon, reader, console: Console, http: httpx.AsyncClient):
        self.daemon, self.reader, self.console, self.http = daemon, reader, console, http
        self.auth = {"Authorization": f"Bearer {console.token}"}
        self.rules: set[str] = set()
        """The rules this lookout has seen refuse an event."""

    async def state(self) -> dict:
        answer = await self.http.get("/api/state")
        assert answer.status_code == 200
        return answer.json()

    async def post(self, body, *, auth: bool = True) -> httpx.Response:
        headers = self.auth if auth else {}
        if isinstance(body, bytes):
            headers = {**headers, "Content-Type": "application/json"}
            return await self.http.post("/api/events", content=body, headers=headers)
        return await self.http.post("/api/events", json=body, headers=headers)

    async def enter(self, *events: dict) -> dict:
        """Posts events that must be applied; returns the last answer."""
        for event in events:
            answer = await self.post(event)
            assert answer.status_code == 200, (event, answer.text)
        return answer.json()

    async def deal(self, *codes: str) -> None:
        await self.enter(*({"type": "card", "card": code} for code in codes))

    async def refused(self, event, rule: str, status: int = 409) -> None:
        """The event is refused for ``rule`` and nothing changes: not the state, not the journal."""
        before, rows = await self.state(), self.daemon.journal.count()
        answer = await self.post(event)
        assert answer.status_code == status, (event, answer.text)
        body = answer.json()
        assert body["rule"] == rule, (event, body)
        self.rules.add(rule)
        assert body["error"]
        assert await self.state() == before
        assert self.daemon.journal.count() == rows


@contextlib.asynccontextmanager
async def console_table(folder: Path):
    async with running_table(folder) as (daemon, reader, factory):
        console = console_of(daemon)
        assert console is not None
        base = f"http://127.0.0.1:{console.port}"
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:  # a hang bound
            lookout = Lookout(daemon, reader, console, http)
            lookout.factory = factory  # the mock pins: the shoe's buttons
            yield lookout


def codes(*cards) -> list[str]:
    return [card.code for card in cards]


def pack_ending_with(*last: str) -> list[str]:
    """A whole pack in case-keeper order, but for ``last`` moved to the end."""
    return [c.code for c in DECK if c.code not in last] + list(last)


def resolved(schema: dict, components: dict) -> dict:
    """``schema`` with every ``$ref`` into the components written out (and no discriminator)."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return resolved(components[schema["$ref"].rsplit("/", 1)[1]], components)
        return {k: resolved(v, components) for k, v in schema.items() if k != "discriminator"}
    if isinstance(schema, list):
        return [resolved(item, components) for item in schema]
    return schema


def from_schema(schema: dict) -> st.SearchStrategy:
    """Values that satisfy ``schema``: the part of JSON Schema the console's events use."""
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "oneOf" in schema and "properties" not in schema:
        return st.one_of([from_schema(s) for s in schema["oneOf"]])
    if "anyOf" in schema:
        return st.one_of([from_schema(s) for s in schema["anyOf"]])
    kind = schema["type"]
    if kind == "null":
        return st.none()
    if kind == "object":
        properties = schema["properties"]
        either = [alt["required"][0] for alt in schema.get("oneOf", ())]
        fixed = {k: from_schema(properties[k]) for k in schema.get("required", ())}
        optional = {
            k: from_schema(v) for k, v in properties.items() if k not in fixed and k not in either
        }
        objects = st.fixed_dictionaries(fixed, optional=optional)
        if not either:
            return objects
        return st.builds(
            lambda obj, key, value: {**obj, key: value},
            objects,
            *(lambda key: (st.just(key), from_schema(properties[key])))(either[0]),
        ) | st.builds(
            lambda obj, key, value: {**obj, key: value},
            objects,
            *(lambda key: (st.just(key), from_schema(properties[key])))(either[-1]),
        )
    if kind == "array" and "prefixItems" in schema:
        return st.tuples(*map(from_schema, schema["prefixItems"])).map(list)
    if kind == "array":
        return st.lists(
            from_schema(schema["items"]),
            min_size=schema.get("minItems", 0),
            max_size=schema.get("maxItems", 5),
        )
    if kind == "string":
        if "pattern" in schema:
            return st.from_regex(schema["pattern"], fullmatch=True)
        return st.text(min_size=schema.get("minLength", 0), max_size=8)
    if kind == "integer":
        step = schema.get("multipleOf", 1)
        return st.integers(schema.get("minimum", -100) // step, 50).map(lambda n: n * step)
    if kind == "boolean":
        return st.booleans()
    raise ValueError(f"no strategy for {schema}")


def seated_names(schema, seated: dict):
    """``schema`` with every name (a string of at least one character) one of ``seated``."""
    if isinstance(schema, list):
        return [seated_names(item, seated) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("type") == "string" and schema.get("minLength") == 1:
        return seated
    return {key: seated_names(value, seated) for key, value in schema.items()}


def validator(document: dict, name: str) -> jsonschema.Validator:
    components = document["components"]["schemas"]
    return jsonschema.Draft202012Validator(resolved(components[name], components))


async def test_the_console_serves_the_page_the_schema_and_the_state(tmp_path):
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        page = await lookout.http.get("/")
        assert page.status_code == 200 and "console" in page.text
        document = (await lookout.http.get("/openapi.json")).json()
        assert document == openapi()
        state = await lookout.state()
        validator(document, "State").validate(state)
        assert state["pack"] == {
            "number": 1,
            "exposed": [],
            "left": 52,
            "turn": 0,
            "soda": None,
            "hock": None,
            "complete": False,
            "stage": "shuffled",
        }
        assert [c["rank"] for c in state["case"]][:3] == ["A", "2", "3"]
        assert state["entries"] == "open" and state["seats"] == []
        assert state["can_lock"] is True
        missing = await lookout.http.get("/api/nothing")
        assert missing.status_code == 404 and "openapi" in missing.json()["error"]


def test_the_state_says_the_packs_stage_and_whether_the_lock_is_taken_at_every_card():
    """The page reads the stage and the lock from the state rather than counting cards:
    each is the engine's own answer, card by card through a pack and after a lock."""
    table = rules.Table()
    valid = validator(openapi(), "State")
    for n, card in enumerate([*DECK, None]):
        state = view.state(table, n)
        valid.validate(state)
        assert state["pack"]["stage"] == stage(n).value
        trial = rules.Table(table.state.copy())
        try:
            trial.apply(events.LOCK)
        except Refused:
            taken = False
        else:
            taken = True
            assert view.state(trial, n)["can_lock"] is False  # locked: not again
        assert state["can_lock"] is taken, f"{n} cards out"
        if card is not None:
            table.apply(events.CardDrawn(card, "reader"))
    assert state["pack"]["stage"] == "hock"


def test_every_example_in_the_schema_is_an_event_of_the_vocabulary():
    document = openapi()
    schemas = document["components"]["schemas"]
    mapping = schemas["Event"]["discriminator"]["mapping"]
    assert set(mapping) == {
        "session",
        "bet",
        "remove",
        "call",
        "lock",
        "card",
        "void",
        "clear",
        "shuffle",
        "join",
        "leave",
        "close",
        "bank",
    }
    posted = document["paths"]["/api/events"]["post"]["requestBody"]["content"]
    examples = [e["value"] for e in posted["application/json"]["examples"].values()]
    events = validator(document, "Event")
    for kind, ref in mapping.items():
        for example in schemas[ref.rsplit("/", 1)[1]]["examples"]:
            assert example["type"] == kind and example in examples
            events.validate(example)
            event_from_json(example)


def test_every_event_type_is_declared_once_and_its_examples_round_trip():
    """The schema's one source, the Structs of :mod:`faro_pi.game.events`, against the codec."""
    assert typing.get_args(events.Event) == EVENTS
    tags = [cls.__struct_config__.tag for cls in EVENTS]
    assert len(set(tags)) == len(tags)
    for cls, tag in zip(EVENTS, tags, strict=True):
        try:
            event_from_json({"type": tag})
        except Refused as exc:
            assert exc.rule != "event", (tag, exc.message)  # known, if incomplete
        assert set(cls.either) <= set(cls.__struct_fields__)
        assert cls.examples
        for example in cls.examples:
            event = event_from_json(example)
            assert type(event) is cls, example
            assert event_to_json(event) == example
            assert event_from_json(event_to_json(event)) == event


def loose(hint, where: str) -> list[str]:
    """The places in ``hint`` that take whatever JSON comes: Any, an untyped object or list."""
    if typing.get_origin(hint) is typing.Annotated:
        return loose(typing.get_args(hint)[0], where)
    if hint in (typing.Any, object, dict, list) or typing.get_origin(hint) in (dict, list):
        return [where]
    if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        fields = msgspec.structs.fields(hint)
        return [found for f in fields for found in loose(f.type, f"{where}.{f.name}")]
    return [found for arg in typing.get_args(hint) for found in loose(arg, where)]


def test_every_field_of_every_event_is_typed_to_its_last_value():
    """A row holds nothing the codec does not read and check, down to each measure of a
    deal-integrity report: no value the journal, a resume point or the floor cannot keep."""
    assert [found for cls in EVENTS for found in loose(cls, cls.__name__)] == []
    assert loose(dict[str, typing.Any], "report") == ["report"]


def test_events_posted_are_journaled_then_applied_and_answered_with_the_state(tmp_path):
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            document = (await lookout.http.get("/openapi.json")).json()
            answered = validator(document, "State")
            seated = await lookout.enter({"type": "session", "seats": SEATS})
            assert seated["event"]["banker"] in SEATS  # drawn, since none was named
            assert seated["version"] == 1  # what changed and the version, not the table
            assert set(seated) == {"event", "version", "journal"}
            assert (await lookout.state())["seats"] == SEATS
            banker = seated["event"]["banker"]
            player = next(name for name in SEATS if name != banker)
            bet = await lookout.enter(
                {"type": "bet", "player": player, "rank": "k", "weight": 4, "junk": 1}
            )
            assert bet["event"] == {
                "type": "bet",
                "player": player,
                "rank": "K",
                "weight": 4,
                "copper": False,
            }
            assert bet["version"] == 2
            assert (await lookout.state())["predictions"] == [
                {"player": player, "rank": "K", "weight": 4, "copper": False}
            ]
            await lookout.deal("5H", "2C")
            lost = await lookout.enter({"type": "card", "card": "kd"})
            state = await lookout.state()
            assert state["version"] == lost["version"]
            answered.validate(state)
            assert state["pack"]["exposed"] == ["5H", "2C", "KD"]
            assert state["last_pair"]["settlements"][0]["delta"] == 4
            assert state["last_pair"]["banker"] == -4
            assert state["balances"][player] == 4 and state["leaders"] == [player]
            assert state["version"] == 5
            await lookout.enter({"type": "lock"})
            assert (await lookout.state())["entries"] == "locked"
            await lookout.deal("9C")
            state = await lookout.state()
            assert state["pair"] == {"turn": 2, "loser": "9C"}
            assert state["entries"] == "locked"  # until this pair's winner
            await lookout.deal("QS")
            assert (await lookout.state())["entries"] == "open"
            await lookout.deal("3D")
            assert (await lookout.state())["entries"] == "closed"

    asyncio.run(scenario())
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        rows = [entry.event for entry in journal.rows()]
    assert [row["source"] for row in rows if row["type"] == "card"] == ["hand"] * 6
    assert rows[1].get("junk") is None


RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def full_layout(daemon) -> int:
    """Ten seated and every player's most standing bets (900) but P9's last, entered on the
    loop; returns how many."""
    players = [f"P{i}" for i in range(10)]
    daemon.enter(event_from_json({"type": "session", "seats": players, "banker": "P0"}))
    for player in players[1:]:
        for n in range(99 if player == "P9" else 100):
            bet = {"type": "bet", "player": player, "rank": RANK_NAMES[n % 13], "weight": 2}
            daemon.enter(event_from_json(bet))
    return len(daemon.table.predictions)


def test_a_post_answers_what_it_changed_and_the_version_not_the_whole_layout(tmp_path):
    console_config(tmp_path)

    async def scenario():
        async with (
            console_table(tmp_path) as lookout,
            lookout.http.stream("GET", "/api/events") as stream,
        ):
            lines = stream.aiter_lines()
            await next_state(lines)
            assert full_layout(lookout.daemon) == 899
            whole = await lookout.http.get("/api/state")
            answer = await lookout.post({"type": "bet", "player": "P9", "rank": "K", "weight": 4})
            assert answer.status_code == 200, answer.text
            assert len(answer.content) < 200 < 40_000 < len(whole.content)
            body = answer.json()
            assert body == {
                "event": {"type": "bet", "player": "P9", "rank": "K", "weight": 4, "copper": False},
                "version": whole.json()["version"] + 1,
                "journal": whole.json()["journal"],
            }
            while (state := await next_state(lines))["version"] < body["version"]:
                pass  # the stream brings the state that the post no longer does
            assert state["version"] == body["version"]
            assert len(state["predictions"]) == 900

    asyncio.run(scenario())


async def test_every_refusal_of_the_rules_answers_409_with_its_rule_and_changes_nothing(tmp_path):
    console_config(tmp_path)
    first = pack_ending_with("JC", "QC", "KC")
    first = ["5H", "KD", "9C", "5S", "5D", "5C", "2H"] + [
        c for c in first if c not in ("5H", "KD", "9C", "5S", "5D", "5C", "2H")
    ]
    second = pack_ending_with("7S", "7H", "7D")

    async def scenario():
        async with console_table(tmp_path) as t:
            bet = {"type": "bet", "player": "Ann", "rank": "9", "weight": 2}
            call = {"type": "call", "player": "Ann", "order": ["J", "Q", "K"], "weight": 2}
            await t.refused(bet, "no-session")
            await t.refused({"type": "remove", "player": "Ann", "rank": "9"}, "no-session")
            await t.refused(call, "no-session")
            await t.refused({"type": "shuffle"}, "pack-not-complete")
            await t.refused({"type": "void"}, "nothing-to-void")
            await t.refused({"type": "clear"}, "no-alarm")
            await t.refused({"type": "clear", "kind": "noread"}, "no-alarm")
            await t.refused({"type": "alarm", "kind": "noread", "text": "x"}, "alarm")
            await t.refused({"type": "session", "seats": ["Ann"]}, "seats")
            await t.refused({"type": "session", "seats": []}, "seats")
            await t.refused({"type": "session", "seats": [str(i) for i in range(11)]}, "seats")
            await t.refused({"type": "session", "seats": ["Ann", "Ann"]}, "seats")
            await t.refused({"type": "session", "seats": SEATS, "banker": "Zed"}, "banker")

            await t.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
            await t.refused({"type": "session", "seats": SEATS, "banker": "Cy"}, "one-session")
            await t.refused({"type": "join", "player": "\u0410nn"}, "look-alike")  # Cyrillic
            anywhere = {"type": "bet", "player": "Ann", "weight": 2}
            await t.refused({**anywhere, "ranks": ["9", "10"]}, "combinations")
            await t.refused({**anywhere, "high_card": True}, "high-card")
            await t.refused({**bet, "player": "Zed"}, "not-seated")
            await t.refused({**bet, "player": "Cy"}, "banker")
            for weight in (3, 0, -2):
                await t.refused({**bet, "weight": weight}, "weight")
            await t.refused({**bet, "weight": 10_002}, "limit")  # the configured table limit
            await t.refused({"type": "remove", "player": "Ann", "rank": "9"}, "nothing-to-remove")
            await t.refused(call, "not-last-three")
            await t.enter(bet, {"type": "lock"})
            await t.refused({"type": "lock"}, "entries-closed")
            await t.refused(bet, "entries-closed")
            await t.refused({"type": "remove", "player": "Ann", "rank": "9"}, "entries-closed")
            await t.deal(*first[:2])  # the soda and a loser
            await t.refused({"type": "close"}, "mid-pack")
            await t.refused({"type": "leave", "player": "Cy"}, "banker")
            await t.refused({"type": "join", "player": "Ann"}, "seats")
            await t.refused({**bet, "player": "Bob"}, "entries-closed")
            await t.refused({"type": "lock"}, "entries-closed")
            await t.refused({"type": "void", "card": "5H"}, "void-card")
            await t.refused({"type": "card", "card": "KD"}, "duplicate")
            await t.deal(*first[2:7])  # the fives are all out
            await t.refused({**bet, "rank": "5"}, "exhausted")
            await t.deal(*first[7:49])
            await t.refused({**call, "order": ["J", "Q", "A"]}, "call-ranks")
            by_colour = {"type": "call", "player": "Ann", "colours": ["red"] * 3, "weight": 2}
            await t.refused(by_colour, "colours")
            await t.enter(call)
            await t.deal(*first[49:51])  # the final pair
            await t.refused({"type": "lock"}, "no-pair-left")
            await t.refused(bet, "entries-closed")
            await t.deal(first[51])
            await t.refused({"type": "card", "card": "KD"}, "pack-complete")
            assert (await t.state())["call_results"][0]["outcome"] == "called"

            await t.enter({"type": "shuffle"})  # Ann banks now
            await t.deal(*second[:49])
            call = {**call, "player": "Bob", "order": ["7", "7", "7"]}
            await t.refused(call, "three-of-a-kind")
            colours = {**by_colour, "player": "Bob", "colours": ["black"] * 3}
            await t.refused(colours, "colours")
            await t.enter({**colours, "colours": ["black", "red", "red"]})
            seen = set(t.rules)

        house = tmp_path / "house"
        house.mkdir()
        console_config(house)
        async with console_table(house) as t:
            await t.enter({"type": "session", "seats": SEATS, "banker": "Cy", "profile": "house"})
            await t.refused(
                {"type": "bet", "player": "Ann", "ranks": ["A", "3"], "weight": 3}, "layout"
            )
            return seen | t.rules

    seen = await scenario()
    source = "".join(Path(m.__file__).read_text() for m in (rules, calls, seats))
    # A balance past 2**52 takes millions of wins at the largest limit, and an integrity
    # report is the daemon's own (never entered): tests/test_rules.py reaches both directly.
    every = set(re.findall(r'Refused\(\s*"([a-z-]+)"', source)) - {"event", "balance", "integrity"}
    assert every <= seen, f"rules never refused through the console: {every - seen}"


MALFORMED = [
    (b"", 400),
    (b"{", 400),
    (b"\xff\xfe{}", 400),
    (b"[" * 30_000 + b"]" * 30_000, 400),
    (b'{"type": "bet", "weight": ' + b"9" * 5000 + b"}", 400),
    (b"x" * 70_000, 413),
    (b"null", 422),
    (b"[]", 422),
    (b'"bet"', 422),
    (b"42", 422),
    (b"{}", 422),
    (b'{"type": 5}', 422),
    (b'{"type": ["bet"]}', 422),
    (b'{"type": {"a": 1}}', 422),
    (b'{"type": "dance"}', 422),
    (b'{"type": "bet"}', 422),
    (b'{"type": "bet", "player": "Ann", "rank": "Z", "weight": 2}', 422),
    (b'{"type": "bet", "player": "Ann", "rank": ["9"], "weight": 2}', 422),
    (b'{"type": "bet", "player": "Ann", "rank": "9", "weight": "2"}', 422),
    (b'{"type": "bet", "player": "Ann", "rank": "9", "weight": 2.0}', 422),
    (b'{"type": "bet", "player": "Ann", "rank": "9", "weight": true}', 422),
    (b'{"type": "bet", "player": "Ann", "rank": "9", "weight": NaN}', 422),
    (b'{"type": "bet", "player": "Ann", "rank": "9", "weight": 2, "copper": "yes"}', 422),
    (b'{"type": "bet", "player": 7, "rank": "9", "weight": 2}', 422),
    (b'{"type": "bet", "player": " ", "rank": "9", "weight": 2}', 422),
    (b'{"type": "card", "card": "ZZ"}', 422),
    (b'{"type": "card", "card": 12}', 422),
    (b'{"type": "card"}', 422),
    (b'{"type": "void", "card": {}}', 422),
    (b'{"type": "clear", "kind": "fire"}', 422),
    (b'{"type": "clear", "kind": ["noread"]}', 422),
    (b'{"type": "session", "seats": "Ann"}', 422),
    (b'{"type": "session", "seats": ["Ann", 2]}', 422),
    (b'{"type": "session", "seats": ["Ann", "Bob"], "banker": 3}', 422),
    (b'{"type": "call", "player": "Ann", "weight": 2}', 422),
    (b'{"type": "call", "player": "Ann", "weight": 2, "order": ["7", "J"]}', 422),
    (b'{"type": "call", "player": "Ann", "weight": 2, "order": "7J3"}', 422),
    (b'{"type": "call", "player": "Ann", "weight": 2, "colours": ["red", "blue", "red"]}', 422),
    (
        b'{"type": "call", "player": "Ann", "weight": 2, "order": ["7", "J", "3"],'
        b' "colours": ["red", "red", "red"]}',
        422,
    ),
]


async def test_a_malformed_request_answers_4xx_with_a_message_and_changes_nothing(tmp_path):
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
        before = await lookout.state()
        for body, status in MALFORMED:
            answer = await lookout.post(body)
            assert answer.status_code == status, (body[:80], answer.text)
            assert answer.json()["error"]
        wrong_method = await lookout.http.delete("/api/events", headers=lookout.auth)
        assert wrong_method.status_code == 405
        assert await lookout.state() == before


async def test_schema_driven_fuzz_finds_no_5xx_and_no_change_from_a_refused_request(tmp_path):
    console_config(tmp_path)

    def fuzz(base: str, token: str, document: dict) -> dict:
        components = document["components"]["schemas"]
        event = resolved(components["Event"], components)
        valid = jsonschema.Draft202012Validator(event)
        seated = {"type": "string", "enum": [*SEATS, "Zed"]}
        at_table = seated_names(event, seated)
        anything = st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=5), inner, max_size=3)
            ),
            max_leaves=8,
        )
        kinds = sorted(components["Event"]["discriminator"]["mapping"])
        fields = sorted({key for s in event["oneOf"] for key in s["properties"]} - {"type"})
        bodies = st.one_of(
            from_schema(at_table).filter(valid.is_valid),
            from_schema(event).filter(valid.is_valid),
            st.builds(
                lambda kind, extra: {"type": kind, **extra},
                st.sampled_from(kinds),
                st.dictionaries(st.sampled_from(fields), anything, max_size=4),
            ),
            anything,
            st.sampled_from([c.code for c in DECK]).map(
                lambda code: {"type": "card", "card": code}
            ),
        )
        seen: dict[int, int] = {}

        with httpx.Client(base_url=base, timeout=10) as http:

            def state() -> dict:
                return http.get("/api/state").json()

            @settings(
                max_examples=300,
                deadline=None,
                database=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
            )
            @given(body=bodies, with_token=st.sampled_from([True, True, True, False]))
            def requests_from_the_schema(body, with_token):
                before = state()
                headers = {"Authorization": f"Bearer {token}"} if with_token else {}
                headers["Content-Type"] = "application/json"
                answer = http.post("/api/events", content=json.dumps(body), headers=headers)
                seen[answer.status_code] = seen.get(answer.status_code, 0) + 1
                assert answer.status_code < 500, (body, answer.text)
                if not with_token:
                    assert answer.status_code == 401
                if answer.status_code != 200:
                    assert "error" in answer.json()
                    assert state() == before, body

            requests_from_the_schema()
        return seen

    async with console_table(tmp_path) as lookout:
        await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
        document = (await lookout.http.get("/openapi.json")).json()
        started = time.perf_counter()
        seen = await asyncio.to_thread(
            fuzz, str(lookout.http.base_url), lookout.console.token, document
        )
        took = time.perf_counter() - started
        print(f"fuzz: {sum(seen.values())} requests in {took:.1f} s, by status {seen}")
        assert seen.get(200) and seen.get(409) and seen.get(422) and seen.get(401)


async def test_every_write_without_the_right_token_answers_401_and_changes_nothing(tmp_path):
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        document = (await lookout.http.get("/openapi.json")).json()
        writes = [
            (method, path, operation)
            for path, operations in document["paths"].items()
            for method, operation in operations.items()
            if method != "get"
        ]
        assert writes
        before = await lookout.state()
        wrong = [
            {},
            {"Authorization": "Bearer not-the-token"},
            {"Authorization": f"Bearer {lookout.console.token}x"},
            {"Authorization": f"Basic {lookout.console.token}"},
            {"Authorization": lookout.console.token},
            {"Authorization": "Bearer"},
        ]
        for method, path, operation in writes:
            assert operation["security"] == [{"token": []}]
            content = operation["requestBody"]["content"]["application/json"]
            body = next(iter(content["examples"].values()))["value"]
            for headers in wrong:
                answer = await lookout.http.request(method, path, json=body, headers=headers)
                assert answer.status_code == 401, (method, path, headers)
                assert "token" in answer.json()["error"]
                assert answer.headers["www-authenticate"].startswith("Bearer")
        assert await lookout.state() == before
        lower = {"Authorization": f"bearer {lookout.console.token}"}
        answer = await lookout.http.post("/api/events", json={"type": "lock"}, headers=lower)
        assert answer.status_code == 200


FIRST_BEAT = set(beat(HEARTBEAT).decode().split("\n"))
"""The lines of the beat that follows a stream's first state (and of a blank line)."""


async def next_state(lines) -> dict:
    """The next ``event: state`` message's data from an SSE stream's lines."""
    kind = None
    async for line in lines:
        if line.startswith("event:"):
            kind = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and kind == "state":
            return json.loads(line[5:])
    raise AssertionError("the stream ended")


async def test_each_card_from_the_shoe_reaches_an_open_stream_as_its_own_state(tmp_path):
    """Every card is pushed as the next state, not gathered with the next one. How soon
    (median, p99) is ``make bench``'s figure (tests/benchmarks/bench_console.py), not a
    pass/fail test on a machine shared with whatever else runs."""
    console_config(tmp_path)

    async with (
        console_table(tmp_path) as lookout,
        lookout.http.stream("GET", "/api/events") as stream,
    ):
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.aiter_lines()
        first = await next_state(lines)
        assert first == await lookout.state()
        for n, code in enumerate(["5H", "KD", "9C", "QS", "2C"], start=1):
            lookout.reader.card(code)
            async with asyncio.timeout(30):  # a hang, not a figure
                state = await next_state(lines)
            assert state["pack"]["exposed"][-1] == code
            assert len(state["pack"]["exposed"]) == n
            assert state["version"] == first["version"] + n


def test_a_stream_that_falls_behind_is_hung_up_on_and_never_holds_the_table(tmp_path):
    console_config(tmp_path)
    seats = [f"P{i}" for i in range(10)]

    async def scenario():
        async with console_table(tmp_path) as lookout:
            stalled = socket.socket()  # a phone that stops reading: it is never read
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            stalled.connect(("127.0.0.1", lookout.console.port))
            stalled.sendall(b"GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            while not lookout.console.clients:
                await asyncio.sleep(0)  # the server's turn to take the request
            [client] = lookout.console.clients
            started = time.perf_counter()
            await lookout.enter({"type": "session", "seats": seats, "banker": "P0"})
            for player in seats[1:]:  # a crowded layout: every state is several kB
                for rank in ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
                    await lookout.enter(
                        {"type": "bet", "player": player, "rank": rank, "weight": 2}
                    )
            for code in pack_ending_with():
                await lookout.deal(code)
                if lookout.daemon.table.entries_open:
                    await lookout.enter({"type": "lock"})
            took = time.perf_counter() - started
            assert client.dropped  # a whole queue behind: hung up on, not waited for
            await client.task
            assert not lookout.console.clients
            assert (await lookout.state())["pack"]["complete"]
            print(f"a pack and 117 bets, one stream stalled: {took:.2f} s")
            stalled.close()

    asyncio.run(scenario())


async def test_a_stream_that_goes_away_is_dropped_and_shutdown_ends_the_others(tmp_path):
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        async with lookout.http.stream("GET", "/api/events") as stream:
            await next_state(stream.aiter_lines())
            [gone] = lookout.console.clients
        await gone.task
        assert not lookout.console.clients
        await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})

        async with lookout.http.stream("GET", "/api/events") as stream:
            lines = stream.aiter_lines()
            await next_state(lines)
            lookout.daemon.stopped.set()  # SIGTERM's doing
            # A hang detector, not a figure: how soon SIGTERM ends a table with a stream open
            # is bench_daemon's (make bench).
            async with asyncio.timeout(30):
                rest = [line async for line in lines]
            assert set(rest) <= FIRST_BEAT  # the stream ends cleanly, with nothing more


async def test_a_quiet_stream_hears_a_heartbeat_the_page_can_watch_for(tmp_path):
    """A beat is an event (a comment never reaches the page's script), saying when the next
    is due: at once after the state, then whenever the stream is quiet that long."""
    console_config(tmp_path)

    async with console_table(tmp_path) as lookout:
        lookout.console.heartbeat = 0.05
        async with lookout.http.stream("GET", "/api/events") as stream:
            lines = stream.aiter_lines()
            await next_state(lines)
            beats = []
            async for line in lines:
                if line:
                    beats.append(line)
                if len(beats) == 4:
                    break
            assert beats == ["event: beat", "data: 0.05"] * 2
        head = await lookout.http.head("/api/events")
        assert head.status_code == 200
        assert head.headers["content-type"].startswith("text/event-stream")


async def test_closing_awaits_the_connections_going_instead_of_napping(tmp_path, monkeypatch):
    """uvicorn's shutdown sleeps a tenth of a second, then looks ten times a second whether
    the connections are gone; the console's awaits their going: with an event stream and a
    kept-alive connection open, it closes both, and nothing sleeps on the way."""
    console_config(tmp_path)
    naps = []
    sleep = asyncio.sleep

    async def napping(delay, *args, **kwargs):
        naps.append(delay)
        return await sleep(delay, *args, **kwargs)

    async with console_table(tmp_path) as lookout:
        async with lookout.http.stream("GET", "/api/events") as stream:
            lines = stream.aiter_lines()
            await next_state(lines)
            reader, writer = await asyncio.open_connection("127.0.0.1", lookout.console.port)
            writer.write(b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"content-length: (\d+)", head, re.I)[1])
            await reader.readexactly(length)  # answered; the connection is kept alive
            monkeypatch.setattr(asyncio, "sleep", napping)
            async with asyncio.timeout(30):  # a hang bound
                await lookout.console.close()
                assert set([line async for line in lines]) <= FIRST_BEAT  # ended cleanly
                assert await reader.read() == b""  # closed by the console
            monkeypatch.setattr(asyncio, "sleep", sleep)
            writer.close()
        assert naps == []
        assert not lookout.console.server.server_state.connections


async def test_the_console_leaves_sigterm_to_the_daemon_and_sleeps_until_closed(tmp_path):
    """uvicorn, left to itself, takes SIGTERM and wakes ten times a second; a guest must not."""
    console_config(tmp_path)
    before = signal.getsignal(signal.SIGTERM)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            await lookout.state()  # the server is up
            server = lookout.console.server
            assert getattr(signal.getsignal(signal.SIGTERM), "__self__", None) is not server
            ticks = []
            tick = server.on_tick
            server.on_tick = lambda counter: (ticks.append(counter), tick(counter))[1]
            await asyncio.sleep(0.35)  # uvicorn's own main loop would tick three times
            assert ticks == []
            os.kill(os.getpid(), signal.SIGTERM)
            async with asyncio.timeout(30):  # a hang bound
                await lookout.daemon.stopped.wait()  # the daemon's handler heard it

    await scenario()
    assert signal.getsignal(signal.SIGTERM) == before  # nothing left behind


async def test_history_and_export_tell_the_whole_session(tmp_path):
    console_config(tmp_path)
    pack = pack_ending_with("JC", "QC", "KC")

    async def scenario():
        async with console_table(tmp_path) as lookout:
            await lookout.enter(
                {"type": "session", "seats": SEATS, "banker": "Cy"},
                {"type": "bet", "player": "Ann", "rank": "2", "weight": 2},
            )
            await lookout.deal(*pack[:49])
            await lookout.enter(
                {"type": "call", "player": "Bob", "order": ["J", "Q", "K"], "weight": 2}
            )
            await lookout.deal(*pack[49:])
            lookout.reader.card("KC")  # a reading the rules refuse, journaled as refused
            # Its alarm, not the integrity report's (the pack is dealt in order: a straight).
            await until(lookout.daemon, lambda t: any(a.kind == "refused" for a in t.alarms))
            await lookout.enter({"type": "shuffle"})
            history = (await lookout.http.get("/api/history")).json()
            document = (await lookout.http.get("/openapi.json")).json()
            validator(document, "History").validate(history)
            state = await lookout.state()
            assert len(history["pairs"]) == 25
            assert history["pairs"][0]["loser"] == pack[1]
            assert history["packs"][0] == {
                "number": 1,
                "banker": "Cy",
                "calls": [
                    {
                        "player": "Bob",
                        "delta": 8,
                        "outcome": "called",
                        "rank": None,
                        "copper": False,
                        "weight": 2,
                    }
                ],
            }
            assert history["packs"][1] == {"number": 2, "banker": "Ann", "calls": []}
            assert history["balances"] == state["balances"]
            net = sum(p["banker"] for p in history["pairs"]) - 8
            assert state["balances"]["Cy"] == net
            exported = await lookout.http.get("/api/export")
            assert exported.headers["content-type"].startswith("application/x-ndjson")
            child = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "faro_pi.cli",
                "export",
                "--config",
                str(tmp_path / "config.toml"),
                stdout=asyncio.subprocess.PIPE,
            )
            printed, _ = await child.communicate()
            assert exported.text == printed.decode()
            return exported.text

    text = await scenario()
    lines = [json.loads(line) for line in text.splitlines()]
    assert sum(1 for line in lines if "refused" in line) == 1
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        assert "".join(export_lines(journal)) == text


async def test_the_token_is_made_once_for_its_owner_and_group_and_kept_across_restarts(tmp_path):
    console_config(tmp_path)
    path = tmp_path / TOKEN_FILE

    async def start() -> str:
        async with console_table(tmp_path) as lookout:
            token = lookout.console.token
            assert (await lookout.post({"type": "lock"}, auth=False)).status_code == 401
            assert (await lookout.post({"type": "lock"})).status_code in (200, 409)
            return token

    token = await start()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640  # the lookouts' group reads it
    assert path.read_text().strip() == token and len(token) >= 40
    assert await start() == token
    assert [p.name for p in tmp_path.iterdir() if "token" in p.name] == [TOKEN_FILE]


async def test_a_configured_token_is_used_and_no_file_is_made(tmp_path):
    console_config(tmp_path, token="open-sesame-open-sesame")

    async def scenario():
        async with console_table(tmp_path) as lookout:
            assert lookout.console.token == "open-sesame-open-sesame"
            await lookout.enter({"type": "session", "seats": SEATS})

    await scenario()
    assert not (tmp_path / TOKEN_FILE).exists()


def set_cookie(answer: httpx.Response) -> dict[str, str]:
    """The attributes of the answer's one Set-Cookie, by lower-case name."""
    name_value, *attributes = answer.headers["set-cookie"].split(";")
    name, _, value = name_value.partition("=")
    pairs = dict(a.strip().partition("=")[::2] for a in attributes)
    return {"name": name.strip(), "value": value, **{k.lower(): v for k, v in pairs.items()}}


def test_opening_the_token_link_logs_the_browser_in_with_a_cookie_of_its_own(tmp_path):
    console_config(tmp_path)
    lock = {"type": "lock"}

    async def scenario():
        async with console_table(tmp_path) as lookout:
            http, token = lookout.http, lookout.console.token
            page = await http.get("/")
            assert page.status_code == 200 and "<html" in page.text.lower()
            wrong = await http.get("/", params={"token": "guess" * 9})
            assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
            assert "new-pack" in wrong.text
            answer = await http.get("/", params={"token": token})
            assert answer.status_code == 303 and answer.headers["location"] == "/"
            cookie = set_cookie(answer)
            assert cookie["name"] == login.COOKIE and token not in cookie["value"]
            assert {"httponly", "path", "max-age", "samesite"} <= set(cookie)
            assert cookie["samesite"].lower() == "strict" and cookie["path"] == "/"
            assert int(cookie["max-age"]) == login.SESSION == 16 * 3600
            http.cookies.clear()  # sent by hand below, one at a time
            await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
            jar = {"Cookie": f"{login.COOKIE}={cookie['value']}"}
            taken = await http.post("/api/events", json=lock, headers=jar)
            assert taken.status_code == 200, taken.text  # the cookie alone, no header
            async with http.stream("GET", "/api/events", headers=jar) as stream:
                await next_state(stream.aiter_lines())
                assert [c.authorised for c in lookout.console.clients] == [True]
            forged = {"Cookie": f"{login.COOKIE}={'0' * 43}"}
            another_tables = login.Login("another-table's-token").sessions.log_in(None)
            stranger = {"Cookie": f"{login.COOKIE}={another_tables}"}
            for jar in (forged, stranger, {}):
                refused = await http.post("/api/events", json={"type": "void"}, headers=jar)
                assert refused.status_code == 401, jar
            assert lookout.daemon.table.entries.value == "locked"

    asyncio.run(scenario())


def test_a_pairing_link_logs_in_once_and_only_within_its_two_minutes(tmp_path, monkeypatch, caplog):
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            console, http = lookout.console, lookout.http
            paired = []
            console.login.paired = lambda: paired.append(True)
            link = console.pair()
            assert link.startswith(f"HTTP://127.0.0.1:{console.port}/P/")
            assert console.token not in link and link == link.upper()
            path = link.split(str(console.port), 1)[1]
            answer = await http.get(path)
            assert answer.status_code == 303 and answer.headers["location"] == "/"
            assert set_cookie(answer)["max-age"] == str(login.SESSION)
            assert paired == [True]  # the OLED goes back to the table
            again = await http.get(path)
            assert again.status_code == 403 and "set-cookie" not in again.headers
            path = console.pair().split(str(console.port), 1)[1]
            newer = console.pair()
            assert (await http.get(path)).status_code == 403  # the newer one voids it
            later = time.monotonic() + login.PAIRING + 1
            monkeypatch.setattr(console.login, "_monotonic", lambda: later)
            late = await http.get(newer.split(str(console.port), 1)[1])
            assert late.status_code == 403 and "set-cookie" not in late.headers

    with caplog.at_level(logging.WARNING, logger="faro_pi"):
        asyncio.run(scenario())
    failed = [r for r in caplog.records if "pairing link that is not the live one" in r.message]
    assert len(failed) == 3 and all("127.0.0.1" in r.getMessage() for r in failed)


def test_holding_new_pack_shows_a_code_the_phone_scans_to_log_in(tmp_path):
    console_config(tmp_path)
    path = tmp_path / "config.toml"
    text = path.read_text().replace('[display]\ndriver = "none"', '[display]\ndriver = "dummy"')
    path.write_text(text.replace("undo_hold = 0.3\n", "undo_hold = 0.3\npair_hold = 0.05\n"))

    async def scenario():
        async with console_table(tmp_path) as lookout:
            [oled] = [o for o in lookout.daemon.outputs if hasattr(o, "pair")]
            await oled.settled()
            table_screen = oled.device.image.copy()
            assert not zxingcpp.read_barcodes(table_screen.convert("L"))
            held = asyncio.Event()
            lookout.daemon.pairing = (lambda pair: lambda: (pair(), held.set()))(
                lookout.daemon.pairing
            )
            new_pack = lookout.factory.pin(lookout.daemon.config.buttons.new_pack)
            new_pack.drive_low()  # held down: first a new pack (refused mid-night), then...
            await held.wait()
            new_pack.drive_high()
            await oled.settled()
            [code] = zxingcpp.read_barcodes(oled.device.image.convert("L"))
            link = code.text
            assert lookout.console.token not in link
            assert link.startswith(f"HTTP://127.0.0.1:{lookout.console.port}/P/")
            scanned = await lookout.http.get(link.split(str(lookout.console.port), 1)[1])
            assert scanned.status_code == 303 and login.COOKIE in lookout.http.cookies
            await oled.settled()  # the code is spent: the table is back on the screen
            assert ImageChops.difference(oled.device.image, table_screen).getbbox() is None
            entered = await lookout.http.post(
                "/api/events", json={"type": "session", "seats": SEATS, "banker": "Cy"}
            )
            assert entered.status_code == 200  # logged in by the cookie alone

    asyncio.run(scenario())


IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
    "like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
)
ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0.0.0 Mobile Safari/537.36"
)


def jar(value: str) -> dict[str, str]:
    """The headers of a request carrying the session cookie ``value``."""
    return {"Cookie": f"{login.COOKIE}={value}"}


def test_each_phone_is_named_by_what_it_is():
    firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0"
    assert sessions.device(IPHONE) == "iPhone · Safari"
    assert sessions.device(ANDROID) == "Android · Chrome"
    assert sessions.device(firefox) == "Windows · Firefox"
    assert sessions.device("curl/8.5.0") == "curl/8.5.0"
    assert sessions.device("\x00\x1b[31m") == "[31m"
    assert sessions.device(None) == "unknown device"


def test_a_phone_logs_itself_out_and_the_lookout_ends_another_from_the_list(tmp_path):
    """Logging out ends the session on the daemon: the cookie, kept or copied, opens nothing
    any more. The list says when each phone logged in, when it was last seen and what it is."""
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            http, console = lookout.http, lookout.console
            host = http.base_url.netloc.decode()
            page = {"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"}
            linked = await http.get(
                "/", params={"token": console.token}, headers={"User-Agent": IPHONE}
            )
            iphone = set_cookie(linked)["value"]
            path = console.pair().split(str(console.port), 1)[1]
            android = set_cookie(await http.get(path, headers={"User-Agent": ANDROID}))["value"]
            http.cookies.clear()
            await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
            assert (await http.get("/api/phones")).status_code == 401
            listed = await http.get("/api/phones", headers=jar(iphone))
            assert listed.status_code == 200
            validator(await document(http), "Phones").validate(listed.json())
            phones = listed.json()["phones"]
            assert [(p["device"], p["this"]) for p in phones] == [
                ("iPhone · Safari", True),
                ("Android · Chrome", False),
            ]
            assert all(p["since"] <= p["seen"] <= listed.json()["now"] for p in phones)
            iphone_id, android_id = (p["id"] for p in phones)

            out = await http.post("/api/logout", json={}, headers={**jar(iphone), **page})
            assert out.status_code == 200 and out.json() == {"ended": iphone_id}
            deleted = set_cookie(out)
            assert deleted["name"] == login.COOKIE and deleted["max-age"] == "0"
            lock = {"type": "lock"}
            assert (
                await http.post("/api/events", json=lock, headers=jar(iphone))
            ).status_code == 401
            assert (await http.get("/api/phones", headers=jar(iphone))).status_code == 401
            again = await http.post("/api/logout", json={}, headers=jar(iphone))
            assert again.status_code == 401

            listed = (await http.get("/api/phones", headers=jar(android))).json()["phones"]
            assert [p["id"] for p in listed] == [android_id]
            gone = await http.post("/api/logout", json={"phone": iphone_id}, headers=jar(android))
            assert gone.status_code == 404 and iphone_id in gone.json()["error"]
            for body in (b'{"phone": 5}', b"[]", b"not json", b" " * 2000):
                wrong = await http.post(
                    "/api/logout",
                    content=body,
                    headers={**lookout.auth, "Content-Type": "application/json"},
                )
                assert wrong.status_code == 400, body
            # The lookout, with the token, ends the Android's session by its id.
            ended = await http.post("/api/logout", json={"phone": android_id}, headers=lookout.auth)
            assert ended.status_code == 200 and ended.json() == {"ended": android_id}
            assert "set-cookie" not in ended.headers  # the token holder's browser keeps its own
            assert (
                await http.post("/api/events", json=lock, headers=jar(android))
            ).status_code == 401
            assert (await http.get("/api/phones", headers=lookout.auth)).json()["phones"] == []
            assert lookout.daemon.table.entries.value == "open"

    asyncio.run(scenario())


async def document(http: httpx.AsyncClient) -> dict:
    return (await http.get("/openapi.json")).json()


def test_phones_stay_logged_in_across_a_restart_and_a_new_token_logs_them_out(tmp_path, caplog):
    """The sessions are kept beside the journal, as digests: a restart of the daemon keeps the
    phones in, one made more than 16 hours ago is out, a new token logs every phone out, and a
    file that cannot be read costs the phones their login, never the console."""
    console_config(tmp_path)
    kept = tmp_path / sessions.SESSIONS_FILE
    lock = {"type": "lock"}

    async def scenario():
        async with console_table(tmp_path) as lookout:
            linked = await lookout.http.get(
                "/", params={"token": lookout.console.token}, headers={"User-Agent": IPHONE}
            )
            value = set_cookie(linked)["value"]
            await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
            token = lookout.console.token
        assert stat.S_IMODE(kept.stat().st_mode) == sessions.SESSIONS_MODE == 0o600
        assert value not in kept.read_text()
        long_ago = sessions.Sessions(token, kept, clock=lambda: time.time() - sessions.SESSION - 1)
        stale = long_ago.log_in(ANDROID)

        async with console_table(tmp_path) as lookout:
            http = lookout.http
            http.cookies.clear()
            taken = await http.post("/api/events", json=lock, headers=jar(value))
            assert taken.status_code == 200, taken.text
            refused = await http.post("/api/events", json=lock, headers=jar(stale))
            assert refused.status_code == 401
            listed = (await http.get("/api/phones", headers=jar(value))).json()["phones"]
            assert [p["device"] for p in listed] == ["iPhone · Safari"]

        (tmp_path / TOKEN_FILE).unlink()
        async with console_table(tmp_path) as lookout:
            http = lookout.http
            assert (await http.get("/api/phones", headers=jar(value))).status_code == 401
            assert (await http.get("/api/phones", headers=lookout.auth)).json()["phones"] == []
            again = await http.get("/", params={"token": lookout.console.token})
            value = set_cookie(again)["value"]

        kept.write_bytes(b"\xff not a list of phones")
        async with console_table(tmp_path) as lookout:
            http = lookout.http
            http.cookies.clear()
            assert (await http.get("/api/phones", headers=jar(value))).status_code == 401
            again = await http.get("/", params={"token": lookout.console.token})
            assert again.status_code == 303  # and the file is the daemon's again
        assert json.loads(kept.read_text())["phones"]

    with caplog.at_level(logging.INFO, logger="faro_pi"):
        asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records]
    assert any("the token is new: every phone logs in again" in line for line in said)
    assert any("is not the list of phones" in line and str(kept) in line for line in said)


def test_a_port_in_use_costs_the_console_not_the_game(tmp_path, caplog):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        console_config(tmp_path, port=taken.getsockname()[1])

        async def scenario():
            async with running_table(tmp_path) as (daemon, reader, _):
                assert console_of(daemon) is None
                [alarm] = daemon.table.alarms
                assert alarm.kind == "console" and "cannot listen" in alarm.text
                assert screens.view(daemon.table).alarm == ("console", alarm.text)  # the OLED
                reader.card("5H")
                await until(daemon, lambda t: t.pack.exposed)

        with caplog.at_level(logging.INFO, logger="faro_pi"):
            asyncio.run(scenario())
    [line] = [r.getMessage() for r in caplog.records if "not served" in r.getMessage()]
    assert "not served" in line and "in use" in line.lower()

    async def served_again():  # the port is free again: the alarm goes by itself
        async with running_table(tmp_path) as (daemon, _, _):
            assert console_of(daemon) is not None
            assert not daemon.table.alarms

    asyncio.run(served_again())


def test_the_command_line_never_talks_to_another_table_on_its_port(tmp_path):
    mine, other = tmp_path / "mine", tmp_path / "other"
    mine.mkdir()
    other.mkdir()
    port = console_config(other, token="the-same-token-at-both-tables")
    console_config(mine, token="the-same-token-at-both-tables", port=port)
    config = ("--config", str(mine / "config.toml"))

    async def scenario():
        async with console_table(other) as lookout:
            await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
            async with running_table(mine) as (daemon, _, _):
                assert console_of(daemon) is None
                assert daemon.table.alarms[-1].kind == "console"
                for command in (("status",), ("lock",), ("join", "Dee")):
                    status, out, err = await faro_pi(*command, *config)
                    assert (status, out) == (2, ""), (command, out)
                    assert "serves another table's journal" in err, err
                    assert str(mine / "journal.sqlite3") in err
                assert (await lookout.state())["entries"] == "open"  # nothing changed there
                assert (await lookout.state())["seats"] == SEATS
                status, out, _ = await faro_pi("status", "--config", str(other / "config.toml"))
                assert status == 0 and "Cy (banker)" in out

    asyncio.run(scenario())


async def faro_pi(*args: str, **environ: str) -> tuple[int, str, str]:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "faro_pi.cli",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), **environ},
    )
    out, err = await child.communicate()
    return child.returncode, out.decode(), err.decode()


async def test_the_command_line_clients_work_against_a_running_daemon(tmp_path):
    console_config(tmp_path)
    config = ("--config", str(tmp_path / "config.toml"))
    pack = pack_ending_with("JC", "QC", "KC")

    async def scenario():
        async with console_table(tmp_path) as lookout:
            status, out, err = await faro_pi("seat", "Ann", "Bob", "Cy", "--banker", "Cy", *config)
            assert (status, err) == (0, ""), err
            assert out.startswith("session ")
            status, out, _ = await faro_pi("bet", "Ann", "9", "2", "--copper", "--json", *config)
            assert status == 0
            assert json.loads(out)["event"]["copper"] is True
            status, out, err = await faro_pi("bet", "Zed", "9", "2", *config)
            assert status == 1 and out == ""
            assert err.strip() == "faro-pi: refused: Zed is not seated at this table [not-seated]"
            status, out, _ = await faro_pi("bet", "Zed", "9", "2", "--json", *config)
            assert status == 1 and json.loads(out)["rule"] == "not-seated"
            assert (await faro_pi("lock", *config))[0] == 0
            assert (await faro_pi("card", pack[0], *config))[0] == 0
            await lookout.deal(*pack[1:49])
            status, _, err = await faro_pi(
                "call", "Bob", "--colours", "red", "red", "red", "2", *config
            )
            assert status == 1 and "[colours]" in err
            status, _, err = await faro_pi("call", "Bob", "J", "Q", "K", "2", *config)
            assert status == 0, err
            token = lookout.console.token
            url = ("--url", str(lookout.http.base_url), "--token", token)
            status, out, err = await faro_pi("status", "--json", *url)
            assert status == 0, err
            assert json.loads(out) == await lookout.state()
            status, out, _ = await faro_pi("status", *config)
            assert status == 0
            assert out.startswith("pack 1: 49 cards out, 3 left, turn 24; entries open")
            assert "call: Bob J Q K for 2" in out
            status, _, err = await faro_pi(
                "lock", "--url", str(lookout.http.base_url), "--token", "wrong"
            )
            assert status == 2 and "refused the token (401)" in err and "--token" in err
            assert "Authorization" not in err and len(err.splitlines()) == 1
            assert (tmp_path / TOKEN_FILE).exists()

    await scenario()

    async def stopped():
        return await faro_pi("status", *config), await faro_pi("lock", *config)

    for status, out, err in await stopped():
        assert status == 2 and out == ""
        assert len(err.splitlines()) == 1 and "is the daemon running?" in err


def refused(answer: tuple[int, str, str], message: str, rule: str) -> None:
    """The command was refused by the rule, with its message on one line, and exited 1."""
    assert answer == (1, "", f"faro-pi: refused: {message} [{rule}]\n"), answer


async def test_every_entry_has_a_command_and_a_refusal_prints_its_rule(tmp_path):
    console_config(tmp_path)
    pack = pack_ending_with("JC", "QC", "KC")
    table = {"FARO_PI_CONFIG": str(tmp_path / "config.toml")}  # the config without --config

    async with console_table(tmp_path) as lookout:

        async def entered(*args: str) -> str:
            status, out, err = await faro_pi(*args, **table)
            assert (status, err) == (0, ""), (args, err)
            return out

        async def no(*args: str) -> tuple[int, str, str]:
            return await faro_pi(*args, **table)

        await entered("seat", "Ann", "Bob", "Cy", "--banker", "Cy")
        assert (await entered("join", "Dee")).startswith("join player=Dee\n")
        refused(await no("join", "Dee"), "Dee is seated already", "seats")
        await entered("leave", "Dee")
        assert (await lookout.state())["seats"] == SEATS
        balances = "balances: Ann +0, Bob +0, Cy (banker) +0; left: Dee +0; leaders: "
        assert balances in await entered("status")
        refused(await no("leave", "Cy"), "Cy is the banker: pass the bank first", "banker")
        assert (await entered("bank", "Bob")).startswith("bank player=Bob\n")
        assert (await lookout.state())["banker"] == "Bob"
        refused(await no("bank", "Dee"), "Dee is not seated at this table", "not-seated")
        await entered("bank", "Cy")

        await entered("bet", "Ann", "9", "2", "--copper")
        await entered("bet", "Ann", "9", "2")
        await entered("remove", "Ann", "9", "--copper")
        [left] = (await lookout.state())["predictions"]
        assert (left["rank"], left["copper"]) == ("9", False)
        refused(
            await no("remove", "Ann", "9", "--copper"),
            "Ann has no coppered prediction on 9",
            "nothing-to-remove",
        )
        assert (await entered("remove", "Ann", "9", "--ordinary")).startswith(
            "remove player=Ann rank=9 copper=False\n"
        )
        assert (await lookout.state())["predictions"] == []
        refused(
            await no("bet", "Ann", "2", "--ranks", "9", "10"),
            "9-10: this table takes bets on one rank only",
            "combinations",
        )

        await entered("card", pack[0])
        refused(
            await no("void", pack[1]), f"the last card is {pack[0]}, not {pack[1]}", "void-card"
        )
        await entered("void", pack[0])
        refused(await no("void"), "no card of this pack has been exposed", "nothing-to-void")

        refused(await no("clear"), "there is no alarm to clear", "no-alarm")
        lookout.reader.no_read()
        await until(lookout.daemon, lambda t: t.alarms)
        refused(await no("clear", "gap"), "there is no gap alarm to clear", "no-alarm")
        await entered("clear", "noread")
        assert (await lookout.state())["alarms"] == []

        await lookout.deal(*pack[:49])
        refused(
            await no("bank", "Ann"),
            "the bank passes between packs: before the soda or after the hock "
            "(3 cards left in the shoe)",
            "mid-pack",
        )
        await entered("call", "Bob", "J", "Q", "K", "2")
        assert (await entered("call", "--take-back", "Bob")).startswith(
            "remove player=Bob call=True\n"
        )
        assert (await lookout.state())["calls"] == []
        refused(
            await no("call", "--take-back", "Bob"),
            "Bob has no call to take back",
            "nothing-to-remove",
        )
        assert (await no("call", "--take-back", "Bob", "J"))[0] == 2

        await lookout.deal(*pack[49:])
        await entered("bank", "Ann")
        history = (await lookout.http.get("/api/history")).json()
        assert history["packs"][-1]["banker"] == "Cy" and lookout.daemon.table.banker == "Ann"
        await entered("close")
        refused(await no("join", "Ann"), "no session: seat the participants first", "no-session")
        night = (await lookout.state())["last_night"]["results"]
        results = ", ".join(f"{r['player']} {r['balance']:+d}" for r in night)
        assert [r["player"] for r in night] == [*SEATS, "Dee"]
        assert f"no session: nobody is seated\nnight 1 closed: {results}\n" in await entered(
            "status"
        )
        await entered("shuffle")
        assert (await lookout.state())["pack"]["exposed"] == []


async def test_bets_and_removes_on_two_ranks_and_the_high_card_at_a_house_table(tmp_path):
    console_config(tmp_path)
    config = tmp_path / "config.toml"
    config.write_text(config.read_text() + '\n[rules]\nprofile = "house"\n')
    table = ("--config", str(config))

    async with console_table(tmp_path) as lookout:

        async def entered(*args: str) -> str:
            status, out, err = await faro_pi(*args, *table)
            assert (status, err) == (0, ""), (args, err)
            return out

        await entered("seat", "Ann", "Bob", "Cy", "--banker", "Cy")
        assert (await entered("bet", "Ann", "3", "--ranks", "9", "10")).startswith(
            "bet player=Ann ranks=9,10 weight=3 copper=False\n"
        )
        await entered("bet", "Ann", "1", "--high-card", "--copper")
        state = await lookout.state()
        assert [
            (p.get("ranks"), p.get("high_card"), p["copper"]) for p in state["predictions"]
        ] == [
            (["9", "10"], None, False),
            (None, True, True),
        ]
        status, out, err = await faro_pi("bet", "Ann", "--ranks", "9", "10", "3", *table)
        assert (status, out) == (2, "")
        assert err == (
            "faro-pi bet: give PLAYER RANK WEIGHT, or PLAYER WEIGHT with --ranks R R [R R] "
            "or --high-card (the weight before --ranks)\n"
        )
        refused(
            await faro_pi("remove", "Ann", "--high-card", "--ordinary", *table),
            "Ann has no ordinary bet on the high card",
            "nothing-to-remove",
        )
        await entered("remove", "Ann", "--high-card")
        await entered("remove", "Ann", "--ranks", "10", "9")
        assert (await lookout.state())["predictions"] == []


def test_without_config_or_url_the_client_says_where_it_looked(tmp_path, monkeypatch, capsys):
    from faro_pi import cli

    monkeypatch.delenv(cli.CONFIG_VARIABLE, raising=False)
    installed = tmp_path / "etc" / "config.toml"
    assert cli.main(["status"], installed=installed) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "faro-pi: no config: give --config FILE (or --url and --token), set FARO_PI_CONFIG, "
        f"or install one at {tmp_path}/etc/config.toml (sudo make install)\n"
    )
    assert cli.main(["export"], installed=installed) == 2
    assert "no config: give --config FILE, set FARO_PI_CONFIG" in capsys.readouterr().err


def test_the_config_is_the_variables_then_the_installed_one():
    from faro_pi.cli import config_path

    installed = Path(__file__)  # any file that exists
    assert config_path({"FARO_PI_CONFIG": "/x/table.toml"}, installed) == "/x/table.toml"
    assert config_path({"FARO_PI_CONFIG": ""}, installed) == str(installed)
    assert config_path({}, installed) == str(installed)
    assert config_path({}, installed.with_name("missing.toml")) is None


def test_a_write_from_another_page_on_the_same_host_is_refused_though_it_carries_the_cookie(
    tmp_path,
):
    """SameSite does not tell one port of a host from another: a page served on another
    port posted with the lookout's cookie and text/plain, and it was applied. A write
    must come from the console's own page (Origin, Sec-Fetch-Site) and be JSON: a change
    to the table, and a logout too (or any page could log the phone out)."""
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            http = lookout.http
            answer = await http.get("/", params={"token": lookout.console.token})
            cookie = set_cookie(answer)
            http.cookies.clear()
            await lookout.enter({"type": "session", "seats": SEATS, "banker": "Cy"})
            jar = {"Cookie": f"{login.COOKIE}={cookie['value']}"}
            host = http.base_url.netloc.decode()
            other = host.rsplit(":", 1)[0] + ":9999"
            lock = json.dumps({"type": "lock"})
            attempts = (
                {"Origin": f"http://{other}", "Content-Type": "text/plain"},
                {"Origin": f"http://{other}", "Content-Type": "application/json"},
                {"Sec-Fetch-Site": "same-site", "Content-Type": "application/json"},
                {"Origin": f"http://{host}", "Content-Type": "text/plain"},
            )
            # Every write the console has, to the table or to the phones logged in, is one of
            # the document's, and each is refused so.
            writes = [
                path for path, operations in openapi()["paths"].items() if "post" in operations
            ]
            assert set(writes) == {"/api/events", "/api/logout", "/api/pair", "/api/camera/teach"}
            starlette = lookout.console.app.app
            assert {
                route.path
                for route in starlette.routes
                if isinstance(route, Route) and route.methods - {"GET", "HEAD"}
            } == set(writes)
            for path in writes:
                for headers in attempts:
                    refused = await http.post(path, content=lock, headers={**jar, **headers})
                    assert refused.status_code in (403, 415), (path, headers, refused.text)
                    assert "error" in refused.json()
            cross_port = {"Origin": f"http://{other}", "Content-Type": "text/plain"}
            logout = await http.post("/api/logout", content=b"{}", headers={**jar, **cross_port})
            assert logout.status_code == 403 and logout.json()["rule"] == "origin"
            for path in ("/", "/P/ANYTHING", "/index.html", "/faro.js"):  # the page's own
                answer = await http.post(path, content=lock, headers={**jar, **cross_port})
                assert answer.status_code == 405, path
            assert lookout.daemon.table.entries.value != "locked"
            own = {"Origin": f"http://{host}", "Sec-Fetch-Site": "same-origin"}
            mine = {**jar, **own, "Content-Type": "application/json"}
            taken = await http.post("/api/events", content=lock, headers=mine)
            assert taken.status_code == 200, taken.text
            assert lookout.daemon.table.entries.value == "locked"

    asyncio.run(scenario())
