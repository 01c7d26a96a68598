"""Quantile regression forests against quantile-forest, side by side.

Usage (from the repository root, with fasttree, scikit-learn and, for the
peer, quantile-forest installed: the ``bench`` extra)::

    python bench/compare_quantile.py               # both data sets, 100 trees
    python bench/compare_quantile.py --repeats 5 --data synthetic
    python bench/compare_quantile.py --only-intervals

Data sets: ``make_regression`` 50,000 x 20 to train and 10,000 new rows to
predict (the issue's table), and a real table with heavy tails: UCI default
of credit card clients (``bench/data``), the first month's payment amount
(``PAY_AMT1``: median 2,100, largest 873,552) from the other 22 columns,
20,000 rows to train and 10,000 to predict. Both libraries grow 100 trees
with ``min_samples_leaf=5`` on 2 threads, with their defaults otherwise
(one training target kept per leaf). Without quantile-forest installed,
fasttree's numbers alone are printed (and the peer's are None). Timed in turns, median of
``--repeats``: the fit, 3 quantiles (0.05, 0.5, 0.95) of the new rows, and
one row at a time (a service's call). Sizes: the pickle of each, and
fasttree's model file. Accuracy: the mean pinball loss over the 3
quantiles on the new rows, and the coverage of the 5%-95% interval.
Then fasttree's calibrated 90% intervals of the new rows (a forest fitted
with ``oob_score=True``): coverage, mean width and seconds of the raw
quantiles ('quantile'), of CQR calibrated out of bag, of the raw quantiles
and CQR of a forest grown on four fifths of the training rows and
calibrated on the rest (CQR closed, and with ``ties='randomized'``: the
credit table's payments are exactly 0 in 18% of rows, and CQR's scores
tie at its conformal quantile), and of jackknife+ after bootstrap ('oob').
``--only-intervals`` runs this part alone. The issue's targets: fit <=
0.35x, quantiles <= 0.5x, sizes <= 0.25x, pinball loss within 1%; 'oob'
and 'cqr' coverage in [0.88, 0.92], no wider than the same forest's
'quantile'.
"""

import argparse
import pickle
import tempfile
from pathlib import Path

import numpy as np

import fasttree
from timing import median_times, timed

QUANTILES = [0.05, 0.5, 0.95]


def synthetic(n_train=50_000, n_new=10_000):
    from sklearn.datasets import make_regression

    X, y = make_regression(n_samples=n_train + n_new, n_features=20, n_informative=10,
                           noise=20.0, random_state=0)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def credit_payments(n_train=20_000, n_new=10_000, seed=0):
    import pandas as pd

    table = pd.read_csv(Path(__file__).parent / "data" / "credit_default.csv.gz")
    y = table.pop("PAY_AMT1").to_numpy(dtype=np.float64)
    X = table.drop(columns=["ID"]).to_numpy(dtype=np.float64)
    order = np.random.default_rng(seed).permutation(len(y))
    train, test = order[:n_train], order[n_train:n_train + n_new]
    return X[train], y[train], X[test], y[test]


DATA = {"synthetic": synthetic, "credit_payments": credit_payments}


def pinball(y, predicted, quantiles=QUANTILES):
    """Mean pinball loss over the quantiles (columns of ``predicted``)."""
    losses = []
    for column, q in enumerate(quantiles):
        residual = y - predicted[:, column]
        losses.append(np.mean(np.maximum(q * residual, (q - 1) * residual)))
    return float(np.mean(losses))


def model_file_bytes(model):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.ftm"
        model.save(path)
        return path.stat().st_size


def peer_class():
    """quantile-forest's forest, or None when it is not installed."""
    try:
        from quantile_forest import RandomForestQuantileRegressor
    except ImportError:
        return None
    return RandomForestQuantileRegressor


