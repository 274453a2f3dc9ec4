"""The camera reader as installed: its unit, its config section, and the doctor's checks."""

from __future__ import annotations

import io
import logging
import os
import re
import shutil
import subprocess
import threading
import time

import cv2
import numpy as np
import pytest

from faro_pi import doctor
from faro_pi.camera import scene
from faro_pi.camera.line import Link, SocketLine
from faro_pi.config import ConfigError, parse_config
from faro_pi.doctor.camera import camera_checks, gadget_check, light_check
from tests.ports import free_port
from tests.test_deployment import ROOT, UNIT, unit_settings

CAMERA_UNIT = ROOT / "systemd" / "faro-pi-camera.service"
MAX_EXPOSURE = 2.5


def analyze(*args: str) -> subprocess.CompletedProcess:
    tool = shutil.which("systemd-analyze")
    assert tool, "systemd-analyze is missing (apt-get install systemd; make test-deps does)"
    return subprocess.run(
        [tool, *args], capture_output=True, text=True, env={**os.environ, "SYSTEMD_COLORS": "0"}
    )


def test_systemd_analyze_rates_the_camera_unit_at_most_2_5_and_reads_every_line():
    done = analyze("security", "--offline=yes", "--no-pager", str(CAMERA_UNIT))
    found = re.search(
        r"Overall exposure level for faro-pi-camera\.service: (\d+\.\d+)", done.stdout
    )
    assert found, done.stdout + done.stderr
    assert float(found[1]) <= MAX_EXPOSURE, done.stdout
    complaints = [line for line in done.stderr.splitlines() if "faro-pi-camera.service" in line]
    assert complaints == [], "\n".join(complaints)
    done = analyze("verify", "--man=no", str(CAMERA_UNIT))
    complaints = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip() and "/opt/faro-pi/bin/faro-pi is not executable" not in line
    ]
    assert complaints == [], "\n".join(complaints)


def test_the_camera_unit_runs_the_live_reader_hardened_as_the_daemon_is():
    camera = unit_settings(CAMERA_UNIT.read_text())
    daemon = unit_settings(UNIT.read_text())
    assert camera["Service.ExecStart"] == [
        "/opt/faro-pi/bin/faro-pi camera run --config /etc/faro-pi/config.toml"
    ]
    assert camera["Service.RestartPreventExitStatus"] == ["2"]  # a config error
    assert camera["Service.User"] == daemon["Service.User"]  # it reads the table's config
    assert camera["Service.SupplementaryGroups"] == ["video dialout"]
    hardening = (
        "NoNewPrivileges", "CapabilityBoundingSet", "ProtectSystem", "ProtectHome",
        "PrivateTmp", "ProtectProc", "ProtectKernelTunables", "ProtectKernelModules",
        "ProtectControlGroups", "RestrictNamespaces", "MemoryDenyWriteExecute",
        "SystemCallFilter", "IPAddressDeny", "DevicePolicy",
    )  # fmt: skip
    assert {k: camera[f"Service.{k}"] for k in hardening} == {
        k: daemon[f"Service.{k}"] for k in hardening
    }
    # the daemon reaches the camera's socket through its own unit's loopback allowance
    assert "localhost" in daemon["Service.IPAddressAllow"][0].split()
    assert camera["Service.IPAddressAllow"] == ["localhost"]


def test_the_camera_section_is_checked_like_the_others(tmp_path):
    text = '[reader]\nport = "socket://127.0.0.1:7711"\n[camera]\nsource = "csi"\ndeck = "d"\n'
    config = parse_config(text, base_dir=tmp_path)
    assert config.camera.source == "csi" and config.camera.deck == tmp_path / "d"
    assert parse_config('[reader]\nport = "/dev/faro-reader"\n').camera.source == "none"
    with pytest.raises(ConfigError, match=r"camera\.source"):
        parse_config('[reader]\nport = "x"\n[camera]\nsource = "webcam"\n')


# -- the doctor ------------------------------------------------------------------------


def face() -> np.ndarray:
    """An upright face, RGBA: white paper, a black index in two corners, a pip."""
    card = np.full((352, 252, 4), 255, np.uint8)
    for at in ((14, 60), (200, 300)):
        cv2.putText(card, "7", at, cv2.FONT_HERSHEY_SIMPLEX, 1.6, (0, 0, 0, 255), 4)
    cv2.circle(card, (126, 176), 40, (200, 0, 0, 255), -1)
    return card


def lines(checks) -> list[str]:
    return [check.line() for check in checks]


