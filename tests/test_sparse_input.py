"""Sparse X (scipy matrices and arrays of every format) in fit and prediction.

A sparse X holds the same numbers as its dense copy, its implicit entries
being zeros, so every estimator must fit the same model on it and predict
the same for it, exactly. Ensembles hand a sparse X on, still sparse, to
members from other libraries.
"""

import numpy as np
import pytest
import scipy.sparse

from fasttree import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                      BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                      ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                      RandomForestRegressor, RuleListClassifier)
from synthetic import classification_data, regression_data

CLASSIFIERS = [DecisionTreeClassifier, RandomForestClassifier, BaggingClassifier,
               AdaBoostClassifier, RuleListClassifier]
REGRESSORS = [DecisionTreeRegressor, RandomForestRegressor, BaggingRegressor,
              AdaBoostRegressor]
FORMATS = ["csr_matrix", "csc_matrix", "coo_matrix", "csr_array", "csc_array", "lil_array",
           "dok_matrix"]


def sparse_data(estimator_class, seed=0):
    """Data with about two thirds of its cells zero, and a few stored zeros."""
    if estimator_class in CLASSIFIERS:
        X, y = classification_data(n_samples=150, n_features=6, seed=seed)
    else:
        X, y = regression_data(n_samples=150, n_features=6, seed=seed)
    X[X < 0.4] = 0.0
    return X, y


