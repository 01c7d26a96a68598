"""Timing helpers shared by the side-by-side comparison scripts.

Every comparison times fasttree and its peer in turns, so that a burst of
noise on a shared machine falls on both, and keeps the median of each.
"""

import statistics
import time


def timed(function):
    """Seconds one call of ``function()`` took, and what it returned."""
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def median_time(function, calls):
    """Median seconds of ``calls`` calls of ``function()`` made back to back."""
    return statistics.median(timed(function)[0] for _ in range(calls))


def median_times(ours, theirs, calls):
    """Median seconds of ``ours()`` and of ``theirs()``, called in turns."""
    times = [(timed(ours)[0], timed(theirs)[0]) for _ in range(calls)]
    return tuple(statistics.median(pair[side] for pair in times) for side in (0, 1))
