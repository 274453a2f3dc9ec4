"""``faro-pi camera read``, ``watch`` and ``teach``: the reader on files.

``read [--deck DIR] IMAGE...`` prints ``IMAGE CARD CONFIDENCE`` (``KD``, ``10H``) or
``IMAGE noread CONFIDENCE`` a line; it exits 0 when every file could be read as an image.
``watch [--deck DIR] [--fps N] SOURCE`` plays a recording of the box (a video file, or a
folder of frames in name order) through the live watcher exactly as ``camera run`` would,
and prints a line a decision, the seconds counted from the first frame: ``SECONDS CARD
CONF`` (a card sent), ``SECONDS noread`` (a no-read sent), ``SECONDS alarm WORD`` (the
reader tells the table it cannot watch: ``flicker``); it exits 0 when the recording could
be read, 2 when not.
``teach --deck DIR IMAGE...`` takes the 52 cards of a deck, each named by its code
(``KD.png``), and writes into DIR the taught deck that ``read --deck`` and the live reader
use.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def add_camera_command(commands) -> argparse.ArgumentParser:
    """Adds ``camera read`` and ``camera teach`` to ``commands`` (argparse sub-parsers);
    returns the ``camera`` parser's own sub-parsers' parent, for more commands."""
    camera = commands.add_parser("camera", help="the camera reader: read or teach from images")
    inner = camera.add_subparsers(dest="camera_command", required=True, metavar="COMMAND")
    reading = inner.add_parser("read", help="read the card in each camera still")
    reading.add_argument("--deck", metavar="DIR", help="a deck taught with camera teach")
    reading.add_argument("images", nargs="+", metavar="IMAGE")
    reading.set_defaults(run=lambda args: read(args.images, args.deck))
    watching = inner.add_parser(
        "watch", help="play a recording of the box through the live watcher: a line a decision"
    )
    watching.add_argument("--deck", metavar="DIR", help="a deck taught with camera teach")
    watching.add_argument(
        "--fps", type=_fps, metavar="N",
        help="frames a second of a folder of frames (default 15; a video's own rate)",
    )  # fmt: skip
    watching.add_argument("source", metavar="SOURCE", help="a video file or a folder of frames")
    watching.set_defaults(run=lambda args: watch(Path(args.source), args.deck, args.fps))
    teaching = inner.add_parser(
        "teach", help="learn the deck in use from one image of each card, named KD.png..."
    )
    teaching.add_argument("--deck", metavar="DIR", required=True, help="where to keep it")
    teaching.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    teaching.add_argument(
        "--views", type=_views, default=None, metavar="N",
        help="views made of each card (default 24): fewer teach sooner and less surely",
    )  # fmt: skip
    teaching.add_argument("images", nargs="*", metavar="IMAGE")
    teaching.add_argument(
        "--from-box", action="store_true", help="take them from the camera: deal the new deck "
        "through the box once, in its factory order (or --order), each card left on top a moment"
    )  # fmt: skip
    teaching.add_argument("--config", dest="box_config", metavar="FILE",
                          help="with --from-box: the table's config, for its [camera]")  # fmt: skip
    teaching.add_argument("--order", metavar="FILE",
                          help="with --from-box: the 52 codes as they come on top")  # fmt: skip
    teaching.set_defaults(run=_teach)
    return inner


def _teach(args: argparse.Namespace) -> int:
    """``teach``: from the images given, or from the box (``--from-box``)."""
    if args.from_box:
        if args.box_config is None:
            print("faro-pi camera teach: --from-box needs --config FILE", file=sys.stderr)
            return 2
        from faro_pi.camera.live import box_stills  # the camera itself, for this only

        stills = box_stills(args.box_config, Path(args.deck), args.order)
        if stills is None:
            return 2
        args.images = [str(path) for path in stills]
    if not args.images:
        print("faro-pi camera teach: give the 52 images (KD.png...) or --from-box", file=sys.stderr)
        return 2
    return teach(args.images, Path(args.deck), args.seed, args.views)


def between(low: float, high: float, unit: str, kind: type = float):
    """An argparse type: a number (of ``kind``) from ``low`` to ``high`` ``unit``."""

    def number(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:  # NaN is not between them either
            raise argparse.ArgumentTypeError(f"{text}: from {low:g} to {high:g} {unit}")
        return value

    return number


_fps = between(0.5, 240, "frames a second")
_views = between(1, 240, "views a card", int)


def read(images: list[str], deck: str | None, out=None) -> int:
    out = out or sys.stdout
    from faro_pi.camera import images as stills
    from faro_pi.camera.model import ModelError
    from faro_pi.camera.recognise import DeckError, Recogniser

    try:
        recogniser = Recogniser.load(Path(deck) if deck else None)
    except (DeckError, ModelError) as exc:
        print(f"faro-pi camera read: {exc}", file=sys.stderr)
        return 2
    status = 0
    for name in images:
        try:  # a folder stands for the images in it, in name order
            named = [str(p) for p in stills.in_folder(name)] if os.path.isdir(name) else [name]
        except stills.ImageError as exc:
            print(f"faro-pi camera read: {exc}", file=sys.stderr)
            status = 1
            continue
        for still in named:
            try:
                image = stills.read(still)
            except stills.ImageError as exc:
                print(f"faro-pi camera read: {exc}", file=sys.stderr)
                status = 1
                continue
            reading = recogniser.read(image)
            card = reading.card.code if reading.card else "noread"
            print(f"{still} {card} {reading.confidence:.3f}", file=out, flush=True)
    return status


def watch(source: Path, deck: str | None, fps: float | None, out=None) -> int:
    """``watch``: every decision the live watcher makes on the recording, as it makes it."""
    out = out or sys.stdout
    from faro_pi.camera.model import ModelError
    from faro_pi.camera.recognise import DeckError, Recogniser
    from faro_pi.camera.source import CameraError, NoMoreFrames, open_recording
    from faro_pi.camera.watch import Watch

    try:
        recording, rate = open_recording(source, fps)
        recogniser = Recogniser.load(Path(deck) if deck else None)
    except (CameraError, DeckError, ModelError) as exc:
        print(f"faro-pi camera watch: {exc}", file=sys.stderr)
        return 2
    watcher, index = Watch(recogniser, rate=rate), 0
    try:
        while True:
            frame = recording.frame()
            said = watcher.see(frame)
            if said is not None:
                print(f"{index / rate:.3f} {said.words}", file=out, flush=True)
            index += 1
    except NoMoreFrames:
        pass
    except CameraError as exc:
        print(f"faro-pi camera watch: {exc}", file=sys.stderr)
        return 2
    finally:
        recording.close()
    if index == 0:
        print(f"faro-pi camera watch: {source}: no frame could be read", file=sys.stderr)
        return 2
    return 0


def teach(images: list[str], deck: Path, seed: int = 0, views: int | None = None, out=None) -> int:
    out = out or sys.stdout
    import numpy as np

    from faro_pi.camera import teach as teaching
    from faro_pi.camera.recognise import Recogniser

    try:
        recogniser = Recogniser.load()  # a ModelError is a ValueError
        faces, odd, refused = teaching.faces_of([Path(p) for p in images])
    except (teaching.TeachError, ValueError) as exc:
        print(f"faro-pi camera teach: {exc}", file=sys.stderr)
        return 2
    for path in odd:
        print(f"faro-pi camera teach: {path}: left out, no card's code", file=sys.stderr)
    for card, why in refused.items():
        print(
            f"faro-pi camera teach: {card.code} not taught ({why}); it is read as an "
            "untaught deck reads it: teach again with a better image to take it",
            file=sys.stderr,
        )
    rng = np.random.default_rng(seed)

    def told(done: int, card) -> None:
        print(f"{done:2d}/{len(faces)} {card.code} taught", file=out, flush=True)

    taught = teaching.teach(recogniser, faces, rng, views or teaching.VIEWS, told=told)
    path = teaching.save(taught, deck, recogniser.model_id)
    print(f"taught {len(faces)} cards into {path}", file=out)
    return 0
