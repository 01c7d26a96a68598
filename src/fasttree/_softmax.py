"""Weighted softmax (multinomial logistic) regression in numpy: the gates of
a mixture of experts and its default logistic expert.

Coefficients are a matrix ``V`` of shape (q + 1, K): the intercept in the
first row, and the last column fixed at 0 (the reference class), so that
the penalised problem has one optimum. Rows are ``[1, z]``.
"""

import numpy as np

# Added to the bound matrix's diagonal so that it stays positive definite
# when a column of the inputs is constant and alpha is 0.
JITTER = 1e-10


def with_intercept(Z):
    """``[1, Z]``: Z (n, q) with a first column of ones, float64."""
    return np.hstack([np.ones((Z.shape[0], 1)), np.asarray(Z, dtype=np.float64)])


# Rows per block of ``softmax_pass``: a block's (rows, K) temporaries stay in
# cache and reuse the same memory, where whole-column temporaries would each
# be fresh pages (zeroed by the kernel: about half of a gate update's time on
# 100,000 rows), and the block's rows of Zi are read from memory once for both
# of its products. Small enough that OpenBLAS multiplies a block on the
# calling thread (see weighted_sum): EM's mixture of 4 trees on 100,000 x 50
# fitted in 4.1 s with blocks of 8,192 rows, 3.3 s with 2,048, 3.5 s with 1,024.
BLOCK_ROWS = 2048


def log_softmax(scores):
    """Row-wise ``log(softmax(scores))``, stable for large scores (n, K;
    returned as the transpose of a C-contiguous (K, n) array)."""
    # The classes in rows: reductions over a few classes are element-wise
    # operations on whole rows (the same sums, in the same order).
    by_class = np.asarray(scores, dtype=np.float64).T.copy()
    by_class -= by_class.max(axis=0)
    by_class -= np.log(np.exp(by_class).sum(axis=0))
    return by_class.T


def softmax(scores):
    """Row-wise softmax of ``scores`` (n, K)."""
    return np.exp(log_softmax(scores))


def softmax_pass(Zi, V, class_targets, weights, with_gradient=True):
    """One pass over the rows, in blocks of BLOCK_ROWS: the soft-target
    log-likelihood ``sum_n w_n sum_k T_nk log softmax(Zi V)_nk`` and, with
    ``with_gradient``, ``Zi' (w (T - softmax(Zi V)))`` for the K - 1 free
    columns, shape (q + 1, K - 1) (else None). ``class_targets`` is T'
    (K, n), C-contiguous (``by_class``), made once for the passes of an update."""
    n_classes = V.shape[1]
    log_likelihood = 0.0
    total = np.zeros((n_classes - 1, Zi.shape[1])) if with_gradient else None
    for start in range(0, Zi.shape[0], BLOCK_ROWS):
        rows = Zi[start:start + BLOCK_ROWS]
        block_targets = class_targets[:, start:start + BLOCK_ROWS]
        block_weights = weights[start:start + BLOCK_ROWS]
        # Classes in rows, (K, block): reductions over the classes are then
        # element-wise operations on whole rows, not loops over K values per
        # row. (rows @ V then a transposed copy is quicker than V' @ rows'.)
        log_p = np.ascontiguousarray((rows @ V).T)
        log_p -= log_p.max(axis=0)
        p = np.exp(log_p)
        row_totals = p.sum(axis=0)
        log_p -= np.log(row_totals)
        # Targets of 0 contribute 0 even where log p underflows to -inf.
        log_likelihood += float(np.where(block_targets > 0, block_targets * log_p, 0.0).sum(
            axis=0) @ block_weights)
        if with_gradient:
            p /= row_totals
            residual = np.subtract(block_targets[:-1], p[:-1], out=p[:-1])
            residual *= block_weights
            total += residual @ rows
    return log_likelihood, None if total is None else total.T


def weighted_sum(weights, values):
    """``sum(weights * values)`` as a float, by numpy's pairwise sum.

    Not ``weights @ values``: OpenBLAS spreads dot products of more than
    10,000 values over its threads, which then spin for a while on the cores
    EM's expert threads run on (a third of a mixture's fit time, by perf).
    """
    return float(np.multiply(weights, values).sum())


def blocked_product(Zi, V):
    """``Zi @ V``, a block of BLOCK_ROWS rows at a time (see BLOCK_ROWS)."""
    product = np.empty((Zi.shape[0], V.shape[1]))
    for start in range(0, Zi.shape[0], BLOCK_ROWS):
        np.matmul(Zi[start:start + BLOCK_ROWS], V, out=product[start:start + BLOCK_ROWS])
    return product


def by_class(targets):
    """Targets (n, K) as ``softmax_pass`` reads them: (K, n), C-contiguous."""
    return np.ascontiguousarray(np.asarray(targets, dtype=np.float64).T)


def weighted_log_likelihood(Zi, V, targets, weights):
    """``sum_n w_n sum_k T_nk log softmax(Zi V)_nk``: the soft-target
    log-likelihood a gate's M-step raises."""
    return softmax_pass(Zi, V, by_class(targets), weights, with_gradient=False)[0]


def penalty_mask(n_columns):
    """1 for each coefficient row the ridge penalty takes, 0 for the
    intercept's (the first)."""
    mask = np.ones(n_columns)
    mask[0] = 0.0
    return mask


