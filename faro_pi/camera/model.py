"""The camera model's contract: what the training script writes and the reader reads.

``model.json`` describes the files beside it: the face and index net (``model.onnx``),
the pip net (``pips.onnx``), each head's temperature, the fused read's weights, the
count table and the thresholds. Training builds a :class:`Model` and :func:`save`\\s it;
the reader :func:`load`\\s it and refuses a file that does not fit, by name, with the
command that makes it again. Nothing here needs PyTorch: the runtime never imports the
tools that made its model.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated

import msgspec

from faro_pi.camera import pips

SHIPPED = Path(__file__).with_name("model.json")
"""The model that ships with faro-pi."""
REMAKE = "python -m training (see training/README.md)"
"""What makes a model again, for the messages that refuse one."""

FACE_OUTPUTS = ("face_rank", "face_suit", "face_embed", "joint_face_rank", "joint_face_suit")
INDEX_OUTPUTS = ("index_rank", "index_suit", "index_embed", "joint_index_rank", "joint_index_suit")
OUTPUTS = FACE_OUTPUTS + INDEX_OUTPUTS
"""The net's outputs, by name: the face branch's for each face crop (``crop``), the index
branch's for each card's pair of corners (``corner_a``, ``corner_b``); the joint heads are
linear, so each branch gives its share."""
INPUTS = ("crop", "corner_a", "corner_b")
PIP_INPUT, PIP_OUTPUT = "pips", "suit"
"""The pip net's input (pip cuts) and output (a pip's suit, or "not a pip")."""
RANKS = 13
"""Rows of the count table: A..K."""

Probability = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
Positive = Annotated[float, msgspec.Meta(gt=0.0)]


class ModelError(ValueError):
    """A model folder the reader cannot use: a file missing, or a ``model.json`` that does
    not fit this contract (another version's, or damaged)."""


class Temperatures(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Each head's temperature, fitted on designs the net never saw: the joint head over
    face and index (``rank``, ``suit``), the face's own and the index's own."""

    rank: Positive
    suit: Positive
    face_rank: Positive
    face_suit: Positive
    index_rank: Positive
    index_suit: Positive


HEADS = Temperatures.__struct_fields__
"""The heads a temperature is fitted for."""
WITNESS_HEADS = ("face_rank", "face_suit", "index_rank", "index_suit")
"""The face's and the index's own heads, beside the joint one."""


class Witnesses(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The face's and the index's weight beside the joint head's (1) in the agreement the
    net's heads make alone, before the pips: the read training calibrates on."""

    face: float
    index: float


class Fusion(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The fused read's weight of each term (:data:`EVIDENCE`), fitted on the calibration
    designs so that the posterior is a probability."""

    joint: float
    index: float
    face: float
    count: float
    pips: float
    symbol: float

    def weights(self) -> tuple[float, ...]:
        return tuple(getattr(self, term) for term in EVIDENCE)


EVIDENCE = Fusion.__struct_fields__
"""The fused read's terms, in the order :func:`faro_pi.camera.fusion.evidence` stacks them."""


class Model(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """What ``model.json`` says. ``fusion`` and ``counts`` come with the pip witness:
    training writes a model without them between making the net and the pip witness, and
    reads it then as the net's heads alone read."""

    temperatures: Temperatures
    witnesses: Witnesses
    threshold: Probability
    """The untaught read's: a card only at this posterior or more."""
    taught_threshold: Probability
    fusion: Fusion | None = None
    counts: list[list[float]] = []
    """log P(pip signature | rank): 13 rows (A..K) of ``pips.SIGNATURES``."""
    net: str = "model.onnx"
    pip_net: str = "pips.onnx"
    """The ONNX files, beside ``model.json``."""
    same_net: tuple[str, ...] = ()
    """The :func:`model_id` of earlier files of this very net (its weights exported
    otherwise, as the first export with its Identity nodes was): a deck taught for one of
    them is taught for this one."""
    calibration: dict[str, float] = {}
    """What the calibration designs read at the threshold: a record, not read."""
    minutes: float | None = None
    """How long the training run took: a record, not read."""

    def __post_init__(self) -> None:
        if (self.fusion is None) != (not self.counts):
            raise ValueError("the fused read's weights and the count table come together")
        if self.counts and (
            len(self.counts) != RANKS or any(len(row) != pips.SIGNATURES for row in self.counts)
        ):
            shape = f"{len(self.counts)}×{len(self.counts[0]) if self.counts else 0}"
            raise ValueError(
                f"its count table ({shape}) is for another pip finder "
                f"({RANKS}×{pips.SIGNATURES}): make the pip witness again"
            )


def load(path: Path = SHIPPED) -> Model:
    """The model ``path`` (a ``model.json``) describes, its files checked to be there."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the camera's model ({exc.strerror})") from exc
    try:
        model = msgspec.json.decode(data, type=Model)
    except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as exc:
        raise ModelError(f"{path}: not a model this reader can use ({exc}): {REMAKE}") from exc
    for name in (model.net, *((model.pip_net,) if model.fusion else ())):
        if not (path.parent / name).is_file():
            raise ModelError(f"{path.parent / name}: the model's file is missing: {REMAKE}")
    return model


def save(model: Model, path: Path) -> None:
    """Writes ``model`` as ``path``, readable by a person."""
    path.write_bytes(msgspec.json.format(msgspec.json.encode(model), indent=1) + b"\n")


def model_id(net: Path) -> str:
    """Names a net by its bytes: a taught deck is for the net it was taught on."""
    return hashlib.sha256(net.read_bytes()).hexdigest()[:16]
