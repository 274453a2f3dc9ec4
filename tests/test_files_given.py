"""Files a person hands the simulator and ``faro-pi replay``: a pipe, a device, bytes that
are not UTF-8, JSON nested past reason, or numbers no night holds are each one line of
refusal, at once: never a hang, a traceback or a run that will not end."""

from __future__ import annotations

import os

import pytest

from faro_pi import cli


def scenario_says(capsys, path) -> str:
    assert cli.main(["sim", "--speed", "0", "--scenario", str(path), "--out", "unused"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ('{"type":"garble","bytes":NaN}', "'bytes' must be a number of bytes from 0 to 1e+06"),
        ('{"type":"garble","bytes":1000000000000}', "'bytes' must be a number of bytes"),
        ('{"type":"press","button":"undo","hold":NaN}', "'hold' must be a number of seconds"),
        ('{"type":"wait","seconds":Infinity}', "'seconds' must be a number of seconds"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply to be an event"),
    ],
)
def test_a_scenario_line_no_night_holds_is_refused_in_one_line(tmp_path, capsys, line, why):
    path = tmp_path / "scenario.jsonl"
    path.write_text(line + "\n")
    assert why in scenario_says(capsys, path)


def test_a_scenario_that_is_not_a_regular_utf8_file_is_refused_in_one_line(tmp_path, capsys):
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    assert "not a regular file" in scenario_says(capsys, fifo)
    assert "not a regular file" in scenario_says(capsys, "/dev/zero")
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b'{"type":"wait","seconds":0}\n{"type":"join","player":"Ren\xe9e"}\n')
    assert "latin.jsonl:2: not UTF-8 text" in scenario_says(capsys, latin)


def test_dev_null_is_a_scenario_of_no_steps_as_the_readme_says():
    """``sim --scenario /dev/null --console``: the table waits for the lookout's taps."""
    from faro_pi.sim import scenario

    assert scenario.load(os.devnull) == []


def test_replay_refuses_a_pipe_or_a_device_in_one_line_and_replays_the_rest(tmp_path, capsys):
    fifo = tmp_path / "events.jsonl"
    os.mkfifo(fifo)
    good = tmp_path / "good.jsonl"
    good.write_text('{"type":"session","seats":["Ann","Bob"],"banker":"Bob"}\n')
    assert cli.main(["replay", str(fifo), "/dev/zero", str(good)]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("not a regular file") == 2
    assert '"file"' in captured.out and "good.jsonl" in captured.out
