"""Make the legacy forest pickles in this folder, and record what the version
that made them computes from them.

Until commit 4547832 ("Forests draw as scikit-learn 1.9's ...") a forest drew
its trees' random_states and bootstrap rows from one seed of its own,
``_base_seed``; later forests draw them as scikit-learn's do, from a seed per
tree. ``BaseForest.__setstate__`` and ``BaseForest._tree_counts`` still load
the older pickles and draw their rows again; ``tests/test_forest_legacy_pickles.py``
checks this against the files written here:

- ``base_seed_rf_classifier.pkl``, ``base_seed_rf_regressor.pkl``,
  ``base_seed_extra_trees_classifier.pkl``: the forests of ``forests()``,
  fitted, pickled with protocol 4;
- ``base_seed_outputs.npz``: per forest, ``name/quantity`` arrays of what the
  old version computed (predictions on ``new_rows()``, leaves, importances,
  out-of-bag estimates, ``estimators_samples_``, out-of-bag permutation
  importance, the members' random_state), and the digests of the training data.

Run it with a build of commit 3ca8595 (the parent of 4547832), installed in a
virtual environment of its own, from the repository's root::

    git worktree add /tmp/wt-legacy 3ca8595
    python3 -m venv /tmp/venv-legacy
    /tmp/venv-legacy/bin/pip install meson-python meson ninja cython numpy
    /tmp/venv-legacy/bin/pip install --no-build-isolation /tmp/wt-legacy
    /tmp/venv-legacy/bin/python tests/data/legacy/make_legacy_pickles.py

The script refuses a build whose forests have no ``_base_seed`` (4547832 or
later). Run with a build of 63e9e3c (the parent of f09868b, whose forests
also kept their bootstrap size as ``_n_draws``) it writes ``n_draws_*`` files
instead; none is kept here, because today's fasttree refuses those pickles:
they predate the ``monotonic_cst`` parameter (6197a6c), and an unpickled
estimator must hold all its parameters.

The training data and the rows predicted come from ``classification_data``,
``regression_data`` and ``new_rows``, which the test imports, so that both
read the same numbers.
"""

import hashlib
import pickle
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


# The data come from numpy's RandomState, whose streams numpy keeps unchanged
# across versions (a Generator's may change). The regression target is a
# matrix product, whose last bits depend on the BLAS kernel the machine runs,
# so the data are also stored (base_seed_data.npz) and the tests read them
# from there; the recorded digest says they are those the forests were fitted on.
def classification_data():
    """120 rows of 4 features and 3 classes."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 0.8)
    return X, y


def regression_data():
    """150 rows of 4 features and a noisy linear target."""
    rng = np.random.RandomState(1)
    X = rng.normal(size=(150, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=150)
    return X, y


def new_rows():
    """25 rows no forest was fitted on."""
    return np.random.RandomState(2).normal(size=(25, 4))


def data_digest(X, y):
    """SHA-256 of the bytes of ``X`` and ``y`` (float64 and int64 or float64)."""
    return hashlib.sha256(np.ascontiguousarray(X).tobytes()
                          + np.ascontiguousarray(y).tobytes()).hexdigest()


def forests(fasttree):
    """Name -> (unfitted forest, its training data), small enough to keep."""
    made = {
        "rf_classifier": (fasttree.RandomForestClassifier(
            n_estimators=5, max_depth=4, bootstrap=True, oob_score=True, random_state=11),
            classification_data()),
        "rf_regressor": (fasttree.RandomForestRegressor(
            n_estimators=4, max_depth=3, bootstrap=True, max_samples=0.7, oob_score=True,
            random_state=12), regression_data()),
    }
    if hasattr(fasttree, "ExtraTreesClassifier"):  # 63e9e3c has none
        made["extra_trees_classifier"] = (fasttree.ExtraTreesClassifier(
            n_estimators=4, max_depth=4, bootstrap=False, random_state=13),
            classification_data())
    return made


def era_of(forest):
    """The prefix of the files ``forest``'s build makes: "base_seed" or "n_draws"."""
    if "_base_seed" not in forest.__dict__:
        sys.exit("this fasttree build's forests have no _base_seed: run the script with "
                 "a build of 3ca8595 (see its docstring)")
    return "n_draws" if "_n_draws" in forest.__dict__ else "base_seed"


def outputs_of(forest, X, y):
    """What the installed build computes from the fitted ``forest``: quantity -> array."""
    rows = new_rows()
    out = {"predict": forest.predict(rows), "apply": forest.apply(rows),
           "feature_importances_": forest.feature_importances_,
           "member_random_states": [member.random_state for member in forest.estimators_]}
    if hasattr(forest, "predict_proba"):
        out["predict_proba"] = forest.predict_proba(rows)
    if forest.bootstrap:
        # Every tree draws as many rows, so their draws stack into one array.
        out["estimators_samples_"] = np.array(forest.estimators_samples_)
        out["oob_permutation_importance"] = forest.oob_permutation_importance(
            X, y, n_repeats=2, random_state=0)
    for attribute in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
        if hasattr(forest, attribute):
            out[attribute] = getattr(forest, attribute)
    return {key: np.asarray(value) for key, value in out.items()}


def main():
    import fasttree

    recorded = {"data_digest/classification": np.array(data_digest(*classification_data())),
                "data_digest/regression": np.array(data_digest(*regression_data()))}
    era = None
    for name, (forest, (X, y)) in forests(fasttree).items():
        with warnings.catch_warnings():
            # Five trees leave a few rows in every bag: their out-of-bag
            # estimates are NaN, and are recorded so.
            warnings.filterwarnings("ignore", "Some inputs do not have OOB scores")
            forest.fit(X, y)
        era = era_of(forest)
        path = HERE / f"{era}_{name}.pkl"
        path.write_bytes(pickle.dumps(forest, protocol=4))
        recorded.update({f"{name}/{key}": value
                         for key, value in outputs_of(forest, X, y).items()})
        print(f"wrote {path.name} ({path.stat().st_size:,} bytes)")
    np.savez_compressed(HERE / f"{era}_outputs.npz", **recorded)
    print(f"wrote {era}_outputs.npz")
    write_data(HERE / f"{era}_data.npz")


def write_data(path):
    """The training data of the forests, as the tests read them."""
    (X_class, y_class), (X_reg, y_reg) = classification_data(), regression_data()
    np.savez_compressed(path, classification_X=X_class, classification_y=y_class,
                        regression_X=X_reg, regression_y=y_reg)
    print(f"wrote {path.name}")


if __name__ == "__main__":
    main()
