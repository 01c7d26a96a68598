"""What every ensemble shares: the checks of its parameters, each member's
seeds and row draws, fitting members on threads, warm-start checks, and the
fitted members as a sequence (``len``, indexing, iteration)."""

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np

from ._base import BaseEstimator
from ._frames import is_frame
from ._threads import run_together
from ._validation import (canonical_sparse, check_array_2d, check_int_or_fraction,
                          invalid_parameter, is_int_at_least, is_sparse, legacy_random_state,
                          warn_user)

# Members' random_state values are below this, as scikit-learn's are.
MAX_RANDOM_STATE = 2**31 - 1
# The most rows a member draws when it draws more than X has (with
# replacement): each draw is held as an 8-byte index, 128 MiB at this count.
MAX_DRAWS = 2**24
# The most members an ensemble takes: each holds kilobytes at the least, so
# more could not be kept in any memory (2**31 stumps take terabytes).
MAX_ESTIMATORS = 2**31 - 1


def member_matrix(X, *, reads_float32, estimator=None, check_finite=True, allow_nd=False):
    """X as an ensemble hands it to its members.

    fasttree members work in float32, so X is converted once for all of them
    (NaN kept; infinity refused when ``check_finite``). Members from other
    libraries get float64, and a sparse X stays sparse (CSR, or CSC as given)
    for them; their own checks decide on NaN and infinity (a pipeline member
    may replace them). With ``allow_nd`` they also get a dense X of more than
    two dimensions (samples first), as scikit-learn's AdaBoost passes it on.
    """
    if reads_float32:
        return check_array_2d(X, estimator=estimator, check_finite=check_finite,
                              allow_nan=True)
    if is_sparse(X):
        if len(X.shape) != 2 or 0 in X.shape:
            check_array_2d(X, estimator=estimator, check_finite=False)  # raises
        return canonical_sparse(X, estimator=estimator).astype(np.float64)
    if is_frame(X):
        X = X.to_numpy()
    if allow_nd and np.ndim(X) > 2:
        X = np.asarray(X)
        if X.dtype.kind not in "biuf" or 0 in X.shape:
            check_array_2d(X.reshape(X.shape[0], -1), estimator=estimator,
                           check_finite=False)  # raises, naming the fault
        return np.ascontiguousarray(X, dtype=np.float64)
    check_array_2d(X, estimator=estimator, check_finite=False, keep_float=True)
    return np.ascontiguousarray(np.asarray(X, dtype=np.float64))


def estimator_kind(estimator):
    """'classifier', 'regressor' or None (unknown) for any estimator.

    scikit-learn >= 1.6 states the kind only in its tags; asking for them
    needs scikit-learn, which is then imported already since the estimator
    comes from it.
    """
    kind = getattr(estimator, "_estimator_type", None)
    if kind is None and hasattr(estimator, "__sklearn_tags__"):
        try:
            kind = estimator.__sklearn_tags__().estimator_type
        except (AttributeError, ImportError, TypeError):
            kind = None
    return kind


def check_template(estimator, ensemble):
    """``estimator``, the one ``ensemble`` fits copies of, checked: an
    instance (not a class) with fit, predict and get_params, and of the
    ensemble's kind (classifier or regressor) where it states its own."""
    if isinstance(estimator, type):
        raise ValueError(f"estimator must be an estimator instance, not the class "
                         f"{estimator.__name__}; write {estimator.__name__}()")
    missing = [name for name in ("fit", "predict", "get_params")
               if not hasattr(estimator, name)]
    if missing:
        shown = repr(estimator)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        raise ValueError(f"estimator must be an estimator instance with fit, predict and "
                         f"get_params (or None for {type(ensemble).__name__}'s default); "
                         f"got {shown} of type {type(estimator).__name__}, which lacks "
                         f"{', '.join(missing)}")
    kind = estimator_kind(estimator)
    if kind is not None and kind != ensemble._estimator_type:
        raise ValueError(f"{type(ensemble).__name__} needs a {ensemble._estimator_type} as "
                         f"its estimator, but {type(estimator).__name__} is a {kind}")
    return estimator