def compare(data, n_estimators=100, repeats=3, single_rows=200, sizes=None):
    """Times, sizes and accuracies of fasttree and quantile-forest on one data
    set (each of the peer's None when quantile-forest is not installed)."""
    PeerForest = peer_class()
    if PeerForest is None:
        # fasttree alone, timed against itself so that every key is there.
        PeerForest = fasttree.RandomForestQuantileRegressor
    X_train, y_train, X_test, y_test = data(*(sizes or ()))
    params = dict(n_estimators=n_estimators, min_samples_leaf=5, n_jobs=2, random_state=0)
    fitted = {}

    def fit(name, cls):
        fitted[name] = cls(**params).fit(X_train, y_train)

    fit_ours, fit_peer = median_times(
        lambda: fit("ours", fasttree.RandomForestQuantileRegressor),
        lambda: fit("peer", PeerForest), repeats)
    ours, peer = fitted["ours"], fitted["peer"]
    # The first call after fit, then the median of later ones.
    first_ours, predicted_ours = timed(lambda: ours.predict(X_test, quantiles=QUANTILES))
    first_peer, predicted_peer = timed(lambda: peer.predict(X_test, quantiles=QUANTILES))
    predict_ours, predict_peer = median_times(
        lambda: ours.predict(X_test, quantiles=QUANTILES),
        lambda: peer.predict(X_test, quantiles=QUANTILES), max(repeats, 5))
    rows = X_test[:single_rows]

    def one_at_a_time(model):
        def run():
            for row in rows:
                model.predict(row.reshape(1, -1), quantiles=QUANTILES)
        return run

    row_ours, row_peer = median_times(one_at_a_time(ours), one_at_a_time(peer), 3)
    sizes = {"pickle_ours": len(pickle.dumps(ours)), "pickle_peer": len(pickle.dumps(peer)),
             "model_file_ours": model_file_bytes(ours)}
    loss_ours, loss_peer = pinball(y_test, predicted_ours), pinball(y_test, predicted_peer)

    def coverage(predicted):
        return float(np.mean((y_test >= predicted[:, 0]) & (y_test <= predicted[:, 2])))

    result = {
        "fit_ours": fit_ours, "fit_peer": fit_peer, "fit_ratio": fit_ours / fit_peer,
        "predict_ours": predict_ours, "predict_peer": predict_peer,
        "predict_ratio": predict_ours / predict_peer,
        "first_predict_ours": first_ours, "first_predict_peer": first_peer,
        "row_ms_ours": 1000 * row_ours / len(rows), "row_ms_peer": 1000 * row_peer / len(rows),
        **sizes,
        "pickle_ratio": sizes["pickle_ours"] / sizes["pickle_peer"],
        "model_file_ratio": sizes["model_file_ours"] / sizes["pickle_peer"],
        "pinball_ours": loss_ours, "pinball_peer": loss_peer,
        "pinball_ratio": loss_ours / loss_peer,
        "coverage_ours": coverage(predicted_ours), "coverage_peer": coverage(predicted_peer),
    }
    if peer_class() is None:
        result = {key: None if key.endswith(("_peer", "_ratio")) else value
                  for key, value in result.items()}
    return result


