"""``faro-pi camera watch``: a recording of the box played through the live watcher, with
the real recogniser, as ``camera run`` would; and the watcher under a flickering lamp.

The recordings are made by the simulator's virtual camera (the project's own renderer) of
KDE's ``standard`` deck, held out of the model's training and calibration alike.
"""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from faro_pi.camera.live import CANNOT_WATCH, watch_frames
from faro_pi.camera.recognise import Reading, Recogniser
from faro_pi.camera.record import Recorder
from faro_pi.camera.source import NoMoreFrames, StillSource
from faro_pi.camera.watch import CannotWatch, Seen, Watch
from faro_pi.cli import main
from faro_pi.game.cards import CARD_BY_CODE, DECK
from faro_pi.virtual import dealing
from faro_pi.virtual.camera import VirtualCamera
from tests.decks import held_out

RATE = 15
LINE = re.compile(
    r"^(\d+\.\d{3}) (?:((?:[2-9]|10|[AJQK])[SHDC]) (0\.\d{3}|1\.000)|(noread)|alarm (\w+))$"
)
"""A decision: ``SECONDS CARD CONF``, ``SECONDS noread`` or ``SECONDS alarm WORD``."""


@pytest.fixture(scope="module")
def faces():
    return {CARD_BY_CODE[code]: face for code, face in held_out("standard").cards.items()}


def recording(faces, codes: list[str], rest: int = 8, seed: int = 4) -> list[np.ndarray]:
    """Frames of an empty box, then each of ``codes`` drawn on top and left ``rest``
    frames, as the virtual camera shows them at 320×240."""
    camera = VirtualCamera(faces, np.random.default_rng(seed), size=(320, 240))
    frames = [camera.frame() for _ in range(4)]
    for code in codes:
        camera.lay(CARD_BY_CODE[code])
        frames += [camera.frame() for _ in range(rest + 3)]
    return frames


def flickering(frames: list[np.ndarray], depth: float, along: str, hz: float = 100.0):
    """``frames`` under a lamp whose light swings by ``depth`` at ``hz``, as a rolling
    shutter sees it: bands across the ``rows``, the ``columns`` (a camera turned a quarter
    round), or ``slant`` (no shutter does this: a flicker no levelling takes out)."""
    out = []
    for i, frame in enumerate(frames):
        h, w = frame.shape[:2]
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        place = {"rows": y / h, "columns": x / w, "slant": (x / w + y / h) / 2}[along]
        phase = 2 * np.pi * (hz * i / RATE + 3.0 * place)
        gain = 1 + depth * np.sin(phase)
        out.append(np.clip(frame * gain[..., None], 0, 255).astype(np.uint8))
    return out


def watched(folder, capsys, *extra: str) -> list[re.Match]:
    capsys.readouterr()
    assert main(["camera", "watch", *extra, str(folder)]) == 0
    lines = capsys.readouterr().out.splitlines()
    matches = [LINE.match(line) for line in lines]
    assert all(matches), lines
    return matches


def test_a_folder_of_frames_is_watched_as_the_camera_would_a_line_a_decision(
    faces, tmp_path, capsys
):
    codes = ["KD", "7C", "10H"]
    for i, frame in enumerate(recording(faces, codes)):
        cv2.imwrite(str(tmp_path / f"frame{i:04d}.png"), frame)
    said = watched(tmp_path, capsys)
    sent = [m[2] for m in said if m[2]]
    assert sent and all(code in codes for code in sent)  # never a card that was not laid
    assert len(sent) + sum(1 for m in said if m[4]) == len(codes)  # each once: a card or a no-read
    seconds = [float(m[1]) for m in said]
    assert seconds == sorted(seconds) and seconds[0] > 4 / RATE  # after the first card is laid
    assert all(float(m[3]) >= 0.9 for m in said if m[3])
    # the same frames at twice the rate: the same decisions, at half the seconds
    doubled = watched(tmp_path, capsys, "--fps", "30")
    assert [m[2] for m in doubled] == [m[2] for m in said]
    assert [float(m[1]) for m in doubled] == pytest.approx([s / 2 for s in seconds], abs=0.001)


