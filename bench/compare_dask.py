"""Random forests on a Dask LocalCluster against the local forest, side by side.

Usage (from the repository root, with fasttree's ``dask`` and ``test`` extras)::

    python bench/compare_dask.py                      # 100,000 x 50, 40 trees
    python bench/compare_dask.py --mode partitioned
    python bench/compare_dask.py --n-samples 20000 --n-estimators 8 --repeats 1   # quick

Fits ``RandomForestClassifier(n_estimators, random_state=0)`` on
``make_classification`` float32 rows three ways, in turns, each repeat: the
local forest on one thread (``n_jobs=1``), ``DaskRandomForestClassifier`` on
a ``LocalCluster`` of one single-threaded worker process, and on one of two.
Both clusters are started before the timing and kept; the data is passed as
numpy arrays, so each fit includes placing it on the workers. Reported: the
median fit seconds, the rate of trees on two workers against one (the
issue's target: at least 1.7x, replicated) and the overhead of one worker
against the local forest (target: at most 10%). The replicated forests are
checked to equal the local one.
"""

import argparse
import statistics

import numpy as np

import fasttree
from compare import make_data
from timing import timed


def main(argv=None):
    """Print the table; return the median times and the two ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--n-features", type=int, default=50)
    parser.add_argument("--n-estimators", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--mode", choices=("replicated", "partitioned"), default="replicated")
    args = parser.parse_args(argv)

    from distributed import Client, LocalCluster

    from fasttree.dask import DaskRandomForestClassifier

    X, y = make_data("classification", args.n_samples, args.n_features)
    params = {"n_estimators": args.n_estimators, "random_state": 0}
    clusters = {}
    for n_workers in (1, 2):
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=40)
        clusters[n_workers] = (cluster, Client(cluster, set_as_default=False))
    times = {"local": [], 1: [], 2: []}
    forests = {}
    try:
        for _ in range(args.repeats):
            seconds, forests["local"] = timed(lambda: fasttree.RandomForestClassifier(
                n_jobs=1, **params).fit(X, y))
            times["local"].append(seconds)
            for n_workers, (_, client) in clusters.items():
                seconds, forests[n_workers] = timed(lambda: DaskRandomForestClassifier(
                    client=client, mode=args.mode, **params).fit(X, y))
                times[n_workers].append(seconds)
    finally:
        for cluster, client in clusters.values():
            client.close()
            cluster.close()
    if args.mode == "replicated":
        for n_workers in (1, 2):
            if not np.array_equal(forests[n_workers].predict_proba(X[:2000]),
                                  forests["local"].predict_proba(X[:2000])):
                raise SystemExit(f"error: the forest of {n_workers} workers is not the local one")
    medians = {key: statistics.median(values) for key, values in times.items()}
    rate = medians[1] / medians[2]
    overhead = medians[1] / medians["local"] - 1
    print(f"{args.n_samples} x {args.n_features} float32, {args.n_estimators} trees, "
          f"mode={args.mode!r}, median of {args.repeats}")
    print(f"{'fit':<34}{'seconds':>10}")
    print(f"{'local forest, 1 thread':<34}{medians['local']:>10.2f}")
    print(f"{'Dask, 1 worker x 1 thread':<34}{medians[1]:>10.2f}")
    print(f"{'Dask, 2 workers x 1 thread':<34}{medians[2]:>10.2f}")
    print(f"rate of trees, 2 workers / 1: {rate:.2f}x; overhead of 1 worker against the "
          f"local forest: {100 * overhead:+.1f}%")
    return {"seconds": medians, "rate": rate, "overhead": overhead}


if __name__ == "__main__":
    main()
