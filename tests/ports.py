"""Loopback ports for the tests' servers (consoles, brokers, camera readers on a socket)."""

from __future__ import annotations

import random
import socket
from pathlib import Path


def free_port() -> int:
    """A loopback port free now, below the kernel's ephemeral range: a port the kernel
    handed out for ``bind(0)`` may be handed out again, as the local end of an outgoing
    connection, before the test's server binds it, and the server then finds it in use."""
    low = _ephemeral_low()
    for _ in range(200):
        port = _PICK.randrange(10_000, low)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free loopback port between 10000 and {low}")


_PICK = random.SystemRandom()  # not the tests' seeded random: each worker its own ports


def _ephemeral_low() -> int:
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32_768
    return max(low, 11_000)
