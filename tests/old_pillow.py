"""Older Pillows beside the virtualenv's, for the tests that draw on them: the oldest the
project's dependencies allow, and Raspberry Pi OS Bookworm's python3-pil (9.4), which an
installed table sees through ``--system-site-packages``.

Each is a ``pip install --target`` folder inside the virtualenv (``<venv>/old-pillow/9.4``),
made once and kept: ``make test`` makes them before the tests (``python -m tests.old_pillow``),
and a test that finds one missing makes it then. A test puts the folder first on
``PYTHONPATH`` of a child Python, which then imports that Pillow and nothing else changes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).parent.parent
BOOKWORM = "9.4"


def pillow_floor() -> str:
    """The oldest Pillow the project's dependencies allow, from pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    (floor,) = (d.split(">=")[1] for d in project["dependencies"] if d.startswith("pillow>="))
    return floor


def versions() -> list[str]:
    return [pillow_floor(), BOOKWORM]


def folder(version: str) -> Path:
    return Path(sys.prefix) / "old-pillow" / version


def installed(version: str) -> Path:
    """The folder of Pillow ``version`` (its newest x.y.z), installed there first if missing."""
    target = folder(version)
    if (target / "PIL").is_dir():
        return target
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--only-binary=:all:", "--target", str(partial), f"pillow=={version}.*",
    ]  # fmt: skip
    got = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if got.returncode != 0:
        raise RuntimeError(
            f"could not install Pillow {version} into {target} (make test does, from PyPI):"
            f" {' '.join(command)}\n{got.stderr.strip()[-600:]}"
        )
    partial.rename(target)  # whole or not at all: a stopped install is not taken for one
    return target


def environ(version: str) -> dict[str, str]:
    """The environment of a child Python that imports Pillow ``version`` and this tree."""
    path = os.pathsep.join((str(installed(version)), str(ROOT)))
    return {**os.environ, "PYTHONPATH": path}


if __name__ == "__main__":
    for each in versions():
        print(f"Pillow {each}: {installed(each)}")
