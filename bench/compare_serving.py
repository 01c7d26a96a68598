"""Serving speed: predictions of a few new rows against onnxruntime and
scikit-learn, side by side on one thread.

Usage (from the repository root, with fasttree, scikit-learn, pandas, onnx
and onnxruntime installed; without onnx or onnxruntime that peer is skipped)::

    python bench/compare_serving.py                   # both forests, 100 trees
    python bench/compare_serving.py --repeats 9
    python bench/compare_serving.py --quick           # tiny sizes: checks that it runs

Forests: 100 trees (``--n-estimators``) of full depth, ``max_features='sqrt'``,
fitted with ``n_jobs=2`` and then set to ``n_jobs=1`` to predict, by fasttree
and by scikit-learn (the same parameters), on

- 2 classes: ``make_classification(100_000, 50, n_informative=20,
  random_state=0)`` (``--n-samples`` rows), the first 80% to train, float32;
- 26 classes, letter-like: ``make_classification(20_000, 16, n_informative=12,
  n_classes=26, n_clusters_per_class=1, random_state=0)`` (``--n-letter``
  rows), the first 80% (16,000 rows) to train, float32.

The third peer is onnxruntime running ``fasttree.export_onnx`` of fasttree's
forest, on one thread (``intra_op_num_threads=1``,
``inter_op_num_threads=1``, CPU provider), fed the same float32 rows under the
graph's input name; ``predict`` asks the session for its ``label`` output and
``predict_proba`` for its ``probabilities``.

Timed: ``predict_proba`` and ``predict`` of batches of 1, 10, 100 and 10,000
held-out rows (``--batch-sizes``), each call a different batch, cycling
through the held-out rows (a batch larger than them repeats rows), as a
service's requests come. A round makes ``max(1, 200 // batch)`` calls of one
library; fasttree and one peer take turns, round by round, and each keeps the
median of ``--repeats`` rounds, in microseconds per row. Each peer is timed
in its own pairing with fasttree, and its ratio is fasttree / peer in that
pairing (the fasttree column shows its time against onnxruntime, or against
scikit-learn without onnxruntime). Last, fasttree's one-row ``predict_proba``
of a pandas DataFrame (string column names, the forest fitted on that
DataFrame) against a one-row ndarray, taking turns the same way.
"""

import argparse
import itertools
import warnings

import numpy as np

import fasttree
from timing import median_times, timed

ROWS_PER_ROUND = 200
# Held-out rows made into one-row DataFrames (about 50 us each to make).
FRAME_ROWS = 2_000
METHODS = ("predict_proba", "predict")
PEERS = ("onnxruntime", "sklearn")


def data_sets(n_samples, n_letter):
    """(label, training rows, labels, held-out rows) of the two data sets, float32."""
    from sklearn.datasets import make_classification

    for label, kwargs in (
            ("2 classes", dict(n_samples=n_samples, n_features=50, n_informative=20)),
            ("26 classes, letter-like",
             dict(n_samples=n_letter, n_features=16, n_informative=12, n_classes=26,
                  n_clusters_per_class=1))):
        X, y = make_classification(random_state=0, **kwargs)
        X = X.astype(np.float32)
        n_train = len(X) * 4 // 5
        yield label, X[:n_train], y[:n_train], X[n_train:]


def batches(X_new, batch_size):
    """Consecutive batches of held-out rows, every row in one of them; a batch
    larger than the rows wraps around them."""
    if batch_size >= len(X_new):
        return [np.ascontiguousarray(np.take(X_new, np.arange(batch_size), axis=0,
                                             mode="wrap"))]
    return [X_new[start:start + batch_size]
            for start in range(0, len(X_new) - batch_size + 1, batch_size)]


