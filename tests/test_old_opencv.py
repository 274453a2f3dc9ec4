"""The camera reader on Raspberry Pi OS Bookworm's OpenCV (4.6.0) as on the virtualenv's
newest: the shipped model loads, and the same views give the same cards, each as surely
within ``AGREE``. Bookworm's python3-opencv is what an installed table's camera reader
imports (``--system-site-packages``); the model once failed to load there, on every image.

Each test runs the reader in a child Python that imports the oldest OpenCV (see
:mod:`tests.old_opencv`) and compares what it says with what this process, on the
newest, says of the same input."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys

import cv2
import numpy as np
import pytest

from faro_pi import cli
from faro_pi.camera import command, finder, past, scene
from faro_pi.camera.recognise import Recogniser
from faro_pi.game.cards import DECK
from tests import decks, old_opencv

AGREE = 0.01
"""How far the two versions' confidences in one view may differ: the threshold (0.995)
must mean the same on each, so that a view read on one is not a no-read on the other."""
DESIGNS = ("plastic", "bellot", "neoclassical_4", "standard")
"""Held-out designs, plastic the one read least surely: views near the threshold."""
NEAR_THE_THRESHOLD = ((99, "glare_on_indices"), (170, "askew"))
"""Seeds and kinds of two views of plastic where OpenCV 4's own warp moved the confidence:
0.06 apart, and a card on 5.1 that was a no-read on 4.6."""


CHILD = """
import json, sys
import cv2, numpy as np
print(json.dumps([cv2.__version__, cv2.__file__, np.__version__]), flush=True)
from tests.test_old_opencv import made_of
reads, cuts = made_of(dict(np.load(sys.argv[1])))
np.savez(sys.argv[2], **cuts)
print(json.dumps(reads))
"""


def made_of(views: dict[str, np.ndarray]) -> tuple[list, dict[str, np.ndarray]]:
    """What the reader makes of each view: its card and confidence, and the finder's cuts
    (the face, the two index strips, the sharper face) by view and part."""
    reader, reads, cuts = Recogniser.load(), [], {}
    for name in sorted(views):
        reading = reader.read(views[name])
        reads.append([reading.card and reading.card.code, reading.confidence])
        cut = finder.find(views[name])
        if cut is not None:
            parts = {"face": cut.face, "detail": cut.detail}
            parts |= {"top": cut.strips[0], "bottom": cut.strips[1]}
            cuts |= {f"{name}-{part}": image for part, image in parts.items()}
    return reads, cuts


FARO_PI = """
import json, runpy, sys
import cv2, numpy
print(json.dumps([cv2.__version__, cv2.__file__, numpy.__version__]), flush=True)
sys.argv[0] = "faro-pi"
runpy.run_module("faro_pi", run_name="__main__")
"""
"""``faro-pi`` itself, saying first which OpenCV and numpy it imports."""


def on_the_oldest(*args: str, script: str = CHILD) -> list[str]:
    """The lines a child Python on the oldest OpenCV prints running ``script`` with
    ``args``; the first says which OpenCV it imported."""
    ran = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True,
        env=old_opencv.environ(), cwd=old_opencv.ROOT, timeout=300,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-3000:]
    return ran.stdout.splitlines()


def is_the_oldest(line: str) -> None:
    version, where, numpy = json.loads(line)
    assert version == old_opencv.OLDEST and where.startswith(str(old_opencv.folder()))
    assert numpy.startswith("1.24.")


@pytest.fixture(scope="module")
def views(tmp_path_factory) -> dict[str, np.ndarray]:
    """Views of held-out designs in every kind of ``past.KINDS`` and within the contract,
    the reader's degraded views among them, drawn here once for both versions to read."""
    rng = np.random.default_rng(46)
    cv2.setRNGSeed(46)  # the sensor's noise is OpenCV's: the same views in every process
    kinds = ("contract", *past.KINDS)
    drawn = {}
    for name in DESIGNS:
        faces = decks.held_out(name).cards
        codes = list(faces)
        for kind in kinds:
            top, below = (faces[codes[i]] for i in rng.choice(len(codes), 2, replace=False))
            still = scene.view(top, rng) if kind == "contract" else past.view(kind, top, below, rng)
            drawn[f"{name}-{kind}"] = still
    faces = decks.held_out("plastic").cards
    codes = list(faces)
    for seed, kind in NEAR_THE_THRESHOLD:
        rng = np.random.default_rng(seed)
        cv2.setRNGSeed(seed)
        top, below = (faces[codes[i]] for i in rng.choice(len(codes), 2, replace=False))
        drawn[f"plastic-{kind}-{seed}"] = past.view(kind, top, below, rng)
    return drawn


