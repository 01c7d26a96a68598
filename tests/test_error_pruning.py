"""Reduced-error and pessimistic pruning (``fasttree._error_pruning``) against
the oracles in ``fasttree.reference.pruning``, C4.5's numbers and scipy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import DecisionTreeClassifier, DecisionTreeRegressor, RandomForestClassifier
from fasttree import _error_pruning
from fasttree._error_pruning import binomial_upper_limit, regularized_incomplete_beta
from fasttree.reference import binomial_upper_limit as reference_upper_limit
from fasttree.reference import pessimistic_prune, reduced_error_prune
from test_pruning import as_reference
from tolerances import assert_rounding_close


def assert_same_structure(tree, reference):
    assert tree.node_count == reference.node_count
    np.testing.assert_array_equal(tree.children_left, [n.left for n in reference.nodes])
    np.testing.assert_array_equal(tree.children_right, [n.right for n in reference.nodes])
    np.testing.assert_array_equal(tree.feature, [n.feature for n in reference.nodes])
    np.testing.assert_array_equal(tree.threshold, [n.threshold for n in reference.nodes])


def test_upper_limits_are_quinlans_for_error_free_leaves():
    # C4.5: Programs for Machine Learning, section 4.2: U25%(0, 6) = 0.206,
    # U25%(0, 9) = 0.143, U25%(0, 1) = 0.750, so the three leaves of 6, 9 and
    # 1 error-free cases predict 6 * 0.206 + 9 * 0.143 + 1 * 0.750 = 3.273
    # errors, more than the 16 cases with 1 error as one leaf: the subtree is
    # replaced by a leaf. (The book's U25%(1, 16) = 0.157 is the C4.5
    # program's normal approximation; the exact limit is 0.1596.)
    limits = binomial_upper_limit([0, 0, 0, 1], [6, 9, 1, 16], 0.25)
    np.testing.assert_allclose(limits[:3], [0.206, 0.143, 0.750], atol=5e-4)
    assert abs(limits[3] - 0.1596) < 5e-5
    leaves = 6 * limits[0] + 9 * limits[1] + 1 * limits[2]
    assert abs(leaves - 3.273) < 3e-3
    assert 16 * limits[3] < leaves


def test_upper_limits_match_scipys_beta_quantiles_for_fractional_counts():
    from scipy.stats import beta
    rng = np.random.default_rng(0)
    n = rng.uniform(0.5, 400.0, size=500)
    errors = n * rng.uniform(0.0, 0.99, size=500)
    confidence = rng.uniform(0.01, 0.9, size=500)
    limits = binomial_upper_limit(errors, n, confidence)
    # P(X <= E) = CF  <=>  p is the (1 - CF) quantile of Beta(E + 1, N - E).
    np.testing.assert_allclose(limits, beta.ppf(1 - confidence, errors + 1, n - errors),
                               rtol=1e-8, atol=1e-10)


def test_incomplete_beta_matches_scipy():
    from scipy.special import betainc
    rng = np.random.default_rng(1)
    x = rng.uniform(size=2000)
    a, b = rng.uniform(0.05, 600.0, size=(2, 2000))
    np.testing.assert_allclose(regularized_incomplete_beta(x, a, b), betainc(a, b, x),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(regularized_incomplete_beta([0.0, 1.0], 2.0, 3.0), [0.0, 1.0])


EPS = np.finfo(np.float64).eps
# Floating-point errors that would be worth a warning are errors here; an
# underflow to 0 in a tail is not one.
RAISE = {"divide": "raise", "over": "raise", "invalid": "raise", "under": "ignore"}


def log_terms(x, a, b):
    """The largest magnitudes summed in the logarithm of the incomplete beta
    function's front factor x^a (1-x)^b / (a B(a, b)): a rounding error of
    EPS in each moves the factor, and the function, by EPS times their sum
    (relative). The log-gamma terms reach 2e7 at a = 1e6."""
    from scipy.special import gammaln
    with np.errstate(divide="ignore", invalid="ignore"):
        return (1.0 + np.abs(gammaln(a)) + np.abs(gammaln(b)) + np.abs(gammaln(a + b))
                + np.nan_to_num(np.abs(a * np.log(x)) + np.abs(b * np.log1p(-x)), posinf=0.0))


def test_incomplete_beta_matches_scipy_from_tiny_to_huge_arguments():
    from scipy.special import betainc
    x, a, b = np.meshgrid(
        [1e-300, 1e-30, 1e-8, 1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-6, 1 - 1e-12],
        [1e-3, 0.05, 0.5, 1.0, 2.0, 7.5, 30.0, 200.0, 1e3, 1e4, 1e5, 1e6],
        [1e-3, 0.05, 0.5, 1.0, 2.0, 7.5, 30.0, 200.0, 1e3, 1e4, 1e5, 1e6], indexing="ij")
    with np.errstate(**RAISE):
        ours = regularized_incomplete_beta(x, a, b)
    expected = betainc(a, b, x)
    # Relative in the lower tail (I_x down to 1e-300 keeps its digits), plus
    # the front factor's rounding; near 1, scipy itself is off by 4e-11 at
    # I_{1-1e-12}(1/2, 1/2) = 1 - (2/pi) asin(sqrt(1e-12)).
    tolerance = 1e-9 * expected + 64 * EPS * log_terms(x, a, b)
    assert np.all(np.abs(ours - expected) <= tolerance)


def test_incomplete_beta_is_exact_at_the_ends_without_floating_point_warnings():
    a, b = np.meshgrid([1e-3, 0.5, 1.0, 3.0, 1e6], [1e-3, 0.5, 1.0, 3.0, 1e6])
    with np.errstate(**RAISE):
        np.testing.assert_array_equal(regularized_incomplete_beta(0.0, a, b), np.zeros(a.shape))
        np.testing.assert_array_equal(regularized_incomplete_beta(1.0, a, b), np.ones(a.shape))
        # Whole numbers are taken as floats.
        np.testing.assert_array_equal(regularized_incomplete_beta([0, 1], 2, 3), [0.0, 1.0])
        assert abs(regularized_incomplete_beta(0.5, 2, 3) - 11 / 16) < 1e-15


def test_upper_limit_and_incomplete_beta_broadcast_their_arguments_to_one_shape():
    first = np.array([0.0, 1.0, 2.5]).reshape(3, 1, 1)
    second = np.array([4.0, 7.0, 30.0, 1e3]).reshape(4, 1)
    third = np.array([0.1, 0.6])
    for function, x, a, b in ((binomial_upper_limit, first, second, third),
                              (regularized_incomplete_beta, third, first + 1.0, second)):
        values = function(x, a, b)
        assert values.shape == np.broadcast_shapes(x.shape, a.shape, b.shape)
        # Each entry as computed alone, from scalars (a 0-d result).
        for index in np.ndindex(values.shape):
            alone = function(*(np.broadcast_to(v, values.shape)[index] for v in (x, a, b)))
            assert np.shape(alone) == ()
            assert_rounding_close(alone, values[index])


def upper_limit_tolerance(errors, n, confidence, expected):
    """How far the root of 1 - I_p(E + 1, N - E) = CF may lie from the exact
    one: relative 1e-9, plus the rounding error of the equation's two sides
    (EPS, and I's own, relative to the smaller of CF and 1 - CF) divided by
    the slope there, the Beta(E + 1, N - E) density (infinite where the root
    rounds to 1 with N - E < 1: there only the relative part is left)."""
    from scipy.stats import beta
    a, b = errors + 1.0, n - errors
    with np.errstate(divide="ignore", invalid="ignore"):
        noise = 64 * EPS * (1.0 + log_terms(expected, a, b) * np.minimum(confidence,
                                                                           1.0 - confidence))
        return 1e-9 * expected + np.nan_to_num(noise / beta.pdf(expected, a, b), nan=0.0)


@pytest.mark.filterwarnings("error")
def test_upper_limits_are_scipys_beta_quantiles_from_tiny_to_huge_counts():
    from scipy.stats import beta
    n, share, confidence = np.meshgrid(
        [1e-3, 0.1, 0.5, 1.0, 2.0, 3.7, 10.0, 16.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e8],
        [0.0, 1e-9, 0.01, 0.1, 0.5, 0.9, 0.999, 1 - 1e-9],
        [1e-9, 1e-4, 0.01, 0.25, 0.5, 0.75, 0.99, 1 - 1e-6, 1 - 1e-10], indexing="ij")
    errors = n * share
    with np.errstate(**RAISE):
        limits = binomial_upper_limit(errors, n, confidence)
    expected = beta.ppf(1.0 - confidence, errors + 1.0, n - errors)
    assert np.all(np.abs(limits - expected)
                  <= upper_limit_tolerance(errors, n, confidence, expected))


def test_upper_limit_without_errors_is_one_minus_the_nth_root_of_the_confidence():
    # (1 - p)^N = CF when E = 0.
    n, confidence = np.meshgrid([0.01, 0.5, 1.0, 6.0, 9.0, 100.0, 1e4, 1e6],
                                [1e-6, 0.05, 0.25, 0.6, 0.95, 1 - 1e-6])
    expected = -np.expm1(np.log(confidence) / n)
    limits = binomial_upper_limit(0.0, n, confidence)
    assert np.all(np.abs(limits - expected) <= upper_limit_tolerance(0.0, n, confidence, expected))
    # Below 1e4 cases, the log-gamma terms' rounding is far below 1e-9.
    np.testing.assert_allclose(limits[n < 1e4], expected[n < 1e4], rtol=1e-9, atol=1e-15)


def test_upper_limit_is_one_when_every_case_is_an_error():
    errors = np.array([1e-3, 1.0, 2.5, 3.0, 16.0, 1e6, 2.0000001])
    n = np.array([1e-3, 1.0, 2.5, 2.0, 16.0, 1e6, 2.0])
    for confidence in (1e-9, 0.25, 1 - 1e-9):
        with np.errstate(**RAISE):
            np.testing.assert_array_equal(binomial_upper_limit(errors, n, confidence), np.ones(7))


def test_upper_limit_search_needs_few_evaluations_of_the_incomplete_beta(monkeypatch):
    # Counts like a tree's nodes: whole numbers from 1 to 1e5, fractional
    # weights, up to 60% errors, four confidence factors.
    rng = np.random.default_rng(0)
    n = np.concatenate([rng.integers(1, 50, 3000), rng.integers(50, 100000, 1000),
                        rng.uniform(0.1, 2000.0, 1000)]).astype(float)
    errors = n * rng.uniform(0.0, 0.6, n.size)
    errors[:4000] = np.floor(errors[:4000])
    confidence = rng.choice([0.05, 0.25, 0.6, 0.9], n.size)
    evaluated = []

    def counting(p, a, b):
        evaluated.append(np.size(p))
        return regularized_incomplete_beta(p, a, b)

    monkeypatch.setattr(_error_pruning, "regularized_incomplete_beta", counting)
    limits = binomial_upper_limit(errors, n, confidence)
    # Newton from the bracket's middle: a few bisection steps, then a few
    # quadratically converging ones; each entry leaves when it has settled.
    assert len(evaluated) <= 30
    assert sum(evaluated) <= 9 * n.size
    from scipy.stats import beta
    expected = beta.ppf(1.0 - confidence, errors + 1.0, n - errors)
    assert np.all(np.abs(limits - expected)
                  <= upper_limit_tolerance(errors, n, confidence, expected))
    # Where rounding noise keeps Newton from settling (counts of 1e8, CF near
    # 0 or 1, roots next to 0 or 1), bisection ends the search before its
    # step limit.
    evaluated.clear()
    n, share, confidence = np.meshgrid([1e-3, 1.0, 1e4, 1e8], [0.0, 1e-9, 0.5, 1 - 1e-9],
                                       [1e-9, 1e-4, 0.25, 1 - 1e-6, 1 - 1e-10])
    binomial_upper_limit(n * share, n, confidence)
    assert len(evaluated) < _error_pruning.ROOT_STEPS


@pytest.mark.parametrize("errors, n", [(0, 1), (0, 7), (1, 16), (3, 10), (9, 10), (10, 10)])
def test_upper_limits_match_the_oracle_on_whole_counts(errors, n):
    for confidence in (0.05, 0.25, 0.6):
        assert_rounding_close(binomial_upper_limit(errors, n, confidence),
                              reference_upper_limit(errors, n, confidence))


def classification_data(rng, n_rows, n_classes=3):
    X = rng.integers(0, 8, size=(n_rows, 3)).astype(np.float32)
    y = (X[:, 0].astype(int) + rng.integers(0, 5, size=n_rows)) % n_classes
    return X, y


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), confidence=st.sampled_from([0.05, 0.25, 0.6]))
def test_pessimistic_pruning_matches_the_oracle(seed, confidence):
    rng = np.random.default_rng(seed)
    X, y = classification_data(rng, 80)
    grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    pruned = grown.prune_pessimistic(confidence)
    expected = pessimistic_prune(as_reference(grown.tree_), X, y, confidence)
    assert_same_structure(pruned.tree_, expected)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), confidence=st.sampled_from([0.05, 0.25, 0.6]))
def test_pessimistic_pruning_counts_a_rows_weight_as_that_many_rows(seed, confidence):
    rng = np.random.default_rng(seed)
    X, y = classification_data(rng, 60)
    weight = rng.integers(1, 5, size=60)
    grown = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=weight.astype(float))
    pruned = grown.prune_pessimistic(confidence)
    # The oracle counts rows (N and E whole numbers): a row of weight w is
    # w rows to it.
    repeated = np.repeat(np.arange(60), weight)
    expected = pessimistic_prune(as_reference(grown.tree_), X[repeated], y[repeated],
                                 confidence)
    assert_same_structure(pruned.tree_, expected)


def pessimistically_pruned_nodes(tree, X, y, weight, confidence):
    """The nodes C4.5's pessimistic pruning collapses, for fractional weights:
    N the weight of a node's training rows, E the part outside its heaviest
    class, its estimate as a leaf N * U_CF(E, N) with U_CF the (1 - CF)
    quantile of Beta(E + 1, N - E) (scipy), a subtree's the sum over its
    leaves; a node becomes a leaf when its estimate is at most its subtree's."""
    from scipy.stats import beta
    collapsed = set()

    def visit(node, rows):
        n = sum(weight[row] for row in rows)
        heaviest = max(sum(weight[row] for row in rows if y[row] == k) for k in set(y))
        errors = n - heaviest
        own = n * (1.0 if errors >= n else beta.ppf(1.0 - confidence, errors + 1, n - errors))
        if tree.children_left[node] == -1:
            return own
        feature, threshold = tree.feature[node], tree.threshold[node]
        below = (visit(tree.children_left[node],
                       [row for row in rows if X[row, feature] <= threshold])
                 + visit(tree.children_right[node],
                         [row for row in rows if X[row, feature] > threshold]))
        # No near-tie, which rounding could settle either way.
        assert abs(own - below) > 1e-9 * below
        if own <= below:
            collapsed.add(node)
            return own
        return below

    visit(0, list(range(len(y))))
    return collapsed


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("confidence", [0.05, 0.25, 0.6])
def test_pessimistic_pruning_with_fractional_weights_matches_the_oracle(seed, confidence):
    rng = np.random.default_rng(seed)
    X, y = classification_data(rng, 120)
    weight = rng.uniform(0.1, 4.0, size=120)
    grown = DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=weight)
    pruned = grown.prune_pessimistic(confidence)
    collapsed = pessimistically_pruned_nodes(grown.tree_, X, y, weight, confidence)
    kept = []  # the nodes left, in pre-order (left subtree first)

    def walk(node):
        kept.append(node)
        if grown.tree_.children_left[node] != -1 and node not in collapsed:
            walk(grown.tree_.children_left[node])
            walk(grown.tree_.children_right[node])

    walk(0)
    assert 1 < len(kept) < grown.tree_.node_count
    assert pruned.tree_.node_count == len(kept)
    np.testing.assert_array_equal(pruned.tree_.weighted_n_node_samples,
                                  grown.tree_.weighted_n_node_samples[kept])
    is_leaf = [grown.tree_.children_left[node] == -1 or node in collapsed for node in kept]
    np.testing.assert_array_equal(pruned.tree_.children_left == -1, is_leaf)
    inner = ~np.array(is_leaf)
    np.testing.assert_array_equal(pruned.tree_.feature[inner],
                                  grown.tree_.feature[kept][inner])
    np.testing.assert_array_equal(pruned.tree_.threshold[inner],
                                  grown.tree_.threshold[kept][inner])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), regression=st.booleans())
