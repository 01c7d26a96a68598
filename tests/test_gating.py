"""A mixture's gates (``_gating.py``) and the softmax regression under them
(``_softmax.py``): inputs, bound steps that never lower the objective,
Newton's optimum, the k-means start."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fasttree import _softmax as softmax_module
from fasttree._gating import GateInputs, initial_paths, kmeans, update_gate
from fasttree._softmax import (bound_update, gradient, newton_fit, weighted_log_likelihood,
                               with_intercept)
from fasttree.reference.mixture import gate_inputs as reference_gate_inputs
from fasttree.reference.mixture import gate_objective as reference_gate_objective
from fasttree.reference.mixture import kmeans as reference_kmeans


def soft_problem(seed, n_samples=80, n_inputs=3, n_classes=3):
    rng = np.random.default_rng(seed)
    Zi = with_intercept(rng.normal(size=(n_samples, n_inputs)))
    targets = rng.dirichlet(np.ones(n_classes), size=n_samples)
    weights = rng.uniform(0, 2, n_samples)
    return Zi, targets, weights


def penalised(Zi, V, targets, weights, alpha):
    return (weighted_log_likelihood(Zi, V, targets, weights) / weights.sum()
            - 0.5 * alpha * np.sum(V[1:] ** 2))


def test_inputs_standardise_numbers_and_one_hot_categories_as_the_oracle():
    X = np.array([[1.0, 0.0, 5.0], [3.0, 2.0, np.nan], [np.nan, 1.0, 7.0], [5.0, np.nan, 9.0]])
    ours = GateInputs.fit(X, np.array([False, True, False]), [3])
    oracle = reference_gate_inputs(X, categorical=[False, True, False], n_levels=[3])
    Z = ours.transform(X)
    np.testing.assert_allclose(Z, oracle.transform(X), rtol=1e-12)
    assert Z.shape == (4, 5)
    np.testing.assert_array_equal(Z[3, 1:4], 0.0)  # a missing category: no level
    assert Z[2, 0] == 0.0  # a missing number: the mean
    raw = ours.transform(X, standardise=False)
    np.testing.assert_allclose(raw[:, 0], [1.0, 3.0, 3.0, 5.0])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), alpha=st.sampled_from([0.0, 1e-3, 1.0]),
       n_classes=st.integers(2, 4))
def test_every_bound_step_raises_the_penalised_objective(seed, alpha, n_classes):
    Zi, targets, weights = soft_problem(seed, n_classes=n_classes)
    V = np.zeros((Zi.shape[1], n_classes))
    V[:, :-1] = np.random.default_rng(seed).normal(size=(Zi.shape[1], n_classes - 1))
    values = [penalised(Zi, V, targets, weights, alpha)]
    for _ in range(5):
        V = bound_update(Zi, V, targets, weights, alpha, 1)[0]
        values.append(penalised(Zi, V, targets, weights, alpha))
    assert np.all(np.diff(values) >= -1e-12)
    np.testing.assert_array_equal(V[:, -1], 0.0)


def test_newton_reaches_where_the_gradient_vanishes_and_bound_steps_go_there():
    Zi, targets, weights = soft_problem(1)
    V, iterations = newton_fit(Zi, targets, weights, alpha=1e-2)
    assert iterations < 30
    assert np.abs(gradient(Zi, V, targets, weights, 1e-2)).max() < 1e-9
    slow = bound_update(Zi, np.zeros_like(V), targets, weights, 1e-2, 2000)[0]
    np.testing.assert_allclose(slow, V, atol=1e-6)


def test_a_gate_update_that_would_lower_the_likelihood_is_not_taken():
    Zi, targets, weights = soft_problem(2)
    best, _ = newton_fit(Zi, targets, weights, alpha=0.0)
    # From the unpenalised optimum, steps towards a heavily penalised one
    # lower the likelihood: the gate keeps its coefficients.
    np.testing.assert_array_equal(update_gate(Zi, best, targets, weights, alpha=10.0), best)
    start = np.zeros_like(best)
    moved = update_gate(Zi, start, targets, weights, alpha=0.0)
    assert (weighted_log_likelihood(Zi, moved, targets, weights)
            > weighted_log_likelihood(Zi, start, targets, weights))


def test_kmeans_finds_separated_blobs_and_draws_as_the_oracle():
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    truth = rng.integers(0, 3, 300)
    Z = centres[truth] + rng.normal(scale=0.5, size=(300, 2))
    weights = rng.uniform(0.5, 1.5, 300)
    labels = kmeans(Z, 3, weights, np.random.default_rng(4))
    # The same partition up to the clusters' names.
    assert len({(a, b) for a, b in zip(labels, truth)}) == 3
    np.testing.assert_array_equal(
        labels, reference_kmeans(Z, 3, weights, np.random.default_rng(4)))


def test_kmeans_refuses_fewer_distinct_rows_than_clusters():
    with pytest.raises(ValueError, match="fewer distinct values"):
        kmeans(np.zeros((5, 2)), 2, np.ones(5), np.random.default_rng(0))


def test_two_level_start_puts_neighbouring_clusters_in_one_group():
    rng = np.random.default_rng(1)
    # Four blobs at the corners of a long rectangle: the groups are its ends.
    corners = np.array([[0.0, 0.0], [0.0, 1.0], [20.0, 0.0], [20.0, 1.0]])
    truth = rng.integers(0, 4, 400)
    Z = corners[truth] + rng.normal(scale=0.05, size=(400, 2))
    experts = initial_paths(Z, 2, 2, np.ones(400), np.random.default_rng(0))
    groups = experts // 2
    assert set(zip(groups, Z[:, 0] > 10)) in ({(0, False), (1, True)}, {(0, True), (1, False)})
    assert len(set(experts)) == 4


@pytest.mark.parametrize("block_rows", [7, 80, 1000])
def test_the_pass_in_row_blocks_is_the_likelihood_and_gradient_of_all_rows(monkeypatch,
                                                                           block_rows):
    Zi, targets, weights = soft_problem(8)
    targets[::5] = np.eye(3)[np.arange(16) % 3]  # hard targets: zeros in the sum
    V = np.random.default_rng(9).normal(scale=3.0, size=(Zi.shape[1], 3))
    monkeypatch.setattr(softmax_module, "BLOCK_ROWS", block_rows)
    class_targets = softmax_module.by_class(targets)
    log_likelihood, total = softmax_module.softmax_pass(Zi, V, class_targets, weights)
    np.testing.assert_allclose(log_likelihood, reference_gate_objective(V, Zi, targets, weights),
                               rtol=1e-12, atol=1e-12)
    # d/dV_jk of sum_n w_n sum_k T_nk log softmax: Zi' (w (T - P)), the free columns.
    scores = Zi @ V
    P = np.exp(scores - scores.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    expected = Zi.T @ (weights[:, None] * (targets - P))[:, :-1]
    np.testing.assert_allclose(total, expected, rtol=1e-12, atol=1e-12)
    assert softmax_module.softmax_pass(Zi, V, class_targets, weights, with_gradient=False) == (
        log_likelihood, None)
