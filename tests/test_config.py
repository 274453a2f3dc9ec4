"""The config file: defaults, every kind of mistake, the environment, the docs."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from pathlib import Path

import pytest

from faro_pi.board import CHAIN_DRIVERS, spi_driver
from faro_pi.config import (
    PIN_FACTORY_VARIABLE,
    REQUIRED,
    SCHEMA,
    Config,
    load_config,
    parse_config,
    reference_markdown,
)
from faro_pi.config.pins import pin_problem
from faro_pi.devices.shift_registers import DRIVERS, SPIShiftRegisters
from faro_pi.exc import ConfigError, FaroError

EXAMPLE = Path(__file__).parent.parent / "faro_pi" / "config.example.toml"
MINIMAL = '[reader]\nport = "/dev/faro-reader"\n'


def parse(text: str, **kwargs) -> Config:
    return parse_config(text, source="config.toml", base_dir="/etc/faro-pi", **kwargs)


def error(text: str, **kwargs) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse(text, **kwargs)
    return caught.value


# -- defaults and the example file ---------------------------------------------


def test_defaults():
    config = parse(MINIMAL)
    assert config.reader.port == "/dev/faro-reader"
    assert config.reader.protocol == "fsp1"
    assert config.reader.baud == 115200
    assert config.reader.heartbeat_timeout == 3.5
    assert config.journal.path == Path("/var/lib/faro-pi/journal.sqlite3")
    assert config.gpio.pin_factory is None
    assert (config.buttons.signal, config.buttons.undo, config.buttons.new_pack) == (17, 27, 22)
    assert (config.buttons.bounce, config.buttons.undo_hold) == (0.03, 1.5)
    assert config.leds == type(config.leds)("74hc595-spi", 10, 11, 8, 18, 1.0)
    assert config.display == type(config.display)("ssd1306", 1, 0x3C, 0)
    assert config.console == type(config.console)(True, "127.0.0.1", 8077, None, None)
    assert config.log.verbose is False


def test_every_default_matches_the_schema():
    config = parse(MINIMAL)
    for name, section in SCHEMA.items():
        for key, spec in section.keys.items():
            if spec.default is REQUIRED:
                continue
            value = getattr(getattr(config, name), key)
            expected = None if spec.default is None else spec.kind(spec.default)
            if (name, key) == ("camera", "pictures"):  # unset: beside the journal
                expected = config.journal.path.parent / "pictures"
            assert value == expected, f"{name}.{key}"
            assert type(value) is type(expected), f"{name}.{key}"


def test_dataclasses_have_exactly_the_schema_keys():
    assert [f.name for f in dataclasses.fields(Config)] == list(SCHEMA)
    for section in SCHEMA.values():
        assert [f.name for f in dataclasses.fields(section.cls)] == list(section.keys)


def test_each_keys_type_is_its_fields_type():
    kinds = {name: spec.kind for name, spec in SCHEMA["leds"].keys.items()}
    assert kinds == {
        "driver": str,
        "data": int,
        "clock": int,
        "latch": int,
        "enable": int,  # int | None: false means not wired
        "brightness": float,
    }
    assert SCHEMA["journal"].keys["path"].kind is Path
    assert SCHEMA["console"].keys["token"].kind is str


def test_config_is_immutable():
    config = parse(MINIMAL)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.reader.port = "/dev/ttyUSB0"


def test_example_file_parses_to_the_defaults():
    assert load_config(EXAMPLE, environ={}) == parse(MINIMAL)


def test_example_file_shows_every_key():
    text = EXAMPLE.read_text(encoding="utf-8")
    written = tomllib.loads(text)
    for name, section in SCHEMA.items():
        assert f"[{name}]" in text
        for key, spec in section.keys.items():
            if spec.default is None:
                assert f"# {key} = " in text, f"{name}.{key} is not shown commented out"
            else:
                assert key in written[name], f"{name}.{key} is missing"


def test_pins_lists_every_wired_gpio():
    assert parse(MINIMAL).pins() == {
        "buttons.signal": 17,
        "buttons.undo": 27,
        "buttons.new_pack": 22,
        "leds.data": 10,
        "leds.clock": 11,
        "leds.latch": 8,
        "leds.enable": 18,
    }


def test_enable_false_means_not_wired():
    config = parse(MINIMAL + "[leds]\nenable = false\n")
    assert config.leds.enable is None
    assert "leds.enable" not in config.pins()


def test_leds_driver_none_frees_their_pins():
    config = parse(MINIMAL + '[leds]\ndriver = "none"\ndata = 17\n')
    assert not any(key.startswith("leds.") for key in config.pins())


def test_ints_are_accepted_for_floats_and_hex_for_ints():
    text = (
        MINIMAL + "heartbeat_timeout = 5\n[leds]\nbrightness = 0\n[display]\ni2c_address = 0x3D\n"
    )
    config = parse(text)
    assert config.reader.heartbeat_timeout == 5.0
    assert isinstance(config.reader.heartbeat_timeout, float)
    assert config.leds.brightness == 0.0
    assert config.display.i2c_address == 0x3D


# -- mistakes: one line each, naming the file and the key -------------------------

M = MINIMAL
MISTAKES = [
    # unknown names
    (M + "[bogus]\n", "bogus", "unknown section (known: reader, journal, gpio, buttons"),
    ("verbose = true\n", "verbose", "unknown section"),
    (
        M + "bogus = 1\n",
        "reader.bogus",
        "unknown key (known: port, protocol, baud, heartbeat_timeout)",
    ),
    (M + "[reader.extra]\n", "reader.extra", "unknown key"),
    # required
    ("", "reader.port", "required key is missing"),
    ("[log]\nverbose = true\n", "reader.port", "required key is missing"),
    ('[reader]\nport = ""\n', "reader.port", "must not be empty"),
    # wrong types
    (
        M + "[buttons]\nsignal = true\n",
        "buttons.signal",
        "expected an integer, got a boolean (true)",
    ),
    (
        M + '[buttons]\nsignal = "17"\n',
        "buttons.signal",
        'expected an integer, got a string ("17")',
    ),
    (M + "[buttons]\nsignal = 17.0\n", "buttons.signal", "expected an integer, got a float (17.0)"),
    ("[reader]\nport = 3\n", "reader.port", "expected a string, got an integer (3)"),
    ('[reader]\nport = ["a"]\n', "reader.port", "expected a string, got an array"),
    (M + "heartbeat_timeout = true\n", "reader.heartbeat_timeout", "expected a float"),
    (M + "[console]\nenabled = 1\n", "console.enabled", "expected a boolean, got an integer (1)"),
    (M + "[leds]\nenable = true\n", "leds.enable", "expected an integer or false, got a boolean"),
    (M + "[log]\nverbose = 1979-05-27\n", "log.verbose", "got a date or time"),
    ('reader = "x"\n', "reader", "expected a table [reader], got a string"),
    # outside the allowed values
    (M + 'protocol = "fsp2"\n', "reader.protocol", '"fsp2" is not one of "fsp1", "plain"'),
    (M + "baud = 11520\n", "reader.baud", "11520 is not one of 9600, 19200"),
    (M + '[display]\ndriver = "ssd1305"\n', "display.driver", 'is not one of "ssd1306", "sh1106"'),
    (M + "[display]\nrotate = 1\n", "display.rotate", "1 is not one of 0, 2"),
    (M + '[gpio]\npin_factory = "pigpio"\n', "gpio.pin_factory", '"pigpio" is not one of "lgpio"'),
    (M + "heartbeat_timeout = 0\n", "reader.heartbeat_timeout", "0.0 is out of range (2..600)"),
    (M + "heartbeat_timeout = inf\n", "reader.heartbeat_timeout", "inf is not a finite number"),
    (M + "[leds]\nbrightness = nan\n", "leds.brightness", "nan is not a finite number"),
    (M + "[buttons]\nbounce = 30\n", "buttons.bounce", "30.0 is out of range (0..1)"),
    (M + "[leds]\nbrightness = 1.5\n", "leds.brightness", "1.5 is out of range (0..1)"),
    (M + "[console]\nport = 0\n", "console.port", "0 is out of range (1..65535)"),
    (M + "[console]\nport = 65536\n", "console.port", "65536 is out of range (1..65535)"),
    (M + '[console]\ntoken = ""\n', "console.token", "must not be empty"),
    (M + '[console]\nhost = ""\n', "console.host", "must not be empty"),
    (M + '[journal]\npath = ""\n', "journal.path", "must not be empty"),
    (
        M + "[display]\ni2c_address = 0x100\n",
        "display.i2c_address",
        "0x100 is out of range (0x08..0x77)",
    ),
    (M + "[display]\ni2c_port = -1\n", "display.i2c_port", "-1 is out of range (>= 0)"),
    # pins
    (M + "[buttons]\nsignal = 28\n", "buttons.signal", "28 is not a BCM GPIO number (0..27)"),
    (M + "[leds]\nlatch = -1\n", "leds.latch", "-1 is not a BCM GPIO number (0..27)"),
    (M + "[buttons]\nundo = 17\n", "buttons.undo", "pin 17 is already used by buttons.signal"),
    (M + "[leds]\nenable = 22\n", "leds.enable", "pin 22 is already used by buttons.new_pack"),
    (M + "[leds]\nclock = 10\n", "leds.clock", "pin 10 is already used by leds.data"),
    (M + "[leds]\nenable = false\nbrightness = 0.5\n", "leds.brightness", "needs leds.enable"),
]


@pytest.mark.parametrize(("body", "key", "problem"), MISTAKES)
def test_each_mistake_is_one_line_naming_file_and_key(body, key, problem):
    caught = error(body)
    message = str(caught)
    assert "\n" not in message
    assert message.startswith(f"config.toml: {key}: "), message
    assert problem in message, message
    assert caught.key == key
    assert isinstance(caught, FaroError)


def test_pin_clash_message_names_both_keys_exactly():
    assert str(error(MINIMAL + "[buttons]\nundo = 17\n")) == (
        "config.toml: buttons.undo: pin 17 is already used by buttons.signal"
    )


def test_toml_syntax_error_is_one_line_with_its_position():
    caught = error(MINIMAL + "[buttons]\nsignal = \n")
    message = str(caught)
    assert "\n" not in message
    assert message.startswith("config.toml: ")
    assert "line 4" in message
    assert caught.key is None


def test_the_source_name_is_in_every_message():
    with pytest.raises(ConfigError, match=r"^/etc/faro-pi/table\.toml: reader\.bogus: "):
        parse_config(MINIMAL + "bogus = 1\n", source="/etc/faro-pi/table.toml")


# -- the environment -----------------------------------------------------------


def test_environment_overrides_the_pin_factory():
    text = MINIMAL + '[gpio]\npin_factory = "lgpio"\n'
    assert parse(text).gpio.pin_factory == "lgpio"
    assert parse(text, environ={PIN_FACTORY_VARIABLE: "mock"}).gpio.pin_factory == "mock"
    assert parse(text, environ={PIN_FACTORY_VARIABLE: ""}).gpio.pin_factory == "lgpio"
    assert parse(MINIMAL, environ={PIN_FACTORY_VARIABLE: "rpigpio"}).gpio.pin_factory == "rpigpio"


def test_invalid_environment_value_names_the_variable():
    caught = error(MINIMAL, environ={PIN_FACTORY_VARIABLE: "pigpio"})
    message = str(caught)
    assert "\n" not in message
    assert message.startswith(f"environment: {PIN_FACTORY_VARIABLE}: "), message
    assert '"pigpio" is not one of "lgpio", "rpigpio", "mock"' in message
    assert caught.key == PIN_FACTORY_VARIABLE


def test_parse_config_ignores_the_process_environment(monkeypatch):
    monkeypatch.setenv(PIN_FACTORY_VARIABLE, "mock")
    assert parse_config(MINIMAL).gpio.pin_factory is None


def test_load_config_reads_the_process_environment_by_default(tmp_path, monkeypatch):
    path = tmp_path / "config.toml"
    path.write_text(MINIMAL, encoding="utf-8")
    monkeypatch.setenv(PIN_FACTORY_VARIABLE, "mock")
    assert load_config(path).gpio.pin_factory == "mock"
    assert load_config(path, environ={}).gpio.pin_factory is None


# -- files and paths -------------------------------------------------------------


def test_relative_journal_path_is_taken_from_the_config_folder(tmp_path):
    path = tmp_path / "etc" / "config.toml"
    path.parent.mkdir()
    path.write_text(MINIMAL + '[journal]\npath = "data/journal.sqlite3"\n', encoding="utf-8")
    config = load_config(path, environ={})
    assert config.journal.path == tmp_path / "etc" / "data" / "journal.sqlite3"
    assert config.journal.path.is_absolute()


def test_relative_journal_path_with_parse_config():
    config = parse(MINIMAL + '[journal]\npath = "journal.sqlite3"\n')
    assert config.journal.path == Path("/etc/faro-pi/journal.sqlite3")
    assert parse_config(MINIMAL).journal.path.is_absolute()


def test_absolute_journal_path_is_kept(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(MINIMAL + '[journal]\npath = "/srv/faro/j.sqlite3"\n', encoding="utf-8")
    assert load_config(path, environ={}).journal.path == Path("/srv/faro/j.sqlite3")


def test_load_config_reports_its_file_name(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(MINIMAL + "[buttons]\nundo = 17\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"^{path}: buttons\.undo: pin 17"):
        load_config(path, environ={})


@pytest.mark.parametrize("make", ["missing", "folder", "binary"])
def test_unusable_file_is_one_line_naming_the_path(tmp_path, make):
    path = tmp_path / "config.toml"
    if make == "folder":
        path.mkdir()
    elif make == "binary":
        path.write_bytes(b'[reader]\nport = "\xff"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert caught.value.key is None


# -- the reference table ---------------------------------------------------------


def test_reference_lists_every_key_with_its_default():
    rows = {}
    for line in reference_markdown().splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells
    expected = [f"{name}.{key}" for name, section in SCHEMA.items() for key in section.keys]
    assert list(rows) == expected
    for name, section in SCHEMA.items():
        for key, spec in section.keys.items():
            default = rows[f"{name}.{key}"][2]
            if spec.default is REQUIRED:
                assert default == "*required*"
            elif spec.default is None:
                assert default == "*unset*"
            else:
                assert tomllib.loads(f"v = {default.strip('`')}")["v"] == spec.default
            assert rows[f"{name}.{key}"][4] == spec.meaning


def test_reference_is_a_well_formed_table():
    lines = reference_markdown().splitlines()
    assert lines[0] == "| Key | Type | Default | Allowed | Meaning |"
    assert all(line.count("|") == 6 for line in lines)


# -- pins the board, the display's bus or SPI0 holds -------------------------------

SPI_DRIVERS = [c for c in SCHEMA["leds"].keys["driver"].choices if spi_driver(c)]
"""The case keeper's drivers that send the frames through SPI0."""


