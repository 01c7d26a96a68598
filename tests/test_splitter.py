"""The exact split search (fasttree._splitter) against the brute-force oracle.

Every data set is ranked once with ``rank_features`` on all its rows; the
node is a random subset of the rows (so node ranks do not start at 0). The
kernel's ``find_split`` with max_features = n_features is compared with
``fasttree.reference.best_split`` on the node's rows, features in index order:

* both find nothing, or
* both pick the same feature and threshold, or the two splits tie: the
  oracle's improvement of the kernel's split equals the oracle's best within
  1e-9 relative (the kernel ranks candidates by a proxy, the oracle by the
  improvement itself, so rounding may break exact ties either way);
* always: the kernel's reported improvement and child impurities equal the
  oracle's recomputation on the kernel's own partition, and the in-place
  partition sends exactly the rows with x[feature] <= threshold left and
  respects min_samples_leaf / min_weight_leaf.

"Relative" means relative to the scale of the impurities: 1 for the
classification criteria (at most log2(10)), 1 + E_w[y**2] for squared error.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree._criterion_classification import Entropy, Gini, Misclassification
from fasttree._criterion_regression import SquaredError
from fasttree._features import rank_features
from fasttree._splitter import SplitMethod, Splitter, find_split
from fasttree.reference import best_split, impurity
from tolerances import ROUNDING

CLASSIFIERS = {"gini": Gini, "entropy": Entropy, "misclassification": Misclassification}
CRITERIA = sorted(CLASSIFIERS) + ["squared_error"]


# ------------------------------------------------------------------ helpers


def make_criterion(name, y, weights, n_classes):
    if name == "squared_error":
        return SquaredError(np.ascontiguousarray(y, dtype=np.float64), weights)
    return CLASSIFIERS[name](np.ascontiguousarray(y, dtype=np.int32), weights, n_classes)


# The exact sweeps, which must all find the same split (SPLIT_RANDOM draws one
# threshold instead: tests/test_extra_trees.py; SPLIT_RANDOM_BINS one boundary
# between bins: tests/test_hist_splitter.py).
METHODS = [method for method in SplitMethod
           if method not in (SplitMethod.SPLIT_RANDOM, SplitMethod.SPLIT_RANDOM_BINS)]


def make_splitter(name, X, y, weights, n_classes, *, max_features=None, min_samples_leaf=1,
                  min_weight_leaf=0.0, seed=0, method=SplitMethod.SPLIT_AUTO):
    ranked = rank_features(np.ascontiguousarray(X, dtype=np.float32))
    criterion = make_criterion(name, y, weights, n_classes)
    n_features = X.shape[1] if max_features is None else max_features
    return Splitter(criterion, ranked, n_features, min_samples_leaf, min_weight_leaf, seed,
                    method)


def scale_of(name, y, weights):
    if name == "squared_error":
        return 1.0 + float(np.dot(weights, np.asarray(y, float) ** 2) / weights.sum())
    return 1.0


def oracle_improvement(name, y, weights, goes_left):
    """The oracle's improvement of the split of (y, weights) given by goes_left."""
    total = weights.sum()
    left, right = goes_left, ~goes_left
    impurity_left = impurity(name, y[left], weights[left])
    impurity_right = impurity(name, y[right], weights[right])
    improvement = (impurity(name, y, weights) - weights[left].sum() / total * impurity_left
                   - weights[right].sum() / total * impurity_right)
    return improvement, impurity_left, impurity_right


def check_against_oracle(name, X, y, weights, node, n_classes, min_samples_leaf=1,
                         min_weight_leaf=0.0, method=SplitMethod.SPLIT_AUTO):
    """Run both searches on the node and check every documented relation."""
    X = np.asarray(X, dtype=np.float32)
    splitter = make_splitter(name, X, y, weights, n_classes,
                             min_samples_leaf=min_samples_leaf,
                             min_weight_leaf=min_weight_leaf, method=method)
    samples = node.astype(np.uint32).copy()
    found = find_split(splitter, samples)
    expected = best_split(X[node], y[node], weights[node], criterion=name,
                          min_samples_leaf=min_samples_leaf,
                          min_weight_leaf=min_weight_leaf)
    if found is None or expected is None:
        assert found is None and expected is None, (found, expected)
        return None
    check_kernel_split(name, X, y, weights, node, samples, found,
                       min_samples_leaf, min_weight_leaf)
    tolerance = ROUNDING * scale_of(name, y[node], weights[node])
    goes_left = X[node, found["feature"]] <= found["threshold"]
    own, _, _ = oracle_improvement(name, y[node], weights[node], goes_left)
    same = (found["feature"] == expected.feature
            and found["threshold"] == expected.threshold)
    if same:
        assert found["position"] == expected.n_left
    assert abs(own - expected.improvement) <= tolerance, (found, expected)
    return found, expected, same


