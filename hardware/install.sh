#!/bin/sh
# Installs faro-pi as a service on Raspberry Pi OS (Bookworm or Trixie, 32 or
# 64-bit). Run from the repository as root: `sudo make install`.
#
#   /opt/faro-pi/                 a virtualenv with faro-pi and its Pi extras,
#                                 README.md and docs/ (the units' Documentation=)
#   /usr/local/bin/faro-pi        a link to its command, for every login
#   /etc/faro-pi/config.toml      the table's config (never overwritten),
#                                 0640 root:faro-pi: the group faro-pi reads it
#   /etc/systemd/system/faro-pi.service
#   /etc/systemd/system/faro-pi-camera.service   the camera reader, enabled and
#                                 started when camera.source is "csi" or "usb"
#   /etc/udev/rules.d/99-faro-reader.rules   the reader as /dev/faro-reader
#   /etc/modules-load.d/faro-pi-gadget.conf  on a board of its own at the shoe
#                                 (camera.source a camera, reader.port /dev/ttyGS0):
#                                 the USB gadget serial port to the table's Pi
#   /var/lib/faro-pi/             the journal, made by systemd at first start,
#                                 and console.token, 0640: the group faro-pi reads it
#   /boot/firmware/config.txt     I²C on at 400 kHz (the display), SPI on when
#                                 leds.driver is an SPI driver (the case keeper);
#                                 at the shoe, the dwc2 overlay (the gadget) instead
#
# A lookout's login in the group faro-pi runs the command line's clients
# (faro-pi status, bet, ...) with no --config: they read the config and the
# console's token. The script says how to add one; it adds nobody itself.
#
# Environment:
#   DESTDIR   install into this folder as if it were / (for packaging and
#             tests). Nothing outside it is touched: no apt-get, no user, no
#             chown, no systemctl or udevadm; those commands are only shown.
#             The boot config is DESTDIR's, and changed only if it is there.
#             The virtualenv's scripts and compiled modules name PREFIX, where
#             the staged files will be, not DESTDIR.
#   PREFIX    where the virtualenv goes (default /opt/faro-pi).
#   PYTHON    the interpreter the virtualenv is made from (default python3).
#   FARO_PI_SKIP_VENV=1   leave the virtualenv alone (shown, not made).
#   FARO_PI_NO_APT=1      do not apt-get install the system packages.
set -eu

. "$(dirname "$0")/install-common.sh"
PYTHON=${PYTHON:-python3}
SERVICE_USER=faro-pi
DEVICE_GROUPS="gpio i2c spi dialout"