def bound_matrix(Zi, weights, n_classes, alpha):
    """Böhning's bound on the curvature of the penalised per-weight
    log-likelihood, for the K - 1 free columns (class-major order).

    ``0.5 (I - 11'/K) ⊗ A`` with ``A = Zi' W Zi / sum(W)`` bounds the negative
    Hessian of the softmax log-likelihood everywhere, so a step that solves
    against it never lowers the objective (a minorise-maximise step); it
    depends on the weights only, so one matrix serves every step of an update.
    """
    n_free = n_classes - 1
    covariance = (Zi * weights[:, None]).T @ Zi / weights.sum()
    spread = 0.5 * (np.eye(n_free) - np.ones((n_free, n_free)) / n_classes)
    matrix = (np.kron(spread, covariance)
              + alpha * np.kron(np.eye(n_free), np.diag(penalty_mask(Zi.shape[1]))))
    matrix[np.diag_indices_from(matrix)] += JITTER
    return matrix


def bound_solver(Zi, weights, n_classes, alpha):
    """The inverse of ``bound_matrix``: what ``bound_update`` multiplies the
    gradient by. It depends on the weights only, so a gate whose row weights
    stay the same over EM's iterations (the top gate's: the sample weights)
    can keep one for all of them."""
    return np.linalg.inv(bound_matrix(Zi, weights, n_classes, alpha))


def gradient(Zi, V, targets, weights, alpha):
    """Gradient of the penalised per-weight log-likelihood with respect to
    the K - 1 free columns of V, shape (q + 1, K - 1)."""
    return _penalised(softmax_pass(Zi, V, by_class(targets), weights)[1], V, weights, alpha)


def _penalised(total, V, weights, alpha):
    """The penalised per-weight gradient from ``softmax_pass``'s sum."""
    grad = total / weights.sum()
    grad[1:] -= alpha * V[1:, :-1]
    return grad


def bound_update(Zi, V, targets, weights, alpha, n_steps, solver=None):
    """``n_steps`` bound steps from V (not changed): (new V, the unpenalised
    ``weighted_log_likelihood`` of the targets before them, and after them).

    Each step raises (never lowers) the penalised per-weight log-likelihood
    ``sum w T log softmax(Zi V) / sum w - alpha/2 |V[1:]|^2``. ``solver`` is
    ``bound_solver(Zi, weights, V.shape[1], alpha)`` if already made (None:
    made here). The passes that make each step's gradient give the
    likelihood before at no cost.
    """
    n_classes = V.shape[1]
    if n_classes == 1 or not weights.sum() > 0 or n_steps == 0:
        before = weighted_log_likelihood(Zi, V, targets, weights)
        return V.copy(), before, before
    if solver is None:
        solver = bound_solver(Zi, weights, n_classes, alpha)
    V = V.copy()
    before = None
    class_targets = by_class(targets)
    for _ in range(n_steps):
        log_likelihood, total = softmax_pass(Zi, V, class_targets, weights)
        before = log_likelihood if before is None else before
        grad = _penalised(total, V, weights, alpha)
        # Class-major: column k's q + 1 values, then column k + 1's.
        # A product summed by numpy, not a LAPACK solve or BLAS product per
        # step: OpenBLAS runs those on threads that then spin on the cores
        # the experts' threads need (see weighted_sum).
        step = (solver * grad.T.ravel()).sum(axis=1)
        V[:, :-1] += step.reshape(n_classes - 1, -1).T
    return V, before, softmax_pass(Zi, V, class_targets, weights, with_gradient=False)[0]


def newton_fit(Zi, targets, weights, alpha, max_iter=100, tol=1e-10):
    """The penalised maximum-likelihood coefficients by Newton's method with
    step halving (the objective is strictly concave for alpha > 0); returns
    (V, iterations used). Converged when a full step changes no coefficient
    by more than ``tol`` (relative to 1 + its size)."""
    n_classes = targets.shape[1]
    V = np.zeros((Zi.shape[1], n_classes))
    if n_classes == 1:
        return V, 0
    total = weights.sum()
    n_free = n_classes - 1
    penalised = penalty_mask(Zi.shape[1])

    def objective(V):
        return (weighted_log_likelihood(Zi, V, targets, weights) / total
                - 0.5 * alpha * float(np.sum(V[1:] ** 2)))

    current = objective(V)
    for iteration in range(1, max_iter + 1):
        P = softmax(Zi @ V)[:, :-1]
        grad = gradient(Zi, V, targets, weights, alpha)
        hessian = np.empty((n_free, Zi.shape[1], n_free, Zi.shape[1]))
        for k in range(n_free):
            for m in range(k, n_free):
                curvature = P[:, k] * ((k == m) - P[:, m]) * weights / total
                block = (Zi * curvature[:, None]).T @ Zi
                hessian[k, :, m, :] = block
                hessian[m, :, k, :] = block
        hessian = hessian.reshape(n_free * Zi.shape[1], -1)
        hessian += np.kron(np.eye(n_free), np.diag(alpha * penalised + JITTER))
        step = np.linalg.solve(hessian, grad.T.ravel()).reshape(n_free, -1).T
        scale = 1.0
        while True:
            trial = V.copy()
            trial[:, :-1] += scale * step
            value = objective(trial)
            if value >= current or scale < 1e-10:
                break
            scale *= 0.5
        if value < current:
            break
        V, current = trial, value
        if np.max(np.abs(scale * step) / (1.0 + np.abs(V[:, :-1]))) < tol:
            return V, iteration
    return V, max_iter
