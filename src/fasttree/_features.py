"""Turn a feature matrix into the dense value ranks the split kernel sorts."""

from collections import namedtuple
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ._interrupt import current_interrupt, interrupt_scope
from ._threads import run_together
from ._utils import dense_ranks, feature_columns_float32

# Features of at most this many distinct values have narrow (byte) ranks
# (the kernels' NARROW_RANKS); binned features of at most SHORT_RANKS bins
# two-byte codes (the kernels' SHORT_RANKS).
NARROW_RANKS = 256
SHORT_RANKS = 65536
from ._validation import is_sparse

RankedFeatures = namedtuple("RankedFeatures", "ranks values value_offsets narrow_ranks "
                                              "common_rank rare_offsets rare_rows rare_ranks "
                                              "rare_feature_offsets rare_features "
                                              "rare_feature_ranks upper_values short_ranks "
                                              "value_starts",
                            defaults=(None, None, None))
RankedFeatures.__doc__ = """The ranks of a training matrix's features (see ``rank_features``);
``upper_values``, per rank the largest value it stands for, is None where a rank
stands for one value (``values``), and set for bins (``fasttree._binning``);
``short_ranks``, the uint16 bin codes (n_features, n_samples) of the binned
features of more than ``NARROW_RANKS`` bins, is None but for bins of
``max_bins`` > 255 (``fasttree._binning.bin_columns``); ``value_starts``,
where each feature's entries start in ``values`` (n_features + 1 offsets), is
None but where ``rank_features`` kept some features' largest value alone
(``keep_values``): then ``values[value_starts[f]:value_starts[f + 1]]`` are
feature ``f``'s distinct values, or its largest alone (+inf when some are
missing), and its thresholds are read from the training rows."""

# common_rank of a feature without a listed common value.
NO_COMMON = 0xFFFFFFFF
# A feature's common value is listed when it covers at least this share of
# the rows (sparse and one-hot columns: mostly zeros).
COMMON_SHARE = 7 / 8


def feature_rows(X):
    """A dense X as C-contiguous float32 (missing values NaN), which the
    random splitter reads for its small nodes; None for a sparse X."""
    if is_sparse(X):
        return None
    return np.ascontiguousarray(X, dtype=np.float32)


def feature_columns(X):
    """X's features as rows (float32, shape (n_features, n_samples)), missing
    values as +inf, which fit never sees otherwise: they rank last, and the
    random splitter reads an infinite value as missing."""
    if is_sparse(X):
        # Zeros, then the stored values: no dense copy of a sparse X.
        csc = X.tocsc()
        columns = np.zeros((X.shape[1], X.shape[0]), dtype=np.float32)
        columns[np.repeat(np.arange(X.shape[1]), np.diff(csc.indptr)), csc.indices] = csc.data
        return columns
    return feature_columns_float32(feature_rows(X))


