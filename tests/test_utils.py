"""The kernel's item sort (fasttree._utils.sorted_items).

An item packs a rank into its high 32 bits and a sample index into its low 32
bits. Ranks of at most 8 bits on more than 16 items, with at most two buckets
per item, are sorted by one stable counting pass; otherwise, below 384 items
the kernel sorts whole items with an introsort (an insertion sort under 16
items), and from 384 items on it runs an LSD radix sort on the rank bits only.
Every test checks the contract the split sweep relies on: the ranks come out
in numpy's sorted order and no item is lost, duplicated or altered. The order
within a run of equal ranks is checked against what each path documents:
ascending items for the comparison sort, incoming order for the (stable)
counting and radix sorts; the same order whenever the samples come in
ascending, as a node's samples do.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree._utils import partitioned_rows, sorted_items

RADIX_MIN_ITEMS = 384  # the documented switch from comparison to radix sort


def uses_counting_sort(n, bits):
    """The documented choice of the stable counting pass."""
    return bits <= 8 and (1 << bits) <= 8 * n and n > 16
LOW_MASK = np.uint64(0xFFFFFFFF)

SHAPES = ["uniform", "few_distinct", "all_equal", "sorted", "reversed",
          "sorted_runs", "organ_pipe"]


def bit_length(value):
    return int(value).bit_length()


def distinct_samples(rng, n, wide):
    """n distinct sample indices: a permutation of 0..n-1, or spread over 32 bits."""
    if not wide:
        return rng.permutation(n).astype(np.uint64)
    pool = np.unique(rng.integers(0, 2**32, size=2 * n + 8, dtype=np.uint64))
    # Make sure the extreme indices turn up: bit 31 of the sample must not
    # leak into the rank half.
    pool = np.unique(np.concatenate([pool, np.array([0, 2**32 - 1], dtype=np.uint64)]))
    return rng.permutation(pool)[:n]


def make_ranks(rng, n, bits, shape):
    """Ranks below 2**bits; when n > 0 the largest needs exactly `bits` bits."""
    top = (1 << bits) - 1
    if shape == "few_distinct":
        choices = rng.integers(0, top + 1, size=int(rng.integers(1, 5)), dtype=np.uint64)
        ranks = rng.choice(choices, size=n)
    elif shape == "all_equal":
        ranks = np.full(n, rng.integers(0, top + 1, dtype=np.uint64), dtype=np.uint64)
    else:
        ranks = rng.integers(0, top + 1, size=n, dtype=np.uint64)
    ranks = ranks.astype(np.uint64)
    if n and shape != "all_equal":
        ranks[rng.integers(0, n)] = top
    if shape == "sorted":
        ranks = np.sort(ranks)
    elif shape == "reversed":
        ranks = np.sort(ranks)[::-1].copy()
    elif shape == "sorted_runs":
        pieces = np.array_split(ranks, max(1, n // 37))
        ranks = np.concatenate([np.sort(piece) for piece in pieces]) if n else ranks
    elif shape == "organ_pipe":
        ascending = np.sort(ranks)
        ranks = np.concatenate([ascending[0::2], ascending[1::2][::-1]])
    return ranks


def pack(ranks, samples):
    return (ranks.astype(np.uint64) << np.uint64(32)) | samples.astype(np.uint64)


def rank_bits_of(ranks):
    return bit_length(ranks.max()) if ranks.size else 0


def check_sorted(items, rank_bits):
    result = sorted_items(items, rank_bits)
    assert result.dtype == np.uint64
    assert result.shape == items.shape
    # The ranks come out in numpy's order ...
    np.testing.assert_array_equal(result >> np.uint64(32), np.sort(items >> np.uint64(32)))
    # ... and the items are a permutation of the input.
    np.testing.assert_array_equal(np.sort(result), np.sort(items))
    return result


@settings(max_examples=400, deadline=None)
@given(n=st.integers(0, 3000), bits=st.integers(1, 32), shape=st.sampled_from(SHAPES),
       wide=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_ranks_come_out_in_numpy_order_and_items_are_kept(n, bits, shape, wide, seed):
    rng = np.random.default_rng(seed)
    ranks = make_ranks(rng, n, bits, shape)
    items = pack(ranks, distinct_samples(rng, n, wide))
    check_sorted(items, rank_bits_of(ranks))


@settings(max_examples=120, deadline=None)
@given(n=st.integers(0, RADIX_MIN_ITEMS - 1), bits=st.integers(1, 32),
       shape=st.sampled_from(SHAPES), wide=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_below_radix_threshold_equal_ranks_come_out_as_documented(n, bits, shape, wide, seed):
    rng = np.random.default_rng(seed)
    ranks = make_ranks(rng, n, bits, shape)
    items = pack(ranks, distinct_samples(rng, n, wide))
    result = check_sorted(items, rank_bits_of(ranks))
    if uses_counting_sort(n, rank_bits_of(ranks)):
        np.testing.assert_array_equal(result, items[np.argsort(ranks, kind="stable")])
    else:
        np.testing.assert_array_equal(result, np.sort(items))


@settings(max_examples=150, deadline=None)
@given(n=st.integers(0, 3000), bits=st.integers(1, 32), shape=st.sampled_from(SHAPES),
       seed=st.integers(0, 2**32 - 1))
def test_ascending_samples_come_out_in_one_order_whichever_sort_runs(n, bits, shape, seed):
    # The splitter's nodes hold ascending samples, so every path must give
    # the fully ascending items: the counted and sorted sweeps rely on it.
    rng = np.random.default_rng(seed)
    ranks = make_ranks(rng, n, bits, shape)
    samples = np.sort(distinct_samples(rng, n, wide=True))
    items = pack(ranks, samples)
    np.testing.assert_array_equal(check_sorted(items, rank_bits_of(ranks)), np.sort(items))


@settings(max_examples=80, deadline=None)
@given(n=st.integers(RADIX_MIN_ITEMS, 3000), bits=st.integers(1, 32),
       shape=st.sampled_from(SHAPES), wide=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_radix_sort_keeps_incoming_order_within_equal_ranks(n, bits, shape, wide, seed):
    rng = np.random.default_rng(seed)
    ranks = make_ranks(rng, n, bits, shape)
    items = pack(ranks, distinct_samples(rng, n, wide))
    result = check_sorted(items, rank_bits_of(ranks))
    stable = items[np.argsort(ranks, kind="stable")]
    np.testing.assert_array_equal(result, stable)


@pytest.mark.parametrize("n", [0, 1, 2, 15, 16, 17, 383, 384, 385, 1000, 3000])
@pytest.mark.parametrize("bits", [1, 7, 8, 9, 16, 17, 24, 25, 31, 32])
def test_sizes_around_the_sort_switches_with_every_digit_count(n, bits):
    rng = np.random.default_rng(1000 * n + bits)
    ranks = make_ranks(rng, n, bits, "uniform")
    items = pack(ranks, distinct_samples(rng, n, wide=True))
    check_sorted(items, rank_bits_of(ranks))


@pytest.mark.parametrize("n", [1, 16, 383, 384, 3000])
@pytest.mark.parametrize("rank", [0, 1, 255, 256, 2**32 - 1])
def test_all_equal_ranks_including_zero_and_the_largest(n, rank):
    rng = np.random.default_rng(n)
    ranks = np.full(n, rank, dtype=np.uint64)
    items = pack(ranks, distinct_samples(rng, n, wide=True))
    result = check_sorted(items, bit_length(rank))
    # Nothing to reorder by rank: the radix sort must hand back the input.
    if n >= RADIX_MIN_ITEMS:
        np.testing.assert_array_equal(result, items)


@pytest.mark.parametrize("n", [40, 383, 384, 2500])
def test_ranks_differing_only_in_the_top_digit(n):
    # Every low digit is shared, so the radix sort skips those passes and
    # must still order the items by their most significant byte.
    rng = np.random.default_rng(n)
    top_byte = rng.integers(0, 256, size=n, dtype=np.uint64) << np.uint64(24)
    ranks = top_byte | np.uint64(0x00ABCDEF)
    items = pack(ranks, distinct_samples(rng, n, wide=False))
    check_sorted(items, 32)


@pytest.mark.parametrize("n", [100, 383, 384, 3000])
def test_two_ranks_far_apart(n):
    rng = np.random.default_rng(n)
    ranks = np.where(rng.random(n) < 0.5, 0, 2**32 - 1).astype(np.uint64)
    items = pack(ranks, distinct_samples(rng, n, wide=True))
    check_sorted(items, 32)


@pytest.mark.parametrize("n", [200, 383, 384, 3000])
def test_adversarial_median_of_three_input_is_sorted(n):
    # Alternating extremes and a sawtooth defeat naive pivots; the introsort
    # must fall back to heap sort rather than go quadratic or wrong.
    ranks = np.empty(n, dtype=np.uint64)
    ranks[0::2] = np.arange((n + 1) // 2, dtype=np.uint64)
    ranks[1::2] = np.arange(n // 2, dtype=np.uint64)[::-1] + np.uint64(n)
    samples = np.arange(n, dtype=np.uint64)[::-1].copy()
    items = pack(ranks, samples)
    check_sorted(items, rank_bits_of(ranks))
    sawtooth = (np.arange(n, dtype=np.uint64) % np.uint64(7))
    check_sorted(pack(sawtooth, samples), 3)


def test_sorted_items_does_not_modify_its_input():
    rng = np.random.default_rng(5)
    for n in (50, 1000):
        ranks = rng.integers(0, 1000, size=n, dtype=np.uint64)
        items = pack(ranks, rng.permutation(n).astype(np.uint64))
        before = items.copy()
        sorted_items(items, rank_bits_of(ranks))
        np.testing.assert_array_equal(items, before)


def test_sample_halves_survive_the_sort_unchanged():
    # The low half of every item must keep its bits: check the mapping
    # sample -> rank rather than only the multiset.
    rng = np.random.default_rng(11)
    for n in (300, 3000):
        samples = distinct_samples(rng, n, wide=True)
        ranks = rng.integers(0, 2**20, size=n, dtype=np.uint64)
        result = sorted_items(pack(ranks, samples), rank_bits_of(ranks))
        rank_of = dict(zip(samples.tolist(), ranks.tolist()))
        out_samples = (result & LOW_MASK).tolist()
        out_ranks = (result >> np.uint64(32)).tolist()
        assert sorted(out_samples) == sorted(samples.tolist())
        assert all(rank_of[s] == r for s, r in zip(out_samples, out_ranks))


@pytest.mark.parametrize("item_size", [1, 4, 8, 12, 24])
@given(data=st.data())
@settings(max_examples=40, deadline=None)
def test_stable_partition_puts_the_left_items_first_each_side_in_order(item_size, data):
    # 4 and 8 bytes take the typed loops, other sizes one copy per item.
    n = data.draw(st.integers(0, 60))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    items = rng.integers(0, 256, size=(n, item_size), dtype=np.uint8)
    goes_left = (rng.random(n) < data.draw(st.sampled_from([0.0, 0.3, 0.5, 1.0]))).astype(np.uint8)
    partitioned, n_left = partitioned_rows(items, goes_left)
    assert n_left == np.count_nonzero(goes_left)
    expected = np.concatenate([items[goes_left == 1], items[goes_left == 0]])
    np.testing.assert_array_equal(partitioned.reshape(n, item_size), expected.reshape(n, item_size))


def test_partitioned_rows_refuses_flags_that_do_not_fit():
    items = np.zeros((3, 4), dtype=np.uint8)
    with pytest.raises(ValueError, match="2 entries for 3 items"):
        partitioned_rows(items, np.zeros(2, dtype=np.uint8))
    with pytest.raises(ValueError, match="0 and 1 only"):
        partitioned_rows(items, np.array([0, 2, 1], dtype=np.uint8))