def intervals(data, n_estimators=100, sizes=None, alpha=0.1):
    """Coverage and mean width of fasttree's 90% intervals on the new rows:
    the raw quantiles, CQR calibrated out of bag, and jackknife+ after
    bootstrap ('oob'), from one forest fitted with ``oob_score=True``; the
    raw quantiles and CQR (closed, and with randomized ties) of a forest
    grown on 80% of the training rows and calibrated on the rest."""
    X_train, y_train, X_test, y_test = data(*(sizes or ()))
    forest = fasttree.RandomForestQuantileRegressor(
        n_estimators, min_samples_leaf=5, oob_score=True, n_jobs=2,
        random_state=0).fit(X_train, y_train)
    forest.calibrate(X_train, y_train, oob=True)
    # Split CQR: a fifth of the training rows held out to calibrate.
    cut = int(0.8 * len(y_train))
    held_out = fasttree.RandomForestQuantileRegressor(
        n_estimators, min_samples_leaf=5, n_jobs=2, random_state=0).fit(X_train[:cut],
                                                                        y_train[:cut])
    held_out.calibrate(X_train[cut:], y_train[cut:])
    out = {}
    for label, model, method, ties in (
            ("quantile", forest, "quantile", "closed"),
            ("cqr, out of bag", forest, "cqr", "closed"),
            ("quantile, 20% held out", held_out, "quantile", "closed"),
            ("cqr, 20% held out", held_out, "cqr", "closed"),
            ("cqr, 20% held out, randomized ties", held_out, "cqr", "randomized"),
            ("oob (jackknife+)", forest, "oob", "closed")):
        seconds, bounds = timed(lambda: model.predict_interval(X_test, alpha, method, ties=ties,
                                                               random_state=0))
        inside = (y_test >= bounds[:, 0]) & (y_test <= bounds[:, 1])
        out[label] = {"coverage": float(np.mean(inside)),
                      "width": float(np.mean(bounds[:, 1] - bounds[:, 0])),
                      "seconds": seconds}
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", choices=sorted(DATA), default=sorted(DATA))
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-train", type=int, default=None,
                        help="training rows (default: 50,000 synthetic, 20,000 credit)")
    parser.add_argument("--n-new", type=int, default=10_000, help="rows to predict")
    parser.add_argument("--single-rows", type=int, default=200,
                        help="rows predicted one at a time")
    parser.add_argument("--no-intervals", action="store_true",
                        help="skip the calibrated intervals")
    parser.add_argument("--only-intervals", action="store_true",
                        help="only the calibrated intervals (no timing against the peer)")
    args = parser.parse_args(argv)
    results = {}
    for name in args.data:
        sizes = None if args.n_train is None else (args.n_train, args.n_new)
        if args.only_intervals:
            result = results[name] = {"intervals": intervals(DATA[name], args.n_estimators,
                                                             sizes)}
            print(f"{name} 90% intervals: " + "; ".join(
                f"{method} coverage {values['coverage']:.3f}, width {values['width']:.4g} "
                f"({values['seconds']:.2f} s)"
                for method, values in result["intervals"].items()), flush=True)
            continue
        result = results[name] = compare(DATA[name], args.n_estimators, args.repeats,
                                         args.single_rows, sizes)
        if not args.no_intervals:
            result["intervals"] = intervals(DATA[name], args.n_estimators, sizes)
            print(f"{name} 90% intervals: " + "; ".join(
                f"{method} coverage {values['coverage']:.3f}, width {values['width']:.4g} "
                f"({values['seconds']:.2f} s)"
                for method, values in result["intervals"].items()), flush=True)
        if result["fit_peer"] is None:
            print(f"{name}: quantile-forest is not installed (pip install "
                  f"'fasttree[bench]'); fasttree fit {result['fit_ours']:.2f} s, 3 quantiles "
                  f"{result['predict_ours']:.3f} s, pickle {result['pickle_ours'] / 1e6:.1f} "
                  f"MB, pinball {result['pinball_ours']:.4g}, coverage "
                  f"{result['coverage_ours']:.3f}", flush=True)
            continue
        print(f"{name}: fit {result['fit_ours']:.2f} s / {result['fit_peer']:.2f} s = "
              f"{result['fit_ratio']:.3f}; 3 quantiles {result['predict_ours']:.3f} s / "
              f"{result['predict_peer']:.3f} s = {result['predict_ratio']:.3f} (first call "
              f"{result['first_predict_ours']:.3f} / {result['first_predict_peer']:.3f}); "
              f"one row {result['row_ms_ours']:.2f} ms / {result['row_ms_peer']:.2f} ms; "
              f"pickle {result['pickle_ours'] / 1e6:.1f} MB / "
              f"{result['pickle_peer'] / 1e6:.1f} MB = {result['pickle_ratio']:.3f}, model "
              f"file {result['model_file_ours'] / 1e6:.1f} MB = "
              f"{result['model_file_ratio']:.3f}; pinball {result['pinball_ours']:.4g} / "
              f"{result['pinball_peer']:.4g} = {result['pinball_ratio']:.4f}; coverage "
              f"{result['coverage_ours']:.3f} / {result['coverage_peer']:.3f}", flush=True)
    return results


if __name__ == "__main__":
    main()