def rank_features(X, n_threads=1, keep_values=None):
    """Rank every feature's values once per fit.

    Parameters
    ----------
    X : ndarray of float32 or sparse matrix, shape (n_samples, n_features)
        Finite training values (a sparse X from ``sparse_for_fit``, read
        column by column), or NaN for missing ones: those are ranked
        as ``+inf``, after every known value (the splitter reads an infinite
        last value as the feature's missing rank).
    n_threads : int, default=1
        Threads that rank groups of features at once (the ranking kernel
        releases the GIL).
    keep_values : ndarray of bool or None, default=None
        Per feature, whether its distinct values are kept; the others keep
        their largest alone (``value_starts`` says where each feature's
        start), so that a continuous X's values, as large as X, are not
        held while its ranks are: the splitter then reads a split's
        neighbouring values from the training rows. None keeps every
        feature's.

    Returns
    -------
    RankedFeatures
        ``ranks`` : ndarray of uint32, shape (n_features, n_samples);
        ``ranks[f, i]`` is the position of ``X[i, f]`` among the distinct
        values of feature ``f`` (0 for the smallest).
        ``values`` : ndarray of float32; the distinct sorted values of every
        feature, concatenated.
        ``value_offsets`` : ndarray of intp, shape (n_features + 1,);
        feature ``f``'s distinct values are
        ``values[value_offsets[f]:value_offsets[f + 1]]``.
        ``narrow_ranks`` : ndarray of uint8, shape (n_features, n_samples);
        the ranks of the features of at most 256 values in one byte each (a
        quarter of the cache the histograms of such features read), zeros
        for the others.
        ``common_rank``, ``rare_offsets``, ``rare_rows``, ``rare_ranks``,
        ``rare_feature_offsets``, ``rare_features``, ``rare_feature_ranks``:
        see ``rare_rows``. ``value_starts`` (with ``keep_values``): see
        ``RankedFeatures``.
    """
    n_samples, n_features = X.shape
    ranks = np.empty((n_features, n_samples), dtype=np.uint32)
    # Zeros, of which only the rows of the features of few values are
    # written: the others stay fresh zero pages, which take no memory.
    narrow_ranks = np.zeros((n_features, n_samples), dtype=np.uint8)

    def keep(features, part):
        ranks[features] = part[0]
        n_distinct = np.diff(part[2])
        narrow = n_distinct <= NARROW_RANKS
        if narrow.any():
            narrow_ranks[features[narrow]] = part[3][narrow]
        if keep_values is None:
            return part[1], n_distinct, n_distinct
        kept = np.where(keep_values[features], n_distinct, np.minimum(n_distinct, 1))
        # Each feature's values, or its largest alone: its last kept entries.
        ends = part[2][1:]
        taken = np.concatenate([np.arange(end - count, end) for end, count in zip(ends, kept)])
        return part[1][taken.astype(np.intp)], n_distinct, kept

    chunk_values = for_ranked_chunks(X, keep, n_threads)
    value_offsets = np.zeros(n_features + 1, dtype=np.intp)
    value_starts = np.zeros(n_features + 1, dtype=np.intp)
    if chunk_values:
        value_offsets[1:] = np.cumsum(np.concatenate([part[1] for part in chunk_values]))
        value_starts[1:] = np.cumsum(np.concatenate([part[2] for part in chunk_values]))
    # The chunks' values copied into one array and each let go of once
    # copied, so that they are not held twice over (as large as X together
    # for continuous features).
    values = np.empty(value_starts[-1], dtype=np.float32)
    start = 0
    for index in range(len(chunk_values)):
        part = chunk_values[index][0]
        values[start:start + part.size] = part
        start += part.size
        chunk_values[index] = part = None
    value_starts = None if keep_values is None else value_starts
    return RankedFeatures(ranks, values, value_offsets, narrow_ranks,
                          *rare_rows(ranks, narrow_ranks, values, value_offsets,
                                     value_starts=value_starts),
                          value_starts=value_starts)


def for_ranked_chunks(X, consume, n_threads=1):
    """Rank X's features a few at a time, so that the float32 columns the
    ranking reads (and its own buffers) exist for those alone, not for all
    of X at once, on ``n_threads`` threads.

    Parameters
    ----------
    X : ndarray of float32 or a CSC matrix, shape (n_samples, n_features)
    consume : callable
        ``consume(features, ranked)`` for each chunk: its feature indices
        (a range) and ``dense_ranks`` of their columns (ranks, values,
        value offsets, narrow ranks).
    n_threads : int, default=1

    Returns
    -------
    list
        What ``consume`` returned for each chunk, in the features' order.
    """
    n_features = X.shape[1]
    at_once = ranked_at_once(X.shape[0])
    chunks = [np.arange(start, min(start + at_once, n_features))
              for start in range(0, n_features, at_once)]
    results = [None] * len(chunks)

    def rank_chunks(indices):
        for index in indices:
            results[index] = consume(chunks[index],
                                     dense_ranks(chunk_columns(X, chunks[index])))

    workers = np.array_split(np.arange(len(chunks)), max(1, min(n_threads, len(chunks))))
    # One Interrupt for every chunk, on every thread (run_together scopes its
    # workers with this thread's): it checks for Ctrl-C at most every few
    # hundredths of a second, which a fresh one per chunk might never reach.
    with interrupt_scope(current_interrupt()):
        if len(workers) == 1:
            rank_chunks(workers[0])
        else:
            with ThreadPoolExecutor(max_workers=len(workers)) as pool:
                run_together(pool, [partial(rank_chunks, indices) for indices in workers])
    return results