def test_reduced_error_pruning_matches_the_oracle(seed, regression):
    rng = np.random.default_rng(seed)
    X, y = classification_data(rng, 160)
    weight = rng.choice([0.5, 1.0, 2.0], size=160)
    if regression:
        y = X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=160)
        grown = DecisionTreeRegressor(random_state=0).fit(X[:100], y[:100], weight[:100])
        validation_y = y[100:]
    else:
        grown = DecisionTreeClassifier(random_state=0).fit(X[:100], y[:100], weight[:100])
        validation_y = np.searchsorted(grown.classes_, y[100:])
    pruned = grown.prune_reduced_error(X[100:], y[100:], sample_weight=weight[100:])
    expected = reduced_error_prune(as_reference(grown.tree_, not regression), X[100:],
                                   validation_y,
                                   weight[100:])
    assert_same_structure(pruned.tree_, expected)


def test_reduced_error_pruning_never_raises_the_validation_error_and_keeps_the_original():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 5)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(scale=0.8, size=2000) > 1).astype(int)
    grown = DecisionTreeClassifier(random_state=0).fit(X[:1000], y[:1000])
    nodes_before = grown.tree_.nodes.copy()
    pruned = grown.prune_reduced_error(X[1000:], y[1000:])
    assert pruned is not grown and pruned.tree_.node_count < grown.tree_.node_count
    np.testing.assert_array_equal(grown.tree_.nodes, nodes_before)
    assert pruned.score(X[1000:], y[1000:]) >= grown.score(X[1000:], y[1000:])
    assert pruned.get_params() == grown.get_params()
    np.testing.assert_array_equal(pruned.classes_, grown.classes_)