def as_sparse(X, format_name, explicit_zeros=False):
    """X in a sparse format; with ``explicit_zeros``, some zero cells stored."""
    coo = scipy.sparse.coo_matrix(X)
    if explicit_zeros:
        zero_rows, zero_columns = np.nonzero(X == 0.0)
        coo = scipy.sparse.coo_matrix(
            (np.concatenate([coo.data, np.zeros(zero_rows.shape[0] // 5)]),
             (np.concatenate([coo.row, zero_rows[::5][:zero_rows.shape[0] // 5]]),
              np.concatenate([coo.col, zero_columns[::5][:zero_rows.shape[0] // 5]]))),
            shape=X.shape)
        assert (scipy.sparse.csr_matrix(coo).data == 0.0).any()
    return getattr(scipy.sparse, format_name)(coo)


def fitted(estimator_class, X, y):
    params = {"random_state": 0}
    if estimator_class not in (DecisionTreeClassifier, DecisionTreeRegressor,
                               RuleListClassifier):
        params["n_estimators"] = 5
    return estimator_class(**params).fit(X, y)


def predictions(model, X):
    result = {"predict": model.predict(X)}
    for method in ("predict_proba", "apply", "decision_function"):
        if hasattr(model, method):
            result[method] = getattr(model, method)(X)
    if hasattr(model, "decision_path"):
        result["decision_path"] = model.decision_path(X)
        if isinstance(result["decision_path"], tuple):
            result["decision_path"] = result["decision_path"][0]
        result["decision_path"] = result["decision_path"].toarray()
    return result


@pytest.mark.parametrize("estimator_class", CLASSIFIERS + REGRESSORS)
@pytest.mark.parametrize("format_name", FORMATS)
def test_a_sparse_fit_predicts_exactly_as_the_dense_fit(estimator_class, format_name):
    X, y = sparse_data(estimator_class)
    X_new, _ = sparse_data(estimator_class, seed=1)
    dense_model = fitted(estimator_class, X, y)
    sparse_model = fitted(estimator_class, as_sparse(X, format_name, explicit_zeros=True), y)
    expected = predictions(dense_model, X_new)
    for rows in (X_new, as_sparse(X_new, format_name)):
        got = predictions(sparse_model, rows)
        assert got.keys() == expected.keys()
        for method in expected:
            np.testing.assert_array_equal(got[method], expected[method], err_msg=method)


@pytest.mark.parametrize("tree_class", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_a_tree_grown_on_sparse_X_has_the_dense_trees_nodes(tree_class):
    X, y = sparse_data(tree_class)
    dense_tree = tree_class(random_state=0).fit(X, y).tree_
    sparse_tree = tree_class(random_state=0).fit(scipy.sparse.csc_matrix(X), y).tree_
    for name in ("children_left", "children_right", "feature", "threshold", "value",
                 "impurity", "weighted_n_node_samples"):
        np.testing.assert_array_equal(getattr(sparse_tree, name), getattr(dense_tree, name))


def test_the_tree_structure_applies_and_paths_sparse_rows():
    X, y = sparse_data(DecisionTreeClassifier)
    tree = DecisionTreeClassifier(random_state=0).fit(X, y).tree_
    rows = scipy.sparse.csr_array(X.astype(np.float32))
    np.testing.assert_array_equal(tree.apply(rows), tree.apply(X.astype(np.float32)))
    path = tree.decision_path(rows)
    assert scipy.sparse.issparse(path) and path.shape == (X.shape[0], tree.node_count)
    np.testing.assert_array_equal(path.toarray(), tree.decision_path(X).toarray())


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestClassifier,
                                             BaggingClassifier, AdaBoostClassifier])
def test_nan_stored_in_sparse_X_is_refused(estimator_class):
    # Missing values are supported in dense X; a sparse X holding NaN is
    # refused, as scikit-learn refuses it.
    X, y = sparse_data(DecisionTreeClassifier)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        estimator_class().fit(scipy.sparse.csr_matrix(X), y)


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, RandomForestClassifier,
                                             BaggingClassifier])
@pytest.mark.parametrize("nan_column", [0, 2], ids=["in-a-categorical-column",
                                                  "in-a-numeric-column"])
def test_nan_stored_in_sparse_X_is_refused_with_categorical_features_too(estimator_class,
                                                                         nan_column):
    # With categorical features a sparse X is made dense for its codes,
    # where NaN was read as a missing value instead of refused.
    X, y = sparse_data(DecisionTreeClassifier)
    X[:, 0] = np.arange(X.shape[0]) % 4
    with_nan = X.copy()
    with_nan[3, nan_column] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        estimator_class(categorical_features=[0]).fit(scipy.sparse.csr_matrix(with_nan), y)
    model = estimator_class(categorical_features=[0]).fit(scipy.sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        model.predict(scipy.sparse.coo_matrix(with_nan))


def test_infinity_stored_in_sparse_X_is_refused():
    X, y = sparse_data(DecisionTreeClassifier)
    X[3, 2] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        DecisionTreeClassifier().fit(scipy.sparse.csr_matrix(X), y)
    model = DecisionTreeClassifier().fit(np.nan_to_num(X, posinf=0.0), y)
    with pytest.raises(ValueError, match="infinity"):
        model.predict(scipy.sparse.csr_matrix(X))


def test_sparse_X_with_the_wrong_number_of_features_is_refused_at_prediction():
    X, y = sparse_data(DecisionTreeClassifier)
    model = DecisionTreeClassifier().fit(scipy.sparse.csr_matrix(X), y)
    with pytest.raises(ValueError, match="features"):
        model.predict(scipy.sparse.csr_matrix(X[:, :-1]))


class FormatRecorder:
    """A member from another library: remembers the type of X it was fitted on."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def get_params(self, deep=True):
        return {"random_state": self.random_state}

    def set_params(self, **params):
        self.random_state = params.get("random_state", self.random_state)
        return self

    def fit(self, X, y, sample_weight=None):
        self.fit_format_ = getattr(X, "format", "dense")
        labels, counts = np.unique(y, return_counts=True)
        self.majority_ = labels[np.argmax(counts)]
        return self

    def predict(self, X):
        self.predict_format_ = getattr(X, "format", "dense")
        return np.full(X.shape[0], self.majority_)


@pytest.mark.parametrize("ensemble_class", [BaggingClassifier, AdaBoostClassifier])
@pytest.mark.parametrize("format_name, expected", [("csr_matrix", "csr"), ("csc_array", "csc"),
                                                   ("coo_matrix", "csr")])
def test_ensembles_hand_sparse_X_to_members_of_other_libraries(ensemble_class, format_name,
                                                                expected):
    X, y = sparse_data(DecisionTreeClassifier)
    X_sparse = as_sparse(X, format_name)
    model = ensemble_class(FormatRecorder(), n_estimators=2, random_state=0).fit(X_sparse, y)
    model.predict(X_sparse)
    for member in model.estimators_:
        assert member.fit_format_ == expected
        assert member.predict_format_ == expected


def messy_csr(dense, rng):
    """A CSR matrix of ``dense`` whose rows store their entries out of order,
    some of them as two parts that add up (which densifying sums)."""
    rows, columns = np.nonzero(dense)
    values = dense[rows, columns]
    split = rng.random(rows.size) < 0.2
    parts = values[split] // 2
    values[split] -= parts
    rows, columns = (np.concatenate([a, a[split]]) for a in (rows, columns))
    values = np.concatenate([values, parts])
    # Rows in order, entries within a row shuffled.
    order = np.lexsort((rng.random(rows.size), rows))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=dense.shape[0]))])
    matrix = scipy.sparse.csr_matrix((values[order], columns[order], indptr),
                                     shape=dense.shape)
    assert not matrix.has_canonical_format
    return matrix


@pytest.mark.parametrize("estimator_class", [DecisionTreeClassifier, DecisionTreeRegressor,
                                             RandomForestClassifier, RandomForestRegressor])
@pytest.mark.parametrize("n_features", [12, 300])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_sparse_rows_walked_as_they_go_predict_as_their_dense_copy(estimator_class, n_features,
                                                                   dtype):
    # Enough rows for several blocks on two threads and several copy chunks;
    # 300 features take the forests' interleaved copies.
    rng = np.random.default_rng(n_features)
    dense = rng.normal(size=(3000, n_features)) * (rng.random((3000, n_features)) < 0.1)
    dense = np.round(dense * 4) if dtype == np.int64 else dense
    y = dense[:, :5].sum(axis=1) > 0 if estimator_class in CLASSIFIERS else dense[:, :5].sum(1)
    params = {"random_state": 0}
    if estimator_class in (RandomForestClassifier, RandomForestRegressor):
        params.update(n_estimators=4, n_jobs=2)
    model = estimator_class(**params).fit(dense[:2000], y[:2000])
    new = dense[2000:].astype(dtype)
    for rows in (scipy.sparse.csr_matrix(new), messy_csr(new, rng),
                 scipy.sparse.csc_array(new)):
        for method in ("predict", "predict_proba", "apply"):
            if hasattr(model, method):
                np.testing.assert_array_equal(getattr(model, method)(rows),
                                              getattr(model, method)(rows.toarray()),
                                              err_msg=method)


def test_wide_sparse_rows_predict_as_their_dense_copy():
    # 2,500 columns: the kernels write each row's (or chunk's) stored values
    # into one buffer of zeros and clear them after the walk; no row may
    # see another's values.
    rng = np.random.default_rng(5)
    dense = rng.normal(size=(2200, 2500)) * (rng.random((2200, 2500)) < 0.02)
    y = dense[:, :50].sum(axis=1) > 0
    model = RandomForestClassifier(n_estimators=3, random_state=0).fit(dense[:1000], y[:1000])
    new = dense[1000:]
    np.testing.assert_array_equal(model.predict_proba(scipy.sparse.csr_matrix(new)),
                                  model.predict_proba(new))


@pytest.mark.parametrize("forest_class", [RandomForestClassifier, RandomForestRegressor,
                                          ExtraTreesClassifier, ExtraTreesRegressor])
def test_a_sparse_forest_fit_has_the_dense_fits_out_of_bag_estimates(forest_class):
    # Fit ranks a sparse X column by column and predicts its out-of-bag rows
    # from sparse rows: the numbers must be the dense fit's.
    X, y = sparse_data(RandomForestClassifier if forest_class in (
        RandomForestClassifier, ExtraTreesClassifier) else RandomForestRegressor)
    params = {"n_estimators": 8, "oob_score": True, "bootstrap": True, "random_state": 0}
    dense = forest_class(**params).fit(X, y)
    sparse = forest_class(**params).fit(as_sparse(X, "csc_matrix", explicit_zeros=True), y)
    assert sparse.oob_score_ == dense.oob_score_
    for name in ("oob_decision_function_", "oob_prediction_"):
        if hasattr(dense, name):
            np.testing.assert_array_equal(getattr(sparse, name), getattr(dense, name))
    np.testing.assert_array_equal(sparse.predict(X), dense.predict(X))


def test_a_multiway_tree_fits_sparse_X_as_dense():
    X, y = sparse_data(DecisionTreeClassifier)
    params = {"categorical_split": "multiway", "criterion": "entropy", "random_state": 0}
    dense = DecisionTreeClassifier(**params).fit(X, y)
    sparse = DecisionTreeClassifier(**params).fit(scipy.sparse.csr_matrix(X), y)
    np.testing.assert_array_equal(sparse.predict_proba(X), dense.predict_proba(X))


def test_forests_of_word_presence_walk_refilled_lanes_and_predict_as_their_trees():
    # Trees of sparse binary data are chains of absent words beside short
    # paths: their rows are walked with lanes refilled as rows finish, and
    # must reach the leaves the lockstep walk reaches.
    import scipy.sparse

    from fasttree._predict import apply_rows
    from fasttree._validation import csr_for_walk

    rng = np.random.default_rng(0)
    X = scipy.sparse.random(3000, 400, density=0.01, format="csr", random_state=rng,
                            data_rvs=np.ones)
    weights = np.zeros(400)
    weights[rng.choice(400, 20, replace=False)] = rng.normal(size=20) * 3
    score = X @ weights + 0.3 * rng.normal(size=3000)
    y = (score > np.median(score)).astype(int)
    forest = RandomForestClassifier(n_estimators=8, random_state=0).fit(X[:2000], y[:2000])
    assert any(tree.refill_walk for tree in forest._trees)
    dense_new = X[2000:].toarray().astype(np.float32)
    for tree in forest._trees:
        lockstep = np.empty(1000, dtype=np.intp)
        assert apply_rows(tree.walk_tests, dense_new, lockstep, refill=False) == 0
        for rows in (csr_for_walk(X[2000:]), dense_new, np.asfortranarray(dense_new)):
            refilled = np.empty(1000, dtype=np.intp)
            assert apply_rows(tree.walk_tests, rows, refilled, refill=True) == 0
            np.testing.assert_array_equal(refilled, lockstep)
    # The forest's own walk (all trees, part by part) gives the trees' mean.
    expected = np.mean([estimator.predict_proba(dense_new)
                        for estimator in forest.estimators_], axis=0)
    for rows in (X[2000:], dense_new, np.asfortranarray(dense_new)):
        np.testing.assert_allclose(forest.predict_proba(rows), expected, rtol=1e-12,
                                   atol=1e-12)


def corrupted(kind):
    """A 20 x 4 sparse matrix whose index arrays no longer describe it, the
    way a buggy producer or a hand edit leaves one: each would make scipy's
    compiled conversions read or write out of bounds."""
    X = scipy.sparse.random(20, 4, density=0.5, format="csr", random_state=1)
    if kind == "indptr past the end":
        X.indptr[-1] = X.indptr[-1] + 1000
    elif kind == "indptr decreasing":
        X.indptr[5] = X.indptr[10] + 3
    elif kind == "indptr not from zero":
        X.indptr[0] = 2
    elif kind == "indptr too short":
        X.indptr = X.indptr[:-3]
    elif kind == "column index too large":
        X.indices[3] = 10**6
    elif kind == "negative column index":
        X.indices[3] = -5
    elif kind == "csc row index too large":
        X = X.tocsc()
        X.indices[2] = 21
    elif kind == "coo row index too large":
        X = X.tocoo()
        X.row[2] = 10**6
    elif kind == "coo negative column":
        X = X.tocoo()
        X.col[0] = -1
    elif kind == "bsr block index too large":
        X = X.tobsr(blocksize=(2, 2))
        X.indices[0] = 9
    return X


CORRUPTIONS = ["indptr past the end", "indptr decreasing", "indptr not from zero",
               "indptr too short", "column index too large", "negative column index",
               "csc row index too large", "coo row index too large", "coo negative column",
               "bsr block index too large"]


@pytest.mark.parametrize("kind", CORRUPTIONS)
@pytest.mark.parametrize("estimator_class", CLASSIFIERS + [ExtraTreesClassifier])
def test_a_corrupt_sparse_matrix_is_refused_by_fit_and_predict(estimator_class, kind):
    X_good = scipy.sparse.random(20, 4, density=0.5, format="csr", random_state=1)
    y = np.arange(20) % 2
    model = estimator_class().fit(X_good, y)
    for call in (lambda: estimator_class().fit(corrupted(kind), y),
                 lambda: model.predict(corrupted(kind))):
        with pytest.raises(ValueError, match="is not a valid (CSR|CSC|COO|BSR) matrix"):
            call()


@pytest.mark.parametrize("kind", CORRUPTIONS)
def test_a_corrupt_sparse_matrix_is_refused_by_the_tree_structure(kind):
    X_good = scipy.sparse.random(20, 4, density=0.5, format="csr", random_state=1)
    tree = DecisionTreeRegressor().fit(X_good, np.arange(20.0)).tree_
    for method in (tree.apply, tree.predict, tree.decision_path):
        with pytest.raises(ValueError, match="is not a valid (CSR|CSC|COO|BSR) matrix"):
            method(corrupted(kind))


def test_a_corrupt_sparse_matrix_is_refused_before_members_of_other_libraries_see_it():
    from sklearn.linear_model import LogisticRegression

    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="is not a valid CSR matrix"):
        BaggingClassifier(LogisticRegression(), n_estimators=2).fit(
            corrupted("indptr past the end"), y)


def duplicated_entries(n_samples=40, seed=0):
    """One feature whose every value is stored as two duplicate entries,
    chosen so that summing them in float64 and then rounding to float32
    differs, for many rows, from rounding each to float32 first."""
    rng = np.random.default_rng(seed)
    first, second = rng.uniform(0, 1, n_samples), rng.uniform(0, 1, n_samples)
    assert np.count_nonzero(np.float32(first) + np.float32(second)
                            != np.float32(first + second)) >= 5
    data = np.empty(2 * n_samples)
    data[0::2], data[1::2] = first, second
    X = scipy.sparse.csr_matrix((data, np.zeros(2 * n_samples, dtype=np.int32),
                                 np.arange(0, 2 * n_samples + 1, 2)), shape=(n_samples, 1))
    assert not X.has_canonical_format
    return X


@pytest.mark.parametrize("estimator_class", CLASSIFIERS + [ExtraTreesClassifier])
def test_duplicate_entries_are_summed_as_the_dense_copy_sums_them(estimator_class):
    # fit used to round each duplicate to float32 before adding them, and
    # prediction to add them first: a model could mispredict its own
    # training rows and differ from the model of X.toarray().
    X = duplicated_entries()
    y = np.arange(X.shape[0]) % 2
    kwargs = {"random_state": 0} if "random_state" in estimator_class().get_params() else {}
    sparse_model = estimator_class(**kwargs).fit(X, y)
    dense_model = estimator_class(**kwargs).fit(X.toarray(), y)
    np.testing.assert_array_equal(sparse_model.predict(X), dense_model.predict(X.toarray()))
    if hasattr(sparse_model, "predict_proba"):
        np.testing.assert_array_equal(sparse_model.predict_proba(X),
                                      dense_model.predict_proba(X.toarray()))
    if hasattr(sparse_model, "tree_"):
        np.testing.assert_array_equal(sparse_model.tree_.threshold,
                                      dense_model.tree_.threshold)
        np.testing.assert_array_equal(sparse_model.predict(X), y)


def test_summing_duplicates_leaves_the_users_matrix_as_it_was():
    X = duplicated_entries()
    data, indices, indptr = X.data.copy(), X.indices.copy(), X.indptr.copy()
    DecisionTreeClassifier().fit(X, np.arange(X.shape[0]) % 2).predict(X)
    np.testing.assert_array_equal(X.data, data)
    np.testing.assert_array_equal(X.indices, indices)
    np.testing.assert_array_equal(X.indptr, indptr)


@pytest.mark.parametrize("estimator_class", CLASSIFIERS + REGRESSORS)
def test_a_sparse_X_of_no_rows_is_refused_at_prediction_as_its_dense_copy_is(estimator_class):
    X, y = sparse_data(estimator_class)
    model = estimator_class().fit(X, y)
    empty = scipy.sparse.csr_matrix((0, X.shape[1]))
    for X_empty in (empty, empty.toarray()):
        with pytest.raises(ValueError, match=r"0 sample\(s\)"):
            model.predict(X_empty)
