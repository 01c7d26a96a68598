"""Fit and predict times of the scikit-learn capabilities fasttree added for
drop-in use (issue 11), side by side with scikit-learn in one process.

Usage (from the repository root, with fasttree, scikit-learn and scipy installed)::

    python bench/compare_capabilities.py                 # every case
    python bench/compare_capabilities.py --only sparse --repeats 7
    python bench/compare_capabilities.py --rows 5000     # a tenth of the rows below

Cases:

- ``sparse``: X as a scipy CSR matrix (what text and one-hot pipelines give),
  fitted as given: 20,000 x 300 at 5% density (values from a normal
  distribution) and 20,000 x 2,000 binary features at 1% density (word
  presence). Prediction on 20,000 new CSR rows. One fully grown tree and a
  forest of 50 trees (sqrt features).
- ``poisson``: counts drawn from a log-linear rate of 20 features, 50,000
  rows (a third of them zero), float64 C; a tree of depth 12 and a forest of
  50 trees (all features, depth 12) with ``criterion='poisson'``.
- ``absolute``: ``criterion='absolute_error'`` on heavy-tailed targets (a
  linear signal of 20 normal features plus Student-t noise with 2 degrees
  of freedom), 50,000 rows, float64 C; a tree of depth 12 and a forest of
  20 trees (all features, depth 12).
- ``multioutput``: y of three columns from 20 normal features, 50,000 rows:
  three classification outputs (2, 3 and 5 classes) and three regression
  outputs, float64 C; a fully grown tree and a forest of 50 trees (sqrt
  features for classification, all for regression; depth 12 for regression).
- ``extra``: extremely randomized trees on ``make_classification`` (50,000
  x 40) and on the same features quantised to 16 levels (tied values), a
  single ``ExtraTreeClassifier`` and ``ExtraTreesClassifier`` of 50 trees;
  on ``make_regression`` (50,000 x 40, noise 5), a fully grown
  ``ExtraTreeRegressor`` and ``ExtraTreesRegressor`` of 20 trees.

Forests use ``n_jobs=2``. The libraries take turns; median of ``--repeats``
runs. Ratios are fasttree / scikit-learn; the score on new rows (accuracy, or
R^2 for regression, the mean Poisson deviance, lower is better) is printed beside them, since a
fast fit of a different model would prove nothing.
"""

import argparse

import numpy as np

import fasttree
from timing import median_times


def sparse_data(n_samples, n_features, density, binary, seed):
    """A CSR X and a label that depends on a handful of its columns."""
    import scipy.sparse

    rng = np.random.default_rng(seed)
    X = scipy.sparse.random(n_samples, n_features, density=density, format="csr",
                            random_state=rng,
                            data_rvs=(lambda k: np.ones(k)) if binary else rng.standard_normal)
    weights = np.zeros(n_features)
    weights[rng.choice(n_features, 20, replace=False)] = rng.normal(size=20) * 3
    score = X @ weights + 0.3 * rng.normal(size=n_samples)
    return X, (score > np.median(score)).astype(int)


def halves(name, X, y):
    """``name``, the first half of the rows to fit and the second half as new rows."""
    middle = X.shape[0] // 2
    return name, X[:middle], y[:middle], X[middle:], y[middle:]


def sparse_cases(rows):
    rows = max(rows * 2 // 5, 100)
    for label, n_features, density, binary in [("5% normal values", 300, 0.05, False),
                                               ("1% word presence", 2000, 0.01, True)]:
        X, y = sparse_data(2 * rows, n_features, density, binary, seed=0)
        yield halves(f"sparse CSR {rows} x {n_features}, {label}", X, y)


def poisson_cases(rows):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2 * rows, 20))
    rate = np.exp(0.3 * X[:, :6] @ rng.normal(size=6) - 0.3)
    y = rng.poisson(rate).astype(np.float64)
    yield halves(f"poisson counts {rows} x 20", X, y)


def absolute_cases(rows):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2 * rows, 20))
    y = X[:, :5] @ rng.normal(size=5) + rng.standard_t(2, size=2 * rows)
    yield halves(f"absolute_error, t(2) noise {rows} x 20", X, y)


def absolute_pairs():
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.tree import DecisionTreeRegressor

    params = {"criterion": "absolute_error", "max_depth": 12, "random_state": 0}
    forest = {**params, "n_estimators": 20, "n_jobs": 2}
    return [("tree", fasttree.DecisionTreeRegressor(**params), DecisionTreeRegressor(**params)),
            ("forest", fasttree.RandomForestRegressor(**forest),
             RandomForestRegressor(**forest))]


def multioutput_cases(rows):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2 * rows, 20))
    scores = X[:, :9] @ rng.normal(size=(9, 3)) + 0.5 * rng.normal(size=(2 * rows, 3))
    labels = np.column_stack([np.digitize(scores[:, k], np.quantile(scores[:, k], cuts))
                              for k, cuts in enumerate([[0.5], [0.3, 0.7],
                                                        [0.2, 0.4, 0.6, 0.8]])])
    yield halves(f"3 classification outputs {rows} x 20", X, labels)
    yield halves(f"3 regression outputs {rows} x 20", X, scores)


def multioutput_pairs(y):
    from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    if y.dtype.kind == "f":
        params = {"max_depth": 12, "random_state": 0}
        forest = {**params, "n_estimators": 50, "n_jobs": 2}
        return [("tree", fasttree.DecisionTreeRegressor(**params),
                 DecisionTreeRegressor(**params)),
                ("forest", fasttree.RandomForestRegressor(**forest),
                 RandomForestRegressor(**forest))]
    forest = {"n_estimators": 50, "n_jobs": 2, "random_state": 0}
    return [("tree", fasttree.DecisionTreeClassifier(random_state=0),
             DecisionTreeClassifier(random_state=0)),
            ("forest", fasttree.RandomForestClassifier(**forest),
             RandomForestClassifier(**forest))]


