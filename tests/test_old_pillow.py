"""The OLED's screens and the simulator's outputs on older Pillows: the oldest the
dependencies allow, and Raspberry Pi OS Bookworm's 9.4, which an installed table imports
(``--system-site-packages``) and on which the simulator's ``oled.gif`` once failed.

Each runs the very tests that hold them on the virtualenv's Pillow, in a child pytest that
imports the older one (see :mod:`tests.old_pillow`)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests import old_pillow

# The goldens, the GIF of the glass, and the simulator's every output on a pack with faults.
HELD = [
    "tests/test_display.py::test_golden",
    "tests/test_display.py::test_the_screens_ask_pillow_for_no_font",
    "tests/test_display.py::test_the_virtual_oled_keeps_each_new_picture_for_a_gif",
    "tests/test_sim.py::test_a_pack_with_faults_on_the_simulated_table",
]

CHILD = """
import sys
import PIL
import pytest
print("Pillow", PIL.__version__, PIL.__file__, flush=True)
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
"""


@pytest.mark.parametrize("version", old_pillow.versions(), ids=["floor", "bookworm"])
def test_the_oled_and_the_simulator_on_an_older_pillow(version, tmp_path):
    ran = subprocess.run(
        [sys.executable, "-c", CHILD, "--basetemp", str(tmp_path / "t"), *HELD],
        capture_output=True, text=True, env=old_pillow.environ(version),
        cwd=old_pillow.ROOT, timeout=600,
    )  # fmt: skip
    first, *_ = ran.stdout.splitlines() or [""]
    _, got, where = first.split(" ", 2)
    assert got.startswith(f"{version}.") and where.startswith(str(old_pillow.folder(version)))
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
