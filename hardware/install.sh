#!/bin/sh
# Installs faro-pi as a service on Raspberry Pi OS (Bookworm or Trixie, 32 or
# 64-bit). Run from the repository as root: `sudo make install`.
#
#   /opt/faro-pi/                 a virtualenv with faro-pi and its Pi extras
#   /usr/local/bin/faro-pi        a link to its command, for every login
#   /etc/faro-pi/config.toml      the table's config (never overwritten),
#                                 0640 root:faro-pi: the group faro-pi reads it
#   /etc/systemd/system/faro-pi.service
#   /etc/udev/rules.d/99-faro-reader.rules   the reader as /dev/faro-reader
#   /var/lib/faro-pi/             the journal, made by systemd at first start,
#                                 and console.token, 0640: the group faro-pi reads it
#
# A lookout's login in the group faro-pi runs the command line's clients
# (faro-pi status, bet, ...) with no --config: they read the config and the
# console's token. The script says how to add one; it adds nobody itself.
#
# Environment:
#   DESTDIR   install into this folder as if it were / (for packaging and
#             tests). Nothing outside it is touched: no apt-get, no user, no
#             chown, no systemctl or udevadm; those commands are only shown.
#   PREFIX    where the virtualenv goes (default /opt/faro-pi).
#   PYTHON    the interpreter the virtualenv is made from (default python3).
#   FARO_PI_SKIP_VENV=1   leave the virtualenv alone (shown, not made).
#   FARO_PI_NO_APT=1      do not apt-get install the system packages.
set -eu

. "$(dirname "$0")/install-common.sh"
PYTHON=${PYTHON:-python3}
SERVICE_USER=faro-pi
DEVICE_GROUPS="gpio i2c dialout"

