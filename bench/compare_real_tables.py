"""The histogram splitter against the exact one on real tables, side by side.

Usage (from the repository root, with fasttree and pandas installed)::

    python bench/compare_real_tables.py                # both tables, 100 trees
    python bench/compare_real_tables.py --tables adult --repeats 5

Tables (``bench/data``, read by ``bench/benchmarks/real_tables.py``): UCI Adult, with
its own test file, string columns and missing values passed as they are in
a pandas DataFrame; and UCI default of credit card clients, integer columns
with many tied values, 20% held out. Each is fitted with
``RandomForestClassifier(n_estimators, n_jobs=2, random_state=0)`` with
``splitter='best'`` (exact) and ``splitter='hist'`` in turns; the median fit
time of ``--repeats`` runs, the ratio hist / exact and the test accuracy of
each are printed. The issue's targets: hist at <= 0.6x the exact fit, with
accuracy within 0.3 points.
"""

import argparse

import fasttree
from timing import median_times


def compare(load, n_estimators, repeats):
    """Median fit seconds and test accuracy of the exact and hist forests."""
    X_train, y_train, X_test, y_test = load()

    def forest(splitter):
        return fasttree.RandomForestClassifier(n_estimators=n_estimators, n_jobs=2,
                                               random_state=0, splitter=splitter)

    fitted = {}

    def fit(splitter):
        fitted[splitter] = forest(splitter).fit(X_train, y_train)

    exact, hist = median_times(lambda: fit("best"), lambda: fit("hist"), repeats)
    accuracy = {splitter: float((model.predict(X_test) == y_test.to_numpy()).mean())
                for splitter, model in fitted.items()}
    return {"fit_exact": exact, "fit_hist": hist, "ratio": hist / exact,
            "accuracy_exact": accuracy["best"], "accuracy_hist": accuracy["hist"]}


def main(argv=None):
    """Print one line per table and return the results by table name."""
    # The loaders live with the asv suite, which times the same fits; imported
    # here, when run, so that importing this module needs no pandas.
    from benchmarks.real_tables import TABLES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", nargs="*", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'table':<16}{'exact s':>10}{'hist s':>10}{'hist/exact':>12}"
          f"{'acc exact':>11}{'acc hist':>10}{'diff pts':>10}")
    results = {}
    for name in args.tables:
        row = compare(TABLES[name], args.n_estimators, args.repeats)
        results[name] = row
        print(f"{name:<16}{row['fit_exact']:>10.2f}{row['fit_hist']:>10.2f}"
              f"{row['ratio']:>12.2f}{row['accuracy_exact']:>11.4f}{row['accuracy_hist']:>10.4f}"
              f"{100 * (row['accuracy_hist'] - row['accuracy_exact']):>10.2f}")
    return results


if __name__ == "__main__":
    main()