def with_leds(config: Config, **changes) -> Config:
    return dataclasses.replace(config, leds=dataclasses.replace(config.leds, **changes))


@pytest.mark.parametrize("pin", [0, 1])
def test_the_hat_eeproms_pins_are_refused_whatever_else_is_configured(pin):
    for display in ("ssd1306", "none"):
        body = MINIMAL + f'[buttons]\nsignal = {pin}\n[display]\ndriver = "{display}"\n'
        caught = error(body)
        assert caught.key == "buttons.signal"
        name = {0: "ID_SD", 1: "ID_SC"}[pin]
        assert str(caught) == (
            f"config.toml: buttons.signal: GPIO {pin} is {name}, the HAT ID EEPROM's bus, "
            "which the firmware reads at boot: choose another pin"
        )


@pytest.mark.parametrize(("pin", "line"), [(2, "SDA"), (3, "SCL")])
def test_i2c_bus_1s_pins_are_refused_while_a_display_is_on_it(pin, line):
    caught = error(MINIMAL + f"[leds]\nenable = {pin}\n")  # the default display: ssd1306 on bus 1
    assert str(caught) == (
        f"config.toml: leds.enable: GPIO {pin} is {line} of I²C bus 1, the display's "
        '(display.driver = "ssd1306"): choose another pin'
    )
    # no display on bus 1: the pins are free
    for display in ('driver = "none"', 'driver = "dummy"', "i2c_port = 3"):
        config = parse(MINIMAL + f"[leds]\nenable = {pin}\n[display]\n{display}\n")
        assert config.pins()["leds.enable"] == pin


