"""The service unit, the udev rule and the installer, against each other and the config.

The installer runs for real into a temporary DESTDIR (as `make install`
would with DESTDIR set): nothing outside it is touched, and the commands that
would change the machine are only shown.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from faro_pi.config import load_config
from faro_pi.service.journal import Change, Journal
from faro_pi.service.systemd import Notifier

ROOT = Path(__file__).parent.parent
UNIT = ROOT / "systemd" / "faro-pi.service"
RULE = ROOT / "hardware" / "99-faro-reader.rules"
EXAMPLE = ROOT / "faro_pi" / "config.example.toml"
INSTALL = ROOT / "hardware" / "install.sh"
UNINSTALL = ROOT / "hardware" / "uninstall.sh"
GADGET_MARK = "# faro-pi (hardware/install.sh): the USB gadget serial port to the table's Pi"

MAX_EXPOSURE = 2.5


def unit_settings(text: str) -> dict[str, list[str]]:
    """``Section.Key`` → every value it is given, in order (systemd keys may repeat)."""
    settings: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        settings.setdefault(f"{section}.{key}", []).append(value)
    return settings


def one(settings: dict[str, list[str]], key: str) -> str:
    [value] = settings[key]
    return value


@pytest.fixture(scope="module")
def unit() -> dict[str, list[str]]:
    return unit_settings(UNIT.read_text())


# -- the unit ------------------------------------------------------------------------


def test_systemd_analyze_rates_the_unit_at_most_2_5():
    analyze = shutil.which("systemd-analyze")
    assert analyze, (
        "systemd-analyze is missing: it is in Debian's systemd package "
        "(apt-get install systemd; make test-deps does)"
    )
    done = subprocess.run(
        [analyze, "security", "--offline=yes", "--no-pager", str(UNIT)],
        capture_output=True,
        text=True,
        env={**os.environ, "SYSTEMD_COLORS": "0"},
    )
    match = re.search(r"Overall exposure level for faro-pi\.service: (\d+\.\d+)", done.stdout)
    assert match, done.stdout + done.stderr
    assert float(match[1]) <= MAX_EXPOSURE, done.stdout
    # systemd read every line of the unit: no unknown or malformed settings
    complaints = [line for line in done.stderr.splitlines() if "faro-pi.service" in line]
    assert complaints == [], "\n".join(complaints)


def test_systemd_analyze_verify_finds_nothing_but_the_missing_binary():
    """Every line, dependency and template the unit names resolves; only ExecStart's
    program is absent here, as it is until the install makes the virtualenv."""
    analyze = shutil.which("systemd-analyze")
    assert analyze, "systemd-analyze is missing (apt-get install systemd)"
    done = subprocess.run(
        [analyze, "verify", "--man=no", str(UNIT)],
        capture_output=True,
        text=True,
        env={**os.environ, "SYSTEMD_COLORS": "0"},
    )
    complaints = [
        line
        for line in (done.stdout + done.stderr).splitlines()
        if line.strip() and "/opt/faro-pi/bin/faro-pi is not executable" not in line
    ]
    assert complaints == [], "\n".join(complaints)


def test_the_unit_starts_the_daemon_as_a_notify_service_with_a_watchdog(unit):
    assert one(unit, "Service.Type") == "notify"
    assert one(unit, "Service.Restart") == "on-failure"
    assert one(unit, "Service.RestartPreventExitStatus") == "2"  # a config error
    watchdog = one(unit, "Service.WatchdogSec")
    seconds = float(watchdog.removesuffix("s"))
    # what the daemon makes of the WATCHDOG_USEC systemd derives from it
    notifier = Notifier({"WATCHDOG_USEC": str(int(seconds * 1e6))})
    assert notifier.watchdog_interval == seconds / 2
    assert one(unit, "Service.ExecStart") == (
        "/opt/faro-pi/bin/faro-pi run --config /etc/faro-pi/config.toml"
    )
    assert one(unit, "Install.WantedBy") == "multi-user.target"


def test_the_units_folders_are_where_the_default_config_puts_things(unit):
    config = load_config(EXAMPLE, environ={})
    exec_config = Path(one(unit, "Service.ExecStart").split("--config ")[1])
    assert exec_config.parent == Path("/etc") / one(unit, "Service.ConfigurationDirectory")
    assert config.journal.path.parent == Path("/var/lib") / one(unit, "Service.StateDirectory")
    runtime = Path("/run") / one(unit, "Service.RuntimeDirectory")
    assert Path(one(unit, "Service.WorkingDirectory")) == runtime  # lgpio's pipes go here
    assert one(unit, "Service.UMask") == "0077"


def test_the_camera_and_the_daemon_share_the_folder_the_cards_stills_go_through(unit):
    """The camera writes each still where the daemon keeps it and the console serves it."""
    camera = unit_settings((UNIT.parent / "faro-pi-camera.service").read_text())
    config = load_config(EXAMPLE, environ={})
    for service in (unit, camera):
        state = Path("/var/lib") / one(service, "Service.StateDirectory")
        assert config.camera.pictures.parent == state
        assert one(service, "Service.StateDirectoryMode") == "0750"
        assert one(service, "Service.User") == "faro-pi"
    assert one(camera, "Service.ProtectSystem") == "strict"  # the rest stays read-only


def test_the_service_user_reaches_exactly_the_devices_the_table_uses(unit):
    assert one(unit, "Service.User") == "faro-pi"
    assert one(unit, "Service.SupplementaryGroups").split() == ["gpio", "i2c", "spi", "dialout"]
    assert one(unit, "Service.DevicePolicy") == "closed"
    allowed = [value.split()[0] for value in unit["Service.DeviceAllow"]]
    # By group, never by path: a path is looked up once at the start, and one that is
    # missing (/dev/gpiomem on a Pi 5, /dev/i2c-1 with the display on another bus) is
    # warned about and left out.
    assert allowed == [
        "char-gpiochip",  # lgpio
        "char-*gpiomem",  # RPi.GPIO, where the kernel has bcm2835-gpiomem or rpi-gpiomem
        "char-i2c",  # the OLED, on whichever bus display.i2c_port names
        "char-spi",  # the case keeper on SPI0 (spidev)
        "char-ttyACM",  # the reader, plugged in whenever
        "char-ttyUSB",  # a scanner on a USB serial adapter
    ]
    assert all(value.split()[1] == "rw" for value in unit["Service.DeviceAllow"])


MODULE_OF_GROUP = {"ttyACM": "cdc_acm", "ttyUSB": "usbserial", "i2c": "i2c_dev", "spi": "spidev"}
"""The kernel module that registers each device group the unit allows (``/proc/devices``)."""


def test_each_device_groups_module_is_loaded_before_the_start(unit):
    """systemd resolves ``DeviceAllow=char-*`` once, at the start, against /proc/devices;
    a group whose module is not loaded yet (cdc_acm until a Pico is plugged in) is left
    out for good. Its documented remedy: Wants= and After= modprobe@MODULE.service."""
    wants = " ".join(unit["Unit.Wants"]).split()
    after = " ".join(unit["Unit.After"]).split()
    for value in unit["Service.DeviceAllow"]:
        group = value.split()[0].removeprefix("char-")
        if group in MODULE_OF_GROUP:
            service = f"modprobe@{MODULE_OF_GROUP[group]}.service"
            assert service in wants and service in after, group
    assert {"modprobe@cdc_acm.service", "modprobe@usbserial.service"} <= set(wants)


def test_the_unit_is_hardened(unit):
    expected = {
        "NoNewPrivileges": "yes",
        "CapabilityBoundingSet": "",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "ProtectKernelTunables": "yes",
        "ProtectKernelModules": "yes",
        "ProtectKernelLogs": "yes",
        "ProtectControlGroups": "yes",
        "ProtectClock": "yes",
        "ProtectHostname": "yes",
        "RestrictNamespaces": "yes",
        "LockPersonality": "yes",
        "MemoryDenyWriteExecute": "yes",
        "RestrictRealtime": "yes",
        "RestrictSUIDSGID": "yes",
        "SystemCallArchitectures": "native",
        "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
    }
    assert {key: one(unit, f"Service.{key}") for key in expected} == expected
    assert unit["Service.SystemCallFilter"][0] == "@system-service"
    # gpiozero reads the board's model from /proc; group access needs the real groups
    assert "Service.ProcSubset" not in unit and "Service.PrivateUsers" not in unit


# -- the udev rule -------------------------------------------------------------------


def test_the_udev_rule_names_the_pico_as_the_configs_reader_port(unit):
    [rule] = [line for line in RULE.read_text().splitlines() if line and line[0] != "#"]
    pairs = dict(re.findall(r'([A-Z_]+(?:\{\w+\})?)[!+=:]=?"([^"]*)"', rule))
    assert pairs["SUBSYSTEM"] == "tty"
    assert (pairs["ATTRS{idVendor}"], pairs["ATTRS{idProduct}"]) == ("2e8a", "0005")
    assert pairs["MODE"] == "0660"
    assert pairs["GROUP"] in one(unit, "Service.SupplementaryGroups").split()
    config = load_config(EXAMPLE, environ={})
    assert config.reader.port == "/dev/" + pairs["SYMLINK"]
    assert 'TAG+="systemd"' in rule


# -- the installer -------------------------------------------------------------------


def run_script(script: Path, destdir: Path, timeout: float = 60, **env: str) -> str:
    environ = {
        k: v for k, v in os.environ.items() if k not in ("PREFIX", "DESTDIR", "FARO_PI_SKIP_VENV")
    }
    done = subprocess.run(
        ["sh", str(script)],
        env={**environ, "DESTDIR": str(destdir), "FARO_PI_NO_APT": "1", **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def install(destdir: Path, **env: str) -> str:
    return run_script(INSTALL, destdir, **{"FARO_PI_SKIP_VENV": "1", **env})


def test_install_puts_every_file_where_the_unit_looks_for_it(tmp_path):
    out = install(tmp_path)
    unit_file = tmp_path / "etc/systemd/system/faro-pi.service"
    installed = unit_settings(unit_file.read_text())
    assert unit_file.read_text() == UNIT.read_text()  # the default PREFIX changes nothing

    command = one(installed, "Service.ExecStart").split()
    assert command[0] == "/opt/faro-pi/bin/faro-pi"
    venv = tmp_path / "opt/faro-pi"
    assert f"python3 -m venv --system-site-packages {venv}" in out
    assert f"{venv}/bin/python -m pip install --upgrade 'COPY[pi]' (COPY: a copy of {ROOT})" in out
    assert (venv / "README.md").read_text() == (ROOT / "README.md").read_text()

    config_path = tmp_path / command[command.index("--config") + 1].lstrip("/")
    assert config_path.parent == tmp_path / "etc" / one(installed, "Service.ConfigurationDirectory")
    assert config_path.read_text() == EXAMPLE.read_text()
    assert stat.S_IMODE(config_path.stat().st_mode) == 0o640
    assert stat.S_IMODE(config_path.parent.stat().st_mode) == 0o750
    config = load_config(config_path, environ={})
    assert (
        config.journal.path
        == Path("/var/lib") / one(installed, "Service.StateDirectory") / "journal.sqlite3"
    )

    rule = tmp_path / "etc/udev/rules.d/99-faro-reader.rules"
    assert rule.read_text() == RULE.read_text()
    assert f'SYMLINK+="{config.reader.port.removeprefix("/dev/")}"' in rule.read_text()

    # Nothing outside DESTDIR: every command that would change the machine is only shown.
    for command in (
        "useradd --system --user-group --home-dir /var/lib/faro-pi --no-create-home "
        "--shell /usr/sbin/nologin faro-pi",
        "usermod --append --groups gpio faro-pi",
        "usermod --append --groups spi faro-pi",
        "usermod --append --groups dialout faro-pi",
        "chown root:faro-pi /etc/faro-pi /etc/faro-pi/config.toml",
        "udevadm control --reload",
        "systemctl daemon-reload",
        "systemctl enable faro-pi",
        "systemctl restart faro-pi",
    ):
        assert f"skipped (DESTDIR): {command}" in out
    assert "\n+ " not in out
    assert sorted(p.relative_to(tmp_path).parts[0] for p in tmp_path.iterdir()) == [
        "etc",
        "opt",
        "usr",
    ]


def test_install_links_the_command_for_every_login(tmp_path):
    out = install(tmp_path)
    link = tmp_path / "usr/local/bin/faro-pi"
    assert link.is_symlink() and os.readlink(link) == "/opt/faro-pi/bin/faro-pi"
    assert f"linked {link} to /opt/faro-pi/bin/faro-pi" in out
    install(tmp_path, PREFIX="/srv/table")  # a reinstall elsewhere moves the link with it
    assert os.readlink(link) == "/srv/table/bin/faro-pi"


def test_install_leaves_a_command_that_is_not_its_link_alone(tmp_path):
    command = tmp_path / "usr/local/bin/faro-pi"
    command.parent.mkdir(parents=True)
    command.write_text("#!/bin/sh\necho another faro-pi\n")
    out = install(tmp_path)
    assert command.read_text() == "#!/bin/sh\necho another faro-pi\n"
    assert f"left {command} alone: it is not a link" in out
    run_script(UNINSTALL, tmp_path)
    assert command.exists()


def test_the_lookouts_group_reads_the_config_and_the_token(tmp_path):
    """A login in the group faro-pi runs the command line's clients: the modes allow it."""
    token = tmp_path / "var/lib/faro-pi/console.token"
    token.parent.mkdir(parents=True)
    token.write_text("made-by-an-older-faro-pi\n")
    token.chmod(0o600)
    config = tmp_path / "etc/faro-pi/config.toml"
    out = install(tmp_path)
    assert stat.S_IMODE(token.stat().st_mode) == 0o640
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert stat.S_IMODE(config.parent.stat().st_mode) == 0o750
    assert "skipped (DESTDIR): chown root:faro-pi /etc/faro-pi /etc/faro-pi/config.toml" in out
    config.chmod(0o600)  # an edited config, kept: its mode is set again
    out = install(tmp_path)
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert "sudo usermod -aG faro-pi " in out