def test_reduced_error_pruning_of_a_regressor_lowers_its_validation_error():
    rng = np.random.default_rng(4)
    X = rng.uniform(size=(1500, 3)).astype(np.float32)
    y = np.sin(6 * X[:, 0]) + rng.normal(scale=0.5, size=1500)
    grown = DecisionTreeRegressor(random_state=0).fit(X[:500], y[:500])
    pruned = grown.prune_reduced_error(X[500:1000], y[500:1000])
    assert pruned.tree_.node_count < grown.tree_.node_count
    assert pruned.score(X[500:1000], y[500:1000]) >= grown.score(X[500:1000], y[500:1000])
    # Pruned on held-out rows, it also generalises better to fresh ones here.
    assert pruned.score(X[1000:], y[1000:]) > grown.score(X[1000:], y[1000:])


def test_labels_the_tree_never_saw_count_as_errors_everywhere():
    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    grown = DecisionTreeClassifier().fit(X, ["a", "a", "b", "b"])
    # Every node errs on the unknown label alike, so the split is kept only
    # for what it gets right.
    pruned = grown.prune_reduced_error(X, ["a", "zzz", "b", "zzz"])
    assert pruned.tree_.node_count == 3
    pruned = grown.prune_reduced_error(X, ["zzz", "zzz", "zzz", "zzz"])
    assert pruned.tree_.node_count == 1


