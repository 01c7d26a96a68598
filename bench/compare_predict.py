"""Prediction time on every kind of input, against scikit-learn, side by side.

Usage (from the repository root, with fasttree, scikit-learn and pandas installed)::

    python bench/compare_predict.py                    # one full tree and a 50-tree forest
    python bench/compare_predict.py --model tree --repeats 9
    python bench/compare_predict.py --n-samples 20000 --n-estimators 20   # quicker

Data: ``make_classification(2 * n_samples, 50 features, 20 informative,
random_state=0)``; both libraries fit on the first half (float32) and
predict the second half, the new rows, as the input kinds below: float32 and
float64, C and Fortran order, a pandas DataFrame, a non-contiguous view
(every other row), and the training rows themselves. The trees are grown
fully; the forests use sqrt features and ``n_jobs=2``. Each timing is the
median of ``--repeats`` calls, the libraries taking turns; "first call" is
the first predict of each library right after its fit. Ratios are fasttree
/ scikit-learn.
"""

import argparse

import numpy as np

import fasttree
from timing import median_times, timed


def input_kinds(X_train, X_new):
    import pandas as pd

    X32 = X_new.astype(np.float32)
    return {
        "float32 C, training rows": np.ascontiguousarray(X_train, dtype=np.float32),
        "float32 C, new rows": X32,
        "float32 Fortran": np.asfortranarray(X32),
        "float64 C": np.ascontiguousarray(X_new),
        "float64 Fortran": np.asfortranarray(X_new),
        "DataFrame (float64)": pd.DataFrame(X_new,
                                            columns=[f"f{i}" for i in range(X_new.shape[1])]),
        "float64 view, every other row": np.concatenate([X_new, X_new])[::2],
    }


def compare(label, ours, theirs, X_train, y_train, X_new, repeats):
    """Print and return the predict and predict_proba ratios for every input
    kind, and the first predict_proba after fit as the input kind 'first call'."""
    print(f"\n{label}")
    fit_times = []
    first = {}
    for name, model in (("fasttree", ours), ("sklearn", theirs)):
        fit_times.append(timed(lambda: model.fit(X_train, y_train))[0])
        first[name] = timed(lambda: model.predict_proba(X_new))[0]
    print(f"  fit s: fasttree {fit_times[0]:.2f}, scikit-learn {fit_times[1]:.2f}; first "
          f"predict_proba after fit: {first['fasttree'] * 1e3:.1f} / "
          f"{first['sklearn'] * 1e3:.1f} ms = {first['fasttree'] / first['sklearn']:.2f}")
    rows = [{"model": label, "input": "first call after fit", "predict": None,
             "predict_proba": first["fasttree"] / first["sklearn"]}]
    print(f"  {'input':<32}{'predict':>9}{'proba':>9}   (ms fasttree / sklearn)")
    for kind, X in input_kinds(X_train, X_new).items():
        predict = median_times(lambda: ours.predict(X), lambda: theirs.predict(X), repeats)
        proba = median_times(lambda: ours.predict_proba(X), lambda: theirs.predict_proba(X),
                             repeats)
        print(f"  {kind:<32}{predict[0] / predict[1]:>9.2f}{proba[0] / proba[1]:>9.2f}"
              f"   ({predict[0] * 1e3:.1f} / {predict[1] * 1e3:.1f}, "
              f"{proba[0] * 1e3:.1f} / {proba[1] * 1e3:.1f})", flush=True)
        rows.append({"model": label, "input": kind, "predict": predict[0] / predict[1],
                     "predict_proba": proba[0] / proba[1]})
    return rows


def main(argv=None):
    """Fit both libraries, print the prediction ratios for every input kind and
    return them as rows of 'model', 'input', 'predict' and 'predict_proba'."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-estimators", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--model", choices=["tree", "forest", "both"], default="both")
    args = parser.parse_args(argv)

    import warnings

    import sklearn
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    # scikit-learn warns when a DataFrame's names differ from the fit's arrays.
    warnings.filterwarnings("ignore", message="X has feature names")
    X, y = make_classification(n_samples=2 * args.n_samples, n_features=50, n_informative=20,
                               random_state=0)
    X_train, y_train = X[:args.n_samples].astype(np.float32), y[:args.n_samples]
    X_new = X[args.n_samples:]
    print(f"{args.n_samples} x 50, fasttree {fasttree.__version__}, scikit-learn "
          f"{sklearn.__version__}, median of {args.repeats}")
    pairs = {
        "tree": (fasttree.DecisionTreeClassifier(random_state=0),
                 DecisionTreeClassifier(random_state=0)),
        "forest": (fasttree.RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=2,
                                                   random_state=0),
                   RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=2,
                                          random_state=0)),
    }
    rows = []
    for model in ("tree", "forest") if args.model == "both" else (args.model,):
        ours, theirs = pairs[model]
        rows += compare(model, ours, theirs, X_train, y_train, X_new, args.repeats)
    return rows


if __name__ == "__main__":
    main()
