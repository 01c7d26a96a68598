"""Tests of fasttree._threads: spreading kernels over the shared threads."""

import multiprocessing
import os

import numpy as np
import pytest

from fasttree import _threads


def row_sums(X, out):
    out[:] = X.sum(axis=1)
    return 0


def spread_row_sums():
    X = np.arange(4 * _threads.MIN_ROWS_PER_THREAD * 3, dtype=float).reshape(-1, 3)
    out = np.empty(X.shape[0])
    status = _threads.map_rows(row_sums, X, out, n_threads=2)
    return status == 0 and np.array_equal(out, X.sum(axis=1))


def test_map_rows_spreads_blocks_and_fills_every_row():
    _threads.start_threads()
    assert spread_row_sums()


def forked_child(results):
    results.put(spread_row_sums())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the platform cannot fork")
def test_a_forked_child_spreads_work_over_threads_of_its_own():
    _threads.start_threads()
    assert spread_row_sums()
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=forked_child, args=(results,))
    child.start()
    child.join(timeout=60)
    if child.exitcode is None:
        child.kill()
        child.join()
    assert child.exitcode == 0, "the forked child hung or failed"
    assert results.get(timeout=10)