def test_a_forests_tree_prunes_as_the_tree_grown_alone_on_its_rows():
    rng = np.random.default_rng(5)
    X, y = classification_data(rng, 60)
    X_val, y_val = classification_data(rng, 40)
    forest = RandomForestClassifier(n_estimators=1, random_state=0).fit(X, y)
    member = forest.estimators_[0]
    alone = DecisionTreeClassifier(**member.get_params()).fit(
        X, y, sample_weight=np.bincount(forest.estimators_samples_[0], minlength=60))
    for prune in (lambda tree: tree.prune_pessimistic(),
                  lambda tree: tree.prune_reduced_error(X_val, y_val)):
        ours, theirs = prune(member).tree_, prune(alone).tree_
        np.testing.assert_array_equal(ours.children_left, theirs.children_left)
        np.testing.assert_array_equal(ours.n_node_samples, theirs.n_node_samples)
        assert_rounding_close(ours.value, theirs.value)


def test_pruning_needs_valid_arguments():
    rng = np.random.default_rng(5)
    X, y = classification_data(rng, 60)
    tree = DecisionTreeClassifier().fit(X, y)
    for bad in (0.0, 1.0, -0.5, "0.25", True):
        with pytest.raises(ValueError, match="confidence_factor must be a float in"):
            tree.prune_pessimistic(bad)
    with pytest.raises(ValueError, match="y has 5 entries"):
        tree.prune_reduced_error(X, y[:5])
    bad_X = X.copy()
    bad_X[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        tree.prune_reduced_error(bad_X, y)
    with pytest.raises(ValueError, match="features"):
        tree.prune_reduced_error(X[:, :2], y)
    assert not hasattr(DecisionTreeRegressor(), "prune_pessimistic")
