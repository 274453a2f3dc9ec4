"""The README says what the code does, and its shell commands run as written."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from faro_pi.config import reference_markdown
from tests.conftest import NotifySocket
from tests.ports import free_port

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
VENV_BIN = Path(sys.executable).parent

PI_ONLY = ("sudo", "systemctl", "journalctl", "usermod", "make install", "make uninstall")
"""Commands for the Raspberry Pi under the table, as root: they install or run the service
there, so they are never run here."""

NOT_HERE = {
    "make test": "the test suite itself, which is running this test",
    "make bench": "the benchmarks: minutes of building journals, not a check",
}
"""Commands that could run here but are not run by this test, and why."""

TABLE_CONFIG = """\
[reader]
port = "{folder}/reader"

[journal]
path = "journal.sqlite3"

[gpio]
pin_factory = "mock"

[leds]
driver = "none"

[display]
driver = "none"

[console]
port = {port}
token = "readme-test-token-0123456789"
"""
"""The table the Pi's commands run against here: ``/etc/faro-pi/config.toml`` becomes this
one and ``/var/lib/faro-pi/`` its folder: mock pins, no LEDs or OLED, the journal beside
the config, no reader plugged in (its port is absent) and the console on a free port."""


def test_the_readme_documents_every_config_key_with_its_default():
    text = README.read_text()
    start = text.index("<!-- config-reference")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end config-reference -->")
    assert text[start:end].strip() == reference_markdown().strip(), (
        "README's configuration table is out of date: paste reference_markdown() in"
    )


def test_the_quick_start_gives_the_two_commands():
    text = README.read_text()
    assert "make sim" in text and "make test" in text


def shell_blocks(text: str) -> list[list[str]]:
    """The command lines of each ```sh block, a line ending in ``\\`` joined to the next."""
    blocks = re.findall(r"^```(?:sh|bash|shell|console)\n(.*?)^```", text, re.M | re.S)
    commands = []
    for block in blocks:
        joined = re.sub(r"\\\n\s*", " ", block)
        commands.append([line.strip() for line in joined.splitlines() if line.strip()])
    return commands


def _without_comment(line: str) -> str:
    return re.sub(r"\s+#\s.*$", "", line)


def _make_recipe(target: str) -> str:
    """The command a Makefile target runs (its prerequisites, the installed venv, taken as
    done)."""
    installed = [arg for stamp in (".venv/.runtime", ".venv/.tested") for arg in ("-o", stamp)]
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", *installed, target],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    [recipe] = done.stdout.splitlines()
    return recipe


class Shell:
    """Runs the README's command lines in a folder of their own, as the README means them."""

    def __init__(self, folder: Path):
        self.folder = folder
        (folder / ".venv").symlink_to(VENV_BIN.parent)  # the README's .venv/bin/faro-pi
        table = folder / "table"
        table.mkdir()
        self.port = free_port()
        (table / "config.toml").write_text(TABLE_CONFIG.format(folder=table, port=self.port))
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("FARO_PI")}
        # a fresh clone's: no faro-pi on the PATH (make sim and make test put it in .venv/bin)
        self.env["PATH"] = os.pathsep.join(
            folder
            for folder in self.env.get("PATH", "").split(os.pathsep)
            if folder and not (Path(folder) / "faro-pi").exists()
        )
        self.daemon: subprocess.Popen | None = None
        self.skipped: list[tuple[str, str]] = []

    def installed(self) -> None:
        """From here on faro-pi is on the PATH, as once installed on the Pi."""
        self.env["PATH"] = f"{VENV_BIN}{os.pathsep}{self.env['PATH']}"

    def rewrite(self, line: str) -> str:
        """The line as it runs here: the Pi's config and journal folder are the test's table's,
        the simulator deals at full speed (a pack at the dealer's pace takes a minute), and
        ``make sim`` is its recipe."""
        command = _without_comment(line)
        if command == "make sim":
            command = _make_recipe("sim")
            assert command.endswith("faro-pi sim"), command
        command = command.replace("/etc/faro-pi/config.toml", "table/config.toml")
        command = command.replace("/var/lib/faro-pi/", "table/")
        if re.search(r"\bfaro-pi sim\b", command):
            command += " --speed 0"
        return command

    def why_not(self, line: str) -> str | None:
        command = _without_comment(line)
        words = shlex.split(command)
        if any(word in words for word in PI_ONLY) or any(p in command for p in PI_ONLY):
            return "on the Raspberry Pi only, as root"
        for start, why in NOT_HERE.items():
            if command.startswith(start):
                return why
        return None

    def run(self, line: str) -> subprocess.CompletedProcess | None:
        why = self.why_not(line)
        if why is not None:
            self.skipped.append((line, why))
            return None
        if "[" in line:  # a synopsis: each option it names must be one the command takes
            self.check_synopsis(_without_comment(line))
            return None
        command = self.rewrite(line)
        if re.search(r"\bfaro-pi run\b", command):
            self.start_daemon(command)
            return None
        started = time.perf_counter()
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        print(f"$ {command}  ({time.perf_counter() - started:.1f} s, status {done.returncode})")
        assert "Traceback" not in done.stderr, f"{line}\n{done.stderr}"
        return done

    def check_synopsis(self, command: str) -> None:
        program = command.split("[", 1)[0]
        shown = subprocess.run(
            ["bash", "-c", f"{program} --help"],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for option in re.findall(r"\[(--[\w-]+)", command):
            assert option in shown, f"{command}: {program.strip()} has no {option}"
        print(f"$ {command}  (the options checked against --help)")

    def start_daemon(self, command: str) -> None:
        """The service, as the Pi runs it: in the background until the end, its console up.

        Awaited as systemd does, by its READY=1, sent once the console listens."""
        notify = NotifySocket(self.folder)
        try:
            self.daemon = subprocess.Popen(
                ["bash", "-c", f"exec {command}"],
                cwd=self.folder,
                env={**self.env, "NOTIFY_SOCKET": notify.path},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            try:
                notify.wait_for("READY=1", timeout=10)
            except TimeoutError:
                self.daemon.kill()
                raise AssertionError(
                    f"{command}: never ready: {self.daemon.communicate()[1]}"
                ) from None
        finally:
            notify.close()
        print(f"$ {command}  (in the background)")

    def stop_daemon(self) -> None:
        if self.daemon is None:
            return
        self.daemon.send_signal(signal.SIGTERM)
        _, errors = self.daemon.communicate(timeout=10)
        assert self.daemon.returncode == 0, errors


def check(line: str, done: subprocess.CompletedProcess, shell: Shell) -> None:
    """What the README promises of a command beyond its exit status."""
    folder = shell.folder
    if "faro-pi doctor" in line:
        # No reader is plugged in here: its check alone may fail, and then doctor exits 1.
        *checks, tally = done.stdout.splitlines()
        failed = [out for out in checks if out.startswith("FAIL")]
        assert all(out.split()[1] == "reader:" for out in failed), done.stdout
        assert tally.startswith("FAIL  1 check failed" if failed else "ok    "), tally
        assert done.returncode == (1 if failed else 0), done.stdout
        return
    assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
    if "faro-pi replay sim-out/events.jsonl" in line:
        # The simulator's events replay to the balances it reported.
        summary = json.loads((folder / "sim-out" / "summary.json").read_text())
        assert json.loads(done.stdout)["balances"] == summary["balances"]
        assert summary["cards"] > 0
    if _without_comment(line) == "make sim":
        # The command the simulator prints runs as printed, from the same folder.
        [printed] = [out for out in done.stdout.splitlines() if out.startswith("replay it: ")]
        replayed = shell.run(printed.removeprefix("replay it: "))
        assert replayed is not None and replayed.returncode == 0, replayed


def test_every_shell_command_of_the_readme_runs_here(tmp_path):
    started = time.perf_counter()
    shell = Shell(tmp_path)
    text = README.read_text()
    at_the_pi = text.index("\n## Running the table\n")  # before it, a fresh clone's commands
    clones, pis = shell_blocks(text[:at_the_pi]), shell_blocks(text[at_the_pi:])
    assert clones and pis
    try:
        for block in [*clones, None, *pis]:
            if block is None:
                shell.installed()
                continue
            for line in block:
                done = shell.run(line)
                if done is not None:
                    check(line, done, shell)
    finally:
        shell.stop_daemon()
    for line, why in shell.skipped:
        print(f"skipped: {line}  ({why})")
    assert (tmp_path / "sim-out" / "events.jsonl").exists()
    print(f"the README's commands: {time.perf_counter() - started:.1f} s")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    heading = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return heading.replace(" ", "-")


def _outside_code(path: Path) -> str:
    return re.sub(r"^ *```.*?^ *```", "", path.read_text(), flags=re.M | re.S)


def _anchors(path: Path) -> set[str]:
    """A Markdown file's anchors; a repeated heading's get -1, -2..."""
    anchors: set[str] = set()
    counts: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", _outside_code(path), re.M):
        slug = _slug(heading)
        repeat = counts[slug] = counts.get(slug, -1) + 1
        anchors.add(f"{slug}-{repeat}" if repeat else slug)
    return anchors


def test_every_link_of_the_docs_leads_somewhere():
    """A relative link names a file of the repository, and its #part a heading in it."""
    pages = [README, *sorted(ROOT.glob("hardware/*.md")), *sorted(ROOT.glob("docs/*.md"))]
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", _outside_code(page)):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, part = target.partition("#")
            linked = page.parent / path if path else page
            assert linked.exists(), f"{page.relative_to(ROOT)}: {target}: no such file"
            if part and linked.suffix == ".md":
                assert part in _anchors(linked), f"{page.relative_to(ROOT)}: {target}: no heading"