def check_kernel_split(name, X, y, weights, node, samples, found, min_samples_leaf,
                       min_weight_leaf):
    """The kernel's own split: partition, leaf limits and reported numbers."""
    assert sorted(samples.tolist()) == sorted(node.tolist())
    feature, threshold, position = found["feature"], found["threshold"], found["position"]
    assert isinstance(threshold, np.float32)
    column = X[:, feature]
    left, right = samples[:position], samples[position:]
    assert np.all(column[left] <= threshold)
    assert np.all(column[right] > threshold)
    assert position >= min_samples_leaf and len(node) - position >= min_samples_leaf
    assert weights[left].sum() >= min_weight_leaf
    assert weights[right].sum() >= min_weight_leaf
    goes_left = X[node, feature] <= threshold
    own, impurity_left, impurity_right = oracle_improvement(name, y[node], weights[node],
                                                            goes_left)
    tolerance = ROUNDING * scale_of(name, y[node], weights[node])
    assert abs(found["improvement"] - own) <= tolerance
    assert abs(found["impurity_left"] - impurity_left) <= tolerance
    assert abs(found["impurity_right"] - impurity_right) <= tolerance


# ------------------------------------------------------------ random data


def random_column(rng, n, kind):
    if kind == "continuous":
        return rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3)
    if kind == "few_ints":
        return rng.integers(0, int(rng.integers(2, 5)), size=n).astype(float)
    if kind == "signed_zeros":
        return rng.choice([-0.0, 0.0, 1.0, -1.0], size=n)
    return np.full(n, rng.normal())  # constant


