"""The live camera reader: what watching an unchanged box costs, and settle-to-sent latency.

Idle: the watcher fed frames of an unchanged box (a card at rest, the sensor's noise
only) at ``camera.rate`` (15 frames a second), paced in real time as a camera gives
them, the fsp1 line's thread and its heartbeats beside it, for ``IDLE_SECONDS``: the
process's CPU time over the wall time, as a share of one core. The frame's capture is
the camera's and the driver's (picamera2 copies a finished frame; a USB camera's MJPEG
is decoded by OpenCV) and is left out: only the reader's own work is timed.

Latency: each card of an unseen design (``designs.TEST_GROUPS``) laid on top of the
virtual box, frames arriving every 1/rate s. It runs from the first frame of the card at
rest (the card has settled) to its fsp1 frame written on the loopback socket the daemon
reads: the frames it takes to see that the card lies still, the reads, and the line.
Each frame's work starts when both the frame and the work before it are done, so a slow
read delays the frames behind it, as on the Pi. The Pi 4 estimate scales this machine's
CPU time by ``PI4`` (a Pi 4's Cortex-A72 against this machine, as measured for the
recogniser: about a tenth of its speed on a Zero 2 W, a third on a Pi 4).

Goals: idle ≤ 5 % of a core here; sent within 300 ms of settling on a Pi 4.

Run: ``.venv/bin/python -m tests.benchmarks.bench_camera_live [CARDS]``
"""

from __future__ import annotations

import socket
import statistics
import sys
import threading
import time

import numpy as np

from faro_pi.camera.line import Link, SocketLine
from faro_pi.camera.recognise import Recogniser
from faro_pi.camera.watch import Watch
from faro_pi.game.cards import DECK
from faro_pi.virtual.camera import VirtualCamera, load_design
from tests.benchmarks.figures import percentile, report
from training import designs

RATE = 15.0
IDLE_SECONDS = 10.0
PI4 = 3.5
"""How much longer a Pi 4 takes for the same CPU work than this machine."""


def idle(camera: VirtualCamera, watch: Watch) -> float:
    """Share of a core the watcher takes over an unchanged box, paced at ``RATE``."""
    camera.lay(DECK[0])
    for _ in range(12):
        watch.see(camera.frame())  # the card drawn and read once, then left alone
    frames = [camera.frame() for _ in range(12)]  # the card at rest, its noise varying
    reads = watch.reads
    per_frame = []
    start_wall, start_cpu = time.monotonic(), time.process_time()
    due = start_wall
    i = 0
    while time.monotonic() - start_wall < IDLE_SECONDS:
        due += 1 / RATE
        time.sleep(max(0.0, due - time.monotonic()))
        before = time.process_time()
        watch.see(frames[i % len(frames)])
        per_frame.append(time.process_time() - before)
        i += 1
    share = (time.process_time() - start_cpu) / (time.monotonic() - start_wall)
    assert watch.reads == reads, "an unchanged box was read again"
    report("idle: the watcher's CPU a frame", per_frame, "ms", 1e3)
    return share


class Daemon:
    """The daemon's end of the socket, enough to see when each frame arrives."""

    def __init__(self, address):
        self.sock = socket.create_connection(address)
        self.arrived: list[tuple[float, bytes]] = []
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                data = self.sock.recv(4096)
            except OSError:
                return
            if not data:
                return
            now = time.monotonic()
            buffer += data
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line[1:2] in (b"C", b"N", b"H"):
                    seq = line[3:].split(b",")[0].split(b"*")[0]
                    self.sock.sendall(_ack(seq))
                    self.arrived.append((now, line))


def _ack(seq: bytes) -> bytes:
    from faro_pi.shoe.fsp1 import ack

    return ack(int(seq))


def latency(
    camera: VirtualCamera, watch: Watch, cards: int, link: Link, daemon: Daemon
) -> tuple[list, list, dict]:
    here, pi4, told = {}, {}, {"right": 0, "wrong": 0, "noread": 0, "none": 0}
    rng, order = np.random.default_rng(1), []
    while len(order) < cards:  # whole packs, shuffled, never one card twice in a row
        pack = list(DECK)
        rng.shuffle(pack)
        if order and pack[0] == order[-1]:
            pack.reverse()
        order += pack
    for card in order[:cards]:
        camera.lay(card)
        frames = [camera.frame() for _ in range(10)]
        settled_at = 2  # the frames while it is drawn come first
        clock = {"here": 0.0, "pi4": 0.0}
        seen = None
        for i, frame in enumerate(frames):
            arrives = i / RATE
            before = time.process_time()
            seen = watch.see(frame)
            cpu = time.process_time() - before
            clock["here"] = max(clock["here"], arrives) + cpu
            clock["pi4"] = max(clock["pi4"], arrives) + cpu * PI4
            if seen is not None:
                break
        if seen is None:
            told["none"] += 1
            continue
        sent = len(daemon.arrived)
        started = time.monotonic()
        if seen.card is None:
            link.no_read()
            told["noread"] += 1
        else:
            link.card(seen.card.code)
            told["right" if seen.card == card else "wrong"] += 1
        while len(daemon.arrived) == sent:
            time.sleep(0.0005)
        wire = daemon.arrived[-1][0] - started
        kind = "a card" if seen.card is not None else "a no-read"
        here.setdefault(kind, []).append(clock["here"] - settled_at / RATE + wire)
        pi4.setdefault(kind, []).append(clock["pi4"] - settled_at / RATE + wire)
        watch.see(frames[-1])
    return here, pi4, told


def main(argv: list[str]) -> int:
    cards = int(argv[1]) if len(argv) > 1 else 104
    design = next(d for d in designs.DESIGNS if d.group == designs.TEST_GROUPS[0])
    faces = load_design(designs.render(design, 400))
    recogniser = Recogniser.load()
    print(f"the live camera reader, {design.name} (a design never trained on), {RATE:g} frames/s")
    # the line's thread runs throughout, its heartbeats acknowledged-free, as at the table
    line = SocketLine("127.0.0.1", 0)
    link = Link(line, "bench", time.monotonic)
    stop = threading.Event()
    serving = threading.Thread(target=link.serve, args=(stop,), daemon=True)
    serving.start()
    daemon = Daemon(line.address)
    share = idle(VirtualCamera(faces, np.random.default_rng(0)), Watch(recogniser))
    print(f"idle: watching an unchanged box                  {share:7.2%} of a core (goal ≤ 5 %)")
    camera = VirtualCamera(faces, np.random.default_rng(2))
    here, pi4, told = latency(camera, Watch(recogniser), cards, link, daemon)
    stop.set()
    serving.join(5)
    link.close()
    for kind in sorted(here):
        report(f"settle → {kind} sent, here", here[kind], "ms", 1e3)
        report(f"settle → {kind} sent, Pi 4 estimate", pi4[kind], "ms", 1e3)
    print(
        f"  told: {told['right']} right, {told['wrong']} wrong, {told['noread']} no-reads, "
        f"{told['none']} sent nothing"
    )
    if "a card" in pi4:
        median, p99 = statistics.median(pi4["a card"]), percentile(pi4["a card"], 99)
        print(
            f"  goal: a card sent ≤ 300 ms after it settles on a Pi 4: median "
            f"{median * 1e3:.0f} ms, p99 {p99 * 1e3:.0f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