@pytest.fixture(scope="module")
def both(views, tmp_path_factory):
    """What each version makes of the views: ``(reads, cuts)`` on the oldest, then on this
    process's newest."""
    folder = tmp_path_factory.mktemp("views")
    np.savez(folder / "views.npz", **views)
    first, line = on_the_oldest(str(folder / "views.npz"), str(folder / "cuts.npz"))
    is_the_oldest(first)
    return (json.loads(line), dict(np.load(folder / "cuts.npz"))), made_of(views)


def test_the_oldest_opencv_reads_each_view_as_the_newest_and_as_surely(both):
    (oldest, _), (newest, _) = both
    assert [card for card, _ in oldest] == [card for card, _ in newest]
    apart = max(abs(a - b) for (_, a), (_, b) in zip(oldest, newest, strict=True))
    assert apart <= AGREE, f"OpenCV {cv2.__version__} and {old_opencv.OLDEST}: {apart:.4f} apart"


def test_the_finder_cuts_the_same_face_and_corners_on_either_opencv(both):
    """Only a sample that falls on a half between two grey levels may round either way:
    OpenCV 4's own warp cut a face up to 7 levels apart from OpenCV 5's, a tenth of it."""
    (_, oldest), (_, newest) = both
    assert oldest.keys() == newest.keys() and oldest
    for name, image in newest.items():
        apart = np.abs(image.astype(int) - oldest[name])
        assert apart.max() <= 1 and (apart > 0).mean() < 0.002, name


def test_camera_read_says_the_same_of_the_same_stills_on_the_oldest_opencv(views, tmp_path):
    stills = []
    for name in sorted(views)[::4]:
        stills.append(str(tmp_path / f"{name}.png"))
        cv2.imwrite(stills[-1], views[name])
    newest = io.StringIO()
    assert command.read(stills, None, out=newest) == 0
    first, *oldest = on_the_oldest("camera", "read", *stills, script=FARO_PI)
    is_the_oldest(first)
    said = [line.split() for line in newest.getvalue().splitlines()]
    assert [line[:2] for line in said] == [line.split()[:2] for line in oldest]
    confidences = [(float(a[2]), float(b.split()[2])) for a, b in zip(said, oldest, strict=True)]
    assert max(abs(a - b) for a, b in confidences) <= AGREE + 0.001  # printed to 3 places


def test_camera_read_on_a_model_the_oldest_opencv_cannot_load_says_so_in_a_line(views, tmp_path):
    """As the shipped model was before it was folded: once for the command, never a
    traceback for every image."""
    still = tmp_path / "still.png"
    cv2.imwrite(str(still), next(iter(views.values())))
    env = old_opencv.copied(tmp_path / "table", torch_wrote_it=True)
    ran = subprocess.run(
        [sys.executable, "-m", "faro_pi", "camera", "read", str(still), str(still)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    net = tmp_path / "table" / "faro_pi" / "camera" / "model.onnx"
    assert ran.returncode == 2 and ran.stdout == ""
    [said] = [line for line in ran.stderr.splitlines() if not line.startswith("[ERROR")]
    assert said.startswith(f"faro-pi camera read: {net}: OpenCV 4.6.0 cannot load the camera's")
    assert "Identity" in said


def test_a_pack_through_the_simulated_camera_reads_alike_on_either_opencv(tmp_path):
    """``faro-pi sim --camera``: the same cards sent, each as surely, on either version."""
    design = tmp_path / "design"
    design.mkdir()
    rendered = decks.folder("bellot")
    for card in DECK:
        shutil.copy(rendered / f"{card.code}.png", design / f"{card.code}.png")
    deal = ["sim", "--camera", str(design), "--seed", "11", "--speed", "0", "--out"]
    said = tmp_path / "said.txt"
    with said.open("w") as out:  # the two deal at once
        child = subprocess.Popen(
            [sys.executable, "-c", FARO_PI, *deal, str(tmp_path / "oldest")],
            stdout=out, stderr=subprocess.STDOUT, env=old_opencv.environ(), cwd=old_opencv.ROOT,
        )  # fmt: skip
        try:
            assert cli.main([*deal, str(tmp_path / "newest")]) == 0
            child.wait(timeout=300)
        finally:
            child.kill()
    first, *_ = said.read_text().splitlines()
    is_the_oldest(first)
    assert child.returncode == 0, said.read_text()[-3000:]
    oldest, newest = (
        json.loads((tmp_path / run / "summary.json").read_text())["camera"]
        for run in ("oldest", "newest")
    )
    sure = oldest.pop("confidence"), newest.pop("confidence")
    assert oldest == newest and newest["right"] > 40
    assert sure[0].keys() == sure[1].keys()
    assert max(abs(sure[0][card] - sure[1][card]) for card in sure[1]) <= AGREE
    dealt = [
        [json.loads(line)["card"] for line in (tmp_path / run / "table.jsonl").open()]
        for run in ("oldest", "newest")
    ]
    assert dealt[0] == dealt[1]