def extra_cases(rows):
    from sklearn.datasets import make_classification, make_regression

    X, y = make_classification(n_samples=2 * rows, n_features=40, n_informative=20,
                               random_state=0)
    yield halves(f"make_classification {rows} x 40", X, y)
    edges = np.quantile(X, np.linspace(0, 1, 17)[1:-1], axis=0)
    codes = np.column_stack([np.searchsorted(edges[:, j], X[:, j]) for j in range(40)])
    yield halves("same, 16 levels a feature", codes.astype(np.float64), y)
    X, y = make_regression(n_samples=2 * rows, n_features=40, n_informative=20, noise=5.0,
                           random_state=0)
    yield halves(f"make_regression {rows} x 40", X, y)


def sparse_pairs():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    return [("tree", fasttree.DecisionTreeClassifier(random_state=0),
             DecisionTreeClassifier(random_state=0)),
            ("forest", fasttree.RandomForestClassifier(n_estimators=50, n_jobs=2,
                                                      random_state=0),
             RandomForestClassifier(n_estimators=50, n_jobs=2, random_state=0))]


def poisson_pairs():
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.tree import DecisionTreeRegressor

    params = {"criterion": "poisson", "max_depth": 12, "random_state": 0}
    forest = {**params, "n_estimators": 50, "n_jobs": 2}
    return [("tree", fasttree.DecisionTreeRegressor(**params), DecisionTreeRegressor(**params)),
            ("forest", fasttree.RandomForestRegressor(**forest),
             RandomForestRegressor(**forest))]


def extra_pairs(y):
    from sklearn import ensemble, tree

    kind = "Regressor" if y.dtype.kind == "f" else "Classifier"
    trees = 20 if kind == "Regressor" else 50
    return [("tree", getattr(fasttree, "ExtraTree" + kind)(random_state=0),
             getattr(tree, "ExtraTree" + kind)(random_state=0)),
            ("forest", getattr(fasttree, "ExtraTrees" + kind)(
                n_estimators=trees, n_jobs=2, random_state=0),
             getattr(ensemble, "ExtraTrees" + kind)(n_estimators=trees, n_jobs=2,
                                                    random_state=0))]


CASES = {"sparse": (sparse_cases, sparse_pairs), "poisson": (poisson_cases, poisson_pairs),
         "multioutput": (multioutput_cases, multioutput_pairs),
         "absolute": (absolute_cases, absolute_pairs),
         "extra": (extra_cases, extra_pairs)}


def new_row_score(model, X_new, y_new):
    """Accuracy (of whole rows, for several outputs), R^2 for several regression
    outputs, the mean absolute error for absolute_error, or the mean Poisson
    deviance (lower is better)."""
    predicted = model.predict(X_new)
    if getattr(model, "criterion", None) == "absolute_error":
        return float(np.mean(np.abs(predicted - y_new)))
    if y_new.ndim == 2:
        if hasattr(model, "classes_"):
            return float(np.mean((predicted == y_new).all(axis=1)))
        from sklearn.metrics import r2_score

        return r2_score(y_new, predicted)
    if getattr(model, "criterion", None) == "squared_error":
        from sklearn.metrics import r2_score

        return r2_score(y_new, predicted)
    if not hasattr(model, "classes_"):
        from sklearn.metrics import mean_poisson_deviance

        return mean_poisson_deviance(y_new, np.maximum(predicted, 1e-12))
    return float(np.mean(predicted == y_new))


def compare(name, pairs, X, y, X_new, y_new, repeats):
    """Print and return, for each (kind, ours, theirs) pair, the fit and predict
    ratios and the score of each on the new rows."""
    rows = []
    for kind, ours, theirs in pairs:
        fit_ours, fit_theirs = median_times(lambda: ours.fit(X, y), lambda: theirs.fit(X, y),
                                            repeats)
        predict_ours, predict_theirs = median_times(lambda: ours.predict(X_new),
                                                    lambda: theirs.predict(X_new), repeats)
        scores = (new_row_score(ours, X_new, y_new), new_row_score(theirs, X_new, y_new))
        print(f"{name:<45} {kind:<7} fit {fit_ours:7.3f}s / {fit_theirs:7.3f}s = "
              f"{fit_ours / fit_theirs:5.2f}   predict {predict_ours / predict_theirs:5.2f}   "
              f"score {scores[0]:.3f} / {scores[1]:.3f}", flush=True)
        rows.append({"data": name, "model": kind, "fit": fit_ours / fit_theirs,
                     "predict": predict_ours / predict_theirs, "score": scores})
    return rows


def main(argv=None):
    """Run the chosen cases, print a line per model and return the rows: 'data',
    'model' (tree or forest), 'fit' and 'predict' ratios and 'score' pairs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CASES), action="append")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=50_000,
                        help="training rows (the sparse cases fit 2/5 of them)")
    args = parser.parse_args(argv)
    rows = []
    for case in args.only or sorted(CASES):
        data, pairs = CASES[case]
        for name, X, y, X_new, y_new in data(args.rows):
            members = pairs(y) if case in ("multioutput", "extra") else pairs()
            rows += compare(name, members, X, y, X_new, y_new, args.repeats)
    return rows


if __name__ == "__main__":
    main()