# The value of KEY in [SECTION] of the TOML file FILE, without its quotes; empty if unset.
toml_value() {
    [ -f "$3" ] || return 0
    awk -v section="$1" -v key="$2" '
        { sub(/[[:space:]]*#.*$/, "") }
        /^[[:space:]]*\[/ { gsub(/[][[:space:]]/, ""); here = ($0 == section); next }
        here && $0 ~ ("^[[:space:]]*" key "[[:space:]]*=") {
            sub(/^[^=]*=[[:space:]]*/, ""); gsub(/"/, ""); sub(/[[:space:]]+$/, "")
            print; exit
        }' "$3"
}

# The table's setting KEY in [SECTION]: the installed config's, else the example's.
config_value() {
    value=$(toml_value "$1" "$2" "$DESTDIR$CONFIG")
    [ -n "$value" ] || value=$(toml_value "$1" "$2" "$SRC/faro_pi/config.example.toml")
    printf '%s\n' "$value"
}

# Sets each dtparam NAME=VALUE given in the boot config FILE, and prints `ok NAME=VALUE`
# for one that was so already, `set NAME=VALUE` for one it changed. A dtparam line that
# sets NAME (alone or in a list) takes the value in place. The others go in lines of their
# own before the file's first setting, where the firmware applies them to the base device
# tree (a dtparam after a dtoverlay line is that overlay's) on every board (not under a
# [pi4]-like filter). config.txt has no comments at the end of a line.
boot_dtparams() {
    file=$1
    shift
    edited=$(mktemp)
    report=$(mktemp)
    awk -v wanted="$*" -v mark="$BOOT_MARK" -v report="$report" '
        BEGIN {
            count = split(wanted, params, " ")
            for (i = 1; i <= count; i++) {
                split(params[i], pair, "=")
                name[i] = pair[1]
                value[i] = pair[2]
            }
        }
        /^[[:space:]]*dtparam=/ {
            for (i = 1; i <= count; i++) {
                if (!(i in seen) && match($0, "[=,]" name[i] "=[^,[:space:]]*")) {
                    was = substr($0, RSTART + length(name[i]) + 2, RLENGTH - length(name[i]) - 2)
                    seen[i] = (was == value[i]) ? "ok" : "set"
                    $0 = substr($0, 1, RSTART) name[i] "=" value[i] substr($0, RSTART + RLENGTH)
                }
            }
        }
        { lines[NR] = $0 }
        $0 == mark { ours = NR + 1 }
        !first && $0 !~ /^[[:space:]]*(#|$)/ { first = NR }
        END {
            # after the mark of an earlier install, else above the first setting and the
            # comments that lead up to it
            at = ours ? ours : first ? first : NR + 1
            while (!ours && at > 1 && lines[at - 1] ~ /^[[:space:]]*#/) at--
            for (n = 1; n <= NR + 1; n++) {
                if (n == at) {
                    block = ""
                    for (i = 1; i <= count; i++) {
                        if (!(i in seen)) {
                            block = block "dtparam=" name[i] "=" value[i] "\n"
                            seen[i] = "set"
                        }
                    }
                    if (block != "" && !ours) block = mark "\n" block (n <= NR ? "\n" : "")
                    printf "%s", block
                }
                if (n <= NR) print lines[n]
            }
            for (i = 1; i <= count; i++) print seen[i], name[i] "=" value[i] > report
        }' "$file" >"$edited"
    if grep -q "^set " "$report"; then
        cat "$edited" >"$file"
    fi
    cat "$report"
    rm -f "$edited" "$report"
}

# At the shoe: the USB port in peripheral mode (the dwc2 overlay, under [all]) and the
# gadget serial driver loaded at boot, so that reader.port (/dev/ttyGS0) is there; the
# table's Pi sees the board as /dev/ttyACM0.
gadget_serial() {
    install -d -m 0755 "$DESTDIR$(dirname "$GADGET_MODULES")"
    printf '%s\n%s\n%s\n' "$GADGET_MARK" dwc2 g_serial >"$DESTDIR$GADGET_MODULES"
    chmod 0644 "$DESTDIR$GADGET_MODULES"
    say "wrote $DESTDIR$GADGET_MODULES"
    if [ -z "$boot_config" ]; then
        say "no boot config: for the USB gadget serial port, set dtoverlay=dwc2 and reboot"
    elif every_board "$DESTDIR$boot_config" \
        '^[[:space:]]*dtoverlay=dwc2(,dr_mode=(otg|peripheral))?[[:space:]]*$'; then
        say "ok: dtoverlay=dwc2 in $boot_config"
    else
        printf '\n[all]\n%s\n%s\n' "$GADGET_MARK" dtoverlay=dwc2 >>"$DESTDIR$boot_config"
        say "set dtoverlay=dwc2 in $boot_config"
    fi
    [ -e "$reader_port" ] || reboot_needed=yes
}

case $PREFIX in
/*) ;;
*) say "install.sh: PREFIX must be an absolute path, not '$PREFIX'" >&2; exit 2 ;;
esac
if [ -z "$DESTDIR" ] && [ "$(id -u)" -ne 0 ]; then
    say "install.sh: run as root (sudo make install), or set DESTDIR to stage the files" >&2
    exit 1
fi

# -- system packages -------------------------------------------------------
# lgpio, the pin library, from Raspberry Pi OS (the virtualenv sees it through
# --system-site-packages): it is built for this Python and every Pi, 3 to 5
# and the Zero 2 W, where PyPI's lgpio needs swig and a system liblgpio to
# build and RPi.GPIO needs a compiler and does not work on a Pi 5. Pillow
# likewise, for the display on 32-bit systems.
#
# On the 32-bit OS (armhf) PyPI has no wheel of msgspec (the journal's and the
# events' encoding): pip builds it from its sources, with a C compiler and
# Python's headers, taken here; a few minutes on a Pi Zero 2 W, once per upgrade
# of msgspec. The 64-bit OS needs neither.
#
# The camera reader (camera.source "csi" or "usb") reads its model with Raspberry Pi
# OS's OpenCV and numpy, and a Camera Module through its picamera2: no wheels.
camera_source=$(config_value camera source)
case $camera_source in
csi | usb) camera_reader=yes ;;
*) camera_reader="" ;;
esac
# A board of its own at the shoe (a Zero 2 W with the camera): the camera reader writes to
# the USB gadget's serial port, and the table's Pi at the other end of the cable runs the
# daemon, the display and the case keeper. Here the daemon stays off.
shoe_board=""
reader_port=$(config_value reader port)
case $camera_reader:$reader_port in
yes:/dev/ttyGS*) shoe_board=yes ;;
esac
if [ -z "${FARO_PI_NO_APT:-}" ] && command -v apt-get >/dev/null 2>&1; then
    packages="python3-venv python3-pil"
    case $camera_source in
    csi) packages="$packages python3-opencv python3-numpy python3-picamera2" ;;
    usb) packages="$packages python3-opencv python3-numpy" ;;
    esac
    if [ "$(dpkg --print-architecture 2>/dev/null)" = armhf ]; then
        packages="$packages gcc libc6-dev python3-dev"
    fi
    if apt-cache show python3-lgpio >/dev/null 2>&1; then
        packages="$packages python3-lgpio"
    else
        say "note: no python3-lgpio in this system's packages (not Raspberry Pi OS?): the" \
            "daemon needs a gpiozero pin library, or gpio.pin_factory = \"mock\""
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
# A step of it that failed (STEP), said last, where it is seen: a virtualenv this run
# began is half made, and removed, so that the next run starts it afresh; one there
# before is left as it was (pip builds everything it installs before it replaces any of
# it, and a build is what fails: a package with no wheel for this system).
venv_failed() { # STEP
    if [ -n "$venv_made" ]; then
        rm -rf "$VENV"
        left="removed the half-made virtualenv $VENV"
    else
        left="$VENV is left as it was"
    fi
    say "" >&2
    say "install.sh: this step failed: $1 ($left)." >&2
    say "What it printed above says why: fix that, then run sudo make install again." >&2
    exit 1
}

# pip builds a project in the folder it is given and leaves build/ and
# faro_pi.egg-info/ there, root's under sudo, which the checkout's owner then
# cannot update (make test, make sim): it builds from a copy of the sources.
unit_tmp=""
sources=""
trap 'rm -rf "$unit_tmp" "$sources"' EXIT
if [ -n "${FARO_PI_SKIP_VENV:-}" ]; then
    say "skipped (FARO_PI_SKIP_VENV): $PYTHON -m venv --system-site-packages $VENV"
    say "skipped (FARO_PI_SKIP_VENV): $VENV/bin/python -m pip install --upgrade" \
        "'COPY[pi]' (COPY: a copy of $SRC)"
else
    sources=$(mktemp -d)
    cp -R "$SRC/pyproject.toml" "$SRC/README.md" "$SRC/faro_pi" "$sources/"
    find "$sources" -name __pycache__ -prune -exec rm -rf {} +
    venv_made=""
    [ -e "$VENV" ] || venv_made=yes
    say "+ $PYTHON -m venv --system-site-packages $VENV"
    "$PYTHON" -m venv --system-site-packages "$VENV" || venv_failed "$PYTHON -m venv"
    say "+ $VENV/bin/python -m pip install --upgrade '$sources[pi]' (a copy of $SRC)"
    "$VENV/bin/python" -m pip install --upgrade "$sources[pi]" ||
        venv_failed "$VENV/bin/python -m pip install --upgrade 'faro-pi[pi]'"
fi
install -d -m 0755 "$VENV" "$VENV/docs" "$VENV/hardware"
install -m 0644 "$SRC/README.md" "$VENV/README.md"
# the units' Documentation= (README.md, docs/floor.md, hardware/README.md) and the
# README's links into docs/
install -m 0644 "$SRC"/docs/*.md "$VENV/docs/"
install -m 0644 "$SRC/hardware/README.md" "$VENV/hardware/README.md"

# -- staged: the virtualenv's paths as installed, not as staged -------------------
# A virtualenv writes its own path into its scripts' first lines, its activate
# scripts and pyvenv.cfg, and pip compiles each module under the path it has now:
# staged in DESTDIR, each is rewritten to PREFIX, where a package puts the files.
if [ -n "$DESTDIR" ] && [ -z "${FARO_PI_SKIP_VENV:-}" ]; then
    grep -lI -F "$VENV" "$VENV"/bin/* "$VENV/pyvenv.cfg" | while read -r file; do
        sed -i "s|$VENV|$PREFIX|g" "$file"
    done
    "$VENV/bin/python" -m compileall -q -f -s "$DESTDIR" -p / "$VENV"/lib/python3*/site-packages \
        >/dev/null
    say "rewrote the virtualenv's paths from $VENV to $PREFIX, where it is installed"
fi

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
sed -e "s|/opt/faro-pi|$PREFIX|g" \
    -e "s|^SupplementaryGroups=.*|SupplementaryGroups=$present_groups|" \
    "$SRC/systemd/faro-pi.service" >"$unit_tmp"
install -m 0644 "$unit_tmp" "$DESTDIR$UNIT"
say "wrote $DESTDIR$UNIT"
sed -e "s|/opt/faro-pi|$PREFIX|g" "$SRC/systemd/faro-pi-camera.service" >"$unit_tmp"
install -m 0644 "$unit_tmp" "$DESTDIR$CAMERA_UNIT"
say "wrote $DESTDIR$CAMERA_UNIT"
install -m 0644 "$SRC/hardware/99-faro-reader.rules" "$DESTDIR$RULE"
say "wrote $DESTDIR$RULE"

# -- the boot config: I²C at 400 kHz, SPI as leds.driver needs it -------------
# At the default 100 kHz a whole OLED frame takes about 95 ms on I²C; at
# 400 kHz a quarter of that. The case keeper's SPI driver sends each frame
# through SPI0, which dtparam=spi=on turns on; the bit-banged driver drives
# SPI0's pins itself, and then SPI must stay off (the kernel would hold them).
boot_config=""
for candidate in /boot/firmware/config.txt /boot/config.txt; do
    if [ -f "$DESTDIR$candidate" ]; then
        boot_config=$candidate
        break
    fi
done
leds_driver=$(config_value leds driver)
[ -z "$shoe_board" ] || leds_driver=none # the case keeper is on the table's Pi
wanted="i2c_arm=on i2c_arm_baudrate=400000"
case $leds_driver in
*-spi) wanted="$wanted spi=on" ;;
esac
reboot_needed=""
if [ -n "$shoe_board" ]; then
    gadget_serial
elif [ -z "$boot_config" ]; then
    say "no /boot/firmware/config.txt (not Raspberry Pi OS?): set these in the firmware's"
    say "config and reboot:$(for param in $wanted; do printf ' dtparam=%s' "$param"; done)"
else
    # shellcheck disable=SC2086  # one word per setting
    results=$(boot_dtparams "$DESTDIR$boot_config" $wanted)
    while read -r done param; do
        if [ "$done" = ok ]; then
            say "ok: dtparam=$param in $boot_config"
        else
            say "set dtparam=$param in $boot_config"
            reboot_needed=yes
        fi
    done <<EOF
$results
EOF
    # what the running kernel has, until the reboot
    [ -e /dev/i2c-1 ] || reboot_needed=yes
    case $leds_driver in
    *-spi) [ -e /dev/spidev0.0 ] || reboot_needed=yes ;;
    esac
fi
# -- the boot config: OE on the Pi's PWM --------------------------------------
# The case keeper's OE (leds.enable, GPIO 18 by default) dims by PWM. On GPIO 12,
# 13, 18 and 19 the pwm overlay gives the pin to the Pi's PWM hardware, which
# the daemon sets through /sys/class/pwm: nothing wakes to dim it (software PWM
# wakes the Pi 800 times a second). Appended under [all]: a dtparam after a
# dtoverlay line would be that overlay's parameter.
leds_enable=$(config_value leds enable)
pwm_overlay=""
case $leds_driver:$leds_enable in
none:* | *:false) ;;
*:12 | *:13) pwm_overlay="dtoverlay=pwm,pin=$leds_enable,func=4" ;;
*:18 | *:19) pwm_overlay="dtoverlay=pwm,pin=$leds_enable,func=2" ;;
*) say "note: leds.enable = $leds_enable has no hardware PWM: dimmed, it wakes the Pi" \
    "800 times a second (GPIO 12, 13, 18 and 19 dim in hardware)" ;;
