"""Fit and predict times of the scikit-learn capabilities fasttree added for
drop-in use (issue 11), side by side with scikit-learn in one process.

Usage (from the repository root, with fasttree, scikit-learn and scipy installed)::

    python bench/compare_capabilities.py                 # every case
    python bench/compare_capabilities.py --only sparse --repeats 7

Cases:

- ``sparse``: X as a scipy CSR matrix (what text and one-hot pipelines give),
  fitted as given: 20,000 x 300 at 5% density (values from a normal
  distribution) and 20,000 x 2,000 binary features at 1% density (word
  presence). Prediction on 20,000 new CSR rows.

For each case: one fully grown tree and a forest of 50 trees (sqrt features,
``n_jobs=2``), the two libraries taking turns; median of ``--repeats`` runs.
Ratios are fasttree / scikit-learn; the accuracy on the new rows is printed
beside them, since a fast fit of a different model would prove nothing.
"""

import argparse

import numpy as np

import fasttree
from compare_forest import median_times


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


def sparse_cases():
    for label, n_features, density, binary in [("5% normal values", 300, 0.05, False),
                                               ("1% word presence", 2000, 0.01, True)]:
        X, y = sparse_data(40000, n_features, density, binary, seed=0)
        yield f"sparse CSR 20000 x {n_features}, {label}", X[:20000], y[:20000], \
            X[20000:], y[20000:]


CASES = {"sparse": sparse_cases}


def compare(name, X, y, X_new, y_new, repeats):
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    pairs = [("tree", fasttree.DecisionTreeClassifier(random_state=0),
              DecisionTreeClassifier(random_state=0)),
             ("forest", fasttree.RandomForestClassifier(n_estimators=50, n_jobs=2,
                                                       random_state=0),
              RandomForestClassifier(n_estimators=50, n_jobs=2, random_state=0))]
    for kind, ours, theirs in pairs:
        fit_ours, fit_theirs = median_times(lambda: ours.fit(X, y), lambda: theirs.fit(X, y),
                                            repeats)
        predict_ours, predict_theirs = median_times(lambda: ours.predict(X_new),
                                                    lambda: theirs.predict(X_new), repeats)
        accuracy_ours = float(np.mean(ours.predict(X_new) == y_new))
        accuracy_theirs = float(np.mean(theirs.predict(X_new) == y_new))
        print(f"{name:<45} {kind:<7} fit {fit_ours:7.3f}s / {fit_theirs:7.3f}s = "
              f"{fit_ours / fit_theirs:5.2f}   predict {predict_ours / predict_theirs:5.2f}   "
              f"accuracy {accuracy_ours:.3f} / {accuracy_theirs:.3f}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(CASES), action="append")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    for case in args.only or sorted(CASES):
        for name, X, y, X_new, y_new in CASES[case]():
            compare(name, X, y, X_new, y_new, args.repeats)


if __name__ == "__main__":
    main()