# Features rank_features ranks at once on each thread: at most
# RANKED_AT_ONCE, and no more than RANKED_AT_ONCE_BYTES of their float32
# columns. A chunk's columns, ranks and values take about three times that
# while it is ranked, on each thread, on top of what the fit keeps: at
# 4,000,000 rows, 8 features at once made the peak of a forest's fit 1.7x
# X's bytes with splitter='hist', when all it keeps is a byte per value.
RANKED_AT_ONCE = 8
RANKED_AT_ONCE_BYTES = 64 * 2**20


def ranked_at_once(n_samples):
    """Features ranked at once on each thread, for columns of ``n_samples``."""
    return int(min(RANKED_AT_ONCE, max(1, RANKED_AT_ONCE_BYTES // max(4 * n_samples, 1))))


def chunk_columns(X, features):
    """``feature_columns`` of X's features ``features`` (a range) alone, read
    in place from a dense float32 X."""
    if is_sparse(X):
        return feature_columns(X[:, features])
    view = X[:, features[0]:features[-1] + 1]
    return feature_columns_float32(view if view.dtype == np.float32
                                   else view.astype(np.float32))


def random_split_features(columns, categories=None):
    """What the random splitter reads in place of ``rank_features``: random
    thresholds compare values (``columns``, from ``feature_columns``), so
    only the categorical features (``categories``: per feature its number of
    categories, or None) are ranked, for their subset sweeps. A numeric
    feature gets rank 0 everywhere, and as its values 0, then +inf when it
    has missing values (which is all the splitter asks of it).

    Returns
    -------
    RankedFeatures
    """
    n_features, n_samples = columns.shape
    categorical = (np.zeros(n_features, dtype=bool) if categories is None
                   else np.asarray(categories) > 0)
    ranks = np.zeros((n_features, n_samples), dtype=np.uint32)
    narrow_ranks = np.zeros((n_features, n_samples), dtype=np.uint8)
    feature_values = []
    if categorical.any():
        ranked = dense_ranks(np.ascontiguousarray(columns[categorical]))
        ranks[categorical] = ranked[0]
        narrow_ranks[categorical] = ranked[3]
        categorical_values = np.split(ranked[1], ranked[2][1:-1])
    else:
        categorical_values = []
    next_categorical = iter(categorical_values)
    for feature in range(n_features):
        if categorical[feature]:
            feature_values.append(next(next_categorical))
        elif n_samples and np.isinf(columns[feature].max()):
            feature_values.append(np.array([0.0, np.inf], dtype=np.float32))
        else:
            feature_values.append(np.zeros(1, dtype=np.float32))
    value_offsets = np.concatenate(
        [[0], np.cumsum([len(values) for values in feature_values])]).astype(np.intp)
    values = (np.concatenate(feature_values).astype(np.float32) if feature_values
              else np.zeros(0, dtype=np.float32))
    return RankedFeatures(ranks, values, value_offsets, narrow_ranks,
                          np.full(n_features, NO_COMMON, dtype=np.uint32),
                          np.zeros(n_features + 1, dtype=np.intp), np.zeros(0, dtype=np.uint32),
                          np.zeros(0, dtype=np.uint32), np.zeros(n_samples + 1, dtype=np.intp),
                          np.zeros(0, dtype=np.uint32), np.zeros(0, dtype=np.uint32))


def rare_rows(ranks, narrow_ranks, values, value_offsets, short_ranks=None,
              value_starts=None):
    """The rows that do not hold a feature's common value, for the features
    whose most frequent value (not a missing one) covers ``COMMON_SHARE`` of
    the rows: the splitter sums a node's rows of such a feature from its
    rare rows alone when they are fewer than the node's (see
    ``Splitter.split_node``). ``narrow_ranks`` are read for the features of
    at most 256 values, ``short_ranks`` (when given) for those of at most
    ``SHORT_RANKS``, ``ranks`` for the others; ``values`` by
    ``value_starts`` where given (see ``RankedFeatures``).

    Returns
    -------
    common_rank : ndarray of uint32, shape (n_features,)
        The common value's rank, or ``NO_COMMON``.
    rare_offsets : ndarray of intp, shape (n_features + 1,)
    rare_rows : ndarray of uint32
        Feature ``f``'s other rows, ascending, are
        ``rare_rows[rare_offsets[f]:rare_offsets[f + 1]]``.
    rare_ranks : ndarray of uint32
        Their ranks of the feature, aligned with ``rare_rows``: a node sums
        its rare rows from these lists without a look-up in the ranks.
    rare_feature_offsets : ndarray of intp, shape (n_samples + 1,)
    rare_features : ndarray of uint32
        The same pairs row by row: the features in which row ``i`` does not
        hold the common value are
        ``rare_features[rare_feature_offsets[i]:rare_feature_offsets[i + 1]]``.
    rare_feature_ranks : ndarray of uint32
        Their ranks, aligned with ``rare_features``.
    """
    n_features, n_samples = narrow_ranks.shape
    common_rank = np.full(n_features, NO_COMMON, dtype=np.uint32)
    lengths = np.zeros(n_features, dtype=np.intp)
    row_parts, rank_parts = [], []
    n_distinct = np.diff(value_offsets)
    starts = value_offsets if value_starts is None else value_starts
    for feature in np.flatnonzero(n_distinct >= 1):
        if n_distinct[feature] <= NARROW_RANKS:
            feature_ranks = narrow_ranks[feature]
        elif short_ranks is not None and n_distinct[feature] <= SHORT_RANKS:
            feature_ranks = short_ranks[feature]
        else:
            feature_ranks = ranks[feature]
        counts = np.bincount(feature_ranks, minlength=n_distinct[feature])
        common = int(np.argmax(counts))
        # A missing value (the last rank, NaN ranked +inf) is never common:
        # its rows take the missing-value sweeps.
        if counts[common] < COMMON_SHARE * n_samples or (
                common == n_distinct[feature] - 1 and np.isinf(values[starts[feature + 1] - 1])):
            continue
        common_rank[feature] = common
        rows = np.flatnonzero(feature_ranks != common).astype(np.uint32)
        lengths[feature] = rows.size
        row_parts.append(rows)
        rank_parts.append(feature_ranks[rows])
    rare_offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.intp)
    rows = np.concatenate(row_parts) if row_parts else np.zeros(0, dtype=np.uint32)
    rare_ranks = (np.concatenate(rank_parts).astype(np.uint32) if rank_parts
                  else np.zeros(0, dtype=np.uint32))
    features = np.repeat(np.arange(n_features, dtype=np.uint32), lengths)
    by_row = np.argsort(rows, kind="stable")
    feature_offsets = np.concatenate(
        [[0], np.cumsum(np.bincount(rows, minlength=n_samples))]).astype(np.intp)
    return (common_rank, rare_offsets, np.ascontiguousarray(rows, dtype=np.uint32),
            np.ascontiguousarray(rare_ranks), feature_offsets,
            np.ascontiguousarray(features[by_row]), np.ascontiguousarray(rare_ranks[by_row]))