def check_n_estimators(n_estimators):
    """Raise unless ``n_estimators`` is an int in [1, MAX_ESTIMATORS]."""
    if not is_int_at_least(n_estimators, 1) or n_estimators > MAX_ESTIMATORS:
        raise invalid_parameter("n_estimators", f"an int in the range [1, {MAX_ESTIMATORS}]",
                                n_estimators)


def check_flag(value, name):
    """Raise unless ``value`` is True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise invalid_parameter(name, "an instance of 'bool'", value)


def check_verbose(verbose):
    """Raise unless ``verbose`` is an int >= 0."""
    if not is_int_at_least(verbose, 0):
        raise invalid_parameter("verbose", "an int in the range [0, inf)", verbose)


def resolve_n_draws(max_samples, n_samples, replace, weight_total=None):
    """Rows drawn per member, by scikit-learn's rule: n_samples for None, a
    count as given, or a fraction of n_samples, or of the total sample weight
    when the draws follow the weights (``weight_total``), rounded down (at
    least 1), with scikit-learn's warning when that leaves few draws.

    Drawn with replacement (a bootstrap), a member may draw more rows than
    there are, as scikit-learn allows, up to ``MAX_DRAWS`` (more is refused);
    without, at most all of them.
    """
    if max_samples is None:
        return n_samples
    value = check_int_or_fraction(max_samples, "max_samples", minimum_int=1,
                                  fraction_max=np.inf if replace else 1.0)
    if isinstance(value, float):
        total = n_samples if weight_total is None else weight_total
        count = value * total
        count = max(1, int(count)) if count < np.inf else count
        if count < max(10, n_samples ** (1 / 3)):
            what = (f"the number of samples is {total}" if weight_total is None
                    else f"the total sum of sample weights is {total}")
            warn_user(f"Using the fractional value max_samples={value} when {what} "
                          f"results in a low number ({count}) of bootstrap samples. We "
                          "recommend passing `max_samples` as an integer instead.",
                          UserWarning)
    else:
        count = value
    if count > n_samples and not replace:
        raise ValueError(f"max_samples={count} must be <= n_samples={n_samples} to be able to "
                         "sample without replacement.")
    if count > max(n_samples, MAX_DRAWS):
        if isinstance(value, float):
            of = "X's rows" if weight_total is None else "the total sample weight"
            asked = f"max_samples={value!r} of {of} asks every member to draw {count:g} rows"
        else:
            asked = f"max_samples={count:,} asks every member to draw that many rows"
        raise ValueError(f"{asked}; a member draws at most as many rows as X has "
                         f"({n_samples:,}) or {MAX_DRAWS:,}, whichever is more (each draw is "
                         "held in memory while the member is fitted): pass a smaller "
                         "max_samples")
    return count


def member_seeds(base_seed, index):
    """Member ``index``'s row-draw seed, and its ``random_state`` for its other
    draws (an int below 2**31, as scikit-learn gives its members).

    They depend only on the ensemble's seed and the member's position, so the
    ensemble is the same whatever the number of threads, and a warm start
    fits the same members as one long fit.
    """
    state = np.random.SeedSequence([base_seed, index]).generate_state(2, np.uint64)
    return int(state[0]), int(state[1] % MAX_RANDOM_STATE)


def draw_counts(n_samples, n_draws, seed, replace, probabilities=None):
    """How often each row is drawn: a bootstrap (with replacement) or a
    subsample, each row with the same chance or with ``probabilities``."""
    rng = np.random.default_rng(seed)
    if probabilities is not None:
        drawn = rng.choice(n_samples, n_draws, replace=replace, p=probabilities)
        return np.bincount(drawn, minlength=n_samples)
    if replace:
        return np.bincount(rng.integers(0, n_samples, n_draws), minlength=n_samples)
    counts = np.zeros(n_samples, dtype=np.int64)
    counts[rng.choice(n_samples, n_draws, replace=False)] = 1
    return counts


def member_counts(base_seed, index, n_samples, n_draws, replace, probabilities=None):
    """How often member ``index`` draws each row: drawn from its own seed, so
    the same counts come back whenever they are asked for again."""
    return draw_counts(n_samples, n_draws, member_seeds(base_seed, index)[0], replace,
                       probabilities)


def tree_random_states(random_state, n_fitted, n_new):
    """The ``random_state`` of each of ``n_new`` trees after ``n_fitted``, drawn
    as scikit-learn's forests draw them: one ``randint(MAX_RANDOM_STATE)`` per tree
    from the forest's ``random_state`` (a warm start skips the fitted trees'),
    so that the same ``random_state`` gives the trees scikit-learn's seeds."""
    random_state = legacy_random_state(random_state)
    if n_fitted:
        random_state.randint(MAX_RANDOM_STATE, size=n_fitted)
    return [int(random_state.randint(MAX_RANDOM_STATE)) for _ in range(n_new)]


