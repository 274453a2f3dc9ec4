# Quick start: `make sim` plays a demo pack, `make test` runs the tests.
# Both create .venv and install the project into it first: `make sim` what the table
# runs (the camera's numpy and OpenCV among it), `make test` the test tools on top, and
# PyTorch for the one test that runs the camera's training script (training/).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.runtime
STAMP := $(VENV)/.tested

.PHONY: test test-deps old-pillow old-opencv browser golden sim bench lint format clean install uninstall hardware

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(RUNTIME): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[camera]'
	touch $@

$(STAMP): pyproject.toml $(RUNTIME)
	$(BIN)/python -m pip install --quiet -e '.[camera,test,train]'
	touch $@

# apt-get, waiting up to 10 minutes for another apt to let go of its lock (a fresh
# machine's unattended upgrades start with it): install through DPkg::Lock::Timeout;
# update, whose lists lock has no timeout, is tried again while a lock is what stops it.
APT_GET := DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600
APT_LOCK_PAUSE ?= 5
APT_UPDATE := ( for try in $$(seq 120); do \
		out=$$($(APT_GET) update -qq 2>&1) && exit 0; \
		case $$out in *lock*) echo "apt-get update: waiting for the apt lock" >&2; \
			sleep $(APT_LOCK_PAUSE); continue ;; esac; \
		printf '%s\n' "$$out" >&2; exit 1; \
	done; echo "apt-get update: the apt lock was held for 10 minutes" >&2; exit 1 )

# The camera's card designs and how they are drawn (training/designs.py), for the tests
# that read a drawn card and for the training script:
# Debian's aisleriot and KDE decks, librsvg with Debian's Python bindings, fonts for glyphs.
CAMERA_DEBS := gnome-cards-data kdegames-card-data-kf5 python3-gi \
	gir1.2-rsvg-2.0 python3-gi-cairo fonts-dejavu fonts-liberation fonts-freefont-ttf \
	fonts-urw-base35 fonts-texgyre fonts-linuxlibertine fonts-ebgaramond fonts-open-sans \
	fonts-lato fonts-roboto-unhinted fonts-cantarell fonts-oldstandard fonts-comic-neue \
	fonts-lmodern fonts-cmu fonts-gfs-didot fonts-adf-romande fonts-adf-baskervald \
	fonts-adf-accanthis fonts-adf-berenis fonts-century-catalogue fonts-junicode \
	fonts-crosextra-caladea fonts-yanone-kaffeesatz fonts-bebas-neue fonts-league-spartan \
	fonts-inter fonts-stix fonts-sil-gentium

# systemd-analyze (Debian's systemd package) rates the service unit in
# tests/test_deployment.py, and Debian's mosquitto is the broker of tests/test_floor.py;
# installed here when missing.
test-deps:
	@command -v systemd-analyze >/dev/null 2>&1 || { \
		$(APT_UPDATE) && $(APT_GET) install -y -qq --no-install-recommends systemd; }
	@test -x /usr/sbin/mosquitto || { \
		$(APT_UPDATE) && $(APT_GET) install -y -qq --no-install-recommends mosquitto; }
	@test -d /usr/share/aisleriot/cards -a -d /usr/share/carddecks \
		-a -f /usr/share/fonts/truetype/freefont/FreeSans.ttf \
		-a -f /usr/share/fonts/opentype/urw-base35/P052-Roman.otf \
		-a -f /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf \
		-a -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf \
		-a -f /usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf \
		-a -f /usr/share/fonts/opentype/bebas-neue/BebasNeue-Regular.otf \
		-a -f /usr/share/fonts/truetype/gentium/Gentium-R.ttf && /usr/bin/python3 -c \
		'import gi, cairo; gi.require_version("Rsvg", "2.0"); from gi.repository import Rsvg' \
		2>/dev/null || { \
		$(APT_UPDATE) && $(APT_GET) install -y -qq --no-install-recommends $(CAMERA_DEBS); }

# tests/test_old_pillow.py draws the OLED and runs the simulator on older Pillows too
# (Bookworm's 9.4 and the dependencies' floor): wheels from PyPI, kept in the virtualenv.
old-pillow: $(STAMP)
	$(BIN)/python -m tests.old_pillow

# tests/test_old_opencv.py reads the camera on Raspberry Pi OS Bookworm's OpenCV (4.6.0, with
# its numpy 1.24) as on the newest, and the training script checks its exports there: wheels
# from PyPI, kept in the virtualenv.
old-opencv: $(STAMP)
	$(BIN)/python -m tests.old_opencv

# The page's tests drive Debian's Chromium (never a downloaded browser); without it they skip.
browser:
	@test -x /usr/bin/chromium || { $(APT_UPDATE) && $(APT_GET) install -y -qq chromium; } \
		|| echo "chromium could not be installed: the page's tests will be skipped"

# One worker per core (pytest-xdist): each test has its own folder, ports and broker. The five
# slowest tests are named at the end, so that a slow one is seen when it comes.
test: $(STAMP) test-deps old-pillow old-opencv browser
	$(BIN)/python -m pytest -q -n auto --durations=5

# Rewrites the golden pictures on purpose (the OLED screens, the page's and the floor's
# screenshots), then compares against them as `make test` will, and lists what changed.
GOLDEN_TESTS := tests/test_display.py tests/test_page.py tests/test_page_pictures.py \
	tests/test_floor.py -k "golden or fits or floor_page or no_read"
golden: $(STAMP) test-deps browser
	FARO_GOLDEN=update $(BIN)/python -m pytest -q -p no:cacheprovider $(GOLDEN_TESTS) >/dev/null \
		|| { echo "make golden: a test failed while writing the pictures; run it for why" >&2; exit 1; }
	$(BIN)/python -m pytest -q $(GOLDEN_TESTS)
	@git status --short tests/golden 2>/dev/null | sed 's/^/changed: /' || true

sim: $(RUNTIME)
	$(BIN)/faro-pi sim

# Every benchmark in turn (tests/benchmarks/__main__.py), each saying what it measures as
# it starts and how long it took; `make bench BENCH="rules camera"` runs some of them.
bench: $(STAMP) test-deps old-opencv
	$(BIN)/python -m tests.benchmarks $(BENCH)

# On the Raspberry Pi, as root: the service, the udev rule, /opt/faro-pi and
# /etc/faro-pi (see hardware/README.md). DESTDIR=FOLDER stages the files there
# instead and touches nothing else; PREFIX moves the virtualenv.
install:
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" sh hardware/install.sh

# Keeps the journal (/var/lib/faro-pi) and an edited config.
uninstall:
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" sh hardware/uninstall.sh

# Redraws the drawings in hardware/ from the code.
hardware: $(STAMP)
	$(BIN)/python -m hardware.draw_wiring
	$(BIN)/python -m hardware.card_codes
	$(BIN)/python -m hardware.draw_shoe
	$(BIN)/python -m hardware.draw_case_keeper

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) sim-out .pytest_cache .hypothesis
