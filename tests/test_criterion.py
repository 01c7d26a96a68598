"""The impurity criteria (fasttree._criterion_*) against the pure-Python oracle.

``node_statistics(criterion, samples)`` runs the criterion's ``init_node`` on
a node and reports its impurity, total weight and value (class fractions or
weighted mean). Each is compared with ``fasttree.reference.impurity`` and with
the fractions / mean computed here with numpy, up to rounding (tests/tolerances.py).
Classification impurities are bounded by log2(10), so their scale is 1; the
squared error's scale is the node's second moment E_w[y**2], the scale of the
rounding in any one-pass variance.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree._criterion import node_statistics
from fasttree._criterion_pinball import AbsoluteError
from fasttree._criterion_classification import (CostSensitiveGini, Entropy, Gini,
                                                Misclassification)
from fasttree._criterion_multi_output import MultiOutput, OutputImpurity
from fasttree._criterion_regression import Poisson, SquaredError
from fasttree.reference import CostSensitiveGini as ReferenceCostGini
from fasttree.reference import impurity
from tolerances import assert_rounding_close, data_scale, rounding_equal

CLASSIFIERS = {"gini": Gini, "entropy": Entropy, "misclassification": Misclassification}
WEIGHT_KINDS = ["unit", "integer", "uniform", "lognormal", "tiny_and_huge"]
# The tree builders treat impurities at or below this as pure.
PURE_IMPURITY = float(np.finfo(np.float64).eps)


def make_weights(rng, n, kind):
    if kind == "unit":
        return np.ones(n)
    if kind == "integer":
        return rng.integers(1, 6, size=n).astype(np.float64)
    if kind == "uniform":
        return rng.uniform(0.01, 10.0, size=n)
    if kind == "lognormal":
        return rng.lognormal(0.0, 1.0, size=n)
    # Weights spanning six orders of magnitude.
    return 10.0 ** rng.uniform(-3.0, 3.0, size=n)


def node_of(rng, n_rows, n_node):
    """A node: n_node distinct rows of the data set, in random order."""
    return rng.permutation(n_rows)[:n_node].astype(np.uint32)


def class_fractions(labels, weights, n_classes):
    return np.bincount(labels, weights=weights, minlength=n_classes) / weights.sum()


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(sorted(CLASSIFIERS)), n_classes=st.integers(2, 10),
       n_rows=st.integers(1, 150), weight_kind=st.sampled_from(WEIGHT_KINDS),
       seed=st.integers(0, 2**32 - 1), data=st.data())
def test_classification_statistics_match_the_oracle(name, n_classes, n_rows, weight_kind,
                                                    seed, data):
    rng = np.random.default_rng(seed)
    n_node = data.draw(st.integers(1, n_rows), label="n_node")
    # Skewed class probabilities so that some classes are rare or absent.
    labels = rng.choice(n_classes, size=n_rows, p=rng.dirichlet(np.full(n_classes, 0.7)))
    labels = labels.astype(np.int32)
    weights = make_weights(rng, n_rows, weight_kind)
    samples = node_of(rng, n_rows, n_node)
    stats = node_statistics(CLASSIFIERS[name](labels, weights, n_classes), samples)

    node_labels, node_weights = labels[samples], weights[samples]
    assert rounding_equal(stats["impurity"], impurity(name, node_labels, node_weights))
    assert rounding_equal(stats["weighted_n_node"], node_weights.sum())
    assert stats["value"].shape == (n_classes,)
    assert_rounding_close(stats["value"], class_fractions(node_labels, node_weights, n_classes))


@settings(max_examples=150, deadline=None)
@given(n_rows=st.integers(1, 150), weight_kind=st.sampled_from(WEIGHT_KINDS),
       offset=st.floats(-50.0, 50.0), log_scale=st.floats(-2.0, 1.5),
       seed=st.integers(0, 2**32 - 1), data=st.data())
def test_squared_error_statistics_match_the_oracle(n_rows, weight_kind, offset, log_scale,
                                                   seed, data):
    rng = np.random.default_rng(seed)
    n_node = data.draw(st.integers(1, n_rows), label="n_node")
    target = offset + 10.0 ** log_scale * rng.standard_normal(n_rows)
    weights = make_weights(rng, n_rows, weight_kind)
    samples = node_of(rng, n_rows, n_node)
    stats = node_statistics(SquaredError(target, weights), samples)

    node_target, node_weights = target[samples], weights[samples]
    second_moment = np.dot(node_weights, node_target**2) / node_weights.sum()
    mean = np.dot(node_weights, node_target) / node_weights.sum()
    expected = impurity("squared_error", node_target, node_weights)
    assert rounding_equal(stats["impurity"], expected, second_moment)
    assert stats["impurity"] >= 0.0
    assert rounding_equal(stats["weighted_n_node"], node_weights.sum())
    assert stats["value"].shape == (1,)
    assert rounding_equal(stats["value"][0], mean, data_scale(node_target))


def two_output_criterion(kind):
    """A MultiOutput regression criterion of two target columns."""
    def make(target, weights):
        columns = np.broadcast_to(np.arange(2, dtype=np.int32), (target.shape[0], 2))
        return MultiOutput(np.ascontiguousarray(columns),
                           np.ascontiguousarray(np.column_stack([target, target])), weights,
                           np.arange(3, dtype=np.intp), kind)
    return make


REGRESSION_CRITERIA = {
    "squared_error": SquaredError,
    "poisson": Poisson,
    "absolute_error": lambda target, weights: AbsoluteError(target[:, None].copy(), weights),
    "two-output-squared-error": two_output_criterion(OutputImpurity.IMPURITY_SQUARED_ERROR),
    "two-output-poisson": two_output_criterion(OutputImpurity.IMPURITY_POISSON),
}


@pytest.mark.parametrize("name", list(REGRESSION_CRITERIA))
@pytest.mark.parametrize("value", [0.1, 0.3, 1e17, 7e-300, 1.7e308])
def test_a_node_of_equal_targets_holds_that_target_exactly_and_no_impurity(name, value):
    # Fractional weights: their weighted sum over their total misses the
    # target by a rounding, which the node's value must not.
    rng = np.random.default_rng(0)
    target = np.concatenate([np.full(7, value), rng.uniform(0.0, 5.0, size=5)])
    weights = rng.uniform(0.1, 3.0, size=12)
    stats = node_statistics(REGRESSION_CRITERIA[name](target, weights),
                            np.arange(7, dtype=np.uint32))
    assert (stats["value"] == value).all()
    assert stats["impurity"] == 0.0


@pytest.mark.parametrize("n_classes", [2, 4, 8])
def test_entropy_is_measured_in_bits(n_classes):
    # A uniform distribution over 2**k classes carries exactly k bits.
    labels = np.repeat(np.arange(n_classes, dtype=np.int32), 3)
    samples = np.arange(labels.shape[0], dtype=np.uint32)
    stats = node_statistics(Entropy(labels, np.ones(labels.shape[0]), n_classes), samples)
    assert rounding_equal(stats["impurity"], np.log2(n_classes))


def test_entropy_of_half_quarter_quarter_is_one_and_a_half_bits():
    labels = np.array([0, 0, 1, 2], dtype=np.int32)
    stats = node_statistics(Entropy(labels, np.ones(4), 3), np.arange(4, dtype=np.uint32))
    assert rounding_equal(stats["impurity"], 1.5)


def test_weights_shift_entropy_like_repeated_rows():
    # Weights (3, 1) on two classes: p = (3/4, 1/4), H = 0.811278... bits.
    labels = np.array([0, 1], dtype=np.int32)
    stats = node_statistics(Entropy(labels, np.array([3.0, 1.0]), 2),
                            np.arange(2, dtype=np.uint32))
    expected = -(0.75 * np.log2(0.75) + 0.25 * np.log2(0.25))
    assert rounding_equal(stats["impurity"], expected)


@pytest.mark.parametrize("weight", [5e-324, 1e-170])
def test_gini_of_a_node_whose_squared_weights_underflow_comes_from_its_fractions(weight):
    # Weights whose squares underflow to 0 (0 / 0 made the impurity NaN).
    labels = np.array([0, 1, 1, 0], dtype=np.int32)
    samples = np.arange(4, dtype=np.uint32)
    weights = np.full(4, weight)
    assert node_statistics(Gini(labels, weights, 2), samples)["impurity"] == 0.5
    unit_costs = np.ones((2, 2)) - np.eye(2)
    cost_gini = CostSensitiveGini(labels, weights, 2, unit_costs)
    assert node_statistics(cost_gini, samples)["impurity"] == 0.5


def test_entropy_of_a_class_whose_share_underflows_is_that_of_the_others():
    # A class of weight 5e-324 beside classes of weight 1 has a share that
    # rounds to 0: it adds nothing (0 log 0 = 0), not 0 * -inf = NaN.
    labels = np.array([0, 1, 2], dtype=np.int32)
    stats = node_statistics(Entropy(labels, np.array([1.0, 1.0, 5e-324]), 3),
                            np.arange(3, dtype=np.uint32))
    assert stats["impurity"] == 1.0


@settings(max_examples=100, deadline=None)
@given(n_classes=st.integers(2, 10), n_rows=st.integers(1, 80),
       weight_kind=st.sampled_from(WEIGHT_KINDS), seed=st.integers(0, 2**32 - 1))
def test_misclassification_is_one_minus_the_largest_class_fraction(n_classes, n_rows,
                                                                   weight_kind, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n_rows).astype(np.int32)
    weights = make_weights(rng, n_rows, weight_kind)
    samples = np.arange(n_rows, dtype=np.uint32)
    stats = node_statistics(Misclassification(labels, weights, n_classes), samples)
    fractions = class_fractions(labels, weights, n_classes)
    assert rounding_equal(stats["impurity"], 1.0 - fractions.max())


@settings(max_examples=100, deadline=None)
@given(n_classes=st.integers(2, 10), n_rows=st.integers(1, 80),
       weight_kind=st.sampled_from(WEIGHT_KINDS), seed=st.integers(0, 2**32 - 1))
def test_gini_is_one_minus_the_sum_of_squared_fractions(n_classes, n_rows, weight_kind, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n_rows).astype(np.int32)
    weights = make_weights(rng, n_rows, weight_kind)
    samples = np.arange(n_rows, dtype=np.uint32)
    stats = node_statistics(Gini(labels, weights, n_classes), samples)
    fractions = class_fractions(labels, weights, n_classes)
    assert rounding_equal(stats["impurity"], 1.0 - np.sum(fractions**2))


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
@pytest.mark.parametrize("n_rows", [1, 2, 7, 64])
def test_a_single_class_node_is_pure(name, n_rows):
    labels = np.full(n_rows, 3, dtype=np.int32)
    weights = np.random.default_rng(n_rows).uniform(0.1, 5.0, size=n_rows)
    stats = node_statistics(CLASSIFIERS[name](labels, weights, 5),
                            np.arange(n_rows, dtype=np.uint32))
    assert stats["impurity"] == 0.0
    # w / w is exactly 1 and 0 / w exactly 0.
    np.testing.assert_array_equal(stats["value"], [0, 0, 0, 1, 0])


@settings(max_examples=150, deadline=None)
@given(n_rows=st.integers(1, 150), weight_kind=st.sampled_from(WEIGHT_KINDS),
       zero_share=st.floats(0.0, 0.9), log_scale=st.floats(-2.0, 2.0),
       seed=st.integers(0, 2**32 - 1), data=st.data())
def test_poisson_statistics_match_the_oracle(n_rows, weight_kind, zero_share, log_scale, seed,
                                             data):
    rng = np.random.default_rng(seed)
    n_node = data.draw(st.integers(1, n_rows), label="n_node")
    target = 10.0 ** log_scale * rng.exponential(size=n_rows)
    target[rng.random(n_rows) < zero_share] = 0.0
    weights = make_weights(rng, n_rows, weight_kind)
    samples = node_of(rng, n_rows, n_node)
    stats = node_statistics(Poisson(target, weights), samples)

    node_target, node_weights = target[samples], weights[samples]
    mean = np.dot(node_weights, node_target) / node_weights.sum()
    # The half deviance is a sum of terms y log(y / mean) of the targets' scale.
    assert rounding_equal(stats["impurity"], impurity("poisson", node_target, node_weights),
                          data_scale(node_target) * max(1.0, abs(np.log(max(mean, 1e-300)))))
    assert stats["impurity"] >= -1e-12 * data_scale(node_target)
    assert rounding_equal(stats["value"][0], mean, data_scale(node_target))


def test_a_node_of_equal_counts_has_no_poisson_deviance():
    stats = node_statistics(Poisson(np.full(7, 3.0), np.ones(7)), np.arange(7, dtype=np.uint32))
    assert stats["impurity"] <= PURE_IMPURITY
    zeros = node_statistics(Poisson(np.zeros(4), np.ones(4)), np.arange(4, dtype=np.uint32))
    assert zeros["impurity"] == 0.0 and zeros["value"][0] == 0.0


@pytest.mark.parametrize("name", sorted(CLASSIFIERS) + ["squared_error"])
def test_a_reused_criterion_forgets_the_previous_node(name):
    # init_node must reset every running sum: the statistics of a node may
    # not depend on which node the criterion saw before.
    rng = np.random.default_rng(3)
    n_rows = 60
    weights = rng.uniform(0.5, 2.0, size=n_rows)
    if name == "squared_error":
        criterion = SquaredError(rng.normal(size=n_rows) + 4.0, weights)
    else:
        labels = rng.integers(0, 4, size=n_rows).astype(np.int32)
        criterion = CLASSIFIERS[name](labels, weights, 4)
    nodes = [node_of(rng, n_rows, int(rng.integers(1, n_rows + 1))) for _ in range(6)]
    first_pass = [node_statistics(criterion, node) for node in nodes]
    for node, earlier in zip(reversed(nodes), reversed(first_pass)):
        again = node_statistics(criterion, node)
        assert again["impurity"] == earlier["impurity"]
        assert again["weighted_n_node"] == earlier["weighted_n_node"]
        np.testing.assert_array_equal(again["value"], earlier["value"])


def test_squared_error_of_a_weighted_pair():
    # Targets 0 and 3 with weights 1 and 2: mean 2, variance (4 + 2 * 1) / 3 = 2.
    stats = node_statistics(SquaredError(np.array([0.0, 3.0]), np.array([1.0, 2.0])),
                            np.arange(2, dtype=np.uint32))
    assert rounding_equal(stats["value"][0], 2.0)
    assert rounding_equal(stats["impurity"], 2.0, 2.0)
    assert stats["weighted_n_node"] == 3.0


@pytest.mark.parametrize("value", [3.3, -3.7, 10.3, 0.1])
@pytest.mark.parametrize("n_rows", [2, 3, 6, 40])
def test_equal_targets_have_an_impurity_the_builders_treat_as_pure(value, n_rows):
    """A node whose targets are all equal has variance 0.

    The oracle returns exactly 0. The tree builders stop at impurities
    <= float64 eps (2.2e-16), so anything above that makes them split a pure
    node (the estimator then grows more nodes than the oracle for the same
    data). Moderate targets such as 3.3 must therefore come out <= eps.
    """
    target = np.full(n_rows, value)
    stats = node_statistics(SquaredError(target, np.ones(n_rows)),
                            np.arange(n_rows, dtype=np.uint32))
    assert impurity("squared_error", target) <= PURE_IMPURITY
    assert stats["impurity"] <= PURE_IMPURITY


@settings(max_examples=150, deadline=None)
@given(n_classes=st.integers(2, 8), n_rows=st.integers(1, 120),
       weight_kind=st.sampled_from(WEIGHT_KINDS), seed=st.integers(0, 2**32 - 1))
def test_cost_sensitive_gini_matches_the_oracle(n_classes, n_rows, weight_kind, seed):
    rng = np.random.default_rng(seed)
    labels = rng.choice(n_classes, size=n_rows, p=rng.dirichlet(np.full(n_classes, 0.7)))
    labels = labels.astype(np.int32)
    weights = make_weights(rng, n_rows, weight_kind)
    loss = rng.uniform(0.0, 4.0, size=(n_classes, n_classes))
    np.fill_diagonal(loss, 0.0)
    samples = node_of(rng, n_rows, n_rows)
    stats = node_statistics(CostSensitiveGini(labels, weights, n_classes, loss), samples)
    expected = ReferenceCostGini(loss)(labels[samples], weights[samples])
    assert rounding_equal(stats["impurity"], expected, scale=loss.max())
    assert_rounding_close(stats["value"], class_fractions(labels, weights, n_classes))


def test_cost_sensitive_gini_with_unit_costs_is_gini():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 4, size=50).astype(np.int32)
    weights = rng.uniform(0.5, 2.0, size=50)
    unit = np.ones((4, 4)) - np.eye(4)
    samples = np.arange(50, dtype=np.uint32)
    cost = node_statistics(CostSensitiveGini(labels, weights, 4, unit), samples)
    plain = node_statistics(Gini(labels, weights, 4), samples)
    assert rounding_equal(cost["impurity"], plain["impurity"])


def test_cost_sensitive_gini_of_two_classes_is_the_cost_of_their_confusion():
    # Two classes with fractions p and 1 - p: (L01 + L10) p (1 - p).
    labels = np.array([0, 0, 0, 1], dtype=np.int32)
    loss = np.array([[0.0, 1.0], [7.0, 0.0]])
    stats = node_statistics(CostSensitiveGini(labels, np.ones(4), 2, loss),
                            np.arange(4, dtype=np.uint32))
    assert rounding_equal(stats["impurity"], 8.0 * 0.75 * 0.25)