esac
if [ -n "$pwm_overlay" ]; then
    if [ -z "$boot_config" ]; then
        say "no boot config: for the case keeper's OE on the Pi's PWM, set $pwm_overlay"
    elif every_board "$DESTDIR$boot_config" "^[[:space:]]*$pwm_overlay[[:space:]]*\$"; then
        say "ok: $pwm_overlay in $boot_config"
    elif every_board "$DESTDIR$boot_config" '^[[:space:]]*dtoverlay=pwm(-2chan)?([,[:space:]]|$)'; then
        say "left the pwm overlay of $boot_config as it is: for OE on GPIO$leds_enable it" \
            "takes $pwm_overlay"
    else
        printf '\n[all]\n%s\n%s\n' "$PWM_MARK" "$pwm_overlay" >>"$DESTDIR$boot_config"
        say "set $pwm_overlay in $boot_config"
        reboot_needed=yes
    fi
    if [ -n "$boot_config" ] &&
        grep -Eq "^[[:space:]]*dtparam=([^#]*,)?audio=on" "$DESTDIR$boot_config"; then
        say "note: dtparam=audio=on in $boot_config: the headphone jack's analogue audio" \
            "shares the Pi's PWM; if the LEDs flicker while it plays, set dtparam=audio=off"
    fi
