"""The ``faro-pi`` command."""

from __future__ import annotations

import argparse
import atexit
import gc
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from faro_pi.config import load_config
from faro_pi.console import client
from faro_pi.console.commands import add_console_commands
from faro_pi.exc import ConfigError
from faro_pi.floor.command import add_floor_command
from faro_pi.game.profile import DEFAULT_PROFILE, PROFILES
from faro_pi.service.logline import OneLine

CONFIG_VARIABLE = "FARO_PI_CONFIG"
"""Names the table's config for every command that takes ``--config``, when none is given."""

INSTALLED_CONFIG = Path("/etc/faro-pi/config.toml")
"""Where ``make install`` puts the config: the last place looked, when it exists."""

CONFIG_HELP = f"the table's TOML config (default: ${CONFIG_VARIABLE}, then {INSTALLED_CONFIG})"


def config_path(environ: Mapping[str, str] = os.environ, installed: Path = INSTALLED_CONFIG):
    """The config to use when ``--config`` is not given: ``$FARO_PI_CONFIG``, else the
    installed one when it exists; None when there is neither.

    A config the variable names is taken even if it is missing, so that its
    own error says so rather than another file being read in its place.
    """
    if environ.get(CONFIG_VARIABLE):
        return environ[CONFIG_VARIABLE]
    try:
        installed.stat()
    except PermissionError:  # /etc/faro-pi is there, closed to this login
        return str(installed)
    except OSError:
        return None
    return str(installed)


def _speed(text: str) -> float:
    """``sim --speed``: how many times a calm dealer's pace, or 0 for no pauses at all."""
    try:
        speed = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= speed < float("inf"):
        raise argparse.ArgumentTypeError(
            f"{text} is no pace: 0 deals as fast as it can, 1 at a calm dealer's pace, 2 twice"
            " as fast"
        )
    return speed


def _find_config(args: argparse.Namespace, installed: Path) -> bool:
    """Fills in a left-out ``--config``; False after printing one line on why there is none."""
    if not hasattr(args, "config") or getattr(args, "url", None):
        return True
    if args.config is None:
        args.config = config_path(installed=installed)
    if args.config is None:
        url = " (or --url and --token)" if hasattr(args, "url") else ""
        print(
            f"faro-pi: no config: give --config FILE{url}, set {CONFIG_VARIABLE}, "
            f"or install one at {installed} (sudo make install)",
            file=sys.stderr,
        )
        return False
    if Path(args.config).parent == installed.parent and _denied(args.config):
        print(
            f"faro-pi: {args.config}: permission denied: {client.JOIN_THE_GROUP}", file=sys.stderr
        )
        return False
    return True


def _denied(path: str) -> bool:
    try:
        with open(path, "rb"):
            return False
    except PermissionError:
        return True
    except OSError:  # loading it says what is wrong
        return False


def _replay(args: argparse.Namespace) -> int:
    from faro_pi import jsonl
    from faro_pi.exc import FaroError
    from faro_pi.game.replay import replay_lines  # the rules engine, for this command only

    status = 0
    for path in args.files:
        try:
            if path == "-":
                result = replay_lines(sys.stdin)
            else:
                with jsonl.open_lines(path) as lines:
                    result = replay_lines(lines)
        except (OSError, UnicodeDecodeError, FaroError) as exc:
            print(f"faro-pi replay: cannot read {path}: {exc}", file=sys.stderr)
            status = 1
            continue
        for line, message in result.refused:
            print(f"{path}:{line}: refused: {message}", file=sys.stderr)
        print(json.dumps({"file": path, **result.summary()}))
    return status


def _config(args: argparse.Namespace):
    """The validated configuration, or None after printing its one-line error."""
    try:
        return load_config(args.config)
    except ConfigError as exc:
        print(f"faro-pi: {exc}", file=sys.stderr)
        return None


def _logging(verbose: bool) -> None:
    """Plain lines on stderr; under systemd a <N> prefix gives journald each line's priority."""
    prefix = "<%(priority)s>" if os.environ.get("JOURNAL_STREAM") else "%(levelname)s "
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine(prefix + "%(message)s"))
    handler.addFilter(_priority)
    root = logging.getLogger("faro_pi")
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


