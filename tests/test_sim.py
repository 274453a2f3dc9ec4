"""The simulator end to end: the real daemon on simulated hardware, a pack with faults."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import subprocess
import sys
import time

import pytest
from PIL import Image, ImageChops

from faro_pi.exc import FaroError, Refused
from faro_pi.game.codec import event_from_json
from faro_pi.game.events import Bet, CardDrawn
from faro_pi.game.replay import replay_lines
from faro_pi.game.rules import Table
from faro_pi.sim import scenario
from faro_pi.sim.run import simulate
from faro_pi.sim.screen import LiveScreen, PlainScreen


def grid_of(table: Table) -> list[str]:
    """The case keeper a person expects: a card's light is on while it is in the shoe."""
    seen = table.pack.seen
    from faro_pi.game.cards import DECK, SUITS

    return [
        "".join("0" if DECK[row * 13 + col] in seen else "1" for col in range(13))
        for row in range(len(SUITS))
    ]


def export(out) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "faro_pi.cli", "export", "--config", str(out / "config.toml")],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


class BothScreens:
    """The live view and the plain lines, shown the same play."""

    def __init__(self):
        self.plain_text, self.live_text = io.StringIO(), io.StringIO()
        self.plain = PlainScreen(self.plain_text)
        self.live = LiveScreen(self.live_text, total=60)

    def update(self, table, sim):
        self.plain.update(table, sim)
        self.live.update(table, sim)


async def test_a_pack_with_faults_on_the_simulated_table(tmp_path):
    steps = scenario.demo(seed=11, faults=True)
    kinds = {s["type"] for s in steps}
    assert {"noread", "garble", "unplug", "press", "reader_reset"} <= kinds
    out = tmp_path / "sim-out"

    started = time.perf_counter()
    screens = BothScreens()
    with screens.live:
        summary = await simulate(steps, out, speed=0, screen=screens)
    print(f"a pack with faults at --speed 0: {time.perf_counter() - started:.1f} s")
    assert summary["status"] == 0

    # Every card the table applied, in journal order, beside what the pins showed.
    lines = export(out)
    rows = [json.loads(line) for line in (out / "table.jsonl").read_text().splitlines()]
    table, applied = Table(), 0
    refused_readings = 0
    for line in lines:
        obj = json.loads(line)
        if "refused" in obj:
            refused_readings += 1
            continue
        event = event_from_json(obj)
        try:
            table.apply(event)
        except Refused:
            continue
        if isinstance(event, CardDrawn):
            row = rows[applied]
            applied += 1
            assert row["card"] == event.card.code
            assert row["n"] == len(table.pack.exposed)
            assert row["leds"] == grid_of(table), f"case keeper wrong after card {row['n']}"
    assert applied == len(rows)
    assert table.pack.complete
    assert refused_readings == 1  # the duplicate
    assert any(json.loads(line)["type"] == "void" for line in lines)
    assert any(json.loads(line).get("kind") == "noread" for line in lines)

    # The balances the simulator reports are those of replaying its journal, and its
    # events.jsonl is that journal, exported.
    replayed = replay_lines(lines)
    assert summary["balances"] == replayed.summary()["balances"]
    assert replayed.table.pack.complete
    assert (out / "events.jsonl").read_text().splitlines() == lines

    # Each fault, when it happened, and the table's answer; the duplicate among the refusals.
    faults = [(f["step"], f["fault"]) for f in summary["faults"]]
    step_of = {s["type"]: n for n, s in enumerate(steps, start=1)}  # one of each fault
    for kind, fault in [("noread", "no-read"), ("garble", "noise"), ("unplug", "unplug")]:
        assert (step_of[kind], fault) in faults
    assert (step_of["reader_reset"], "reader restart") in faults
    names = [name for _, name in faults]
    assert names.index("no-read") < names.index("noread alarm") < names.index("cleared")
    assert names.count("void") == 1 and names.count("refused card") == 1
    [duplicate] = summary["refused_entries"]
    assert steps[duplicate["step"] - 1] == {"type": "card", "card": duplicate["card"]}
    assert "already exposed" in duplicate["message"]
    assert any(f["fault"] == "void" and "taken back" in f["text"] for f in summary["faults"])

    # The plain lines show each fault where it happened among the cards; the live view
    # shows the latest beside the case keeper.
    plain = screens.plain_text.getvalue().splitlines()
    shown = [line[2:].split(":")[0] for line in plain if line.startswith("! ")]
    assert shown == names
    cards_before = next(n for n, line in enumerate(plain) if line.startswith("! no-read"))
    assert sum(line.startswith("card ") for line in plain[:cards_before]) == 5
    live = screens.live_text.getvalue()
    assert f"! {names[-1]}: " in live  # the view as it stopped: the latest fault

    # The OLED's pictures, decoded from the I²C bytes, change frame by frame.
    gif = Image.open(out / "oled.gif")
    frames = []
    for index in range(gif.n_frames):
        gif.seek(index)
        frames.append(gif.convert("L").copy())
    assert len(frames) > 20
    for before, after in itertools.pairwise(frames):
        assert ImageChops.difference(before, after).getbbox() is not None
    shown = [row["oled_frame"] for row in rows]
    assert shown == sorted(shown) and shown[-1] > shown[0]  # the screen follows the cards