fi

case $leds_driver in
*-spi | none) ;;
*)
    if [ -e /dev/spidev0.0 ] || { [ -n "$boot_config" ] &&
        grep -Eq "^[[:space:]]*dtparam=([^#]*,)?spi=on" "$DESTDIR$boot_config"; }; then
        say "SPI is on and holds GPIO 7 to 11; leds.driver = \"$leds_driver\" drives the chain's" \
            "pins itself: on SPI0's pins (the default 8, 10 and 11) use leds.driver =" \
            "\"$leds_driver-spi\", or turn SPI off: sudo raspi-config nonint do_spi 1, then reboot"
    fi
    ;;
esac

# -- start ---------------------------------------------------------------------------
# In a container or a chroot (an image being built) udev and systemd are not
# running: each step that fails is said at the end, and the rest is done.
step udevadm control --reload
step udevadm trigger --subsystem-match=tty --action=add
step systemctl daemon-reload
if [ -n "$shoe_board" ]; then
    step systemctl disable --now faro-pi
else
    step systemctl enable faro-pi
    # restart, not start: an upgrade takes effect at once.
    step systemctl restart faro-pi
fi
if [ -n "$camera_reader" ]; then
    step systemctl enable faro-pi-camera
    step systemctl restart faro-pi-camera
else
    step systemctl disable --now faro-pi-camera