def _priority(record) -> bool:
    record.priority = {50: 2, 40: 3, 30: 4, 20: 6, 10: 7}.get(record.levelno, 6)
    return True


LGPIO_FOLDER = "LG_WD"
"""The variable naming the folder where lgpio makes its notification pipes."""


def lgpio_folder(environ=os.environ) -> str:
    """Sets ``$LG_WD`` for lgpio, before anything imports gpiozero; the folder named.

    Imported, lgpio makes a notification pipe in ``$LG_WD`` (else the working folder)
    and makes that the working folder. Where the user can't write (the service's user in
    a cloned repository) the import fails, and gpiozero falls back to RPi.GPIO on a Pi 4
    and to nothing on a Pi 5 without a word. So: the service's RuntimeDirectory, else a
    folder of this process's own, removed at its exit. A ``$LG_WD`` already set is kept.
    """
    if environ.get(LGPIO_FOLDER):
        return environ[LGPIO_FOLDER]
    folder = environ.get("RUNTIME_DIRECTORY", "").split(":")[0]
    if not folder:
        folder = tempfile.mkdtemp(prefix="faro-pi-lgpio-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    environ[LGPIO_FOLDER] = folder
    return folder


def _run(args: argparse.Namespace) -> int:
    lgpio_folder()
    config = _config(args)
    if config is None:
        return 2
    _logging(args.verbose or config.log.verbose)
    from faro_pi.table import run  # gpiozero, after $LG_WD is set; ~0.4 s the others skip

    status = run(config)
    # Everything is closed and committed. The interpreter's collection of every object
    # at exit is for nothing (the process's memory goes back whole) and costs a Pi a good
    # part of SIGTERM's time to exit: the objects are frozen out of it.
    gc.freeze()
    return status


def _export(args: argparse.Namespace) -> int:
    config = _config(args)
    if config is None:
        return 2
    from faro_pi.service.export import main  # the journal and the rules, for this command

    return main(config.journal.path, args.verified)


def _verify(args: argparse.Namespace) -> int:
    from faro_pi.service.verify import main  # the journal and the rules, for this command

    return main(args.journal, against=args.against, pictures=args.pictures)


def _integrity(args: argparse.Namespace) -> int:
    from faro_pi.service.deals import main  # the journal and the rules, for this command

    return main(args.journal, as_json=args.json)


def _sim(args: argparse.Namespace) -> int:
    lgpio_folder()
    from faro_pi.sim.run import main  # gpiozero, after $LG_WD is set; rich

    return main(args)


def _camera_run(args: argparse.Namespace) -> int:
    config = _config(args)
    if config is None:
        return 2
    _logging(args.verbose or config.log.verbose)
    try:
        from faro_pi.camera.live import run  # numpy and OpenCV: the camera's extra
    except ImportError as exc:
        print(f"faro-pi camera run: needs faro-pi[camera]: {exc}", file=sys.stderr)
        return 2
    if args.record is not None:
        try:
            return run(config, Path(args.record), args.record_minutes)
        except OSError as exc:
            print(f"faro-pi camera run: cannot record into {args.record}: {exc}", file=sys.stderr)
            return 2
    return run(config)


def _doctor(args: argparse.Namespace) -> int:
    lgpio_folder()
    from faro_pi.doctor import main  # gpiozero, after $LG_WD is set

    return main(args.config, reader_timeout=args.timeout)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="faro-pi", description="Faro table controller")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    replay = commands.add_parser(
        "replay", help="replay files of events and print each one's balances as JSON"
    )
    replay.add_argument("files", nargs="+", metavar="FILE", help="a file of events; - reads stdin")
    replay.set_defaults(run=_replay)

    run = commands.add_parser("run", help="run the table daemon")
    run.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    run.add_argument("--verbose", action="store_true", help="log every frame and button too")
    run.set_defaults(run=_run)

    export = commands.add_parser(
        "export", help="print the journal as JSON lines for faro-pi replay (safe while running)"
    )
    export.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    export.add_argument(
        "--verified", action="store_true", help="stop before the first row that does not verify"
    )
    export.set_defaults(run=_export)

    verify = commands.add_parser(
        "verify", help="check the journal's hash chain, every row, and name the first bad one"
    )
    verify.add_argument("journal", metavar="JOURNAL", help="the journal file")
    verify.add_argument(
        "--against",
        metavar="RECORD",
        help="also hold it against a record kept elsewhere: the floor's copy of the table "
        "(its .sqlite3 file or floor export's lines), or a hash noted as HASH@SEQ",
    )
    verify.add_argument(
        "--pictures",
        metavar="DIR",
        help="the camera's stills kept for the rows (camera.pictures; default: the "
        "pictures folder beside the journal)",
    )
    verify.set_defaults(run=_verify)
    deals = commands.add_parser(
        "integrity", help="the deal-integrity report of every complete pack in a journal"
    )
    deals.add_argument("journal", metavar="JOURNAL", help="the journal file")
    deals.add_argument("--json", action="store_true", help="one JSON object a pack")
    deals.set_defaults(run=_integrity)

    sim = commands.add_parser(
        "sim", help="run the daemon on simulated hardware and play a scenario (or the demo)"
    )
    sim.add_argument("--scenario", metavar="FILE", help="JSON lines to play (default: the demo)")
    sim.add_argument("--out", default="sim-out", help="output folder (default sim-out)")
    sim.add_argument(
        "--speed", type=_speed, default=1.0, help="1 deals at a calm pace, 0 as fast as it can"
    )
    sim.add_argument("--seed", type=int, help="the demo's shuffle (default 7)")
    sim.add_argument("--packs", type=int, help="packs the demo deals (default 1)")
    sim.add_argument(
        "--faults",
        action="store_true",
        default=None,
        help="the demo's shoe misbehaves now and then",
    )
    sim.add_argument(
        "--camera",
        metavar="DESIGN_DIR",
        help="deal through a virtual camera over the box and the camera reader: a design's "
        "52 faces, KD.png, 10H.png...",
    )
    sim.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        help=f"the house rules the demo plays (default {DEFAULT_PROFILE})",
    )
    sim.add_argument(
        "--console",
        action="store_true",
        help="serve the lookout's page too, and keep the table up after the scenario until Ctrl-C",
    )
    sim.add_argument("--port", type=int, help="the page's port with --console (default 8077)")
    sim.set_defaults(run=_sim)

    doctor = commands.add_parser(
        "doctor", help="check this machine for what the table needs: pins, OLED, reader, journal"
    )
    doctor.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    doctor.add_argument(
        "--timeout",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="how long to wait for the reader's first frame (default 5)",
    )
    doctor.set_defaults(run=_doctor)

    add_console_commands(commands)
    add_floor_command(commands, _logging)
    from faro_pi.camera.command import add_camera_command, between

    camera = add_camera_command(commands)
    live = camera.add_parser(
        "run", help="the live camera reader: watch the box, send each card to the daemon"
    )
    live.add_argument("--config", metavar="FILE", help=CONFIG_HELP)
    live.add_argument("--verbose", action="store_true", help="log every card read")
    live.add_argument(
        "--record", metavar="DIR",
        help="keep the last minutes of frames and what was decided, for a dispute",
    )  # fmt: skip
    live.add_argument(
        "--record-minutes", type=between(0.1, 120, "minutes"), default=3.0, metavar="N",
        help="how many minutes --record keeps (default 3)",
    )  # fmt: skip
    live.set_defaults(run=_camera_run)
    return top


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """The arguments, with a command's words after its options (``call Bob --colours red red
    red 2``) joined to those before: argparse gives a ``*`` positional only the words that
    come before the first option."""
    top = parser()
    args, extra = top.parse_known_args(argv)
    words = getattr(args, "named", None)
    if extra and words is not None and not any(word.startswith("-") for word in extra):
        args.named = words + extra
    elif extra:
        top.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: list[str] | None = None, *, installed: Path = INSTALLED_CONFIG) -> int:
    """The ``faro-pi`` command; ``installed`` is where the config is looked for last."""
    args = _parse(argv)
    if not _find_config(args, installed):
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
