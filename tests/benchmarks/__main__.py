"""``make bench``: every benchmark in turn, each in a process of its own, saying what it
measures as it starts and how long it took when it ends.

    python -m tests.benchmarks [NAME ...]    (NAME: rules, daemon, ... camera_live)
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import time

BENCHES = (
    "rules",
    "daemon",
    "case_keeper",
    "display",
    "console",
    "nights",
    "floor",
    "camera",
    "camera_past",
    "camera_live",
    "camera_deal",
    "camera_opencv",
)


def main(names: list[str]) -> int:
    unknown = [name for name in names if name not in BENCHES]
    if unknown:
        print(f"no such benchmark: {' '.join(unknown)} (of {' '.join(BENCHES)})", file=sys.stderr)
        return 2
    started, failed = time.monotonic(), []
    for name in names or BENCHES:
        module = f"tests.benchmarks.bench_{name}"
        print(f"\n=== {name}: {summary(module)}", flush=True)
        began = time.monotonic()
        done = subprocess.run([sys.executable, "-m", module], check=False)
        took = time.monotonic() - began
        print(f"=== {name}: {'done' if done.returncode == 0 else 'FAILED'} in {took:.0f} s")
        if done.returncode:
            failed.append(name)
    print(f"\n=== all in {time.monotonic() - started:.0f} s; failed: {' '.join(failed) or 'none'}")
    return 1 if failed else 0


def summary(module: str) -> str:
    """The first line of a benchmark's docstring, read without importing it: what it
    measures."""
    spec = importlib.util.find_spec(module)
    doc = ast.get_docstring(ast.parse(spec.loader.get_source(module)))
    return doc.splitlines()[0] if doc else module


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
