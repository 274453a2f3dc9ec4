"""A real Mosquitto for the floor's tests: its own config, password file and ACL, on a free
loopback port, started and killed at will (Debian's ``mosquitto``, which ``make test``
installs)."""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.ports import free_port

MOSQUITTO = os.environ.get("FARO_MOSQUITTO", "/usr/sbin/mosquitto")
PASSWD = "/usr/bin/mosquitto_passwd"
FLOOR_USER = "floor"

ACL = """\
# The floor reads every table and asks any of them for rows again.
user {floor}
topic read {prefix}/#
topic write {prefix}/+/resend

# Each table writes only its own topics and reads only its own resend requests and status:
# %u is the user's name, which is the table's name on the floor.
pattern write {prefix}/%u/journal
pattern write {prefix}/%u/status
pattern write {prefix}/%u/state
pattern read {prefix}/%u/resend
pattern read {prefix}/%u/status
"""

CONFIG = """\
listener {port} 127.0.0.1
allow_anonymous false
password_file {folder}/passwd
acl_file {folder}/acl
persistence false
# The floor's persistent session keeps what arrives while it is away.
max_queued_messages 200000
max_inflight_messages 100
log_dest file {folder}/mosquitto.log
log_type error
log_type warning
log_type notice
connection_messages true
"""


def mosquitto() -> str:
    path = MOSQUITTO if os.path.exists(MOSQUITTO) else shutil.which("mosquitto")
    if path is None:
        pytest.skip(
            f"no broker: {MOSQUITTO} is not installed (apt-get install mosquitto, "
            "as make test does)"
        )
    return path


class Mosquitto:
    """One broker on ``127.0.0.1:port``; ``users`` maps each name to its password."""

    def __init__(self, folder: Path, users: dict[str, str], prefix: str = "faro"):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.users = dict(users)
        self.proc: subprocess.Popen | None = None
        passwd = folder / "passwd"
        passwd.write_text("".join(f"{name}:{password}\n" for name, password in users.items()))
        passwd.chmod(0o600)
        subprocess.run([PASSWD, "-U", str(passwd)], check=True)
        (folder / "acl").write_text(ACL.format(floor=FLOOR_USER, prefix=prefix))
        config = CONFIG.format(port=self.port, folder=folder)
        if os.geteuid() == 0:  # it would drop to the mosquitto user, who can't read our files
            config += f"user {getpass.getuser()}\n"
        (folder / "mosquitto.conf").write_text(config)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        self.proc = subprocess.Popen(
            [mosquitto(), "-c", str(self.folder / "mosquitto.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"mosquitto did not start: {self.log()}") from None
                time.sleep(0.02)  # a child process's port: nothing to await

    def kill(self) -> None:
        """As a power cut would: no will goes out, and everything it held is lost."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text() if path.exists() else ""