def test_the_install_steps_say_how_to_use_the_command_line_and_open_the_console():
    steps = (ROOT / "hardware" / "README.md").read_text()
    steps = steps[steps.index("## Raspberry Pi OS and the install") :]
    for needed in (
        "sudo usermod -aG faro-pi",
        "/usr/local/bin/faro-pi",
        'host = "0.0.0.0"',
        "console.token",
        "anyone on",
    ):
        assert needed in steps, needed


BOOKWORM_CONFIG_TXT = """\
# For more options and information see
# http://rptl.io/configtxt

# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on

# Enable audio (loads snd_bcm2835)
dtparam=audio=on

# Enable DRM VC4 V3D driver
dtoverlay=vc4-kms-v3d
max_framebuffers=2

[cm5]
dtoverlay=dwc2,dr_mode=host

[all]
"""
"""Raspberry Pi OS Bookworm's /boot/firmware/config.txt, as the image comes (abridged)."""


def boot_settings(text: str) -> list[str]:
    """The ``dtparam=`` settings the firmware applies to the base device tree on every
    board: those before the first ``dtoverlay`` line and before any ``[filter]``."""
    settings = []
    for line in text.splitlines():
        if line.startswith(("dtoverlay", "[")):
            break
        if line.startswith("dtparam="):
            settings += line.removeprefix("dtparam=").split(",")
    return settings