fi

say ""
if [ -n "$shoe_board" ]; then
    say "faro-pi's camera reader is installed in $PREFIX for the board at the shoe: the"
    say "table's daemon stays off here. Cable this board's USB data port to the table's"
    say "Pi, where it appears as /dev/ttyACM0: set the table's reader.port to its name in"
    say "/dev/serial/by-id/."
    [ -z "$reboot_needed" ] || say "First reboot, for the USB gadget serial port: sudo reboot"
    say "Check the gadget's port, the camera and the light with:"
    say "  sudo systemctl stop faro-pi-camera"
    say "  sudo -u $SERVICE_USER $PREFIX/bin/faro-pi doctor --config $CONFIG"
    say "  sudo systemctl start faro-pi-camera"
    not_done
    exit 0
fi
say "faro-pi is installed in $PREFIX. Check the table with:"
say "  sudo systemctl stop faro-pi"
say "  sudo -u $SERVICE_USER $PREFIX/bin/faro-pi doctor --config $CONFIG"
say "  sudo systemctl start faro-pi"
say "Let a lookout's login use faro-pi (status, bet, ...) with the config and the"
say "console's token: add it to the group $SERVICE_USER, then log in again:"
say "  sudo usermod -aG $SERVICE_USER ${SUDO_USER:-LOGIN}"
if [ -z "$camera_reader" ]; then
    say "For the camera reader over the box, set camera.source (\"csi\" or \"usb\") and"
    say "reader.port in $CONFIG, then run this install again."
fi
if [ -n "$reboot_needed" ]; then
    say "Then reboot, so that I²C, SPI and the PWM are as the boot config now says: sudo reboot"
fi
not_done
