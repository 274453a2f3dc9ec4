"""Live deals through ``faro-pi camera watch``: cards right, no-reads, wrong, sent twice, silent.

Each held-out design (training/designs.py, TEST_GROUPS: never seen in training or
calibration) is dealt as a whole pack off the box at 15 frames a second, once for each
scene of ``faro_pi.virtual.dealing.SCENES``: the plain deal (each card slid off the next,
smeared as it moves), dealer pauses mid-slide (the top card stopped 30–65 % off the next
for 4–8 frames), a hand reaching over the box, the top card held still half off the next
for two seconds, and a lamp flickering ±10–30 % at 100 or 50 Hz in a rolling shutter's
bands. The frames are written as a folder of JPEGs and played through ``faro-pi camera
watch`` as a club would play a recording, untaught and with the design taught (``camera
teach --views 2`` on its 52 faces). Each decision is set against the card that lay
uncovered when it was made.

Goals: 0 wrong, 0 silent, 0 sent twice in every scene; no-reads ≤ 5 % of a plain deal;
flicker read, or alarmed within 3 s.

    .venv/bin/python -m tests.benchmarks.bench_camera_deal [SCENE ...]
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from faro_pi.cli import main as faro_pi
from faro_pi.game.cards import CARD_BY_CODE, DECK
from faro_pi.virtual import dealing
from tests import decks
from training import designs

WORKERS = min(2, os.cpu_count() or 1)


def said(*args: str) -> list[str]:
    """What ``faro-pi ARGS`` prints, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        faro_pi(list(args))
    return out.getvalue().splitlines()


def watched(dealt: dealing.Deal, folder: Path, deck: Path | None) -> dealing.Tally:
    for i, frame in enumerate(dealt.frames):
        cv2.imwrite(str(folder / f"{i:05d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    taught = ("--deck", str(deck)) if deck else ()
    decisions = []
    for line in said("camera", "watch", *taught, str(folder)):
        seconds, *what = line.split()
        decisions.append((float(seconds), what[0] if what[0] != "alarm" else " ".join(what)))
    return dealing.tally(dealt, decisions)


def design(job: tuple[int, str, tuple[str, ...]]) -> list[tuple[str, str, dealing.Tally]]:
    seed, name, scenes = job
    faces = {CARD_BY_CODE[c]: f for c, f in decks.held_out(name).cards.items()}
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        deck = Path(tmp) / "deck"
        folder = decks.folder(name)
        said("camera", "teach", "--views", "2", "--deck", str(deck),
             *(str(folder / f"{card.code}.png") for card in DECK))  # fmt: skip
        for k, scene in enumerate(scenes):
            rng = np.random.default_rng(seed * 100 + k)
            order = list(DECK)
            rng.shuffle(order)
            dealt = dealing.deal(faces, order, scene, rng)
            for mode, taught in (("untaught", None), ("taught", deck)):
                frames = Path(tmp) / f"{scene}-{mode}"
                frames.mkdir()
                out.append((scene, mode, watched(dealt, frames, taught)))
    return [(name, *row) for row in out]


def line(label: str, t: dealing.Tally) -> str:
    first = f"   first alarm {t.alarms[0][1]} at {t.alarms[0][0]:.1f} s" if t.alarms else ""
    return (
        f"{label:<34} right {t.right:3d}  noread {t.noread:2d}  wrong {t.wrong}  "
        f"twice {t.twice}  silent {t.silent}  alarms {len(t.alarms)}{first}"
    )


def main(scenes: list[str]) -> None:
    scenes = tuple(scenes or dealing.SCENES)
    names = [d.name for d in designs.split()["test"]]
    print(f"live deals: {len(names)} held-out designs × {', '.join(scenes)}, a pack a deal")
    totals: dict[tuple[str, str], dealing.Tally] = {}
    jobs = [(2026 + i, name, scenes) for i, name in enumerate(names)]
    with ProcessPoolExecutor(WORKERS) as pool:
        for rows in pool.map(design, jobs):
            for name, scene, mode, t in rows:
                print(line(f"{name} {scene} {mode}", t), flush=True)
                totals[scene, mode] = totals.get((scene, mode), dealing.Tally()) + t
    print("all designs:")
    for (scene, mode), t in totals.items():
        print(line(f"  {scene} {mode}", t))
    print("goals: wrong 0, twice 0, silent 0; noread ≤ 5 % of a plain deal; flicker alarm ≤ 3 s")


if __name__ == "__main__":
    main(sys.argv[1:])