case $PREFIX in
/*) ;;
*) say "install.sh: PREFIX must be an absolute path, not '$PREFIX'" >&2; exit 2 ;;
esac
if [ -z "$DESTDIR" ] && [ "$(id -u)" -ne 0 ]; then
    say "install.sh: run as root (sudo make install), or set DESTDIR to stage the files" >&2
    exit 1
fi

# -- system packages -------------------------------------------------------
# lgpio from the OS (the virtualenv sees it through --system-site-packages):
# PyPI has no wheel of it for every Python and board, and building it needs
# swig. Pillow likewise, for the display on 32-bit systems.
if [ -z "${FARO_PI_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1; then
    packages="python3-venv python3-pil"
    if apt-cache show python3-lgpio >/dev/null 2>&1; then
        packages="$packages python3-lgpio"
    fi
    # shellcheck disable=SC2086  # one word per package
    system apt-get install -y --no-install-recommends $packages || {
        say "install.sh: apt-get failed; run 'sudo apt update' and try again" >&2
        exit 1
    }
fi

# -- the service's user --------------------------------------------------------
if [ -n "$DESTDIR" ] || ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
    system useradd --system --user-group --home-dir /var/lib/faro-pi --no-create-home \
        --shell /usr/sbin/nologin "$SERVICE_USER"
fi
present_groups=""
for group in $DEVICE_GROUPS; do
    if [ -n "$DESTDIR" ] || getent group "$group" >/dev/null 2>&1; then
        present_groups="$present_groups $group"
        system usermod --append --groups "$group" "$SERVICE_USER"
    else
        say "note: this system has no group '$group'; the service runs without it"
    fi
done
present_groups=${present_groups# }

# -- the virtualenv --------------------------------------------------------------
if [ -n "${FARO_PI_SKIP_VENV:-}" ]; then
    say "skipped (FARO_PI_SKIP_VENV): $PYTHON -m venv --system-site-packages $VENV"
    say "skipped (FARO_PI_SKIP_VENV): $VENV/bin/python -m pip install --upgrade '$SRC[pi]'"
else
    say "+ $PYTHON -m venv --system-site-packages $VENV"
    "$PYTHON" -m venv --system-site-packages "$VENV"
    say "+ $VENV/bin/python -m pip install --upgrade '$SRC[pi]'"
    if ! "$VENV/bin/python" -m pip install --upgrade "$SRC[pi]"; then
        # The extras are the GPIO libraries; the OS's lgpio serves as well.
        say "warning: the Pi extras did not install; installing faro-pi without them" >&2
        "$VENV/bin/python" -m pip install --upgrade "$SRC"
    fi
fi
install -d -m 0755 "$VENV"
install -m 0644 "$SRC/README.md" "$VENV/README.md"

# -- the command on every login's PATH: a link, never over a file of someone else's --
install -d -m 0755 "$DESTDIR$(dirname "$COMMAND")"
if [ -e "$DESTDIR$COMMAND" ] && [ ! -L "$DESTDIR$COMMAND" ]; then
    say "left $DESTDIR$COMMAND alone: it is not a link; run $PREFIX/bin/faro-pi instead"
else
    ln -sfn "$PREFIX/bin/faro-pi" "$DESTDIR$COMMAND"
    say "linked $DESTDIR$COMMAND to $PREFIX/bin/faro-pi"
fi

# -- the config: the example, unless there is one already ------------------------
install -d -m 0750 "$DESTDIR$CONF_DIR"
if [ -e "$DESTDIR$CONFIG" ]; then
    say "kept $DESTDIR$CONFIG (compare it with $SRC/faro_pi/config.example.toml for new keys)"
else
    install -m 0640 "$SRC/faro_pi/config.example.toml" "$DESTDIR$CONFIG"
    say "wrote $DESTDIR$CONFIG"
fi
# Read by the service and by the lookouts in its group; written by root alone.
chmod 0750 "$DESTDIR$CONF_DIR"
chmod 0640 "$DESTDIR$CONFIG"
system chown root:"$SERVICE_USER" "$CONF_DIR" "$CONFIG"
# A token made before the group could read it (it is the service's own file).
if [ -f "$DESTDIR$TOKEN" ]; then
    chmod 0640 "$DESTDIR$TOKEN"
    say "made $DESTDIR$TOKEN readable by the group $SERVICE_USER"
fi

# -- the unit and the udev rule ----------------------------------------------------
install -d -m 0755 "$DESTDIR$(dirname "$UNIT")" "$DESTDIR$(dirname "$RULE")"
unit_tmp=$(mktemp)
trap 'rm -f "$unit_tmp"' EXIT
sed -e "s|/opt/faro-pi|$PREFIX|g" \
    -e "s|^SupplementaryGroups=.*|SupplementaryGroups=$present_groups|" \
    "$SRC/systemd/faro-pi.service" >"$unit_tmp"
install -m 0644 "$unit_tmp" "$DESTDIR$UNIT"
say "wrote $DESTDIR$UNIT"
install -m 0644 "$SRC/hardware/99-faro-reader.rules" "$DESTDIR$RULE"
say "wrote $DESTDIR$RULE"

# -- I²C on (the display), SPI off (the case keeper drives SPI0's pins) ------------
# With SPI on, the kernel holds GPIO 8 (CE0), the shift registers' latch.
boot_config=/boot/firmware/config.txt
[ -e "$boot_config" ] || boot_config=/boot/config.txt
reboot_needed=""
if [ -e /dev/i2c-1 ]; then
    say "ok: I²C is on (/dev/i2c-1)"
elif [ -e "$boot_config" ] && grep -Eq "^[[:space:]]*dtparam=i2c_arm=on" "$boot_config"; then
    say "I²C is on in $boot_config but /dev/i2c-1 is missing: reboot"
    reboot_needed=yes
else
    say "I²C is off: run  sudo raspi-config nonint do_i2c 0  then reboot"
    reboot_needed=yes
fi
if [ -e /dev/spidev0.0 ] || { [ -e "$boot_config" ] &&
    grep -Eq "^[[:space:]]*dtparam=spi=on" "$boot_config"; }; then
    say "SPI is on, and holds GPIO 8, the case keeper's latch: run  sudo raspi-config nonint do_spi 1  then reboot"
    reboot_needed=yes
else
    say "ok: SPI is off (GPIO 8, 10 and 11 are the case keeper's)"
fi

# -- start ---------------------------------------------------------------------------
system udevadm control --reload
system udevadm trigger --subsystem-match=tty --action=add
system systemctl daemon-reload
system systemctl enable faro-pi
# restart, not start: an upgrade takes effect at once.
system systemctl restart faro-pi

say ""
say "faro-pi is installed in $PREFIX. Check the table with:"
say "  sudo systemctl stop faro-pi"
say "  sudo -u $SERVICE_USER $PREFIX/bin/faro-pi doctor --config $CONFIG"
say "  sudo systemctl start faro-pi"
say "Let a lookout's login use faro-pi (status, bet, ...) with the config and the"
say "console's token: add it to the group $SERVICE_USER, then log in again:"
say "  sudo usermod -aG $SERVICE_USER ${SUDO_USER:-LOGIN}"
if [ -n "$reboot_needed" ]; then
    say "Then set I²C and SPI as shown above, and reboot."
fi
