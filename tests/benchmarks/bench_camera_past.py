"""The camera reader just past its contract: views it must say no-read to rather than guess.

Each held-out design (training/designs.py, TEST_GROUPS) is viewed in each kind of
``past.KINDS``: a card being drawn off the next, smeared by its motion; the top card held
still 25–65 % off the next; glare on both index corners; a card's back; an empty box with
a glare spot; light ×0.3 and ×2.0; a card turned up to 15°; up to 20 % off centre. Read
untaught and taught (``teach`` on the design's 52 faces). Wrong is a card named that is
not the card on top (nor, for two cards, the card below); any card named for a back or
an empty box.

Goal: ≤ 0.2 % wrong, taught or not, over all of them.

    .venv/bin/python -m tests.benchmarks.bench_camera_past [VIEWS_OF_A_KIND]
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from faro_pi.camera import past
from faro_pi.camera.recognise import Recogniser
from faro_pi.camera.teach import teach
from faro_pi.game.cards import CARD_BY_CODE
from tests import decks
from training import designs

WORKERS = min(2, os.cpu_count() or 1)


def tally(recogniser: Recogniser, faces: dict, rng, views: int) -> dict:
    counts = {kind: {"right": 0, "wrong": 0, "noread": 0} for kind in past.KINDS}
    codes = list(faces)
    wrongs = []
    for kind in past.KINDS:
        for _ in range(views):
            top, below = (codes[i] for i in rng.choice(len(codes), 2, replace=False))
            still = past.view(kind, faces[top], faces[below], rng)
            card = recogniser.read(still).card
            fair = () if kind in past.NO_CARD else (top, below) if kind in past.TWO else (top,)
            if card is None:
                counts[kind]["noread"] += 1
            elif card.code in fair:
                counts[kind]["right"] += 1
            else:
                counts[kind]["wrong"] += 1
                wrongs.append(f"{kind}: {top} over {below} read {card.code}")
    return {"counts": counts, "wrongs": wrongs}


def design(job: tuple[int, str, int]) -> tuple[str, dict, dict]:
    seed, name, views = job
    reader = Recogniser.load()
    rng = np.random.default_rng(seed)
    faces = decks.held_out(name).cards
    unseen = tally(reader, faces, rng, views)
    reader.taught = teach(reader, {CARD_BY_CODE[c]: f for c, f in faces.items()}, rng)
    return name, unseen, tally(reader, faces, rng, views)


def line(label: str, counts: dict) -> str:
    n = sum(counts.values())
    return (
        f"{label:<34} wrong {counts['wrong']:3d}  right {counts['right']:3d}  "
        f"noread {counts['noread']:3d}  (n={n})"
    )


def main(views: int = 20) -> None:
    names = [d.name for d in designs.split()["test"]]
    print(f"just past the contract: {views} views of each kind on {len(names)} held-out designs")
    total = {mode: {k: {"right": 0, "wrong": 0, "noread": 0} for k in past.KINDS}
             for mode in ("untaught", "taught")}  # fmt: skip
    jobs = [(4040 + i, name, views) for i, name in enumerate(names)]
    with ProcessPoolExecutor(WORKERS) as pool:
        for name, unseen, taught in pool.map(design, jobs):
            for mode, result in (("untaught", unseen), ("taught", taught)):
                for wrong in result["wrongs"]:
                    print(f"  {name} {mode} wrong: {wrong}")
                mine = {key: 0 for key in ("right", "wrong", "noread")}
                for kind, counts in result["counts"].items():
                    for key, n in counts.items():
                        total[mode][kind][key] += n
                        mine[key] += n
                print(line(f"{name} {mode}", mine), flush=True)
    for mode in ("untaught", "taught"):
        for kind in past.KINDS:
            print(line(f"{mode} {kind}", total[mode][kind]))
        all_ = {
            key: sum(total[mode][k][key] for k in past.KINDS)
            for key in ("right", "wrong", "noread")
        }
        n = sum(all_.values())
        print(line(f"{mode} all", all_) + f"   wrong {all_['wrong'] / n:.2%} (goal ≤ 0.2 %)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
