"""pySerial URL handlers of the table's own: ``unix://PATH``, the camera reader's socket.

pySerial looks a URL's scheme up as ``protocol_SCHEME`` in each package of
``serial.protocol_handler_packages``; :func:`register` adds this one, so that the daemon
and the doctor open ``unix:///run/faro-pi-camera/reader.sock`` as they open a serial
port."""

from __future__ import annotations

import serial

PACKAGE = __name__


def register() -> None:
    if PACKAGE not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append(PACKAGE)