def staged_boot_config(destdir: Path, text: str = BOOKWORM_CONFIG_TXT) -> Path:
    boot = destdir / "boot/firmware/config.txt"
    boot.parent.mkdir(parents=True)
    boot.write_text(text)
    return boot


def set_leds_driver(destdir: Path, driver: str) -> None:
    """The installed config's ``leds.driver``, written before the install if need be."""
    config = destdir / "etc/faro-pi/config.toml"
    if not config.exists():
        config.parent.mkdir(parents=True)
        config.write_text(EXAMPLE.read_text())
    text = config.read_text()
    changed = re.sub(r'(?m)^driver = "74hc595[^"]*"$', f'driver = "{driver}"', text)
    assert changed != text or f'driver = "{driver}"' in text
    config.write_text(changed)


def test_install_sets_the_i2c_bus_to_400_khz_in_the_boot_config(tmp_path):
    """At 100 kHz a whole OLED frame takes ~95 ms; the install turns I²C on at 400 kHz,
    where the firmware applies it (before any dtoverlay, outside any [filter])."""
    boot = staged_boot_config(tmp_path)
    set_leds_driver(tmp_path, "74hc595")  # bit-banged: I²C alone
    out = install(tmp_path)
    settings = boot_settings(boot.read_text())
    assert "i2c_arm=on" in settings and "i2c_arm_baudrate=400000" in settings
    assert "set dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt" in out
    assert "reboot" in out.splitlines()[-1]
    # the rest of the file is as it was, and a second install changes nothing
    ours = (
        "# faro-pi (hardware/install.sh): the display's I²C, the case keeper's SPI\n"
        "dtparam=i2c_arm=on\ndtparam=i2c_arm_baudrate=400000\n\n"
    )
    assert boot.read_text().replace(ours, "").replace(PWM_TAIL, "") == BOOKWORM_CONFIG_TXT
    before = boot.read_text()
    out = install(tmp_path)
    assert boot.read_text() == before
    assert "ok: dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt" in out