def exposed(still: np.ndarray, gain: float = 0.85) -> np.ndarray:
    """A still as a camera exposed for the paper gives it: white short of clipping."""
    return np.clip(still.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def test_a_card_in_even_light_passes_the_light_check():
    still = exposed(scene.view(face(), np.random.default_rng(1), nominal=True))
    check = light_check(still)
    assert check.ok, check.line()
    assert check.line().startswith("ok    light: card found, paper ")


def test_a_dim_box_a_washed_out_card_and_an_empty_box_each_fail_with_their_fix():
    still = scene.view(face(), np.random.default_rng(1), nominal=True).astype(np.float32)
    dim = light_check(exposed(still, 0.4))
    assert not dim.ok and "too dark" in dim.detail and "more light" in dim.fix
    washed = light_check(exposed(still, 1.4))
    assert not washed.ok and "washed out" in washed.detail
    empty = light_check(scene.empty(np.random.default_rng(2)))
    assert not empty.ok and "no card found" in empty.detail and "lay a card" in empty.fix


def test_without_a_camera_configured_the_camera_check_is_skipped():
    config = parse_config('[reader]\nport = "/dev/faro-reader"\n')
    assert lines(camera_checks(config)) == [
        'skip  camera: camera.source is "none": no camera reader'
    ]


def test_a_usb_camera_that_is_not_there_fails_and_says_what_to_do():
    config = parse_config('[reader]\nport = "x"\n[camera]\nsource = "usb"\ndevice = 63\n')
    model, check = camera_checks(config)
    assert model.ok and not check.ok
    assert "/dev/video63 does not open" in check.detail
    assert "faro-pi-camera" in check.fix


def test_the_doctor_finds_the_camera_reader_on_its_socket_and_says_how_to_start_it():
    from faro_pi.doctor.reader import check_reader

    port = free_port()
    config = parse_config(f'[reader]\nport = "socket://127.0.0.1:{port}"\n')
    check = check_reader(config, 1.0)
    assert not check.ok and "faro-pi-camera" in check.fix
    line = SocketLine("127.0.0.1", port)
    link = Link(line, "faro-camera 1.0", time.monotonic)
    stop = threading.Event()
    serving = threading.Thread(target=link.serve, args=(stop, 0.05), daemon=True)
    serving.start()
    try:
        check = check_reader(config, 5.0)
    finally:
        stop.set()
        serving.join(5)
        link.close()
    assert check.ok, check.line()
    assert check.detail == f"socket://127.0.0.1:{port}: fsp1 a hello (faro-camera 1.0)"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[reader]\nport = "socket://127.0.0.1:7711"\n', 'camera.source is "none"'),
        (
            '[reader]\nport = "/dev/x"\nprotocol = "plain"\n[camera]\nsource = "usb"\n',
            'set reader.protocol = "fsp1"',
        ),
        ('[reader]\nport = "socket://127.0.0.1"\n[camera]\nsource = "usb"\n', "PORT"),
    ],
)
def test_camera_run_refuses_a_config_it_cannot_work_with_as_a_config_error(
    tmp_path, capsys, text, said
):
    from faro_pi import cli

    (tmp_path / "config.toml").write_text(text)
    logger = logging.getLogger("faro_pi")
    handlers, level = list(logger.handlers), logger.level
    try:
        assert cli.main(["camera", "run", "--config", str(tmp_path / "config.toml")]) == 2
    finally:  # the command's own log handler, on this test's captured stderr, goes with it
        logger.handlers[:], logger.level = handlers, level
    assert said in capsys.readouterr().err


def test_at_the_shoe_the_doctor_checks_the_camera_and_leaves_the_rest_to_the_tables_pi(
    tmp_path,
):
    """A board at the shoe (its config names a camera and the USB gadget's port) has no
    pins, display, reader link or journal of its own: the doctor does not fail on them."""
    config = tmp_path / "config.toml"
    config.write_text('[reader]\nport = "/dev/ttyGS0"\n[camera]\nsource = "usb"\ndevice = 63\n')
    out = io.StringIO()
    assert doctor.main(config, out=out, ntp=lambda: True) == 1
    names = [line[6:].split(":", 1)[0] for line in out.getvalue().splitlines()[:-1]]
    said = out.getvalue()
    assert names == ["config", "board", "gadget", "model", "camera", "clock"]
    assert "skip  board: at the shoe: the camera reader alone, sending to /dev/ttyGS0" in said
    assert "FAIL  gadget: /dev/ttyGS0 is not there" in said and "then reboot" in said
    assert "/dev/video63 does not open" in said
    there = parse_config(f'[reader]\nport = "{config}"\n[camera]\nsource = "usb"\n')
    assert gadget_check(there).ok  # once the gadget's port is there, after the reboot
