#!/bin/sh
# Removes what hardware/install.sh installed: `sudo make uninstall`.
#
# The journal (/var/lib/faro-pi) is KEPT: it is the record of every game.
# The config is kept too if it was edited (removed only while it is still the
# example), and so is the faro-pi user, who owns the journal.
#
# Environment: DESTDIR and PREFIX as for install.sh.
set -eu

. "$(dirname "$0")/install-common.sh"

case $PREFIX in
/?*) ;;
*) say "uninstall.sh: PREFIX must be an absolute path other than /, not '$PREFIX'" >&2; exit 2 ;;
esac
if [ -z "$DESTDIR" ] && [ "$(id -u)" -ne 0 ]; then
    say "uninstall.sh: run as root (sudo make uninstall)" >&2
    exit 1
fi

if [ -e "$DESTDIR$CAMERA_UNIT" ]; then
    step systemctl disable --now faro-pi-camera
    rm -f "$DESTDIR$CAMERA_UNIT"
    say "removed $DESTDIR$CAMERA_UNIT"
fi
if [ -e "$DESTDIR$UNIT" ]; then
    step systemctl disable --now faro-pi
    rm -f "$DESTDIR$UNIT"
    say "removed $DESTDIR$UNIT"
fi
step systemctl daemon-reload

if [ -e "$DESTDIR$GADGET_MODULES" ]; then
    rm -f "$DESTDIR$GADGET_MODULES"
    say "removed $DESTDIR$GADGET_MODULES"
fi
if [ -e "$DESTDIR$RULE" ]; then
    rm -f "$DESTDIR$RULE"
    say "removed $DESTDIR$RULE"
fi
step udevadm control --reload

# Only the link install.sh made, to this PREFIX's command.
if [ -L "$DESTDIR$COMMAND" ] && [ "$(readlink "$DESTDIR$COMMAND")" = "$PREFIX/bin/faro-pi" ]; then
    rm -f "$DESTDIR$COMMAND"
    say "removed $DESTDIR$COMMAND"
fi

# Only a folder that install.sh made: a virtualenv, or its README alone.
if [ -f "$VENV/pyvenv.cfg" ] || [ -f "$VENV/README.md" ]; then
    rm -rf "$VENV"
    say "removed $VENV"
elif [ -e "$VENV" ]; then
    say "left $VENV alone: it is not a faro-pi virtualenv"
fi

if [ -e "$DESTDIR$CONFIG" ]; then
    if cmp -s "$DESTDIR$CONFIG" "$SRC/faro_pi/config.example.toml"; then
        rm -f "$DESTDIR$CONFIG"
        rmdir "$DESTDIR$CONF_DIR" 2>/dev/null || true
        say "removed $DESTDIR$CONFIG (it was the example)"
    else
        say "kept $DESTDIR$CONFIG: it was edited"
    fi
fi

for boot_config in /boot/firmware/config.txt /boot/config.txt; do
    if [ -f "$DESTDIR$boot_config" ] && grep -qxF -e "$BOOT_MARK" -e "$PWM_MARK" -e "$GADGET_MARK" "$DESTDIR$boot_config"; then
        say "kept faro-pi's settings in $DESTDIR$boot_config (under '# faro-pi': I²C, SPI," \
            "PWM or the USB gadget): take them out by hand if nothing else uses them"
    fi
done

if [ -e "$DESTDIR$STATE_DIR" ]; then
    say "kept the journal in $DESTDIR$STATE_DIR"
fi
say "kept the faro-pi user (it owns the journal); 'sudo userdel faro-pi' removes it"
not_done
