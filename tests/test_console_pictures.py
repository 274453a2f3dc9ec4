"""The camera's stills on the lookout's phone (``faro_pi/console/pictures.py``): a card's
still from the history, a no-read settled with one tap, the camera's view to aim it.

The table is the daemon on its virtual reader; the camera's side is played by writing into
the pictures' folder what ``faro-pi camera run`` writes there before each frame (its own
tests are ``tests/test_pictures.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time

import numpy as np

from faro_pi.camera.pictures import Stills, aiming
from faro_pi.console.pictures import night_pictures
from faro_pi.game.cards import parse_card
from faro_pi.pictures import WANTED_FOR, Folder
from faro_pi.virtual.camera import VirtualCamera, load_design
from tests import decks
from tests.conftest import until
from tests.test_console import console_config, console_table

STILL = b"\xff\xd8 the king of diamonds as it lay \xff\xd9"
NOREAD = b"\xff\xd8 a card askew under glare \xff\xd9"


async def from_the_camera(lookout, code: str | None, still: bytes, likely=None) -> None:
    """What the camera reader does: the still into the folder, then the frame."""
    folder = Folder(lookout.daemon.config.camera.pictures)
    folder.put_pending(lookout.reader.sender.next_seq(), still, likely)
    rows = lookout.daemon.journal.count()
    if code is None:
        lookout.reader.no_read()
    else:
        lookout.reader.card(code)
    await until(lookout.daemon, lambda _: lookout.daemon.journal.count() > rows)


def last_row(daemon, kind: str) -> dict:
    return [e.event for e in daemon.journal.rows() if e.event["type"] == kind][-1]


def test_a_cards_still_is_served_to_a_logged_in_phone_and_named_only_by_its_hash(tmp_path):
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            await from_the_camera(lookout, "KD", STILL)
            picture = last_row(lookout.daemon, "card")["picture"]
            assert picture == hashlib.sha256(STILL).hexdigest()
            http, auth = lookout.http, lookout.auth

            answer = await http.get(f"/api/pictures/{picture}.jpg", headers=auth)
            assert answer.status_code == 200
            assert answer.headers["content-type"] == "image/jpeg"
            assert answer.content == STILL
            listed = (await http.get("/api/pictures", headers=auth)).json()
            assert listed == {"cards": [{"pack": 1, "card": "KD", "picture": picture}]}

            for path in (f"/api/pictures/{picture}.jpg", "/api/pictures", "/api/camera/view.jpg"):
                refused = await http.get(path)  # no token, no session cookie
                assert refused.status_code == 401, path
                assert STILL not in refused.content
            for name in (
                picture,  # no .jpg
                picture.upper() + ".jpg",
                picture[:-1] + ".jpg",
                "..%2Fjournal.sqlite3",
                "journal.sqlite3",
                f"{picture}.jpg.part",
            ):
                answer = await http.get(f"/api/pictures/{name}", headers=auth)
                assert answer.status_code == 404, name
                assert answer.json()["error"]  # said, and no file read
            gone = await http.get(f"/api/pictures/{'0' * 64}.jpg", headers=auth)
            assert gone.status_code == 404 and "no longer kept" in gone.json()["error"]

            # The page lists the night's cards after a restart as it did before it.
            assert night_pictures(lookout.daemon) == {(1, "KD"): picture}

    asyncio.run(scenario())


def test_a_no_read_shows_its_still_and_likeliest_cards_and_a_tap_enters_one_once(tmp_path):
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            await lookout.deal("2C")
            likely = [("KD", 0.55), ("KH", 0.3), ("2C", 0.1)]
            await from_the_camera(lookout, None, NOREAD, likely)
            picture = hashlib.sha256(NOREAD).hexdigest()
            (alarm,) = (await lookout.state())["alarms"]
            assert (alarm["kind"], alarm["picture"]) == ("noread", picture)
            assert alarm["likely"] == ["KD", "KH", "2C"]

            # The tap on the king of diamonds: the card by hand, naming the no-read's still.
            await lookout.enter({"type": "card", "card": "KD", "picture": picture})
            row = last_row(lookout.daemon, "card")
            assert row == {"type": "card", "card": "KD", "source": "hand", "picture": picture}
            assert (await lookout.state())["alarms"] == []
            listed = (await lookout.http.get("/api/pictures", headers=lookout.auth)).json()
            assert {"pack": 1, "card": "KD", "picture": picture} in listed["cards"]

            # A second phone's tap on that no-read, late: refused, the card not entered.
            await lookout.refused({"type": "card", "card": "KH", "picture": picture}, "picture")
            assert [c.code for c in lookout.daemon.table.pack.exposed] == ["2C", "KD"]

    asyncio.run(scenario())


def test_the_camera_writes_its_view_only_while_the_page_asks_for_it(tmp_path):
    console_config(tmp_path)
    camera = VirtualCamera(load_design(decks.folder("bellot")), np.random.default_rng(5))
    frame = (camera.still(parse_card("7H")) * 0.8).astype(np.uint8)  # lit as the contract says
    now = [1000.0]

    async def scenario():
        async with console_table(tmp_path) as lookout:
            folder = Folder(lookout.daemon.config.camera.pictures)
            stills = Stills(folder, None, clock=lambda: now[0])
            http, auth = lookout.http, lookout.auth
            stills.frame(frame)
            assert not (folder.path / "view.jpg").exists()  # nobody asked

            asked = await http.get("/api/camera/view.jpg", headers=auth)
            assert asked.status_code == 503 and "no view from the camera yet" in asked.text
            for _ in range(15):  # a second of frames: one view
                now[0] += 1 / 15
                stills.frame(frame)
            answer = await http.get("/api/camera/view.jpg", headers=auth)
            assert answer.status_code == 200
            assert answer.content[:2] == b"\xff\xd8"
            assert answer.headers["x-light"].startswith("card found, paper ")
            assert answer.headers["cache-control"] == "no-store"

            # Asked no more (the dialog closed): within seconds the camera stops writing.
            (folder.path / "view.jpg").unlink()
            past = time.time() - WANTED_FOR - 1
            os.utime(folder.path / "view.wanted", (past, past))
            for _ in range(45):
                now[0] += 1 / 15
                stills.frame(frame)
            assert not (folder.path / "view.jpg").exists()

    asyncio.run(scenario())


def test_the_view_says_what_is_wrong_with_the_light_as_the_doctor_does():
    camera = VirtualCamera(load_design(decks.folder("bellot")), np.random.default_rng(5))
    lit = camera.still(parse_card("7H"))  # exposed as a club sets it: the paper under white
    jpeg, said = aiming(lit)
    assert jpeg[:2] == b"\xff\xd8" and said.startswith("card found")
    _, said = aiming(np.clip(lit * 1.25, 0, 255).astype(np.uint8))
    assert said.startswith("the card is washed out") and "less light" in said
    _, said = aiming((lit * 0.4).astype(np.uint8))
    assert said.startswith("the card is too dark") and "more light" in said
    _, said = aiming(np.full_like(lit, 30))
    assert said.startswith("no card found in the box")


def test_a_deck_is_asked_for_from_the_page_and_its_progress_read_back_logged_in_only(tmp_path):
    """The console's end of teaching a deck: the ask goes into the pictures' folder for the
    camera reader (whose end is ``tests/test_camera_lesson.py``, played here by hand), and
    what the camera says of it comes back; a stranger can do neither."""
    console_config(tmp_path)

    async def scenario():
        async with console_table(tmp_path) as lookout:
            folder = Folder(lookout.daemon.config.camera.pictures)
            http, auth = lookout.http, lookout.auth
            path = "/api/camera/teach"
            assert (await http.get(path)).status_code == 401
            assert (await http.post(path, json={"deck": "red"})).status_code == 401
            assert not (folder.path / "teach.wanted").exists()
            assert (await http.get(path, headers=auth)).json() == {"state": "none"}

            for body in ({"deck": "../journal"}, {"deck": "Red Deck"}, {"name": "red"}, [1]):
                refused = await http.post(path, json=body, headers=auth)
                assert refused.status_code == 400 and refused.json()["error"], body
            plain = await http.post(path, content=b'{"deck": "red"}', headers=auth)
            assert plain.status_code == 415
            other = {**auth, "Origin": "http://elsewhere.example:9999"}
            foreign = await http.post(path, json={"deck": "red"}, headers=other)
            assert foreign.status_code == 403 and foreign.json()["rule"] == "origin"
            assert not (folder.path / "teach.wanted").exists()

            asked = await http.post(path, json={"deck": "red"}, headers=auth)
            assert asked.status_code == 202 and asked.json() == {"state": "none", "asked": True}
            taken = folder.teaching_asked()  # the camera takes the ask, and deals
            assert taken["deck"] == "red"
            said = "12 of 52: QS taken; next KS"
            folder.put_teaching({"state": "dealing", "deck": "red", "refused": {}, "said": said})
            progress = (await http.get(path, headers=auth)).json()
            assert (progress["state"], progress["said"]) == ("dealing", said)
            again = await http.post(path, json={"deck": "blue"}, headers=auth)
            assert again.status_code == 409 and "red is being taught" in again.json()["error"]

            cancel = await http.post(path, json={"cancel": True}, headers=auth)
            assert cancel.status_code == 202
            assert folder.teaching_asked()["cancel"] is True

            # A camera that stops saying anything is named, not waited on for ever.
            said = json.loads((folder.path / "teach.json").read_bytes())
            said["at"] = time.time() - 60
            (folder.path / "teach.json").write_text(json.dumps(said))
            stale = (await http.get(path, headers=auth)).json()
            assert "stopped answering" in stale["error"]
            assert (await http.post(path, json={"deck": "blue"}, headers=auth)).status_code == 202
            past = time.time() - 60
            os.utime(folder.path / "teach.wanted", (past, past))
            untaken = (await http.get(path, headers=auth)).json()
            assert "has not taken the ask" in untaken["error"]

    asyncio.run(scenario())
