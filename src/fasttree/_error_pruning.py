"""Pruning by estimated error: reduced-error pruning on a validation set
(Quinlan 1987) and C4.5's pessimistic pruning (Quinlan 1993, chapter 4).

Both price every node as a leaf and let the kernel's bottom-up pass
(``fasttree._pruning.collapse_bottom_up``) collapse each node expected to err
no more than the subtree below it; :meth:`fasttree._structure.Tree.pruned`
builds the tree.
"""

import math

import numpy as np

from ._pruning import collapse_bottom_up

# Bounds on the iterations of the continued fraction of the incomplete beta
# function (which converges in about sqrt(max(a, b)) terms) and of the
# safeguarded Newton search for the binomial limit (a few steps from the
# bracket's middle; a bisection step whenever Newton leaves the bracket).
# The search ends once a Newton step moves p by at most SETTLED * p: Newton's
# error after such a step is of the order of the step squared.
FRACTION_TERMS = 1000
ROOT_STEPS = 200
CONVERGED = 1e-15
SETTLED = 1e-12


def reduced_error_collapse(tree, X, loss_of):
    """Nodes reduced-error pruning collapses.

    Parameters
    ----------
    tree : Tree
        With inner-node values (not a forest's compact tree).
    X : ndarray of shape (n_rows, n_features)
        The validation rows.
    loss_of : callable
        ``loss_of(rows, nodes)``: the loss (weighted) of validation row
        ``rows[i]`` when node ``nodes[i]`` predicts it, for arrays of pairs.

    Returns
    -------
    ndarray of bool, one per node
    """
    indptr, nodes = tree.path_nodes(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(indptr))
    nodes = nodes.astype(np.intp)
    leaf_loss = np.bincount(nodes, weights=loss_of(rows, nodes), minlength=tree.node_count)
    return collapse_bottom_up(*tree.children_lists(), leaf_loss)


_log_gamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _log_beta(a, b):
    return _log_gamma(a) + _log_gamma(b) - _log_gamma(a + b)


def _beta_fraction(x, a, b):
    """The continued fraction of I_x(a, b) (1-D arrays), evaluated by Lentz's
    method; entries leave the computation as they converge."""
    tiny = 1e-300
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / np.where(np.abs(d) < tiny, tiny, d)
    result = d.copy()
    c = np.ones_like(x)
    active = np.arange(x.shape[0])
    for m in range(1, FRACTION_TERMS + 1):
        xa, aa, ba = x[active], a[active], b[active]
        ca, da, ra = c[active], d[active], result[active]
        change = np.zeros_like(xa)
        # The even then the odd term of the fraction.
        for numerator in (m * (ba - m) * xa / ((aa + 2 * m - 1) * (aa + 2 * m)),
                          -(aa + m) * (aa + ba + m) * xa / ((aa + 2 * m) * (aa + 2 * m + 1))):
            da = 1.0 + numerator * da
            da = 1.0 / np.where(np.abs(da) < tiny, tiny, da)
            ca = 1.0 + numerator / ca
            ca = np.where(np.abs(ca) < tiny, tiny, ca)
            ra = ra * (ca * da)
            change = np.maximum(change, np.abs(ca * da - 1.0))
        c[active], d[active], result[active] = ca, da, ra
        active = active[change >= CONVERGED]
        if active.size == 0:
            break
    return result


