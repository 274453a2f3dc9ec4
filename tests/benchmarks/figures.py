"""Printing benchmark figures: medians and tails, never a single run."""

from __future__ import annotations

import statistics


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def report(name: str, samples: list[float], unit: str = "µs", scale: float = 1e6) -> None:
    """One line: median, p99 and max of ``samples`` (seconds) in ``unit``."""
    print(
        f"{name:<48} median {statistics.median(samples) * scale:9.1f} {unit}"
        f"   p99 {percentile(samples, 99) * scale:9.1f} {unit}"
        f"   max {max(samples) * scale:9.1f} {unit}   (n={len(samples)})"
    )