def held(config):
    """What :func:`pin_problem` finds in ``config``'s pins, as the config's parsing asks it."""
    display = config.display
    return pin_problem(
        config.pins(),
        leds_driver=config.leds.driver,
        display_driver=display.driver,
        i2c_port=display.i2c_port,
    )


def test_spi0s_pins_are_checked_only_with_an_spi_driver():
    config = parse(MINIMAL)
    assert held(with_leds(config, driver="74hc595", latch=7)) is None  # bit-banged
    spi = with_leds(config, driver="74hc595-spi")
    assert held(spi) is None  # the default pins: MOSI, SCLK, CE0
    assert held(with_leds(spi, latch=5, enable=None)) == (
        "leds.latch",
        'must be GPIO 8 (SPI0 CE0) for the chain on SPI, not 5 (leds.driver = "74hc595-spi")',
    )
    buttons = dataclasses.replace(spi.buttons, signal=7)  # CE1: the kernel's with SPI on
    assert held(dataclasses.replace(spi, buttons=buttons)) == (
        "buttons.signal",
        'GPIO 7 is SPI0 CE1, which the kernel holds while SPI is on (leds.driver = "74hc595-spi")',
    )
    assert spi_driver("74hc595-spi") and not spi_driver("74hc595") and not spi_driver("none")