def test_a_scenario_file_plays_and_a_bad_one_is_named(tmp_path):
    good = tmp_path / "s.jsonl"
    good.write_text(
        "\n".join(
            [
                '{"type":"session","seats":["Ann","Bob"],"banker":"Bob"}',
                '{"type":"bank","player":"Ann"}',
                '{"type":"bank","player":"Bob"}',
                '{"type":"card","card":"5H"}',
                '{"type":"bet","player":"Ann","rank":"K","weight":4}',
                '{"type":"press","button":"signal"}',
                '{"type":"card","card":"KD"}',
                '{"type":"card","card":"9C"}',
                '{"type":"bet","player":"Zed","rank":"K","weight":4}',
            ]
        )
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "faro_pi.cli",
            "sim",
            "--scenario",
            str(good),
            "--out",
            str(out),
            "--speed",
            "0",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "Ann -4" in done.stdout  # the plain screen: K lost for Ann
    summary = json.loads((out / "summary.json").read_text())
    assert summary["balances"] == {"Ann": -4, "Bob": 4}
    assert summary["refused_entries"][0]["step"] == 9
    assert "not seated" in summary["refused_entries"][0]["message"]
    banks = [json.loads(line) for line in export(out) if '"bank"' in line]
    assert [b["player"] for b in banks] == ["Ann", "Bob"]  # journaled as entered

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"press","button":"panic"}\n')
    done = subprocess.run(
        [sys.executable, "-m", "faro_pi.cli", "sim", "--scenario", str(bad), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "line 1" in done.stderr and "button" in done.stderr


@pytest.mark.parametrize("flag", [["--profile", "house"], ["--seed", "3"], ["--faults"]])
def test_a_demo_flag_given_with_a_scenario_is_refused_not_ignored(tmp_path, flag):
    scenario = tmp_path / "s.jsonl"
    scenario.write_text('{"type":"session","seats":["Ann","Bob"],"banker":"Bob"}\n')
    out = tmp_path / "out"
    command = ["sim", "--scenario", str(scenario), *flag, "--out", str(out), "--speed", "0"]
    done = subprocess.run(
        [sys.executable, "-m", "faro_pi.cli", *command], capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"faro-pi sim: {flag[0]} is the demo's")
    assert '"profile": "house"' in done.stderr  # where a scenario says it instead
    assert not out.exists()  # nothing was played


def test_a_scenario_line_says_what_is_missing_and_which_lines_there_are():
    def error(obj: dict) -> str:
        with pytest.raises(FaroError) as caught:
            scenario.check_step(obj, 3)
        return str(caught.value)

    unknown = error({"type": "presss", "button": "signal"})
    assert unknown.startswith("scenario line 3: unknown event type 'presss'")
    for kind in (*scenario.HARDWARE, "session", "card", "bet", "call"):
        assert kind in unknown
    no_weight = error({"type": "bet", "player": "Ann", "rank": "9"})
    assert no_weight.endswith("'weight' is missing [weight]")
    assert "'player' is missing" in error({"type": "call", "order": ["7", "J", "3"], "weight": 2})
    assert "'card' is missing" in error({"type": "card"})
    assert "'seats' is missing" in error({"type": "session"})
    assert "'rank' is missing" in error({"type": "bet", "player": "Ann", "weight": 2})


def test_oled_frames_in_the_terminal_are_braille_cells_of_two_by_four_pixels():
    from faro_pi.sim.screen import oled_text

    image = Image.new("1", (4, 4))
    image.putpixel((0, 0), 1)
    image.putpixel((3, 3), 1)
    assert oled_text(image) == ["\u2801\u2880"]  # the dots at top left and bottom right


TEACHING_DEMO = {
    (7, 1, False): "74c4928281c780fb39c1db48c2f6d6bc9b52426a9f9efdcc530d64b9ccbd0c12",
    (11, 1, True): "ff518d85e0285157bed91cbe82e7332e45287fab9da814596f9e5baa56d4975d",
    (3, 3, False): "71d2f21cac811df504735432b2d500724d96f0bc410761534c404c1a12b12847",
}
"""Digests of the teaching demo's steps as it dealt before the house profile came."""


def test_the_teaching_demo_deals_as_it_always_has():
    for (seed, packs, faults), digest in TEACHING_DEMO.items():
        for steps in (
            scenario.demo(seed, packs=packs, faults=faults),
            scenario.demo(seed, packs=packs, faults=faults, profile="teaching"),
        ):
            text = "\n".join(json.dumps(s, sort_keys=True) for s in steps)
            assert hashlib.sha256(text.encode()).hexdigest() == digest
            assert "profile" not in steps[0]


def test_the_house_demo_on_the_simulated_table(tmp_path):
    out = tmp_path / "house"
    command = ["sim", "--profile", "house", "--packs", "2", "--speed", "0", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "faro_pi.cli", *command],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == 0 and summary["packs"] == 2
    assert summary["refused_entries"] == []

    lines = export(out)
    session = json.loads(lines[0])
    assert session["type"] == "session" and session["profile"] == "house"
    replayed = replay_lines(lines)
    assert replayed.refused == []
    assert summary["balances"] == replayed.summary()["balances"]
    table = replayed.table
    assert table.banker == "Dee"  # the house bank stays with one seat all night
    settled = [s for pair in table.pairs for s in pair.settlements]
    assert {s.outcome for s in settled} >= {"won", "lost", "collected"}
    for pack in (1, 2):  # something is left on the layout for the house at each pack's end
        final = [p for p in table.pairs if p.pack == pack][-1]
        assert any(s.outcome == "collected" for s in final.settlements)
    assert any(s.ranks is not None and len(s.ranks) == 2 for s in settled)
    assert any(s.ranks is not None and len(s.ranks) == 4 for s in settled)
    assert any(s.high_card and s.outcome != "collected" for s in settled)
    assert any(s.copper for s in settled)
    bets = [event_from_json(json.loads(line)) for line in lines if '"bet"' in line]
    assert any(isinstance(b, Bet) and b.weight % 2 for b in bets)
    assert any(s.weight % 2 for s in settled)  # an odd weight, settled


@pytest.mark.parametrize("speed", ["-1", "nan", "inf", "fast"])
def test_a_speed_that_is_no_pace_is_refused_with_what_to_give(speed, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "faro_pi", "sim", "--speed", speed, "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "faro-pi sim: error: argument --speed: " in done.stderr
    assert "0 deals as fast as it can" in done.stderr or "is not a number" in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing played


def test_the_printed_replay_command_is_this_faro_pi(tmp_path, monkeypatch):
    """``make sim`` runs .venv/bin/faro-pi, which is on no PATH: the line printed to replay
    the night names it so; an installed one (found on PATH) is plain faro-pi."""
    from faro_pi.sim.run import this_command

    local = tmp_path / ".venv" / "bin"
    local.mkdir(parents=True)
    (local / "faro-pi").write_text("#!/bin/sh\n")
    (local / "faro-pi").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    assert this_command(".venv/bin/faro-pi") == ".venv/bin/faro-pi"
    monkeypatch.setenv("PATH", f"{local}:/usr/bin:/bin")
    assert this_command(str(local / "faro-pi")) == "faro-pi"
    assert this_command("/x/faro_pi/__main__.py") == f"{sys.executable} -m faro_pi"


class _Hardware:
    """What the live view reads of the simulated table: the OLED, the case keeper, faults."""

    def __init__(self, faults: list[dict]):
        self.record = type("Record", (), {"faults": faults, "cards": [None] * 30})()
        image = Image.new("1", (128, 64))
        for x in range(128):
            image.putpixel((x, x // 2), 1)
        self.oled = type("Oled", (), {"image": lambda _: image})()
        self.chain = type("Chain", (), {"grid": lambda _: ["1011" * 3 + "1"] * 4})()


def test_the_live_view_fits_a_terminal_of_80_by_24():
    from rich.console import Console

    from faro_pi.sim.screen import FIT

    names = [f"Player{n}" + "é" * n for n in range(9)] + ["A long banker's name, 24"]
    table = Table()
    table.apply(event_from_json({"type": "session", "seats": names, "banker": names[-1]}))
    for code in ("2C", "9H", "9S"):
        table.apply(CardDrawn(event_from_json({"type": "card", "card": code}).card))
    table.apply(event_from_json({"type": "alarm", "kind": "noread", "text": "a card " * 20}))
    faults = [{"step": n, "fault": "noise", "text": "x" * 90} for n in range(8)]
    screen = LiveScreen(io.StringIO(), total=104)
    screen.link("http://127.0.0.1:8077/?token=" + "t" * 43)
    width, height = FIT
    terminal = Console(file=io.StringIO(), width=width, height=height, legacy_windows=False)
    lines = terminal.render_lines(screen.render(table, _Hardware(faults)), pad=False)
    text = ["".join(segment.text for segment in line) for line in lines]
    assert len(text) <= height, "\n".join(text)
    assert max(terminal.measure(line).maximum for line in text) <= width
    shown = "\n".join(text)
    assert any("\u2800" < c <= "\u28ff" for c in shown)  # the OLED, in braille
    assert "turn 1: 9♥ loses, 9♠ wins split" in shown and "alarm: a card" in shown
    assert "…" in shown  # ten seats do not fit two lines: the rest is cut, and says so
    assert f"page: http://127.0.0.1:8077/?token={'t' * 43}" in shown
    assert "30 of 104 cards" in shown


def test_the_sim_with_its_console_keeps_the_table_up_and_prints_the_page_link(tmp_path):
    import signal

    import httpx

    from tests.ports import free_port

    port, out = free_port(), tmp_path / "out"
    command = ["sim", "--console", "--port", str(port), "--speed", "0", "--out", str(out)]
    sim = subprocess.Popen(
        [sys.executable, "-m", "faro_pi.cli", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        link = sim.stdout.readline()
        assert link.startswith("the lookout's page: http://127.0.0.1:"), link
        url, token = link.split(": ", 1)[1].strip().split("/?token=")
        assert url == f"http://127.0.0.1:{port}" and len(token) >= 43
        for line in sim.stdout:  # the demo deals its pack; then the table stays up
            if line.startswith("card 52:"):
                break
        state = httpx.get(f"{url}/api/state").json()
        assert state["seats"] == list(scenario.DEMO_SEATS) and state["pack"]["complete"]
        auth = {"Authorization": f"Bearer {token}"}
        answer = httpx.post(f"{url}/api/events", json={"type": "close"}, headers=auth)
        assert answer.status_code == 200, answer.text  # the lookout's entries are taken
        assert httpx.get(f"{url}/api/state").json()["seats"] == []
        sim.send_signal(signal.SIGTERM)
        _, errors = sim.communicate(timeout=30)
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.communicate()
    assert sim.returncode == 0, errors
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == 0 and summary["balances"] == {}  # the night closed from the API
    assert json.loads((out / "events.jsonl").read_text().splitlines()[-1]) == {"type": "close"}
    assert "[console]\nenabled = true" in (out / "config.toml").read_text()