def test_a_video_file_is_watched_at_its_own_rate(faces, tmp_path, capsys):
    path = tmp_path / "box.avi"
    video = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), RATE, (320, 240))
    for frame in recording(faces, ["QS", "4D"]):
        video.write(frame)
    video.release()
    said = watched(path, capsys)
    assert [m[2] or "noread" for m in said if not m[5]] in (
        ["QS", "4D"],
        ["noread", "4D"],
        ["QS", "noread"],
        ["noread", "noread"],
    )


def test_a_recording_that_cannot_be_read_says_why_in_one_line(tmp_path, capsys):
    assert main(["camera", "watch", str(tmp_path / "gone.avi")]) == 2
    assert capsys.readouterr().err.strip().endswith("gone.avi: no such file or folder")
    assert main(["camera", "watch", str(tmp_path)]) == 2  # an empty folder
    assert "no images in the folder (PNG or JPEG files): a recording is frames in name order" in (
        capsys.readouterr().err
    )
    (tmp_path / "notes.avi").write_text("not a video")
    assert main(["camera", "watch", str(tmp_path / "notes.avi")]) == 2
    assert "not a video OpenCV can read" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["camera", "watch", "--fps", "0", str(tmp_path)])


class Laid:
    """The stand-in recogniser: every frame it is asked about shows ``card``, surely."""

    def __init__(self, code: str):
        self.card = CARD_BY_CODE[code]

    def read(self, image):
        return Reading(self.card, 0.999)


def decisions(watch: Watch, frames: list[np.ndarray]) -> list[tuple[int, object]]:
    return [(i, said) for i, frame in enumerate(frames) if (said := watch.see(frame)) is not None]


@pytest.mark.parametrize("along", ["rows", "columns"])
@pytest.mark.parametrize("depth", [0.1, 0.3])
def test_a_card_under_a_flickering_lamp_is_still_seen_to_come_to_rest(faces, along, depth):
    """Lamps on the mains or dimmed by PWM beat with the shutter: ±10 to 30 % of the light,
    in bands that roll across the frame. The card laid is seen to settle and is read."""
    frames = flickering(recording(faces, ["9S"], rest=30), depth, along)
    said = decisions(Watch(Laid("9S"), present=lambda _: True, rate=RATE), frames)
    assert [s for _, s in said] == [Seen(CARD_BY_CODE["9S"], 0.999)]
    assert said[0][0] < 4 + 3 + 2 * RATE  # within 2 s of the card coming to rest


def test_a_flicker_the_watcher_cannot_see_past_is_an_alarm_within_three_seconds(faces):
    frames = flickering(recording(faces, ["9S"], rest=90), 0.3, "slant")
    said = decisions(Watch(Laid("9S"), present=lambda _: True, rate=RATE), frames)
    assert said, "the table must hear something"
    first, what = said[0]
    assert what == CannotWatch("flicker") or what == Seen(CARD_BY_CODE["9S"], 0.999)
    assert first <= 3 * RATE
    assert sum(1 for _, s in said if isinstance(s, CannotWatch)) <= 1  # said once, not a flood


def test_the_table_hears_a_flicker_the_watcher_cannot_see_past_until_the_light_is_steady(
    faces,
):
    """The camera tells the daemon as an fsp1 fault naming the light (the table's alarm),
    once a second while it lasts, and ends it when the light is steady again."""
    frames = flickering(recording(faces, ["9S"], rest=60), 0.3, "slant")
    steady = recording(faces, ["9S"], rest=20)[-10:]
    sent = Sent()
    with pytest.raises(NoMoreFrames):
        watch_frames(StillSource(frames + steady), Watch(Laid("9S"), rate=RATE), sent)
    faults = [f for f in sent.frames if f.startswith("F ")]
    assert faults == [f"F {CANNOT_WATCH['flicker']}", "F None"]
    assert CANNOT_WATCH["flicker"].startswith("flicker: ")