def random_data(rng, n_rows, n_features, x_kind):
    if x_kind == "duplicate_rows":
        distinct = rng.integers(1, max(2, n_rows // 3) + 1)
        base = np.column_stack([random_column(rng, distinct, "few_ints")
                                for _ in range(n_features)])
        return base[rng.integers(0, distinct, size=n_rows)].astype(np.float32)
    if x_kind == "mixed":
        kinds = rng.choice(["continuous", "few_ints", "signed_zeros", "constant"],
                           size=n_features)
    else:
        kinds = [x_kind] * n_features
    return np.column_stack([random_column(rng, n_rows, kind) for kind in kinds]
                           ).astype(np.float32)


def random_targets(rng, name, n_rows, n_classes, y_kind):
    if name != "squared_error":
        return rng.integers(0, n_classes, size=n_rows)
    if y_kind == "few_values":
        return rng.integers(-3, 4, size=n_rows).astype(np.float64) * 1.5
    return rng.uniform(-20, 20) + 10.0 ** rng.uniform(-1, 1.5) * rng.normal(size=n_rows)


def random_weights(rng, n_rows, weight_kind):
    if weight_kind == "unit":
        return np.ones(n_rows)
    if weight_kind == "integer":
        return rng.integers(1, 5, size=n_rows).astype(np.float64)
    return rng.uniform(0.1, 3.0, size=n_rows)


@settings(max_examples=1500, deadline=None)
@given(name=st.sampled_from(CRITERIA), n_classes=st.integers(2, 10),
       n_rows=st.integers(2, 40), n_features=st.integers(1, 4),
       tiny=st.booleans(),
       x_kind=st.sampled_from(["continuous", "few_ints", "signed_zeros", "mixed",
                               "duplicate_rows"]),
       y_kind=st.sampled_from(["continuous", "few_values"]),
       weight_kind=st.sampled_from(["unit", "integer", "float"]),
       leaf_limit=st.sampled_from(["none", "samples", "weight"]),
       method=st.sampled_from(METHODS), seed=st.integers(0, 2**32 - 1))
def test_find_split_agrees_with_the_brute_force_oracle(name, n_classes, n_rows, n_features,
                                                       tiny, x_kind, y_kind, weight_kind,
                                                       leaf_limit, method, seed):
    rng = np.random.default_rng(seed)
    X = random_data(rng, n_rows, n_features, x_kind)
    y = random_targets(rng, name, n_rows, n_classes, y_kind)
    weights = random_weights(rng, n_rows, weight_kind)
    n_node = int(rng.integers(2, min(5, n_rows) + 1)) if tiny else int(rng.integers(2, n_rows + 1))
    node = rng.permutation(n_rows)[:n_node]
    min_samples_leaf, min_weight_leaf = 1, 0.0
    if leaf_limit == "samples":
        min_samples_leaf = int(rng.integers(1, max(2, n_node // 2 + 1) + 1))
    elif leaf_limit == "weight":
        total = weights[node].sum()
        if weight_kind == "float":
            min_weight_leaf = float(rng.uniform(0.0, 0.55) * total)
        else:  # an integer limit, hit exactly by integer child weights
            min_weight_leaf = float(rng.integers(0, int(total // 2) + 2))
    check_against_oracle(name, X, y, weights, node, n_classes, min_samples_leaf,
                         min_weight_leaf, method)


@settings(max_examples=600, deadline=None)
@given(name=st.sampled_from(CRITERIA), n_classes=st.integers(2, 30),
       n_rows=st.integers(2, 600), n_features=st.integers(1, 4),
       x_kind=st.sampled_from(["continuous", "few_ints", "signed_zeros", "mixed",
                               "duplicate_rows"]),
       weight_kind=st.sampled_from(["unit", "integer", "float"]),
       leaf_limit=st.sampled_from(["none", "samples", "weight"]),
       seed=st.integers(0, 2**32 - 1))
def test_sorted_and_counted_sweeps_find_the_same_split_bit_for_bit(
        name, n_classes, n_rows, n_features, x_kind, weight_kind, leaf_limit, seed):
    # A node's samples are in ascending order (the builders partition
    # stably), and then both sweeps add tied samples in the same order: the
    # same split, the same numbers (the proxy that chose it included), the
    # same partition, to the last bit.
    rng = np.random.default_rng(seed)
    X = random_data(rng, n_rows, n_features, x_kind)
    y = random_targets(rng, name, n_rows, n_classes, "continuous")
    weights = random_weights(rng, n_rows, weight_kind)
    node = np.sort(rng.permutation(n_rows)[:int(rng.integers(2, n_rows + 1))])
    min_samples_leaf, min_weight_leaf = 1, 0.0
    if leaf_limit == "samples":
        min_samples_leaf = int(rng.integers(1, max(2, node.size // 2 + 1) + 1))
    elif leaf_limit == "weight":
        min_weight_leaf = float(rng.uniform(0.0, 0.55) * weights[node].sum())
    results = []
    for method in (SplitMethod.SPLIT_SORT, SplitMethod.SPLIT_COUNT):
        splitter = make_splitter(name, X, y, weights, n_classes, method=method,
                                 min_samples_leaf=min_samples_leaf,
                                 min_weight_leaf=min_weight_leaf)
        samples = node.astype(np.uint32).copy()
        results.append((find_split(splitter, samples), samples))
    (sorted_split, sorted_samples), (counted_split, counted_samples) = results
    assert sorted_split == counted_split
    np.testing.assert_array_equal(sorted_samples, counted_samples)


@pytest.mark.parametrize("name", CRITERIA)
@pytest.mark.parametrize("weight_kind", ["integer", "float"])
def test_sorted_and_counted_sweeps_agree_bit_for_bit_on_many_tied_nodes(name, weight_kind):
    # Seeded nodes of a few hundred rows on tied columns with several classes
    # in most bins: any difference in how the two sweeps add a bin shows in
    # the proxy's last bits on some of them.
    for seed in range(60):
        rng = np.random.default_rng(seed)
        n_rows = int(rng.integers(50, 400))
        X = np.column_stack([random_column(rng, n_rows, "few_ints") for _ in range(2)]
                            + [np.round(rng.normal(size=n_rows), 1)]).astype(np.float32)
        n_classes = int(rng.integers(2, 8))
        y = random_targets(rng, name, n_rows, n_classes, "continuous")
        weights = random_weights(rng, n_rows, weight_kind)
        splits = []
        for method in (SplitMethod.SPLIT_SORT, SplitMethod.SPLIT_COUNT):
            splitter = make_splitter(name, X, y, weights, n_classes, method=method)
            samples = np.arange(n_rows, dtype=np.uint32)
            splits.append((find_split(splitter, samples), samples.tolist()))
        assert splits[0] == splits[1], seed


# -------------------------------------------------------------- specifics


@pytest.mark.parametrize("column, constant_left, constant_right", [
    ([0, 0, 0, 1, 1, 1], 1, 1),         # two values: both children hold one
    ([0, 0, 0, 1, 1, 2], 1, 0),         # split above the least value: the left holds one
    ([0, 1, 1, 2, 2, 2], 0, 0),         # split below the largest: only the right would
    ([0, 1, 1, 2, 2, 3], 0, 0),
])
def test_a_child_holding_one_value_of_the_split_feature_knows_it_is_constant(
        column, constant_left, constant_right):
    # The classes part the rows between the third and the fourth. Only the
    # left child may learn alone that it is constant: its subtree is built
    # first.
    y = np.array([0, 0, 0, 1, 1, 1])
    X = np.column_stack([column, np.zeros(6)]).astype(np.float32)
    for method in METHODS:
        splitter = make_splitter("gini", X, y, np.ones(6), 2, method=method)
        found = find_split(splitter, np.arange(6, dtype=np.uint32))
        assert found["feature"] == 0
        # The constant second column is known to every child.
        assert found["n_constants_left"] == 1 + constant_left
        assert found["n_constants_right"] == 1 + constant_right


@pytest.mark.parametrize("name", CRITERIA)
@pytest.mark.parametrize("n_node", [1, 2, 5, 30])
def test_a_node_of_identical_rows_has_no_split(name, n_node):
    rng = np.random.default_rng(n_node)
    X = np.vstack([np.tile([[1.5, -2.0, 0.0]], (n_node, 1)),
                   rng.normal(size=(10, 3))]).astype(np.float32)
    y = rng.integers(0, 3, size=X.shape[0])  # mixed classes: impure, yet unsplittable
    weights = rng.uniform(0.5, 2.0, size=X.shape[0])
    node = np.arange(n_node)
    splitter = make_splitter(name, X, y, weights, 3)
    assert find_split(splitter, node.astype(np.uint32)) is None
    assert best_split(X[node], y[node], weights[node], criterion=name) is None


@pytest.mark.parametrize("name", CRITERIA)
def test_min_samples_leaf_above_half_the_node_leaves_no_split(name):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 2)).astype(np.float32)
    y = rng.integers(0, 2, size=9)
    splitter = make_splitter(name, X, y, np.ones(9), 2, min_samples_leaf=5)
    assert find_split(splitter, np.arange(9, dtype=np.uint32)) is None
    check_against_oracle(name, X, y, np.ones(9), np.arange(9), 2, min_samples_leaf=4)


@pytest.mark.parametrize("weights, position", [([1.0, 2.0, 3.0, 4.0], 3),
                                               ([4.0, 3.0, 2.0, 1.0], 1)])
def test_min_weight_leaf_equal_to_a_child_weight_is_allowed(weights, position):
    # x: 0 1 2 3. With a limit of 4 only one threshold keeps both children at
    # weight >= 4, and there one child weighs exactly 4.
    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    y = np.array([0, 1, 0, 1])
    weights = np.array(weights)
    for name in CRITERIA:
        found, expected, same = check_against_oracle(name, X, y, weights, np.arange(4), 2,
                                                     min_weight_leaf=4.0)
        assert same
        assert found["position"] == position
        assert found["threshold"] == np.float32(position - 0.5)


def adjacent_values(base, count):
    values = [np.float32(base)]
    for _ in range(count - 1):
        values.append(np.nextafter(values[-1], np.float32(np.inf)))
    return values


@pytest.mark.parametrize("base", [0.0, -0.0, 1.0, -1.0, 1e-45, -1e-45, 1e-38, 3.0e38,
                                  float(np.finfo(np.float32).max), 123.456, -7.25e10])
@pytest.mark.parametrize("name", CRITERIA)
def test_adjacent_float32_values_give_a_threshold_that_partitions_exactly(base, name):
    values = adjacent_values(base, 3) if base < np.finfo(np.float32).max else [
        np.nextafter(np.float32(base), np.float32(0)), np.float32(base)]
    rng = np.random.default_rng(7)
    n_rows = 24
    column = np.array(values, dtype=np.float32)[rng.integers(0, len(values), size=n_rows)]
    column[:len(values)] = values  # every value is present
    X = np.column_stack([column, -column]).astype(np.float32)
    y = (column > values[0]).astype(int) ^ (rng.random(n_rows) < 0.2)
    weights = rng.uniform(0.5, 2.0, size=n_rows)
    result = check_against_oracle(name, X, y, weights, np.arange(n_rows), 2)
    assert result is not None
    found = result[0]
    # No float32 lies strictly between adjacent values: the threshold is the
    # lower one, and rows holding the upper one still go right.
    assert found["threshold"] in [v for v in values] + [-v for v in values]


def test_two_adjacent_values_split_at_the_lower_one():
    low = np.float32(0.1)
    high = np.nextafter(low, np.float32(1))
    X = np.array([[low], [high], [low], [high]], dtype=np.float32)
    y = np.array([0, 1, 0, 1])
    samples = np.arange(4, dtype=np.uint32)
    found = find_split(make_splitter("gini", X, y, np.ones(4), 2), samples)
    assert found["threshold"] == low
    assert sorted(samples[:found["position"]].tolist()) == [0, 2]


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(CRITERIA), n_features=st.integers(2, 5),
       max_features=st.integers(1, 4), seed=st.integers(0, 2**32 - 1))
def test_max_features_evaluates_a_subset_reproducibly(name, n_features, max_features, seed):
    max_features = min(max_features, n_features - 1)
    rng = np.random.default_rng(seed)
    n_rows = 25
    X = random_data(rng, n_rows, n_features, "continuous")
    y = random_targets(rng, name, n_rows, 3, "continuous")
    weights = rng.uniform(0.5, 2.0, size=n_rows)
    node = np.arange(n_rows)
    split_seed = int(rng.integers(0, 2**63))
    results = []
    for _ in range(2):
        samples = node.astype(np.uint32)
        splitter = make_splitter(name, X, y, weights, 3, max_features=max_features,
                                 seed=split_seed)
        results.append((find_split(splitter, samples), samples))
    (first, first_samples), (second, second_samples) = results
    assert first == second  # same seed, same split
    np.testing.assert_array_equal(first_samples, second_samples)
    check_kernel_split(name, X, y, weights, node, first_samples, first, 1, 0.0)
    # The kernel's split is the best one of its own feature ...
    own_feature = best_split(X, y, weights, criterion=name, features=[first["feature"]])
    tolerance = ROUNDING * scale_of(name, y, weights)
    assert abs(first["improvement"] - own_feature.improvement) <= tolerance
    # ... and no better than the best over all features.
    overall = best_split(X, y, weights, criterion=name)
    assert first["improvement"] <= overall.improvement + tolerance


@pytest.mark.parametrize("name", CRITERIA)
def test_every_feature_is_drawn_for_some_seed(name):
    rng = np.random.default_rng(42)
    n_rows, n_features = 30, 5
    X = rng.normal(size=(n_rows, n_features)).astype(np.float32)
    y = random_targets(rng, name, n_rows, 3, "continuous")
    weights = np.ones(n_rows)
    chosen = set()
    for seed in range(200):
        splitter = make_splitter(name, X, y, weights, 3, max_features=1, seed=seed)
        found = find_split(splitter, np.arange(n_rows, dtype=np.uint32))
        chosen.add(found["feature"])
    assert chosen == set(range(n_features))


@pytest.mark.parametrize("name", CRITERIA)
def test_constant_features_do_not_count_towards_max_features(name):
    # Only feature 3 varies: a draw that lands on a constant feature must
    # draw again, so one evaluated feature always finds the split.
    rng = np.random.default_rng(1)
    n_rows = 20
    X = np.column_stack([np.full(n_rows, 2.0), np.zeros(n_rows), np.full(n_rows, -1.0),
                         rng.normal(size=n_rows), np.full(n_rows, 9.0)]).astype(np.float32)
    y = random_targets(rng, name, n_rows, 2, "continuous")
    for seed in range(40):
        splitter = make_splitter(name, X, y, np.ones(n_rows), 2, max_features=1, seed=seed)
        found = find_split(splitter, np.arange(n_rows, dtype=np.uint32))
        assert found is not None and found["feature"] == 3


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(CRITERIA), n_rows=st.integers(2, 30),
       x_kind=st.sampled_from(["continuous", "few_ints"]), seed=st.integers(0, 2**32 - 1))
def test_weight_two_equals_a_duplicated_row(name, n_rows, x_kind, seed):
    rng = np.random.default_rng(seed)
    X = random_data(rng, n_rows, 3, x_kind)
    y = random_targets(rng, name, n_rows, 3, "continuous")
    weights = np.where(rng.random(n_rows) < 0.4, 2.0, 1.0)
    doubled = np.flatnonzero(weights == 2.0)
    rows = np.concatenate([np.arange(n_rows), doubled])  # row ids of the duplicated set
    weighted = find_split(make_splitter(name, X, y, weights, 3),
                          np.arange(n_rows, dtype=np.uint32))
    dup_samples = np.arange(rows.shape[0], dtype=np.uint32)
    duplicated = find_split(make_splitter(name, X[rows], y[rows], np.ones(rows.shape[0]), 3),
                            dup_samples)
    if weighted is None or duplicated is None:
        assert weighted is None and duplicated is None
        return
    tolerance = ROUNDING * scale_of(name, y, weights)
    assert abs(weighted["improvement"] - duplicated["improvement"]) <= tolerance
    same = (weighted["feature"], weighted["threshold"]) == (duplicated["feature"],
                                                           duplicated["threshold"])
    # Integer class weights make the classification proxies exact, so the
    # same split wins; summing 2y instead of y + y may break a regression tie
    # the other way, and then only the improvements must agree.
    assert same or name == "squared_error"
    if same:
        assert abs(weighted["impurity_left"] - duplicated["impurity_left"]) <= tolerance
        assert abs(weighted["impurity_right"] - duplicated["impurity_right"]) <= tolerance
        left_rows = set(rows[dup_samples[:duplicated["position"]]].tolist())
        assert left_rows == set(np.flatnonzero(
            X[:, weighted["feature"]] <= weighted["threshold"]).tolist())


@pytest.mark.parametrize("name", CRITERIA)
@pytest.mark.parametrize("n_rows, x_kind", [(400, "continuous"), (700, "few_ints"),
                                            (900, "mixed")])
def test_large_nodes_sorted_by_the_radix_path_agree_with_the_oracle(name, n_rows, x_kind):
    # From 384 samples on the sweep's sort is the radix sort; the node is a
    # subset of a larger data set so that its ranks start above zero.
    rng = np.random.default_rng(n_rows)
    X = random_data(rng, n_rows + 60, 2, x_kind)
    y = random_targets(rng, name, n_rows + 60, 4, "continuous")
    weights = random_weights(rng, n_rows + 60, "float")
    node = np.sort(rng.permutation(n_rows + 60)[:n_rows])[::-1].copy()
    assert check_against_oracle(name, X, y, weights, node, 4, min_samples_leaf=3) is not None


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_classes=st.integers(2, 4),
       criterion=st.sampled_from(("gini", "entropy")), bootstrap=st.booleans(),
       wide=st.booleans())
def test_bins_summed_from_rare_rows_grow_the_tree_a_full_fill_grows(seed, n_classes, criterion,
                                                                    bootstrap, wide):
    # Sparse-like columns (mostly one value, a few others, one with missing
    # values) and whole weights: the splitter sums such a feature's bins
    # from the node's rows that do not hold its common value and takes the
    # common value's bin as the node's totals minus them. Without the rare
    # rows listed it fills every bin from every row; the trees must match.
    # Narrow data with every feature drawn indexes each node's rare rows;
    # wide data with three features drawn reads the drawn ones' lists.
    rng = np.random.default_rng(seed)
    n_rows, n_sparse = 300, (200 if wide else 5)
    X = np.zeros((n_rows, n_sparse + 1), dtype=np.float32)
    for column in range(n_sparse):
        # 1% to 7% of the rows: always below the 1/8 that makes a value rare.
        rare = rng.permutation(n_rows)[:rng.integers(3, 22)]
        X[rare, column] = rng.integers(1, 4, rare.size)
    X[:, -1] = rng.integers(0, 3, n_rows)
    X[rng.random(n_rows) < 0.05, -1] = np.nan
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 1) ^ (rng.random(n_rows) < 0.2)).astype(np.int32)
    y = (y + (X[:, 2] > 0)) % n_classes
    weights = (rng.integers(0, 3, n_rows) if bootstrap else np.ones(n_rows)).astype(float)
    assert_rare_rows_grow_the_full_fills_tree(X, y, weights, n_classes, criterion,
                                              3 if wide else None, n_sparse, seed)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_classes=st.integers(2, 4),
       bootstrap=st.booleans())
def test_many_rare_rows_summed_as_packed_integers_grow_the_tree_a_full_fill_grows(
        seed, n_classes, bootstrap):
    # Large nodes hold many rare rows of a few values: with whole weights
    # they are summed as packed integers into copies of the bins.
    rng = np.random.default_rng(seed)
    n_rows, n_sparse = 2000, 5
    X = np.zeros((n_rows, n_sparse + 1), dtype=np.float32)
    for column in range(n_sparse):
        # 100 to 240 rare rows: more than the packed sums' 64, fewer than 1/8.
        rare = rng.permutation(n_rows)[:rng.integers(100, 241)]
        X[rare, column] = rng.integers(1, 4, rare.size)
    X[:, -1] = rng.integers(0, 3, n_rows)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 1) ^ (rng.random(n_rows) < 0.2)).astype(np.int32)
    y = (y + (X[:, 2] > 0)) % n_classes
    weights = (rng.integers(0, 3, n_rows) if bootstrap else np.ones(n_rows)).astype(float)
    assert_rare_rows_grow_the_full_fills_tree(X, y, weights, n_classes, "gini", None,
                                              n_sparse, seed)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_classes=st.integers(2, 3),
       criterion=st.sampled_from(("gini", "entropy")), bootstrap=st.booleans())
