"""The camera's pictures of the cards: the folder the camera reader and the daemon share.

fsp1's frames carry no picture (other readers parse them), so the picture of frame SEQ
travels beside it, in the folder ``camera.pictures`` names (``pictures`` beside the
journal: ``/var/lib/faro-pi/pictures`` on a table, both services' state folder):

- ``pending/SEQ.jpg``: the card as it lay, the still the camera reader read, written
  (atomically) before it sends frame SEQ, a ``C`` or an ``N``; for a no-read also
  ``pending/SEQ.json``, its likeliest cards and their scores. The reader clears
  ``pending/`` when it starts, before its hello numbers frames from 1 again.
- ``<sha256>.jpg``: kept by the daemon as it journals frame SEQ, named by its content;
  the card's (or the no-read's) row carries the hash, and the pending files go. The
  newest :data:`KEEP` are kept; a row whose picture has gone is not an error.
- ``view.wanted`` and ``view.jpg``: the aiming view. The console touches the first;
  while it is fresher than :data:`WANTED_FOR` seconds the camera writes the second, a
  still a second with the card's outline and the light's verdict.
- ``teach.wanted`` and ``teach.json``: a new deck taught from the lookout's page. The
  console writes the first (the deck's name, or a cancel); the camera takes it away as
  it acts on it, deals the deck through the box to the teacher rather than the table,
  and says how far it is, and at the end what it taught where, in the second.

A picture that is not there is no picture, never an error: a Pico reader writes none.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import time
from pathlib import Path
from typing import NamedTuple

KEEP = 1000
"""Pictures kept, the newest: about 20 packs, some 25 MB at about 25 kB a still."""
WANTED_FOR = 10.0
"""Seconds the camera writes the aiming view after the console last asked for it."""
PENDING = 64
"""The most stills pending: the camera's link queues no more frames than this unanswered,
so a still further back is of a frame answered (or dropped) long since."""
LIKELY = 3
"""The most cards a no-read names as its likeliest."""
PICTURE = re.compile(r"[0-9a-f]{64}")
"""A kept picture's name: its SHA-256 in lowercase hex."""
DECK_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
"""A deck taught from the page: its folder's name under the decks' folder."""


class Kept(NamedTuple):
    """What the daemon took of frame SEQ's pending files."""

    picture: str
    """The still's SHA-256, the name it is kept under."""
    likely: tuple[str, ...]
    """A no-read's likeliest cards' codes, the likeliest first (none for a card)."""


def _put(path: Path, data: bytes) -> None:
    """``data`` into ``path`` whole or not at all: a reader never sees half a file."""
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_bytes(data)
    os.replace(temporary, path)


