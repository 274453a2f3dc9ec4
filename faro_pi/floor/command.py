"""``faro-pi floor``: the floor's process, and ``faro-pi floor export TABLE``.

:func:`add_floor_command` adds both to the command line's parser; :func:`run`
and :func:`export` are what they call. The process runs until SIGTERM or
SIGINT: the pit boss on the broker, the page on its port, one loop.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping
from typing import TextIO

from faro_pi.console.token import console_token
from faro_pi.exc import ConfigError
from faro_pi.service.systemd import Notifier

log = logging.getLogger("faro_pi")

FLOOR_CONFIG = "/etc/faro-pi-floor/floor.toml"
"""Where ``faro-pi floor`` looks for its config when none is given."""

TOKEN_FILE = "floor.token"
"""In the store's folder: the page's token when the configuration names none."""


def add_floor_command(commands, set_up_logging: Callable[[bool], None]) -> None:
    """Adds ``floor [--config FILE] [--verbose]`` and ``floor export TABLE`` to ``commands``
    (an argparse sub-parsers object); ``set_up_logging(verbose)`` readies the log."""

    def floor(args: argparse.Namespace) -> int:
        if args.table is not None:
            return export(args.config, args.table)
        set_up_logging(args.verbose)
        return run(args.config)

    help_config = f"the floor's TOML config (default {FLOOR_CONFIG})"
    parser = commands.add_parser(
        "floor",
        help="keep a copy of every table's journal from the broker and serve the floor page",
    )
    parser.add_argument("--config", metavar="FILE", default=FLOOR_CONFIG, help=help_config)
    parser.add_argument("--verbose", action="store_true", help="log every MQTT packet too")
    parser.set_defaults(run=floor, table=None)
    inner = parser.add_subparsers(dest="floor_command", metavar="COMMAND")
    exporting = inner.add_parser(
        "export", help="print a table's copy as the table's own faro-pi export prints it"
    )
    exporting.add_argument("table", metavar="TABLE", help="the table's name on the floor")
    exporting.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help=help_config)


def export(config_path: str, table: str, out: TextIO | None = None) -> int:
    """Prints ``table``'s copy; 1 (after a line on stderr) if there is none, 2 for a bad config."""
    # Every faro-pi command builds this module's parser; the floor's parts load when run.
    from faro_pi.floor.config import load_floor_config  # msgspec's config types: ~40 ms
    from faro_pi.floor.store import StoreError, export_lines  # sqlite3 and the store: ~25 ms

    out = sys.stdout if out is None else out
    try:
        settings = load_floor_config(config_path)
    except ConfigError as exc:
        print(f"faro-pi floor: {exc}", file=sys.stderr)
        return 2
    try:
        for line in export_lines(settings.store.path, table):
            out.write(line)
    except StoreError as exc:
        print(f"faro-pi floor: {exc}", file=sys.stderr)
        return 1
    return 0


def run(config_path: str, environ: Mapping[str, str] = os.environ) -> int:
    """Runs the floor until SIGTERM or SIGINT; 2 for a bad config, 1 if it failed."""
    from faro_pi.floor.config import load_floor_config  # as in export()

    try:
        settings = load_floor_config(config_path)
    except ConfigError as exc:
        print(f"faro-pi floor: {exc}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(settings, environ=environ))
    except Exception as exc:
        while isinstance(exc, ExceptionGroup):
            exc = exc.exceptions[0]
        log.error("floor: %s", exc)
        return 1


async def serve(settings, *, environ: Mapping[str, str] = os.environ, started=None) -> int:
    """The floor: its copies opened, the broker listened to and the page served, until a
    signal (or ``stop``, which ``started(boss, page, stop)`` is handed)."""
    from faro_pi.floor.page import FloorPage, listen, serve_page  # Starlette, uvicorn
    from faro_pi.floor.pitboss import PitBoss  # aiomqtt and paho

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    notifier = Notifier(environ)
    boss = PitBoss(settings)
    await asyncio.to_thread(boss.open)
    token_file = settings.store.path / TOKEN_FILE
    token = console_token(settings.page, token_file, "floor")
    page = FloorPage(boss, token, settings.console)
    listener = listen(settings.page.host, settings.page.port)
    port = listener.getsockname()[1]
    async with asyncio.TaskGroup() as group:
        tasks = [
            group.create_task(boss.run(), name="floor broker"),
            group.create_task(serve_page(page, listener), name="floor page"),
        ]
        if notifier.watchdog_interval:
            tasks.append(group.create_task(_watchdog(notifier), name="watchdog"))
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        where = "set in the configuration" if settings.page.token else f"in {token_file}"
        log.info("floor: page on http://%s:%d/ (token %s)", settings.page.host, port, where)
        notifier.ready(f"{len(boss.views)} tables")
        if started is not None:
            started(boss, page, stop, port)
        await stop.wait()
        notifier.stopping()
        log.info("floor: stopping")
        for task in tasks:
            task.cancel()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError, RuntimeError):
            loop.remove_signal_handler(signum)
    boss.close()
    notifier.close()
    return 0


async def _watchdog(notifier) -> None:
    while True:
        notifier.watchdog()
        await asyncio.sleep(notifier.watchdog_interval)