def test_rare_rows_of_many_valued_features_grow_the_tree_a_full_sweep_grows(
        seed, n_classes, criterion, bootstrap):
    # Sparse-like columns of more than 256 values (continuous rare values):
    # large nodes fill bins from the rare rows, small ones sort the rare
    # rows alone and move the common value's rows as one bin; a column with
    # missing values among its rare rows takes the full sort in the nodes
    # holding them.
    rng = np.random.default_rng(seed)
    n_rows, n_sparse = 2400, 4
    X = np.zeros((n_rows, n_sparse + 1), dtype=np.float32)
    for column in range(n_sparse):
        # 285 to 295 rare rows: more than 256 values, fewer than 1/8 of the rows.
        rare = rng.permutation(n_rows)[:rng.integers(285, 296)]
        X[rare, column] = rng.normal(size=rare.size)
    X[np.flatnonzero(X[:, 3])[:10], 3] = np.nan
    X[:, -1] = rng.integers(0, 3, n_rows)
    y = ((X[:, 0] > 0) ^ (X[:, 1] > 0.5) ^ (rng.random(n_rows) < 0.2)).astype(np.int32)
    y = (y + (X[:, 2] < 0)) % n_classes
    weights = (rng.integers(0, 3, n_rows) if bootstrap else np.ones(n_rows)).astype(float)
    assert_rare_rows_grow_the_full_fills_tree(X, y, weights, n_classes, criterion, None,
                                              n_sparse, seed, many_values=True)


