"""The oldest OpenCV the camera reader supports beside the virtualenv's newest: Raspberry
Pi OS Bookworm's python3-opencv (4.6.0), which an installed table imports
(``--system-site-packages``), with Bookworm's numpy series (1.24, the camera extra's floor).

OpenCV 4.6's wheel was built against numpy 1.x and does not import beside numpy 2
("numpy.core.multiarray failed to import"), so the folder holds numpy 1.24 too: a child
Python with it first on ``PYTHONPATH`` imports both from there, as a Bookworm table does,
and everything else from the virtualenv.

The folder is a ``pip install --target`` inside the virtualenv (``<venv>/old-opencv/4.6.0``),
made once and kept: ``make test`` makes it before the tests (``python -m tests.old_opencv``),
and a test, or the training script's export check, that finds it missing makes it then.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
OLDEST = "4.6.0"
"""Raspberry Pi OS Bookworm's OpenCV: the oldest the camera reader supports."""
WHEELS = ("opencv-python-headless==4.6.0.66", "numpy==1.24.*")
"""Its wheel on PyPI (abi3: it installs on any Python from 3.6), and Bookworm's numpy series."""


def folder(version: str = OLDEST) -> Path:
    return Path(sys.prefix) / "old-opencv" / version


def installed(version: str = OLDEST) -> Path:
    """The folder of OpenCV ``version`` and its numpy, installed there first if missing."""
    target = folder(version)
    if (target / "cv2").is_dir() and (target / "numpy").is_dir():
        return target
    partial = target.with_name(f"{target.name}.partial-{os.getpid()}")
    shutil.rmtree(partial, ignore_errors=True)
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--only-binary=:all:", "--target", str(partial), *WHEELS,
    ]  # fmt: skip
    got = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if got.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        raise RuntimeError(
            f"could not install OpenCV {version} into {target} (make test does, from PyPI):"
            f" {' '.join(command)}\n{got.stderr.strip()[-600:]}"
        )
    try:
        partial.rename(target)  # whole or not at all: a stopped install is not taken for one
    except OSError:  # another process made it meanwhile
        shutil.rmtree(partial, ignore_errors=True)
    return target


def environ(version: str = OLDEST) -> dict[str, str]:
    """The environment of a child Python that imports OpenCV ``version`` and this tree."""
    path = os.pathsep.join((str(installed(version)), str(ROOT)))
    return {**os.environ, "PYTHONPATH": path}


def as_torch_wrote_it(model: Path, out: Path) -> None:
    """``model`` (an ONNX file) written to ``out`` as torch's exporter writes a branch run
    twice: each later reader of a stored weight reads it through an ``Identity`` node,
    which OpenCV 4.6 cannot load. What the shipped ``model.onnx`` was until it was folded."""
    import onnx

    graph = onnx.load(str(model))
    stored = {tensor.name for tensor in graph.graph.initializer}
    seen: set[str] = set()
    nodes = []
    for node in graph.graph.node:
        for i, name in enumerate(node.input):
            if name in stored and name in seen:
                node.input[i] = f"{name}_again_{len(nodes)}"
                nodes.append(onnx.helper.make_node("Identity", [name], [node.input[i]]))
            seen.add(name)
        nodes.append(node)
    del graph.graph.node[:]
    graph.graph.node.extend(nodes)
    onnx.save(graph, str(out))


def copied(folder: Path, version: str = OLDEST, torch_wrote_it: bool = False) -> dict[str, str]:
    """The environment of a child Python that imports OpenCV ``version`` and a copy of
    faro_pi made in ``folder``; with ``torch_wrote_it``, the copy's model is the shipped
    one as torch wrote it (``as_torch_wrote_it``), which OpenCV 4.6 cannot load."""
    shutil.copytree(ROOT / "faro_pi", folder / "faro_pi",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    if torch_wrote_it:
        net = ROOT / "faro_pi" / "camera" / "model.onnx"
        as_torch_wrote_it(net, folder / "faro_pi" / "camera" / "model.onnx")
    return {**os.environ, "PYTHONPATH": os.pathsep.join((str(installed(version)), str(folder)))}


if __name__ == "__main__":
    print(f"OpenCV {OLDEST}: {installed()}")
