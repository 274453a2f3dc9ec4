# Shared by install.sh and uninstall.sh (sourced, not run): where everything
# goes, and how a command that changes the machine is run or only shown.

SRC=$(cd "$(dirname "$0")/.." && pwd)
DESTDIR=${DESTDIR:-}
PREFIX=${PREFIX:-/opt/faro-pi}
CONF_DIR=/etc/faro-pi
CONFIG=$CONF_DIR/config.toml
UNIT=/etc/systemd/system/faro-pi.service
CAMERA_UNIT=/etc/systemd/system/faro-pi-camera.service
RULE=/etc/udev/rules.d/99-faro-reader.rules
STATE_DIR=/var/lib/faro-pi
TOKEN=$STATE_DIR/console.token
COMMAND=/usr/local/bin/faro-pi
VENV=$DESTDIR$PREFIX
# The line above the settings install.sh puts in the Pi's boot config (config.txt).
BOOT_MARK="# faro-pi (hardware/install.sh): the display's I²C, the case keeper's SPI"
PWM_MARK="# faro-pi (hardware/install.sh): the case keeper's OE on the Pi's PWM"
GADGET_MARK="# faro-pi (hardware/install.sh): the USB gadget serial port to the table's Pi"
# Loads the gadget serial driver at boot on a board of its own at the shoe.
GADGET_MODULES=/etc/modules-load.d/faro-pi-gadget.conf

say() { printf '%s\n' "$*"; }

# Whether a line of the boot config FILE matching the extended regular expression ERE
# holds for every board: outside any [filter] section, or under [all]. A line under
# [cm5] or [pi4] (Raspberry Pi OS's own config has dtoverlay=dwc2,dr_mode=host under
# [cm5]) holds for those boards only.
every_board() { # FILE ERE
    awk -v wanted="$2" 'BEGIN { every = 1 }
        /^[[:space:]]*\[/ { gsub(/[][[:space:]]/, ""); every = ($0 == "all"); next }
        every && $0 ~ wanted { found = 1 }
        END { exit !found }' "$1"
}

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

# A step of the start or the removal (udevadm, systemctl), run through
# system(); one that fails is kept for not_done() to tell, and the script goes on.
failed_steps=""
step() {
    system "$@" || failed_steps="$failed_steps
  sudo $*"
}

# What step() could not do, and how to do it; an error (status 1) where systemd
# runs, for then a failed step is the table's and not the place's.
not_done() {
    [ -n "$failed_steps" ] || return 0
    say ""
    say "NOT DONE: these failed (no udev or systemd running here: a container or a chroot?)."
    say "Everything else is done. On the running Pi, do them then:$failed_steps"
    if [ -d /run/systemd/system ]; then
        exit 1
    fi
}