def assert_rare_rows_grow_the_full_fills_tree(X, y, weights, n_classes, criterion, max_features,
                                              n_sparse, seed, many_values=False):
    """The tree grown with the rare rows of X's first n_sparse columns listed
    is the one grown without (every bin filled from every row)."""
    from fasttree._growth import grow_tree, resolve_tree_limits
    from fasttree.tree import DecisionTreeClassifier
    from fasttree._features import NO_COMMON

    ranked = rank_features(X)
    assert (ranked.common_rank[:n_sparse] != NO_COMMON).all()
    if many_values:
        assert (np.diff(ranked.value_offsets)[:n_sparse] > 256).all()
    plain = ranked._replace(common_rank=np.full(X.shape[1], NO_COMMON, dtype=np.uint32))
    limits = resolve_tree_limits(
        DecisionTreeClassifier(criterion=criterion, max_features=max_features),
        {criterion: None}, X.shape[0], X.shape[1])
    trees = [grow_tree(features, make_criterion(criterion, y, weights, n_classes), weights,
                       limits, seed) for features in (ranked, plain)]
    for name in ("children_left", "feature", "threshold", "value", "impurity",
                 "weighted_n_node_samples", "missing_go_to_left"):
        np.testing.assert_array_equal(getattr(trees[0], name), getattr(trees[1], name))