def test_install_changes_a_slower_i2c_setting_in_place(tmp_path):
    slow = "dtparam=audio=on\ndtparam=i2c_arm=on,i2c_arm_baudrate=100000\n"
    boot = staged_boot_config(tmp_path, slow)
    install(tmp_path)
    assert boot.read_text().removesuffix(PWM_TAIL).splitlines()[-1] == (
        "dtparam=i2c_arm=on,i2c_arm_baudrate=400000"
    )
    assert boot_settings(boot.read_text()).count("i2c_arm=on") == 1


def test_install_turns_spi_on_for_the_spi_driver_and_leaves_it_for_the_bit_banged_one(tmp_path):
    boot = staged_boot_config(tmp_path)
    set_leds_driver(tmp_path, "74hc595")  # the chain bit-banged on SPI0's pins
    install(tmp_path)
    assert "spi=on" not in boot_settings(boot.read_text())
    set_leds_driver(tmp_path, "74hc595-spi")  # the chain on SPI0
    out = install(tmp_path)
    assert "spi=on" in boot_settings(boot.read_text())
    assert "set dtparam=spi=on in /boot/firmware/config.txt" in out
    assert boot.read_text().count("# faro-pi (hardware/install.sh): the display's") == 1


PWM_TAIL = (
    "\n[all]\n# faro-pi (hardware/install.sh): the case keeper's OE on the Pi's PWM\n"
    "dtoverlay=pwm,pin=18,func=2\n"
)
"""What the install appends to the boot config for OE on GPIO 18, the default."""


def set_leds_enable(destdir: Path, enable: str) -> None:
    set_leds_driver(destdir, "74hc595-spi")
    config = destdir / "etc/faro-pi/config.toml"
    config.write_text(re.sub(r"(?m)^enable = 18$", f"enable = {enable}", config.read_text()))


def test_install_gives_oe_to_the_pis_pwm_at_the_end_of_the_boot_config(tmp_path):
    """The pwm overlay gives GPIO 18 to the PWM hardware (the daemon dims through
    /sys/class/pwm, nothing waking); after every dtparam, under [all], once."""
    boot = staged_boot_config(tmp_path)
    out = install(tmp_path)
    assert boot.read_text().endswith(PWM_TAIL)
    assert "set dtoverlay=pwm,pin=18,func=2 in /boot/firmware/config.txt" in out
    assert "dtparam=audio=on" in BOOKWORM_CONFIG_TXT and "shares the Pi's PWM" in out
    out = install(tmp_path)
    assert boot.read_text().count("dtoverlay=pwm") == 1
    assert "ok: dtoverlay=pwm,pin=18,func=2 in /boot/firmware/config.txt" in out


@pytest.mark.parametrize(
    ("enable", "said"),
    [
        ("12", "set dtoverlay=pwm,pin=12,func=4 in"),
        ("5", "note: leds.enable = 5 has no hardware PWM"),
        ("false", None),
    ],
)
def test_the_overlay_follows_leds_enable(tmp_path, enable, said):
    boot = staged_boot_config(tmp_path)
    set_leds_enable(tmp_path, enable)
    out = install(tmp_path)
    assert ("dtoverlay=pwm" in boot.read_text()) == (enable == "12")
    assert said is None or said in out


def test_a_pwm_overlay_of_the_boot_configs_own_is_left_alone(tmp_path):
    boot = staged_boot_config(tmp_path, BOOKWORM_CONFIG_TXT + "dtoverlay=pwm-2chan\n")
    out = install(tmp_path)
    assert boot.read_text().count("dtoverlay=pwm") == 1
    assert "left the pwm overlay of /boot/firmware/config.txt as it is" in out


