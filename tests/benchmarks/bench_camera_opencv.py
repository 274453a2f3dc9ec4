"""The camera reader on Raspberry Pi OS Bookworm's OpenCV (4.6.0) against the virtualenv's:
the same views, read on each, give the same cards, and how far apart their confidences are.

Views of each held-out design (training/designs.py, TEST_GROUPS) within the contract, in
the training's wider ranges and in each kind of ``past.KINDS``, drawn once here and read
here and in a child Python on 4.6.0 (:mod:`tests.old_opencv`). A confidence near the
threshold (0.995) that hung on the OpenCV installed would make a card on one a no-read on
the other.

Goal: the same card (or no-read) for every view; confidences within 0.01.

    .venv/bin/python -m tests.benchmarks.bench_camera_opencv [VIEWS_OF_A_KIND]
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from faro_pi.camera import past, scene
from faro_pi.camera.recognise import Recogniser
from tests import decks, old_opencv
from training import designs

KINDS = ("contract", "wide", *past.KINDS)

CHILD = """
import json, sys
import cv2, numpy as np
from tests.benchmarks.bench_camera_opencv import reads
print(json.dumps([cv2.__version__, reads(dict(np.load(sys.argv[1])))]))
"""


def drawn(views: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(4610)
    cv2.setRNGSeed(4610)  # the sensor's noise is OpenCV's
    out = {}
    for name in (d.name for d in designs.split()["test"]):
        faces = decks.held_out(name).cards
        codes = list(faces)
        for kind in KINDS:
            for i in range(views):
                top, below = (faces[codes[j]] for j in rng.choice(len(codes), 2, replace=False))
                if kind == "contract":
                    still = scene.view(top, rng)
                elif kind == "wide":
                    still = scene.view(top, rng, scene.STILLS[i % len(scene.STILLS)], wide=True)
                else:
                    still = past.view(kind, top, below, rng)
                out[f"{name}/{kind}/{i:03d}"] = still
    return out


def reads(views: dict[str, np.ndarray]) -> dict[str, list]:
    """Each view's card (or None) and confidence, by view."""
    reader = Recogniser.load()
    return {
        name: [r.card and r.card.code, r.confidence]
        for name, r in ((name, reader.read(views[name])) for name in sorted(views))
    }


def main(views: int = 10) -> None:
    stills = drawn(views)
    print(f"{len(stills)} views: {views} of each kind of {len(KINDS)} on each held-out design")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "views.npz"
        np.savez(path, **stills)
        ran = subprocess.run(
            [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True,
            env=old_opencv.environ(), cwd=old_opencv.ROOT, check=True,
        )  # fmt: skip
    oldest, theirs = json.loads(ran.stdout.splitlines()[-1])
    mine = reads(stills)
    print(f"OpenCV {oldest} against {cv2.__version__}:")
    for kind in KINDS:
        names = [n for n in mine if n.split("/")[1] == kind]
        print(line(kind, names, theirs, mine))
    print(line("all", list(mine), theirs, mine))


def line(label: str, names: list[str], theirs: dict, mine: dict) -> str:
    equal = sum(theirs[n][0] == mine[n][0] for n in names)
    apart = max(abs(theirs[n][1] - mine[n][1]) for n in names)
    counted = f"{equal:4d}/{len(names):<4d}"
    return f"  {label:<18} cards equal {counted}  confidences {apart:.4f} apart at most"


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