# ------------------------------------------------------------------ subset sweeps


def many_category_splitter(name, X, y, shortcuts):
    """A splitter over categorical codes X, with or without the subset
    sweeps' shortcuts."""
    from fasttree import _splitter

    previous = _splitter.subset_shortcuts
    _splitter.subset_shortcuts = shortcuts
    try:
        n_classes = int(y.max()) + 1
        return Splitter(make_criterion(name, y, np.ones(len(y)), n_classes),
                        rank_features(X.astype(np.float32)), X.shape[1], 1, 0.0, 0,
                        categories=(X.max(axis=0) + 1).astype(np.intp))
    finally:
        _splitter.subset_shortcuts = previous


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_subset_sweeps_of_many_categories_and_classes_are_not_quadratic_in_classes(name):
    # ~220 categories per feature and ~210 classes in 400 rows. Each class's
    # ordering moves every category, but only the classes it holds: O(n)
    # per ordering, O(n K) per feature in all. The O(K) proxies of entropy
    # and misclassification are computed for few candidates. Whole bins
    # moved O(K) each, and every candidate computed its proxy: O(k K**2).
    rng = np.random.default_rng(1)
    n_rows, n_features = 400, 3
    X = np.column_stack([np.unique(column, return_inverse=True)[1]
                         for column in rng.integers(0, 300, (n_features, n_rows))])
    y = np.unique(rng.integers(0, 300, n_rows), return_inverse=True)[1].astype(np.int32)
    n_classes = int(y.max()) + 1
    candidates = sum(n_classes * (n_categories - 1) + n_categories
                     for n_categories in X.max(axis=0) + 1)
    found, plain = (find_split(many_category_splitter(name, X, y, shortcuts),
                               np.arange(n_rows, dtype=np.uint32)) for shortcuts in (True, False))
    budget = n_features * (n_classes + 3) * n_rows
    assert found["subset_stats_moved"] <= budget
    if name != "gini":  # an O(K) proxy
        assert found["subset_proxies"] * n_classes <= 2 * budget
    # The same split, and a count that tells the two apart.
    for key in ("feature", "position", "proxy"):
        assert found[key] == plain[key]
    assert plain["subset_stats_moved"] > 50 * budget
    assert plain["subset_proxies"] == candidates