def test_a_pwm_overlay_for_other_boards_only_does_not_count(tmp_path):
    """A pwm overlay under [cm4] is that board's own: the table's Pi still gets OE's."""
    own = "[cm4]\ndtoverlay=pwm,pin=18,func=2\n\n[all]\n"
    boot = staged_boot_config(tmp_path, BOOKWORM_CONFIG_TXT + own)
    out = install(tmp_path)
    assert boot.read_text().endswith(own + PWM_TAIL)
    assert "set dtoverlay=pwm,pin=18,func=2 in /boot/firmware/config.txt" in out


def test_install_without_a_boot_config_says_what_to_set(tmp_path):
    out = install(tmp_path)
    assert not (tmp_path / "boot").exists()
    assert "dtparam=i2c_arm=on dtparam=i2c_arm_baudrate=400000" in out


def test_uninstall_keeps_the_boot_settings_and_says_where_they_are(tmp_path):
    boot = staged_boot_config(tmp_path)
    install(tmp_path)
    before = boot.read_text()
    out = run_script(UNINSTALL, tmp_path)
    assert boot.read_text() == before
    assert f"kept faro-pi's settings in {boot}" in out


def test_a_second_install_keeps_an_edited_config(tmp_path):
    install(tmp_path)
    config = tmp_path / "etc/faro-pi/config.toml"
    edited = config.read_text().replace("signal = 17", "signal = 5")
    config.write_text(edited)
    out = install(tmp_path)
    assert config.read_text() == edited
    assert f"kept {config}" in out


def test_prefix_moves_the_virtualenv_and_the_units_paths_with_it(tmp_path):
    out = install(tmp_path, PREFIX="/srv/table")
    installed = unit_settings((tmp_path / "etc/systemd/system/faro-pi.service").read_text())
    assert one(installed, "Service.ExecStart").startswith("/srv/table/bin/faro-pi run ")
    assert one(installed, "Unit.Documentation") == "file:///srv/table/README.md"
    assert (tmp_path / "srv/table/README.md").exists()
    assert f"-m venv --system-site-packages {tmp_path}/srv/table" in out


FAKE_PYTHON = """\
#!/bin/sh
# Stands in for python3 and for the virtualenv's python: logs what it is
# asked, makes the files a venv and pip would make.
echo "$0 $*" >> "{log}"
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$4/bin" && cp "$0" "$4/bin/python" && touch "$4/pyvenv.cfg"
elif [ "$1 $2" = "-m pip" ]; then
    here=$(dirname "$0")
    printf '#!%s/python\\n' "$here" > "$here/faro-pi"
    chmod +x "$here/faro-pi"
fi
"""


def test_the_virtualenv_step_makes_the_units_command(tmp_path):
    log = tmp_path / "python.log"
    fake = tmp_path / "python3"
    fake.write_text(FAKE_PYTHON.format(log=log))
    fake.chmod(0o755)
    dest = tmp_path / "root"
    install(dest, FARO_PI_SKIP_VENV="", PYTHON=str(fake))
    venv = dest / "opt/faro-pi"
    assert os.access(venv / "bin/faro-pi", os.X_OK)  # ExecStart's program, under DESTDIR
    # one pip install, which builds nothing: lgpio is the OS's, seen through the system's
    # site packages; pip is given a copy of the sources, gone once the install is done
    made, pip, compiled = log.read_text().splitlines()
    assert made == f"{fake} -m venv --system-site-packages {venv}"
    # staged: the command's first line and the compiled modules name the installed paths
    assert (venv / "bin/faro-pi").read_text() == "#!/opt/faro-pi/bin/python\n"
    assert compiled.startswith(f"{venv}/bin/python -m compileall -q -f -s {dest} -p / ")
    copy = re.fullmatch(
        rf"{re.escape(str(venv))}/bin/python -m pip install --upgrade (.+)\[pi\]", pip
    )
    assert copy and Path(copy[1]) != ROOT and not Path(copy[1]).exists()


FAILING_PIP = """\
#!/bin/sh
# Stands in for python3 and the virtualenv's python, on the 32-bit OS as it was: the
# venv is made, pip fails building cbor2 6 from its Rust sources.
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$4/bin" && cp "$0" "$4/bin/python" && touch "$4/pyvenv.cfg"
elif [ "$1 $2" = "-m pip" ]; then
    echo "error: can't find Rust compiler" >&2
    echo "ERROR: Failed building wheel for cbor2" >&2
    exit 1
fi
"""


