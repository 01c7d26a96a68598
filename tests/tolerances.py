"""How closely two results must agree, stated once for the whole suite.

Two kinds of comparison, chosen on purpose:

* **Bit-identical.** The same compiled code run again on the same machine
  does the same arithmetic in the same order: any ``n_jobs``, a refit with the
  same ``random_state``, a pickled and reloaded model, a tree walked by the
  tree kernel or by the forest kernel. Those results are compared with
  ``np.testing.assert_array_equal`` and no tolerance.

* **Equal up to rounding.** Results computed by different code in a different
  order: the compiled kernels against the pure-Python oracles in
  ``fasttree.reference``, fasttree against scikit-learn, a weighted fit against
  the same fit on repeated rows, a sum against numpy's. These differ in the last
  bits, and by how much depends on the machine: numpy's sums and reductions
  use SIMD paths chosen at run time from the CPU's features, and ``np.dot``
  calls the BLAS kernel that OpenBLAS picks for the CPU (on AVX-512 machines
  its SkylakeX ``ddot`` adds in another order than its Haswell one, which once
  broke a test that asked a mean of seven trees near 5e-05 to agree to a
  relative 1e-12). They are compared with :func:`assert_rounding_close`.

Why ``ROUNDING = 1e-9``: every quantity the tests compare is a sum or mean of
at most ~10^5 double terms, whose rounding error under any order is below
n * 2.2e-16 ~ 2e-11 of the largest term; 1e-9 leaves a margin of 50. It is
still far below any difference a wrong split or a wrong weight makes in the
tests' data, so a real bug is not hidden. The tolerance is relative *and*
absolute: the absolute part is ``ROUNDING`` times the scale of the data the
value was computed from (1 for probabilities, fractions and normalised
importances; the largest absolute target for regression outputs), so values
that nearly cancel to zero still compare correctly on every machine.

CI runs the suite a second time with another BLAS kernel and numpy's SIMD
paths turned off (see ``.ci/run``), so a comparison that only holds in one
floating-point environment fails there before it fails on a user's machine.
"""

import numpy as np

ROUNDING = 1e-9


def rounding_tolerance(scale=1.0):
    """Absolute tolerance for values computed from data of magnitude ``scale``."""
    return ROUNDING * max(float(scale), 1e-300)


def data_scale(*arrays):
    """The largest absolute value in ``arrays`` (at least 1e-300)."""
    return max([float(np.max(np.abs(np.asarray(a, dtype=np.float64)), initial=0.0))
                for a in arrays] + [1e-300])


def assert_rounding_close(actual, desired, scale=1.0, err_msg=""):
    """Assert ``actual`` equals ``desired`` up to rounding.

    Parameters
    ----------
    actual, desired : array_like
    scale : float, default=1.0
        Magnitude of the data the values were computed from: 1 for
        probabilities and fractions, ``data_scale(y)`` for regression outputs.
    err_msg : str
    """
    np.testing.assert_allclose(actual, desired, rtol=ROUNDING,
                               atol=rounding_tolerance(scale), err_msg=err_msg)


def rounding_equal(actual, desired, scale=1.0):
    """True when two scalars agree up to rounding (for plain ``assert``)."""
    return abs(float(actual) - float(desired)) <= (
        ROUNDING * abs(float(desired)) + rounding_tolerance(scale))