@pytest.mark.parametrize("criterion", ["gini", "entropy", "squared_error", "poisson"])
@pytest.mark.parametrize("seed", range(12))
def test_scaled_weights_and_repeated_rows_grow_the_same_tree(criterion, seed):
    # Splits of equal worth tie whatever order their sums were added in:
    # scaling every weight, or repeating a row instead of weighing it 2,
    # changes only the last bits of their proxies, never the split chosen.
    from fasttree import DecisionTreeClassifier, DecisionTreeRegressor
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(60, 6)).astype(np.float32)  # tied values, tied splits
    weight = rng.integers(1, 3, 60)
    if criterion in ("gini", "entropy"):
        y = rng.integers(0, 3, 60)
        make = lambda: DecisionTreeClassifier(criterion=criterion, random_state=0)  # noqa: E731
    else:
        y = rng.integers(1, 4, 60).astype(float)
        make = lambda: DecisionTreeRegressor(criterion=criterion, random_state=0)  # noqa: E731
    reference = make().fit(X, y, sample_weight=weight.astype(float)).tree_
    rows = np.repeat(np.arange(60), weight)
    fits = [make().fit(X[rows], y[rows]).tree_] + [
        make().fit(X, y, sample_weight=weight * factor).tree_ for factor in (0.1, 3.7, 1e-3)]
    for tree in fits:
        np.testing.assert_array_equal(tree.feature, reference.feature)
        np.testing.assert_array_equal(tree.threshold, reference.threshold)
        np.testing.assert_array_equal(tree.children_left, reference.children_left)


