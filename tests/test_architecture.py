"""The layers of faro_pi, read from the source: who may import whom.

``docs/architecture.md`` draws the layers; these tests hold the code to them.
Every import counts, at the top of a module or inside a function, and under
``if TYPE_CHECKING:`` too. Each failure names the module, the line and the import.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "faro_pi"

MAX_LINES = 420

IO_MODULES = frozenset(
    {
        # the machine and its files
        "os", "sys", "io", "pathlib", "shutil", "tempfile", "fcntl", "pty", "tty",
        "subprocess", "signal", "sqlite3", "logging",
        # the network and the event loop
        "socket", "ssl", "select", "selectors", "asyncio", "threading", "multiprocessing",
        "concurrent", "urllib", "http", "starlette", "uvicorn",
        # clocks and chance
        "time", "datetime", "random", "secrets",
        # the hardware
        "serial", "gpiozero", "luma", "PIL", "smbus2",
    }
)  # fmt: skip
"""What the rules engine never touches: files, sockets, loops, threads, clocks, chance, pins."""

VIRTUAL_MAY_IMPORT = (
    "faro_pi.virtual",
    "faro_pi.game",
    "faro_pi.exc",
    "faro_pi.shoe.fsp1",
    "faro_pi.shoe.fsp1_reader",
    "faro_pi.board",
    "faro_pi.config",
    "faro_pi.camera.scene",
    "faro_pi.camera.images",
)
"""Simulated hardware is built from what describes the hardware (the fsp1 protocol, the
board's wiring, the config's pins, the camera's view of the box, how a face's image file
is read), never from the code that drives it, so the simulator checks the drivers rather
than echoing them."""


LAYERS: tuple[tuple[str, ...], ...] = (
    ("faro_pi.__main__",),
    ("faro_pi.cli",),
    ("faro_pi.sim", "faro_pi.doctor"),
    ("faro_pi.table",),
    ("faro_pi.floor",),
    ("faro_pi.console",),
    ("faro_pi.service", "faro_pi.virtual"),
    ("faro_pi.camera",),
    ("faro_pi.shoe", "faro_pi.devices"),
    ("faro_pi.config", "faro_pi.jsonl", "faro_pi.pictures"),
    ("faro_pi.board", "faro_pi.handed"),
    ("faro_pi.exc",),
    ("faro_pi.game",),
    ("faro_pi",),
)
"""The packages (and top-level modules) of faro_pi from the top down, as
``docs/architecture.md`` draws them: each imports only from the layers below its own,
never from one above, nor from the one beside it in its layer."""


class Import(NamedTuple):
    module: str
    """The importing module, dotted."""
    path: str
    """Its file, from the top of the project."""
    line: int
    name: str
    """The module imported, dotted: ``from a.b import c`` is ``a.b.c`` if that is a module
    of the project, else ``a.b``."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.module}) imports {self.name}"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def is_module(name: str, root: Path) -> bool:
    """Whether ``name`` is a module or package of the project under ``root``."""
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports_of(path: Path, root: Path = ROOT) -> Iterator[Import]:
    """Every import in the module at ``path``, wherever it stands in the file."""
    module, where = module_name(path, root), str(path.relative_to(root))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, where, node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importing package
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            if base == "__future__":
                continue
            for alias in node.names:
                name = f"{base}.{alias.name}"
                yield Import(module, where, node.lineno, name if is_module(name, root) else base)


@functools.cache
def all_imports() -> list[Import]:
    return [found for path in modules() for found in imports_of(path, ROOT)]


def within(name: str, *prefixes: str) -> bool:
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def report(what: str, offending: list[Import]) -> str:
    return what + ":\n  " + "\n  ".join(sorted({str(found) for found in offending}))


def test_the_game_imports_nothing_of_faro_pi_outside_the_game():
    offending = [
        found
        for found in all_imports()
        if within(found.module, "faro_pi.game")
        and within(found.name, "faro_pi")
        and not within(found.name, "faro_pi.game")
    ]
    assert not offending, report("faro_pi.game reaches outside itself", offending)


def test_the_game_does_no_io():
    offending = [
        found
        for found in all_imports()
        if within(found.module, "faro_pi.game")
        and found.name.partition(".")[0] in IO_MODULES
        and not (found.module == "faro_pi.game.demo" and found.name == "random")
    ]
    assert not offending, report("faro_pi.game imports an I/O module", offending)


def test_the_demo_draws_only_from_the_generator_it_is_handed():
    """``demo.py`` imports ``random`` to name ``random.Random``, the seeded generator a
    caller passes to :func:`play`; it never calls the module's shared generator."""
    path = PACKAGE / "game" / "demo.py"
    offending = [
        f"{path.relative_to(ROOT)}:{node.lineno} uses random.{node.attr}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "random"
        and node.attr != "Random"
    ]
    assert not offending, "the demo must draw from its rng argument:\n  " + "\n  ".join(offending)


def test_only_the_simulator_imports_the_virtual_hardware():
    offending = [
        found
        for found in all_imports()
        if within(found.name, "faro_pi.virtual")
        and not within(found.module, "faro_pi.sim", "faro_pi.virtual")
    ]
    assert not offending, report("only faro_pi.sim may import faro_pi.virtual", offending)


