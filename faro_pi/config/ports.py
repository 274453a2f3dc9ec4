"""``reader.port``: where a reader can be found, checked before the daemon looks there."""

from __future__ import annotations

from urllib.parse import urlsplit

from faro_pi.exc import ConfigError


def check_port(source: str, port: str) -> None:
    """``reader.port`` names something a reader can be found at (a device path, a
    ``unix:///PATH``, a ``socket://HOST:PORT``, or another of pySerial's URLs): never
    one retried for ever in vain."""
    where = f"{source}: reader.port {port!r}"
    if any(ord(c) < 0x20 or c == "\x7f" for c in port):
        raise ConfigError(f"{where}: holds a control character", "reader.port")
    if port.startswith("unix:"):
        parts = urlsplit(port)
        if parts.netloc or not parts.path.startswith("/"):
            raise ConfigError(
                f"{where}: a socket is unix:///PATH, the path absolute", "reader.port"
            )
    elif port.startswith("socket:"):
        parts = urlsplit(port)
        try:
            number = parts.port
        except ValueError:
            number = None
        if not parts.hostname or number is None:
            raise ConfigError(f"{where}: a socket is socket://HOST:PORT, both given", "reader.port")