def bootstrap_counts(seed, n_samples, n_draws, draw_weight=None):
    """How often a tree of ``random_state`` ``seed`` draws each row: scikit-learn's
    bootstrap (``n_draws`` rows, uniformly, or in proportion to ``draw_weight``),
    the same rows for the same seed."""
    random_state = np.random.RandomState(seed)
    if draw_weight is None:
        drawn = random_state.randint(0, n_samples, n_draws)
    else:
        drawn = random_state.choice(n_samples, n_draws, replace=True,
                                    p=draw_weight / np.sum(draw_weight))
    return np.bincount(drawn, minlength=n_samples)


def name_members(members, feature_names, member_features=None):
    """Give fasttree members the names of the features they were fitted on
    (``feature_names``, or per member its ``member_features`` of them), so
    that they print like a tree fitted alone. Other estimators are left
    as they are: scikit-learn's would then warn on the unnamed arrays the
    ensemble passes them."""
    if feature_names is None:
        return
    for index, member in enumerate(members):
        if isinstance(member, BaseEstimator):
            member.feature_names_in_ = (feature_names if member_features is None
                                        else feature_names[member_features[index]])


def map_members(function, indices, n_threads, progress=None):
    """``[function(index) for index in indices]``, on ``n_threads`` threads.

    The results come back in index order whatever the threads. With
    ``progress`` (a ``Progress``), each member done is counted and reported.
    """
    indices = list(indices)
    lock = threading.Lock()

    def run(index):
        result = function(index)
        if progress is not None:
            with lock:
                progress.step()
        return result

    backend = user_joblib_backend()
    if backend is not None:
        # The user chose where parallel work runs (a cluster's backend, say):
        # the members go there, threads preferred, as scikit-learn sends them.
        import joblib

        # (Progress is joblib's to report there: its workers may be processes.)
        return joblib.Parallel(n_jobs=backend[1] if backend[1] is not None else n_threads,
                               prefer="threads")(joblib.delayed(function)(index)
                                                 for index in indices)
    if n_threads == 1 or len(indices) <= 1:
        return [run(index) for index in indices]
    with ThreadPoolExecutor(max_workers=min(n_threads, len(indices))) as pool:
        return run_together(pool, [partial(run, index) for index in indices])[1]


def user_joblib_backend():
    """``(backend, n_jobs)`` of a joblib backend the user has set (with
    ``joblib.parallel_backend`` or ``parallel_config``), or None: without
    one, or without joblib imported, fasttree runs its own threads."""
    parallel = sys.modules.get("joblib.parallel")
    if parallel is None:
        return None
    try:
        backend, n_jobs = parallel.get_active_backend()
    except Exception:  # an incompatible joblib: keep to fasttree's threads
        return None
    default = getattr(parallel, "DEFAULT_BACKEND", "loky")
    if n_jobs is None and type(backend) is parallel.BACKENDS.get(default):
        return None
    return backend, n_jobs


