"""group_bench_common.py - what the peer benches beside `marmot-bench groups` share.

mdk_group_bench.py (MDK 0.8.0) and mlsrs_group_bench.py (mls-rs) measure the same group operations
at the same sizes as Sources/MarmotBench/GroupChatBench.swift: the same number of runs per size,
the same median, the same table, and the same time budget over the sizes.
"""
import math
import statistics
import sys
import time

HEADER = ("members | create | join | add 1 (commit+process) | remove 1 (commit+process) | "
          "self-update create | self-update process | message enc+dec")


def runs_for(size):
    """Runs per operation: a few for small groups, fewer for big ones (median taken)."""
    return 7 if size <= 10 else 5 if size <= 50 else 3


def timed(fn):
    """(seconds, result) of one call."""
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def median_ms(seconds_list):
    return statistics.median(seconds_list) * 1000


def run_sizes(sizes, budget, measure, label):
    """Measures each size with `measure(size)` (a list of medians in ms) while the time budget
    allows: the next size's time is estimated from the growth between the last two (between linear
    and quadratic) and skipped when it would not fit. Prints the table; returns {size: row}."""
    start = time.monotonic()
    rows, skipped, done, refused = {}, [], [], []
    for size in sizes:
        used = time.monotonic() - start
        if done:
            growth = 1.0
            if len(done) >= 2:
                (s0, t0), (s1, t1) = done[-2], done[-1]
                growth = min(2.0, max(1.0, math.log(max(t1, 1e-6) / max(t0, 1e-6)) / math.log(s1 / s0)))
            estimate = done[-1][1] * (size / done[-1][0]) ** growth
            if used + estimate > budget:
                skipped.append(f"{size} (estimated {estimate:.0f} s, {budget - used:.0f} s left of {budget:.0f} s)")
                continue
        t0 = time.monotonic()
        try:
            rows[size] = measure(size)
        except Exception as exc:  # noqa: BLE001  (the peer refusing a size is a result, not a crash)
            refused.append(f"{size} ({type(exc).__name__}: {exc})")
            continue
        done.append((size, time.monotonic() - t0))
        print(f"  {size} members: {done[-1][1]:.1f} s with setup", file=sys.stderr, flush=True)
    print(HEADER)
    for size, row in rows.items():
        print(" | ".join([str(size)] + [f"{v:.2f} ms" for v in row]))
    if skipped:
        print("skipped (over the time budget): " + ", ".join(skipped))
    if refused:
        print(f"refused by {label}: " + "; ".join(refused))
    print(f"({label} run: {time.monotonic() - start:.0f} s)")
    return rows
