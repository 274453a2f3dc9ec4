"""An exported ONNX file as every OpenCV the camera reader supports reads it.

torch's exporter runs the index branch once per corner, and passes that branch's stored
weights to the second run through ``Identity`` nodes, which the importer of OpenCV 4.6
(Raspberry Pi OS Bookworm's python3-opencv) refuses ("inputs.size() in function
'getMemoryShapes'"), on every image. :func:`fold` rewires each such node's readers to the
stored weight itself: the graph computes the same, each weight's bytes are untouched, and
4.6 loads it. :func:`check` then runs the file under the oldest OpenCV the project
supports (``tests/old_opencv.py``'s folder, in a child Python) and under this one on the
same inputs, and fails if they differ by more than ``TOLERANCE``.

Both exports (``net.export``, ``pipnet.export``) do both; for files made before::

    python -m training.onnx_file [FILE.onnx ...]   # the shipped ones by default
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

from faro_pi.camera import model as contract

TOLERANCE = 1e-3
"""The largest difference allowed between the two OpenCVs' outputs (logits, embeddings),
as the export allows between OpenCV and torch."""

CHILD = """
import sys
import cv2, numpy as np
net = cv2.dnn.readNetFromONNX(sys.argv[1])
blobs = np.load(sys.argv[2])
for name in blobs.files:
    net.setInput(blobs[name], name)
names = sys.argv[4].split(",")
np.savez(sys.argv[3], **dict(zip(names, net.forward(names))))
print(cv2.__version__)
"""


def fold(path: Path) -> int:
    """Rewrites the ONNX file ``path`` without its ``Identity`` nodes on stored weights;
    returns how many there were. Every stored weight stays as it was, bit for bit."""
    model = onnx.load(str(path))
    graph = model.graph
    stored = {tensor.name: tensor.SerializeToString() for tensor in graph.initializer}
    outputs = {output.name for output in graph.output}
    alias = {
        node.output[0]: node.input[0]
        for node in graph.node
        if node.op_type == "Identity" and node.input[0] in stored and node.output[0] not in outputs
    }
    if not alias:
        return 0
    kept = [node for node in graph.node if node.output[0] not in alias]
    for node in kept:
        for i, name in enumerate(node.input):
            node.input[i] = alias.get(name, name)
    del graph.node[:]
    graph.node.extend(kept)
    shapes = [info for info in graph.value_info if info.name not in alias]
    del graph.value_info[:]
    graph.value_info.extend(shapes)
    onnx.checker.check_model(model)
    after = {tensor.name: tensor.SerializeToString() for tensor in graph.initializer}
    if after != stored:
        raise RuntimeError(f"{path}: folding its Identity nodes changed a stored weight")
    onnx.save(model, str(path))
    return len(alias)


def inputs_of(path: Path, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Noise shaped as the file's inputs, each batch size of its own (a batch named ``n``
    in one input is as long in every input that names it)."""
    sizes: dict[str, int] = {}
    blobs = {}
    for given in onnx.load(str(path)).graph.input:
        dims = [
            d.dim_value if d.dim_value else sizes.setdefault(d.dim_param, 3 + len(sizes))
            for d in given.type.tensor_type.shape.dim
        ]
        blobs[given.name] = rng.standard_normal(dims).astype(np.float32)
    return blobs


def check(path: Path, inputs: dict[str, np.ndarray], log=print) -> float:
    """The largest difference between the outputs of ``path`` under the oldest OpenCV
    the project supports and under this one, on ``inputs`` (a batch of views, by input
    name); a file the oldest cannot load, or outputs further apart than ``TOLERANCE``,
    raise."""
    import cv2

    from tests import old_opencv  # the oldest OpenCV's folder, installed once

    names = [output.name for output in onnx.load(str(path)).graph.output]
    net = cv2.dnn.readNetFromONNX(str(path))
    for name, blob in inputs.items():
        net.setInput(blob, name)
    newest = dict(zip(names, net.forward(names), strict=True))
    with tempfile.TemporaryDirectory() as folder:
        given, taken = Path(folder) / "inputs.npz", Path(folder) / "outputs.npz"
        np.savez(given, **inputs)
        ran = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), str(given), str(taken), ",".join(names)],
            capture_output=True, text=True, env=old_opencv.environ(), timeout=300,
        )  # fmt: skip
        if ran.returncode != 0:
            said = ran.stderr.strip().splitlines()[-3:]
            raise RuntimeError(f"{path}: OpenCV {old_opencv.OLDEST} cannot run it: {said}")
        oldest = dict(np.load(taken))
    apart = max(float(np.abs(newest[name] - oldest[name]).max()) for name in names)
    batch = ", ".join(f"{name} {len(blob)}" for name, blob in inputs.items())
    log(
        f"{path.name}: OpenCV {ran.stdout.strip()} against {cv2.__version__} on {batch}: "
        f"outputs at most {apart:.2g} apart",
        flush=True,
    )
    if apart > TOLERANCE:
        raise RuntimeError(f"{path}: OpenCV {old_opencv.OLDEST} and {cv2.__version__} differ")
    return apart


def main(paths: list[str]) -> None:
    model = contract.load()
    shipped = [contract.SHIPPED.parent / name for name in (model.net, model.pip_net)]
    for path in [Path(p) for p in paths] or shipped:
        folded = fold(path)
        print(f"{path}: {folded} Identity nodes folded", flush=True)
        check(path, inputs_of(path, np.random.default_rng(0)))


if __name__ == "__main__":
    main(sys.argv[1:])