@pytest.mark.parametrize("criterion", ["misclassification", "gini", "entropy"])
def test_a_categorical_tie_goes_to_the_lower_feature_whichever_is_drawn_first(criterion):
    # Two copies of one column whose categories {0, 1} and {2, 3} hold the
    # two classes: both split perfectly, and feature 0 wins the tie in
    # whatever order a seed draws the features. With misclassification the
    # subset sweep's bound on feature 0's perfect split equals the best proxy
    # found on feature 1 exactly: a bound equal to the best must not skip a
    # candidate of a lower feature.
    from fasttree import DecisionTreeClassifier

    codes = np.repeat([0.0, 1.0, 2.0, 3.0], [3, 2, 4, 4])
    y = np.repeat([0, 0, 1, 1], [3, 2, 4, 4])
    X = np.column_stack([codes, codes])
    for seed in range(8):
        tree = DecisionTreeClassifier(categorical_features=[0, 1], criterion=criterion,
                                      random_state=seed).fit(X, y).tree_
        assert tree.feature[0] == 0, seed
        assert set(tree.left_categories(0).tolist()) in ({0, 1}, {2, 3})


def test_a_splitter_without_four_byte_ranks_needs_every_feature_narrow():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 4, 600), rng.normal(size=600)]).astype(np.float32)
    y, weights = np.arange(600) % 2, np.ones(600)
    ranked = rank_features(X)
    without = ranked._replace(ranks=np.zeros((2, 0), dtype=np.uint32))
    with pytest.raises(ValueError, match="feature 1 has more values than narrow ranks hold"):
        Splitter(make_criterion("gini", y, weights, 2), without, 2, 1, 0.0, 0)
    with pytest.raises(ValueError, match="ranks and narrow_ranks differ in shape"):
        Splitter(make_criterion("gini", y, weights, 2),
                 ranked._replace(ranks=ranked.ranks[:, :5].copy()), 2, 1, 0.0, 0)
    # One narrow feature alone: the splitter finds the split it finds with the ranks.
    narrow_only = rank_features(X[:, :1])
    with_ranks = find_split(Splitter(make_criterion("gini", y, weights, 2), narrow_only, 1, 1,
                                     0.0, 0), np.arange(600, dtype=np.uint32))
    bytes_only = find_split(Splitter(make_criterion("gini", y, weights, 2), narrow_only._replace(
        ranks=np.zeros((1, 0), dtype=np.uint32)), 1, 1, 0.0, 0), np.arange(600, dtype=np.uint32))
    assert bytes_only == with_ranks