def regularized_incomplete_beta(x, a, b):
    """I_x(a, b) for arrays of x in [0, 1] and a, b > 0."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(a), np.shape(b))
    x, a, b = (np.array(v, dtype=np.float64).ravel() for v in
               np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (x, a, b))))
    inner = (x > 0.0) & (x < 1.0)
    safe_x = np.where(inner, x, 0.5)
    # The fraction converges fast below (a + 1) / (a + b + 2); above it the
    # symmetry I_x(a, b) = 1 - I_{1-x}(b, a) is used.
    direct = safe_x < (a + 1.0) / (a + b + 2.0)
    xs = np.where(direct, safe_x, 1.0 - safe_x)
    first = np.where(direct, a, b)
    second = np.where(direct, b, a)
    front = np.exp(first * np.log(xs) + second * np.log1p(-xs) - np.log(first)
                   - _log_beta(first, second))
    value = front * _beta_fraction(xs, first, second)
    value = np.where(direct, value, 1.0 - value)
    value = np.where(inner, np.clip(value, 0.0, 1.0), np.where(x >= 1.0, 1.0, 0.0))
    return value.reshape(shape)


def binomial_upper_limit(errors, n, confidence):
    """C4.5's U_CF(E, N): the error rate p at which ``errors`` or fewer errors
    in ``n`` trials have probability ``confidence`` (the upper limit of a
    one-sided binomial confidence interval, Clopper-Pearson).

    Parameters
    ----------
    errors, n : array_like of float
        Weighted error and trial counts (0 <= errors <= n); fractional counts
        use the binomial's extension through the incomplete beta function,
        P(X <= E) = 1 - I_p(E + 1, N - E).
    confidence : float in (0, 1), or an array_like of them

    Returns
    -------
    ndarray of float64
        1 where ``errors >= n``; ``1 - confidence ** (1 / n)`` where there are
        no errors.
    """
    shape = np.broadcast_shapes(np.shape(errors), np.shape(n), np.shape(confidence))
    errors, n, confidence = (np.array(v, dtype=np.float64).ravel() for v in
                             np.broadcast_arrays(errors, n, confidence))
    full = errors >= n
    limit = np.ones_like(errors)
    # P(X <= E) falls from 1 to 0 as p goes from 0 to 1 (the root is below
    # E / N when CF > 1/2). Newton's step uses its derivative, minus the
    # Beta(a, b) density; the bracket shrinks with every evaluation, and an
    # entry leaves the search once its Newton step has settled (it is taken
    # even if rounding puts it on or just past the bracket's end) or its steps
    # stop moving it. (Waiting for Newton steps of a few ulps instead, the
    # search wandered through the rounding noise of I_p, and a last step
    # rounded onto the bracket's end restarted it by bisection: on 20,000
    # node-like counts, 105 rounds and 10.5 evaluations an entry, now 18 and
    # 7.2.)
    active = np.flatnonzero(~full)
    a = errors[active] + 1.0
    b = n[active] - errors[active]
    target = confidence[active]
    log_beta = _log_beta(a, b)
    low = np.zeros_like(a)
    high = np.ones_like(a)
    p = np.full_like(a, 0.5)
    for _ in range(ROOT_STEPS):
        if active.size == 0:
            break
        excess = 1.0 - regularized_incomplete_beta(p, a, b) - target
        low = np.where(excess > 0.0, p, low)
        high = np.where(excess > 0.0, high, p)
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            density = np.exp((a - 1.0) * np.log(p) + (b - 1.0) * np.log1p(-p) - log_beta)
            newton = p + excess / density
        inside = np.isfinite(newton) & (newton > low) & (newton < high)
        settled = np.abs(newton - p) <= SETTLED * p
        step = np.where(inside | settled, newton, (low + high) / 2.0)
        moving = ~settled & (np.abs(step - p)
                             > 4.0 * np.finfo(np.float64).eps * np.maximum(p, 1e-300))
        limit[active] = step
        active, a, b, target, log_beta, low, high, p = (
            values[moving] for values in (active, a, b, target, log_beta, low, high, step))
    return limit.reshape(shape)


def pessimistic_collapse(tree, confidence):
    """Nodes C4.5's pessimistic pruning collapses (subtree replacement).

    A node seen as a leaf is expected to make ``N * U_CF(E, N)`` errors, N
    being its training weight and E the weight of its rows outside its
    majority class; a subtree, the sum over its leaves. The node is made a
    leaf when its estimate is at most its subtree's.

    Parameters
    ----------
    tree : Tree
        A classification tree with inner-node values.
    confidence : float in (0, 1)
        C4.5's confidence factor CF; smaller values prune more.

    Returns
    -------
    ndarray of bool, one per node
    """
    weight = tree.weighted_n_node_samples
    errors = weight * (1.0 - tree.node_values.max(axis=1))
    errors = np.clip(errors, 0.0, weight)
    estimate = weight * binomial_upper_limit(errors, weight, confidence)
    return collapse_bottom_up(*tree.children_lists(), estimate)