def test_the_virtual_hardware_imports_no_driver_and_nothing_above_it():
    offending = [
        found
        for found in all_imports()
        if within(found.module, "faro_pi.virtual")
        and within(found.name, "faro_pi")
        and not within(found.name, *VIRTUAL_MAY_IMPORT)
    ]
    assert not offending, report(
        f"faro_pi.virtual may import only {', '.join(VIRTUAL_MAY_IMPORT)}", offending
    )


def test_the_runtime_never_imports_the_tools_that_made_its_model():
    """``training/`` needs PyTorch and onnx and stays out of the wheel: a table that
    imported it, even inside a function, would fail on a Pi that has neither."""
    offending = [
        found
        for found in all_imports()
        if found.name.partition(".")[0] in ("training", "torch", "onnx", "torchvision")
    ]
    assert not offending, report("faro_pi imports the training tools", offending)


def test_nothing_imports_the_command_line():
    """Except ``faro_pi/__main__.py``, which is ``python -m faro_pi``: the command line itself."""
    offending = [
        found
        for found in all_imports()
        if within(found.name, "faro_pi.cli") and found.module != "faro_pi.__main__"
    ]
    assert not offending, report("nothing in faro_pi may import faro_pi.cli", offending)


def layer(module: str) -> int:
    """The index in :data:`LAYERS` of the layer ``module`` belongs to (0 is the top)."""
    return next(index for index, names in enumerate(LAYERS) if part(module) in names)


def part(module: str) -> str:
    """The package or top-level module of faro_pi that ``module`` is in: its layer's name."""
    return ".".join(module.split(".")[:2])


def test_every_package_has_its_layer():
    missing = sorted({part(module_name(path)) for path in modules()} - set(sum(LAYERS, ())))
    assert not missing, "put each in LAYERS, and in docs/architecture.md: " + ", ".join(missing)


def test_no_package_imports_one_above_it_or_beside_it():
    offending = [
        found
        for found in all_imports()
        if within(found.name, "faro_pi")
        and part(found.module) != part(found.name)
        and layer(found.module) >= layer(found.name)
    ]
    assert not offending, report(
        "a package imports only the layers below it (tests/test_architecture.py LAYERS)",
        offending,
    )


def circles(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    """The import circles of ``graph`` (module → the modules it imports): its strongly
    connected parts of more than one module, by Tarjan's algorithm."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = {stack.pop()}
            while node not in part:
                part.add(stack.pop())
            if len(part) > 1:
                found.append(frozenset(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for found in all_imports():
        if within(found.name, "faro_pi") and found.name != found.module:
            graph.setdefault(found.module, set()).add(found.name)
    return graph


def test_no_module_imports_itself_round_a_circle():
    """A circle means neither module can be read, tested or replaced without the other;
    imports only for type checking count, as they say the same dependency."""
    graph = import_graph()
    new = circles(graph)
    assert not new, "import circles:\n  " + "\n  ".join(
        " <-> ".join(sorted(circle))
        + ":\n    "
        + "\n    ".join(
            sorted(
                {
                    str(found)
                    for found in all_imports()
                    if found.module in circle
                    and found.name in circle
                    and found.name != found.module
                }
            )
        )
        for circle in new
    )


def test_the_circle_finder_finds_circles_and_only_them():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": set(), "f": {"a"}}
    assert circles(graph) == [frozenset({"a", "b", "c"})]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_journal_chain_is_a_leaf_and_the_verify_command_sits_on_the_journal():
    """The writer needs the chain at open; ``faro-pi verify`` needs the journal: no circle."""
    found = all_imports()
    offending = [
        i for i in found if i.module == "faro_pi.service.chain" and within(i.name, "faro_pi")
    ]
    offending += [
        i
        for i in found
        if within(i.name, "faro_pi.service.verify")
        and within(i.module, "faro_pi.service.journal", "faro_pi.service.journal_file")
    ]
    assert not offending, report("the chain imports faro_pi, or the journal the command", offending)


def test_no_module_is_over_the_line_limit():
    over = {
        str(path.relative_to(ROOT)): lines
        for path in modules()
        if (lines := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not over, f"modules over {MAX_LINES} lines (split them by concern):\n  " + "\n  ".join(
        f"{path}: {lines} lines" for path, lines in sorted(over.items())
    )


def test_the_checks_see_imports_inside_functions_and_relative_ones(tmp_path):
    """The reader of imports itself: a hidden or relative import is not missed."""
    game, service = tmp_path / "faro_pi" / "game", tmp_path / "faro_pi" / "service"
    for package in (tmp_path / "faro_pi", game, service):
        package.mkdir()
        (package / "__init__.py").touch()
    (game / "cards.py").touch()
    (service / "journal.py").touch()
    source = game / "hidden.py"
    source.write_text(
        "from __future__ import annotations\n"
        "from faro_pi.game.cards import DECK\n"
        "def later():\n"
        "    import socket\n"
        "    from ..service import journal\n"
        "    from . import cards\n"
        "    from faro_pi import service, exc\n"
    )
    assert [(i.line, i.name) for i in imports_of(source, tmp_path)] == [
        (2, "faro_pi.game.cards"),
        (4, "socket"),
        (5, "faro_pi.service.journal"),
        (6, "faro_pi.game.cards"),
        (7, "faro_pi.service"),
        (7, "faro_pi"),
    ]
