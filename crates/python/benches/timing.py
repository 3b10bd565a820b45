"""Timing shared by the benchmark scripts in this folder."""

import time


def best_of(repeats, fn):
    """The shortest of `repeats` wall-clock timings of `fn()`, in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best
