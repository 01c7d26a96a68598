"""Spreading nogil kernels over threads, and stopping them all together."""

import numbers
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from functools import partial

import numpy as np

from ._interrupt import current_interrupt, interrupt_scope

# Below this many rows per tree walked, a thread hand-off costs more than it saves.
MIN_ROWS_PER_THREAD = 8192
# Blocks of rows per thread, taken in turn: on a shared machine one core is
# often slower than the other for a while, and equal halves would wait for it.
BLOCKS_PER_THREAD = 4

_pool = None
_threads_started = False


def available_cores():
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def resolve_n_jobs(n_jobs):
    """Number of threads for ``n_jobs`` (None = 1, -1 = all cores, -2 = all but one)."""
    if n_jobs is None:
        return 1
    if not isinstance(n_jobs, (numbers.Integral, np.integer)) or isinstance(n_jobs, bool) \
            or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero int; got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, available_cores() + 1 + int(n_jobs))
    return int(n_jobs)


def _shared_pool():
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=available_cores(),
                                   thread_name_prefix="fasttree")
    return _pool


def _forget_threads_in_forked_child():
    # A fork copies only the forking thread: the child has the pool object but
    # none of its threads, and would wait forever for work handed to them.
    global _pool, _threads_started
    _pool = None
    _threads_started = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_threads_in_forked_child)


def start_threads():
    """Start the prediction threads now (a fit calls it), so that the first
    large prediction does not wait for them to start. Once per process."""
    global _threads_started
    if _threads_started:
        return
    pool = _shared_pool()
    for future in [pool.submit(int) for _ in range(available_cores())]:
        future.result()
    _threads_started = True


def run_together(pool, functions, on_caller=None):
    """Call ``functions`` on the pool's threads, and ``on_caller`` (if given)
    on this one meanwhile; returns ``on_caller``'s result and the list of
    theirs, in order.

    All of them run in the scope of one Interrupt (see ``_interrupt``), this
    thread's current one. When any raises, or this thread is interrupted
    (Ctrl-C) while it works or waits, the others are asked to stop at their
    kernels' next poll and those not started are dropped; the first error is
    raised once none is running any more, so no thread goes on working, or
    holding the arrays of a call that has failed, behind the caller's back.
    """
    interrupt = current_interrupt()

    def scoped(function):
        with interrupt_scope(interrupt):
            return function()

    futures = []
    try:
        for function in functions:
            futures.append(pool.submit(scoped, function))
        own = None if on_caller is None else scoped(on_caller)
        results = [future.result() for future in futures]
    except BaseException:
        interrupt.request()
        for future in futures:
            future.cancel()
        wait(futures)
        raise
    return own, results


def map_rows(kernel, X, out, *args, n_threads=None, n_trees=1, **options):
    """Run ``kernel(*args, X_part, out_part, **options)`` on row blocks of X, in parallel.

    The kernel releases the GIL, so the blocks run on ``n_threads`` cores at
    once (None: all the process may use). ``n_trees`` is how many trees the
    kernel walks every row through: more trees make fewer rows worth a
    thread. The rows are cut into several blocks per thread, which the
    threads (the calling one among them) take in turn, so that a core the
    system slows down takes fewer of them instead of holding the others up.
    Returns the largest status code the kernel returned (0 when all
    succeeded).
    """
    n_rows = X.shape[0]
    n_threads = available_cores() if n_threads is None else n_threads
    work_units = n_rows * max(n_trees, 1) // MIN_ROWS_PER_THREAD
    n_workers = min(n_threads, work_units)
    if n_workers <= 1:
        return kernel(*args, X, out, **options)
    n_blocks = min(n_workers * BLOCKS_PER_THREAD, work_units)
    bounds = np.linspace(0, n_rows, n_blocks + 1).astype(np.intp)
    blocks = iter(zip(bounds[:-1].tolist(), bounds[1:].tolist()))
    lock = threading.Lock()

    def work():
        status = 0
        while True:
            with lock:
                block = next(blocks, None)
            if block is None:
                return status
            start, stop = block
            status = max(status, kernel(*args, X[start:stop], out[start:stop], **options))

    status, statuses = run_together(_shared_pool(), [work] * (n_workers - 1), on_caller=work)
    return max([status] + statuses)


def map_blocks(function, blocks):
    """``[function(block) for block in blocks]``, the blocks on the shared threads."""
    if len(blocks) <= 1:
        return [function(block) for block in blocks]
    return run_together(_shared_pool(), [partial(function, block) for block in blocks])[1]