def round_of_calls(predict, batch_list):
    """A function making one round of calls of ``predict``, each on the next
    batch of ``batch_list`` (cycling), returning how many rows it predicted."""
    cycle = itertools.cycle(batch_list)
    calls = max(1, ROWS_PER_ROUND // len(batch_list[0]))

    def one_round():
        for _ in range(calls):
            predict(next(cycle))
        return calls * len(batch_list[0])
    return one_round


def per_row_pair(ours, theirs, our_batches, their_batches, repeats):
    """Median microseconds per row of ``ours`` on ``our_batches`` and ``theirs`` on
    ``their_batches`` (batches of the same size), the two taking turns."""
    batch_size = len(our_batches[0])
    rows = max(1, ROWS_PER_ROUND // batch_size) * batch_size
    seconds = median_times(round_of_calls(ours, our_batches),
                           round_of_calls(theirs, their_batches), repeats)
    return tuple(value / rows * 1e6 for value in seconds)


def onnx_session(forest):
    """onnxruntime's session of ``export_onnx(forest)`` on one thread, or None
    when onnx or onnxruntime is not installed."""
    try:
        import onnxruntime
    except ImportError:
        return None
    try:
        graph = fasttree.export_onnx(forest)
    except ImportError:
        return None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(graph.SerializeToString(), options,
                                        providers=["CPUExecutionProvider"])


def onnx_methods(session):
    """``predict`` and ``predict_proba`` as calls of the session."""
    input_name = session.get_inputs()[0].name

    def predict(X):
        return session.run(["label"], {input_name: X})[0]

    def predict_proba(X):
        return session.run(["probabilities"], {input_name: X})[0]
    return {"predict": predict, "predict_proba": predict_proba}


def frame(X):
    import pandas as pd

    return pd.DataFrame(X, columns=[f"feature_{i}" for i in range(X.shape[1])])


def check_agreement(ours, peers, X_new):
    """Print the share of held-out rows each peer labels as fasttree does."""
    labels = ours.predict(X_new)
    for name, methods in peers.items():
        share = np.mean(np.asarray(methods["predict"](X_new)).ravel() == labels)
        print(f"  {name} labels {share:.4f} of the held-out rows as fasttree does")


def compare(label, X_train, y_train, X_new, args):
    """Fit, time and print one data set; return its rows."""
    print(f"\n{label}: {len(X_train):,} x {X_train.shape[1]} to train, "
          f"{len(X_new):,} held-out rows, {args.n_estimators} trees", flush=True)
    ours = fasttree.RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=2,
                                           random_state=0)
    fit_seconds, _ = timed(lambda: ours.fit(X_train, y_train))
    ours.set_params(n_jobs=1)
    peers = {}
    session = onnx_session(ours)
    if session is None:
        print("  onnxruntime (or onnx) is not installed: skipped")
    else:
        peers["onnxruntime"] = onnx_methods(session)
    # scikit-learn makes the data, so it is always there.
    from sklearn.ensemble import RandomForestClassifier

    theirs = RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=2,
                                    random_state=0).fit(X_train, y_train)
    theirs.set_params(n_jobs=1)
    peers["sklearn"] = {method: getattr(theirs, method) for method in METHODS}
    print(f"  fasttree fit {fit_seconds:.1f} s (n_jobs=2)")
    check_agreement(ours, peers, X_new)

    print(f"  {'batch':>6} {'method':<14}{'fasttree':>10}"
          + "".join(f"{name:>13}{'ratio':>7}" for name in peers)
          + "   (microseconds per row; ratio fasttree / peer)")
    rows = []
    for batch_size, method in itertools.product(args.batch_sizes, METHODS):
        batch_list = batches(X_new, batch_size)
        ours_method = getattr(ours, method)
        row = {"data": label, "batch": batch_size, "method": method}
        for name, methods in peers.items():
            ours_us, theirs_us = per_row_pair(ours_method, methods[method], batch_list,
                                              batch_list, args.repeats)
            row.setdefault("fasttree_us", ours_us)
            row[f"{name}_us"] = theirs_us
            row[f"{name}_ratio"] = ours_us / theirs_us
        print(f"  {batch_size:>6} {method:<14}{row['fasttree_us']:>10.2f}"
              + "".join(f"{row[f'{name}_us']:>13.2f}{row[f'{name}_ratio']:>7.2f}"
                        for name in peers), flush=True)
        rows.append(row)

    framed = fasttree.RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=2,
                                             random_state=0).fit(frame(X_train), y_train)
    framed.set_params(n_jobs=1)
    one_rows = batches(X_new, 1)[:FRAME_ROWS]
    frame_us, array_us = per_row_pair(framed.predict_proba, ours.predict_proba,
                                      [frame(row) for row in one_rows], one_rows,
                                      args.repeats)
    print(f"  one row, predict_proba: DataFrame {frame_us:.2f} us, ndarray {array_us:.2f} us,"
          f" ratio {frame_us / array_us:.2f}")
    rows.append({"data": label, "batch": 1, "method": "predict_proba, DataFrame / ndarray",
                 "fasttree_us": frame_us, "ndarray_us": array_us,
                 "frame_ratio": frame_us / array_us})
    return rows


def main(argv=None):
    """Fit, time and print both data sets; return rows of 'data', 'batch',
    'method', 'fasttree_us' and, per peer timed, '<peer>_us' and '<peer>_ratio'
    (microseconds per row; the peers are 'onnxruntime' and 'sklearn'), and for
    each data set a last row, method 'predict_proba, DataFrame / ndarray', with
    'fasttree_us' (the DataFrame), 'ndarray_us' and their 'frame_ratio'."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=100_000,
                        help="rows of the 2-class data, 80%% to train")
    parser.add_argument("--n-letter", type=int, default=20_000,
                        help="rows of the letter-like data, 80%% to train")
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 10, 100, 10_000])
    parser.add_argument("--quick", action="store_true",
                        help="tiny data and 5 trees, 1 repeat: checks that it runs")
    args = parser.parse_args(argv)
    if args.quick:
        args.n_samples, args.n_letter, args.n_estimators, args.repeats = 3_000, 3_000, 5, 1

    import sklearn

    # onnx, onnxruntime or pandas may warn about versions; keep the table readable.
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    versions = [f"fasttree {fasttree.__version__}", f"scikit-learn {sklearn.__version__}"]
    try:
        import onnxruntime
        versions.append(f"onnxruntime {onnxruntime.__version__}")
    except ImportError:
        pass
    print(f"{', '.join(versions)}; one thread each; median of {args.repeats} rounds")
    rows = []
    for label, X_train, y_train, X_new in data_sets(args.n_samples, args.n_letter):
        rows += compare(label, X_train, y_train, X_new, args)
    return rows


if __name__ == "__main__":
    main()