def describe_y(classes=None, n_outputs=1):
    """A y as warm-start errors name it: its classes (an array, or a list of
    one per output), or without classes (regression) its number of outputs."""
    def listed(labels):
        shown = ", ".join(repr(label) for label in labels[:6].tolist())
        return f"[{shown}{', ...' if len(labels) > 6 else ''}]"

    if classes is None:
        return f"{n_outputs} output{'s' if n_outputs != 1 else ''}"
    if isinstance(classes, list):
        return f"{len(classes)} outputs, of classes " + " and ".join(
            listed(output) for output in classes)
    return f"1 output, of classes {listed(classes)}"


class BaseEnsemble(BaseEstimator):
    """The fitted members as a sequence, and the checks of a warm start."""

    _fitted_attribute = "estimators_"

    def _template(self):
        """The estimator the members are copies of; None for forests, whose
        members are always fasttree trees."""
        return None

    def _allows_nan(self):
        # Members from other libraries decide by their own tag.
        template = self._template()
        if template is None or isinstance(template, BaseEstimator):
            return True
        from sklearn.utils import get_tags  # only scikit-learn asks for tags

        try:
            return bool(get_tags(template).input_tags.allow_nan)
        except (AttributeError, TypeError, ValueError):
            return False

    def __bool__(self):
        # Not len() != 0: an unfitted ensemble is still a true value.
        return True

    def __len__(self):
        """The number of fitted members."""
        self._check_fitted()
        return len(self.estimators_)

    def __getitem__(self, index):
        """The fitted member (or, for a slice, the list of members) at ``index``."""
        self._check_fitted()
        return self.estimators_[index]

    def __iter__(self):
        """The fitted members, in order."""
        self._check_fitted()
        return iter(self.estimators_)

    def _checked_predict_input(self, X, convert):
        X = super()._checked_predict_input(X, convert)
        self._check_members()
        return X

    def _check_members(self):
        """Raise unless every member predicts as a member of this ensemble
        (``estimators_`` can be edited after fit): of its kind, with
        ``predict``. Members of the class the ensemble fits pass as they are."""
        fitted_class = type(self._template())
        for index, member in enumerate(self.estimators_):
            if type(member) is fitted_class:
                continue
            kind = estimator_kind(member)
            if not hasattr(member, "predict") or kind not in (None, self._estimator_type):
                raise self._edited_members_error(
                    f"estimators_[{index}] is a {type(member).__name__}"
                    f"{'' if kind is None else ' (a ' + kind + ')'}, not a fitted "
                    f"{self._estimator_type}")

    def _edited_members_error(self, what):
        return ValueError(f"{type(self).__name__}.estimators_ was changed after fit: {what}. "
                          "Refit the ensemble rather than edit its members")

    def _warm_start_from(self, n_features, encoding, n_fitted):
        """Whether this fit adds to the members already fitted (``warm_start``),
        after checking that it can: the same features and categories, and no
        fewer members asked for than ``n_fitted`` already there."""
        if not (self.warm_start and hasattr(self, "estimators_")):
            return False
        if n_features != self.n_features_in_:
            raise ValueError(f"warm_start: X has {n_features} features, but the ensemble "
                             f"was fitted with {self.n_features_in_}")
        if not self._has_encoding(encoding):
            raise ValueError("warm_start: X's categorical features or their categories "
                             "differ from those the ensemble was fitted with")
        if self.n_estimators < n_fitted:
            raise ValueError(f"n_estimators={self.n_estimators} is below the {n_fitted} "
                             "estimators already fitted with warm_start=True")
        if self.n_estimators == n_fitted:
            # scikit-learn's words, which scripts match on.
            warn_user("Warm-start fitting without increasing n_estimators does not fit "
                          "new trees.", UserWarning)
        return True

    def _check_warm_targets(self, same, fitted_y, given_y):
        """Raise unless ``same``: a warm start adds members that learn the y
        the fitted ones learnt (``fitted_y`` and ``given_y`` describe both, see
        :func:`describe_y`)."""
        if not same:
            raise ValueError(f"warm_start=True adds members to the {type(self).__name__} "
                             f"fitted on a y of {fitted_y}, but this y has {given_y}: fit on "
                             "a y like the first, or set warm_start=False to fit anew")