def test_a_pack_dealt_under_a_flickering_lamp_sends_every_card_or_a_noread(faces):
    """A deal at the dealer's pace (a card every 0.8 s) under ±30 % banding: white paper
    clips in the bright phase, which levelling cannot undo, and still each card laid is
    sent or is a no-read, in order, none twice, none wrong, none silent."""
    codes = ["KD", "7C", "10H", "QS", "AH", "4D", "9S", "JC", "2H", "6D", "8C", "5S"]
    frames = flickering(recording(faces, codes, rest=9, seed=9), 0.3, "rows")
    watch = Watch(Recogniser.load(), rate=RATE)
    said = [s for _, s in decisions(watch, frames)]
    assert all(isinstance(s, Seen) for s in said), said
    assert len(said) == len(codes), said
    assert all(s.card is None or s.card.code == code for s, code in zip(said, codes, strict=True))


def test_a_recorded_run_keeps_its_last_frames_and_what_was_decided(faces, tmp_path):
    """``camera run --record DIR``: the frames the watcher saw, the oldest let go, and the
    decisions in ``camera watch``'s words; the folder plays back through ``camera watch``."""
    frames = recording(faces, ["KD", "3C"], rest=12)
    recorder = Recorder(tmp_path, RATE, minutes=30 / RATE / 60)  # the last 30 frames
    with pytest.raises(NoMoreFrames):
        watch_frames(
            StillSource(frames), Watch(Recogniser.load(), rate=RATE), Sent(), recorder=recorder
        )
    recorder.close()
    (run,) = tmp_path.iterdir()
    kept = sorted(run.glob("*.jpg"))
    assert [p.name for p in kept] == [f"{n:09d}.jpg" for n in range(len(frames) - 30, len(frames))]
    said = (run / "decisions.txt").read_text().splitlines()
    assert [line.split()[1] for line in said] == ["KD", "3C"]
    for line in said:
        seconds, _, _, _, number = line.split()
        assert float(seconds) == pytest.approx(int(number) / RATE, abs=1e-3)


class Sent:
    """The link's side the watcher's decisions go to."""

    def __init__(self):
        self.frames: list[str] = []

    def card(self, code: str) -> int:
        self.frames.append(code)
        return len(self.frames)

    def no_read(self) -> int:
        self.frames.append("N")
        return len(self.frames)

    def fault(self, text: str | None) -> None:
        self.frames.append(f"F {text}")

    def next_seq(self) -> int:
        """The number the next card or no-read goes under (a still goes before it)."""
        return len(self.frames) + 1


def test_under_a_flickering_lamp_an_ace_after_a_sparse_card_is_not_taken_for_it():
    """Levelled for the light, two sparse faces can look alike: an ace of hearts slid off
    onto the box after neoclassical_4's ace of spades, under a lamp beating with the
    shutter, was once taken for the card read last and never sent. The card that comes to
    rest under a flicker is always read again (and not sent twice)."""
    faces = {CARD_BY_CODE[c]: f for c, f in held_out("neoclassical_4").cards.items()}
    rng = np.random.default_rng(202804)  # as bench_camera_deal deals it
    order = list(DECK)
    rng.shuffle(order)
    dealt = dealing.deal(faces, order, "flicker", rng, draws=7)
    watch = Watch(Recogniser.load(), rate=RATE)
    said = []
    for i, frame in enumerate(dealt.frames):
        seen = watch.see(frame)
        if isinstance(seen, Seen):
            said.append((i / RATE, seen.card.code if seen.card else "noread"))
    tally = dealing.tally(dealt, said)
    assert (tally.wrong, tally.twice, tally.silent) == (0, 0, 0), (tally, said)