@pytest.mark.parametrize("upgrade", [False, True], ids=["first install", "upgrade"])
def test_a_pip_step_that_fails_is_said_last_and_leaves_no_half_made_virtualenv(tmp_path, upgrade):
    """On the 32-bit OS pip once built cbor2 6 from its Rust sources, and failed: the
    install stops there, says last which step failed, and removes the virtualenv it had
    begun, so that the next run starts afresh; an upgrade's, made before, is left."""
    fake = tmp_path / "python3"
    fake.write_text(FAILING_PIP)
    fake.chmod(0o755)
    dest = tmp_path / "root"
    venv = dest / "opt/faro-pi"
    if upgrade:
        (venv / "bin").mkdir(parents=True)
        (venv / "bin/faro-pi").write_text("the faro-pi installed before\n")
    environ = {k: v for k, v in os.environ.items() if k not in ("PREFIX", "FARO_PI_SKIP_VENV")}
    done = subprocess.run(
        ["sh", str(INSTALL)],
        env={**environ, "DESTDIR": str(dest), "FARO_PI_NO_APT": "1", "PYTHON": str(fake)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    *_, failed, why = done.stderr.splitlines()
    assert failed.startswith(f"install.sh: this step failed: {venv}/bin/python -m pip install ")
    if upgrade:
        assert failed.endswith(f"({venv} is left as it was).")
        assert (venv / "bin/faro-pi").read_text() == "the faro-pi installed before\n"
    else:
        assert failed.endswith(f"(removed the half-made virtualenv {venv}).")
        assert not venv.exists()
    assert "Failed building wheel for cbor2" in done.stderr and "make install again" in why
    assert not (dest / "etc/systemd/system/faro-pi.service").exists()  # it went no further


RUNS_WRITE = (".hypothesis", ".pytest_cache")
"""What the test run beside this one writes in the checkout meanwhile (the examples
hypothesis keeps, pytest's cache, Python's compiled modules): not the install's doing."""
PYC = "__pycache__"


def checkout() -> tuple[list[str], list[str]]:
    """What git sees in the checkout, the ignored too, and every file beside .git and .venv."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    status = [line for line in status if not line[3:].startswith(RUNS_WRITE) and PYC not in line]
    files = []
    for folder, subfolders, names in os.walk(ROOT):
        subfolders[:] = [n for n in subfolders if n not in (".git", ".venv", PYC, *RUNS_WRITE)]
        files += [str(Path(folder, name).relative_to(ROOT)) for name in names]
    return status, sorted(files)


def test_a_real_install_leaves_the_checkout_as_it_was(tmp_path):
    """As ``sudo make install`` would, into DESTDIR: the virtualenv made and faro-pi built and
    installed by pip, and nothing new in the checkout (a build/ or faro_pi.egg-info/ there,
    root's, stopped make test and make sim as the checkout's owner)."""
    before = checkout()
    # pip builds faro-pi itself as the Pi's install does; its dependencies (PIP_NO_DEPS)
    # are PyPI's wheels, which build nothing in the checkout and would take a minute here.
    out = run_script(INSTALL, tmp_path, FARO_PI_SKIP_VENV="", PIP_NO_DEPS="1", timeout=600)
    assert checkout() == before, out
    venv = tmp_path / "opt/faro-pi"
    assert os.access(venv / "bin/faro-pi", os.X_OK)
    asked = "import importlib.metadata as m; print(m.distribution('faro-pi').read_text('RECORD'))"
    # Asked from outside the checkout, whose own faro_pi.egg-info (the editable install of
    # make test) would answer first.
    done = subprocess.run(
        [venv / "bin/python", "-c", asked], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert "faro_pi/cli.py" in done.stdout, done.stderr  # installed from the copy, whole
    installed = [line.split(",")[0] for line in done.stdout.splitlines()]
    for model_file in ("model.json", "model.onnx", "pips.onnx"):
        assert f"faro_pi/camera/{model_file}" in installed  # the model ships
    assert not [f for f in installed if f.startswith("training/")]  # what made it does not
    # staged in DESTDIR, the virtualenv names the paths it will be installed at
    assert (venv / "bin/faro-pi").read_text().startswith("#!/opt/faro-pi/bin/python")
    staged = [
        str(path.relative_to(venv))
        for path in [*venv.glob("bin/*"), venv / "pyvenv.cfg"]
        if not path.is_symlink() and str(tmp_path).encode() in path.read_bytes()
    ]
    assert staged == []
    compiled = next(venv.glob("lib/python3*/site-packages/faro_pi/__pycache__/cli.*.pyc"))
    assert str(tmp_path).encode() not in compiled.read_bytes()
    assert b"/opt/faro-pi/lib/" in compiled.read_bytes()


def test_the_pi_gets_its_pin_library_from_the_os_not_from_pypi():
    """PyPI's lgpio builds from source (swig, a system liblgpio) and RPi.GPIO needs a
    compiler and fails on a Pi 5: the ``pi`` extra asks pip for neither, and the install
    takes Raspberry Pi OS's python3-lgpio, which the virtualenv sees."""
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert "pi" in extras  # `pip install 'faro-pi[pi]'` and the install's own line stay valid
    asked = {Requirement(line).name.lower() for line in extras["pi"]}
    asked |= {Requirement(line).name.lower() for line in project["dependencies"]}
    assert not asked & {"lgpio", "rpi.gpio", "rpi-gpio"}, asked
    script = INSTALL.read_text()
    assert 'packages="$packages python3-lgpio"' in script
    assert "--system-site-packages" in script


def test_uninstall_removes_the_install_but_keeps_the_journal(tmp_path):
    install(tmp_path)
    journal_path = tmp_path / "var/lib/faro-pi/journal.sqlite3"
    with Journal.open(journal_path) as journal:
        journal.append([Change({"type": "shuffle"})])
    kept = journal_path.read_bytes()
    out = run_script(UNINSTALL, tmp_path)
    assert not (tmp_path / "etc/systemd/system/faro-pi.service").exists()
    assert not (tmp_path / "etc/udev/rules.d/99-faro-reader.rules").exists()
    assert not (tmp_path / "opt/faro-pi").exists()
    assert not (tmp_path / "usr/local/bin/faro-pi").is_symlink()
    assert not (tmp_path / "etc/faro-pi").exists()  # the config was still the example
    assert journal_path.read_bytes() == kept
    assert f"kept the journal in {tmp_path}/var/lib/faro-pi" in out
    assert "skipped (DESTDIR): systemctl disable --now faro-pi" in out
    assert "skipped (DESTDIR): systemctl disable --now faro-pi-camera" in out
    assert not (tmp_path / "etc/systemd/system/faro-pi-camera.service").exists()


@pytest.mark.parametrize(
    ("source", "packages"),
    [
        ("none", set()),
        ("usb", {"python3-opencv", "python3-numpy"}),
        ("csi", {"python3-opencv", "python3-numpy", "python3-picamera2"}),
    ],
)
def test_the_camera_reader_runs_when_the_config_names_a_camera(tmp_path, source, packages):
    """The camera's unit is always installed (with the daemon's PREFIX), and enabled and
    started, with Raspberry Pi OS's OpenCV, only when camera.source names a camera."""
    root = tmp_path / "root"
    config = root / "etc/faro-pi/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(EXAMPLE.read_text().replace('source = "none"', f'source = "{source}"'))
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    for name, script in (("dpkg", "echo arm64"), ("apt-cache", "exit 0")):
        (bin_folder / name).write_text(f"#!/bin/sh\n{script}\n")
        (bin_folder / name).chmod(0o755)
    path = f"{bin_folder}:{os.environ['PATH']}"
    out = install(root, FARO_PI_NO_APT="", PATH=path, PREFIX="/srv/faro")
    [line] = [line for line in out.splitlines() if "apt-get install" in line]
    camera = {p for p in line.split() if "opencv" in p or "numpy" in p or "picamera" in p}
    assert camera == packages
    unit = (root / "etc/systemd/system/faro-pi-camera.service").read_text()
    command = one(unit_settings(unit), "Service.ExecStart").split()
    assert command[:3] == ["/srv/faro/bin/faro-pi", "camera", "run"]
    started = "skipped (DESTDIR): systemctl restart faro-pi-camera" in out
    assert started == (source != "none")
    assert ("skipped (DESTDIR): systemctl disable --now faro-pi-camera" in out) == (not started)
    assert ("set camera.source" in out) == (not started)


def test_a_board_at_the_shoe_runs_the_camera_reader_alone_on_its_usb_gadget_port(tmp_path):
    """A Zero 2 W with the camera (reader.port the gadget's /dev/ttyGS0): the camera reader
    is started, the table's daemon stays off, the boot config gets the gadget's overlay and
    none of the display's or the case keeper's settings; uninstall takes the gadget's
    driver out of the boot's modules."""
    boot = staged_boot_config(tmp_path)
    config = tmp_path / "etc/faro-pi/config.toml"
    config.parent.mkdir(parents=True)
    text = EXAMPLE.read_text().replace('source = "none"', 'source = "csi"')
    config.write_text(text.replace('port = "/dev/faro-reader"', 'port = "/dev/ttyGS0"'))
    out = install(tmp_path)
    steps = out.splitlines()
    assert "skipped (DESTDIR): systemctl restart faro-pi-camera" in steps
    assert "skipped (DESTDIR): systemctl disable --now faro-pi" in steps
    assert "skipped (DESTDIR): systemctl restart faro-pi" not in steps
    modules = (tmp_path / "etc/modules-load.d/faro-pi-gadget.conf").read_text().split()
    assert {"dwc2", "g_serial"} <= set(modules)
    assert boot.read_text().endswith("[all]\n" + GADGET_MARK + "\ndtoverlay=dwc2\n")
    assert boot_settings(boot.read_text()) == boot_settings(BOOKWORM_CONFIG_TXT)
    assert "dtoverlay=pwm" not in boot.read_text()
    assert "/dev/serial/by-id/" in out and "reboot" in out
    before = boot.read_text()
    assert "ok: dtoverlay=dwc2" in install(tmp_path) and boot.read_text() == before
    out = run_script(UNINSTALL, tmp_path)
    assert not (tmp_path / "etc/modules-load.d/faro-pi-gadget.conf").exists()
    assert f"kept faro-pi's settings in {boot}" in out


def test_uninstall_keeps_an_edited_config(tmp_path):
    install(tmp_path)
    config = tmp_path / "etc/faro-pi/config.toml"
    config.write_text(config.read_text() + "\n# the felt's own settings\n")
    out = run_script(UNINSTALL, tmp_path)
    assert config.exists()
    assert "it was edited" in out


def test_the_scripts_are_posix_sh_that_stop_on_errors():
    for script in (INSTALL, UNINSTALL):
        text = script.read_text()
        assert text.startswith("#!/bin/sh\n")
        assert "\nset -eu\n" in text
        assert os.access(script, os.X_OK)
    if shutil.which("dash"):  # Debian's /bin/sh
        for script in (INSTALL, UNINSTALL):
            done = subprocess.run(["dash", "-n", str(script)], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr


def test_every_units_documentation_is_installed(tmp_path):
    """Every unit's Documentation= (the floor's is docs/floor.md, the camera's
    hardware/README.md) is a file the install puts under the virtualenv, with the
    README's docs beside it."""
    install(tmp_path)
    for name in ("faro-pi.service", "faro-pi-floor.service", "faro-pi-camera.service"):
        settings = unit_settings((ROOT / "systemd" / name).read_text())
        for url in one(settings, "Unit.Documentation").split():
            path = tmp_path / url.removeprefix("file:///")
            assert path.is_file(), f"{name}: {url} is not installed"
    for doc in (ROOT / "docs").glob("*.md"):
        assert (tmp_path / "opt/faro-pi/docs" / doc.name).read_text() == doc.read_text()


STEPS = """
. hardware/install-common.sh
step udevadm control --reload
step systemctl daemon-reload
step udevadm trigger --action=add
say "went on"
not_done
"""


def test_a_step_that_fails_in_a_container_is_told_and_the_rest_is_done(tmp_path):
    """udevadm (no udevd) and systemctl (no systemd) fail in a container or a chroot: the
    script goes on, then names each step left to do on the running Pi; it fails only where
    systemd runs, for there a failed step is the table's."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    for name, status in (("udevadm", 1), ("systemctl", 0)):
        (bin_folder / name).write_text(f"#!/bin/sh\necho {name} ran >&2\nexit {status}\n")
        (bin_folder / name).chmod(0o755)
    environ = {**os.environ, "PATH": f"{bin_folder}:{os.environ['PATH']}", "DESTDIR": ""}
    done = subprocess.run(
        ["sh", "-c", STEPS], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=30
    )
    assert done.returncode == (1 if Path("/run/systemd/system").is_dir() else 0), done.stderr
    out = done.stdout
    assert done.stderr.count("udevadm ran") == 2 and "systemctl ran" in done.stderr
    assert out.index("+ udevadm trigger --action=add") < out.index("went on") < out.index("NOT")
    left = out[out.index("NOT DONE") :].splitlines()[2:]
    assert left == ["  sudo udevadm control --reload", "  sudo udevadm trigger --action=add"]


@pytest.mark.parametrize(("architecture", "compiler"), [("armhf", True), ("arm64", False)])
def test_the_32_bit_os_gets_a_compiler_for_msgspec(tmp_path, architecture, compiler):
    """PyPI has no armv7l wheel of msgspec: on the 32-bit OS pip builds it, with gcc and
    Python's headers; the 64-bit OS gets wheels and no compiler."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    for name, script in (("dpkg", f"echo {architecture}"), ("apt-cache", "exit 0")):
        (bin_folder / name).write_text(f"#!/bin/sh\n{script}\n")
        (bin_folder / name).chmod(0o755)
    out = install(tmp_path / "root", FARO_PI_NO_APT="", PATH=f"{bin_folder}:{os.environ['PATH']}")
    [line] = [line for line in out.splitlines() if "apt-get install" in line]
    packages = line.split("--no-install-recommends ")[1].split()
    assert {"python3-venv", "python3-pil", "python3-lgpio"} <= set(packages)
    assert ({"gcc", "libc6-dev", "python3-dev"} <= set(packages)) == compiler
    assert compiler or "gcc" not in packages


FAKE_APT_GET = """\
#!/bin/sh
# Fails while another apt holds the lock (the first {held} calls), or at once with {error}.
tries=$(($(cat "{folder}/tries" 2>/dev/null || echo 0) + 1))
echo "$tries" > "{folder}/tries"
echo "$*" >> "{folder}/calls"
[ -z "{error}" ] || {{ echo "E: {error}" >&2; exit 100; }}
[ "$tries" -gt {held} ] || {{
    echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 7 (apt-get)" >&2
    exit 100
}}
"""


@pytest.mark.parametrize(("held", "error", "passes"), [(2, "", True), (0, "no network", False)])
def test_make_tests_apt_steps_wait_for_another_apts_lock(tmp_path, held, error, passes):
    """On a fresh machine unattended upgrades hold apt's lock at first: `make test`'s apt
    steps wait for it (update is tried again, install waits through DPkg::Lock::Timeout),
    and any other failure stops them at once."""
    (tmp_path / "apt-get").write_text(FAKE_APT_GET.format(folder=tmp_path, held=held, error=error))
    (tmp_path / "apt-get").chmod(0o755)
    done = subprocess.run(
        ["make", "-s", "--eval", "try: ; $(APT_UPDATE) && $(APT_GET) install -y pkg",
         "APT_LOCK_PAUSE=0", "try"],
        cwd=ROOT, env={**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}"},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    calls = (tmp_path / "calls").read_text().splitlines()
    assert (done.returncode == 0) == passes, done.stderr
    if passes:
        wait = "-o DPkg::Lock::Timeout=600"
        assert calls == [f"{wait} update -qq"] * 3 + [f"{wait} install -y pkg"]
        assert done.stderr.count("waiting for the apt lock") == 2
    else:
        assert calls == ["-o DPkg::Lock::Timeout=600 update -qq"] and "no network" in done.stderr
    # every apt step goes through $(APT_GET) and $(APT_UPDATE)
    makefile = (ROOT / "Makefile").read_text()
    assert not re.findall(r"apt-get (?:-\S+ )*(?:install|update)[ \t]", makefile)