class Folder:
    """The pictures' folder, from either end: the camera reader's and the daemon's."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.pending = self.path / "pending"

    # -- the camera reader's end ------------------------------------------------------

    def clear_pending(self) -> None:
        """Forgets every pending picture: a reader starting numbers its frames from 1 again."""
        self.pending.mkdir(parents=True, exist_ok=True)
        for entry in os.scandir(self.pending):
            if entry.is_file(follow_symlinks=False):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)

    def put_pending(
        self, seq: int, jpeg: bytes, likely: list[tuple[str, float]] | None = None
    ) -> None:
        """Frame ``seq``'s still, and for a no-read its likeliest cards (code, score)."""
        self.pending.mkdir(parents=True, exist_ok=True)
        if likely is not None:
            scored = [[code, round(float(score), 4)] for code, score in likely[:LIKELY]]
            _put(self.pending / f"{seq}.json", json.dumps({"likely": scored}).encode())
        _put(self.pending / f"{seq}.jpg", jpeg)
        self.settled((seq - PENDING) % 65536)  # fsp1 wraps there; a board at the shoe has no daemon

    # -- the daemon's end ------------------------------------------------------------

    def keep(self, seq: int) -> Kept | None:
        """Frame ``seq``'s still kept under its hash, with a no-read's likeliest cards; None
        when the reader left none. Raises OSError when the folder cannot be written."""
        try:
            jpeg = (self.pending / f"{seq}.jpg").read_bytes()
        except FileNotFoundError:
            return None
        picture = hashlib.sha256(jpeg).hexdigest()
        kept = self.path / f"{picture}.jpg"
        if kept.exists():
            os.utime(kept)  # the newest again, for the pruning
        else:
            _put(kept, jpeg)
        return Kept(picture, self._likely(seq))

    def _likely(self, seq: int) -> tuple[str, ...]:
        try:
            said = json.loads((self.pending / f"{seq}.json").read_bytes())
            return tuple(str(code) for code, _ in said["likely"][:LIKELY])
        except (OSError, ValueError, KeyError, TypeError):
            return ()

    def settled(self, seq: int) -> None:
        """Frame ``seq`` is journaled: its pending files go."""
        for suffix in (".jpg", ".json"):
            with contextlib.suppress(OSError):  # left, it goes when the reader next starts
                os.unlink(self.pending / f"{seq}{suffix}")

    def prune(self, keep: int = KEEP) -> int:
        """Deletes all but the newest ``keep`` pictures; returns how many went."""
        try:
            found = [
                (entry.stat().st_mtime, entry.path)
                for entry in os.scandir(self.path)
                if entry.name.endswith(".jpg") and PICTURE.fullmatch(entry.name[:-4])
            ]
        except FileNotFoundError:
            return 0
        found.sort(reverse=True)
        for _, path in found[keep:]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        return max(0, len(found) - keep)

    def picture(self, picture: str) -> Path | None:
        """Where the picture named ``picture`` is kept; None for a name that is not a hash."""
        return self.path / f"{picture}.jpg" if PICTURE.fullmatch(picture) else None

    def check(self, picture: str) -> bool | None:
        """Whether the kept picture is still what its row's hash says; None when it has
        been pruned (or was never kept)."""
        path = self.picture(picture)
        try:
            data = path.read_bytes() if path is not None else None
        except FileNotFoundError:
            return None
        return data is not None and hashlib.sha256(data).hexdigest() == picture

    # -- the aiming view ---------------------------------------------------------------

    def want_view(self) -> None:
        """The console asks for the aiming view for the next :data:`WANTED_FOR` seconds."""
        self.path.mkdir(parents=True, exist_ok=True)
        wanted = self.path / "view.wanted"
        wanted.touch()
        os.utime(wanted)

    def view_wanted(self, now: float | None = None) -> bool:
        """Whether the console asked for the view within :data:`WANTED_FOR` seconds."""
        try:
            asked = (self.path / "view.wanted").stat().st_mtime
        except OSError:
            return False
        return (time.time() if now is None else now) - asked < WANTED_FOR

    def put_view(self, jpeg: bytes, light: str) -> None:
        """The aiming view, and the light's verdict on it."""
        _put(self.path / "view.json", json.dumps({"light": light, "at": time.time()}).encode())
        _put(self.path / "view.jpg", jpeg)

    def view(self, fresh: float = WANTED_FOR) -> tuple[bytes, str] | None:
        """The aiming view and its light's verdict if the camera wrote them in the last
        ``fresh`` seconds; None if not."""
        try:
            said = json.loads((self.path / "view.json").read_bytes())
            if time.time() - float(said["at"]) > fresh:
                return None
            return (self.path / "view.jpg").read_bytes(), str(said["light"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    # -- a deck taught from the page ---------------------------------------------------

    def ask_teaching(self, asked: dict) -> None:
        """The console asks the camera to teach a deck (``{"deck": NAME}``), or to stop
        (``{"cancel": true}``); a newer ask takes the place of one not yet acted on."""
        self.path.mkdir(parents=True, exist_ok=True)
        _put(self.path / "teach.wanted", json.dumps({**asked, "at": time.time()}).encode())

    def teaching_asked(self) -> dict | None:
        """What the console asked of the camera, taken away as it is read; None if nothing
        (or nothing that is JSON: such an ask is dropped)."""
        path = self.path / "teach.wanted"
        try:
            data = path.read_bytes()
            os.unlink(path)
            asked = json.loads(data)
        except (OSError, ValueError):
            return None
        return asked if isinstance(asked, dict) else None

    def put_teaching(self, progress: dict) -> None:
        """How far the camera is with the deck it is taught, for the page."""
        _put(self.path / "teach.json", json.dumps({**progress, "at": time.time()}).encode())

    def teaching(self) -> dict:
        """What the camera said last of the deck taught (``{}``: nothing), with ``asked``
        when an ask waits that the camera has not taken yet: when it was made."""
        try:
            said = json.loads((self.path / "teach.json").read_bytes())
        except (OSError, ValueError):
            said = None
        said = said if isinstance(said, dict) else {}
        try:
            return {**said, "asked": (self.path / "teach.wanted").stat().st_mtime}
        except OSError:
            return said
