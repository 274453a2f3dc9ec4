# Shared by install.sh and uninstall.sh (sourced, not run): where everything
# goes, and how a command that changes the machine is run or only shown.

SRC=$(cd "$(dirname "$0")/.." && pwd)
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/opt/faro-pi}
CONF_DIR=/etc/faro-pi
CONFIG=$CONF_DIR/config.toml
UNIT=/etc/systemd/system/faro-pi.service
RULE=/etc/udev/rules.d/99-faro-reader.rules
STATE_DIR=/var/lib/faro-pi
TOKEN=$STATE_DIR/console.token
COMMAND=/usr/local/bin/faro-pi
VENV=$DESTDIR$PREFIX
# The line above the settings install.sh puts in the Pi's boot config (config.txt).
BOOT_MARK="# faro-pi (hardware/install.sh): the display's I²C, the case keeper's SPI"

say() { printf '%s\n' "$*"; }

# A command that changes this machine outside DESTDIR: run it (and show it),
# or under DESTDIR only show it.
system() {
    if [ -n "$DESTDIR" ]; then
        say "skipped (DESTDIR): $*"
    else
        say "+ $*"
        "$@"
    fi
}