def test_the_chains_drivers_are_named_as_the_install_reads_them():
    """``hardware/install.sh`` turns SPI on for a driver whose name ends in ``-spi``; the
    board's table of drivers, the drivers themselves and the config's choices agree with it."""
    assert {name: name.endswith("-spi") for name in CHAIN_DRIVERS} == CHAIN_DRIVERS
    assert {name: cls is SPIShiftRegisters for name, cls in DRIVERS.items()} == CHAIN_DRIVERS
    assert set(SCHEMA["leds"].keys["driver"].choices) == {*CHAIN_DRIVERS, "none"}


@pytest.mark.parametrize("driver", SPI_DRIVERS)
def test_an_spi_driver_refuses_the_chain_off_spi0s_pins(driver):
    caught = error(MINIMAL + f'[leds]\ndriver = "{driver}"\ndata = 9\n')
    assert caught.key == "leds.data"
    assert str(caught).startswith(
        "config.toml: leds.data: must be GPIO 10 (SPI0 MOSI) for the chain on SPI, not 9"
    )
    caught = error(MINIMAL + f'[leds]\ndriver = "{driver}"\n[buttons]\nundo = 9\n')
    assert str(caught).startswith("config.toml: buttons.undo: GPIO 9 is SPI0 MISO")


def test_only_a_regular_config_file_of_a_sane_size_is_read(tmp_path):
    """/dev/zero grew without end and a FIFO hung; arrays nested 3,000 deep gave a
    RecursionError traceback: each is one line now."""
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(fifo, environ={})
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config("/dev/zero", environ={})
    big = tmp_path / "big.toml"
    big.write_text(MINIMAL + "# " + "x" * 300_000 + "\n")
    with pytest.raises(ConfigError, match="a config is at most 256 KB"):
        load_config(big, environ={})
    deep = "[reader]\nport = " + "[" * 3000 + "]" * 3000 + "\n"
    with pytest.raises(ConfigError, match="nested too deeply"):
        parse_config(deep)


@pytest.mark.parametrize(
    ("port", "why"),
    [
        ("/dev/tty\0USB0", "control character"),
        ("socket://127.0.0.1", "socket://HOST:PORT, both given"),
        ("socket://:7711", "socket://HOST:PORT, both given"),
        ("socket://127.0.0.1:99999", "socket://HOST:PORT, both given"),
        ("unix://run/faro.sock", "unix:///PATH, the path absolute"),
    ],
)
def test_a_reader_port_no_reader_can_be_at_is_refused_not_retried_for_ever(port, why):
    with pytest.raises(ConfigError, match=why) as refused:
        parse_config(f'[reader]\nport = "{port.replace(chr(0), chr(92) + "u0000")}"\n')
    assert refused.value.key == "reader.port"


def test_a_heartbeat_timeout_a_healthy_reader_would_flap_is_refused():
    """A reader speaks every second: under two seconds of silence, a healthy one would
    raise and clear the lost alarm all night (39 rows in 20 s at 0.5)."""
    with pytest.raises(ConfigError, match="heartbeat_timeout"):
        parse_config(MINIMAL + "heartbeat_timeout = 0.5\n")
    assert parse_config(MINIMAL + "heartbeat_timeout = 2.0\n").reader.heartbeat_timeout == 2.0
