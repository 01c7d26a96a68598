"""Pickled size of forests against scikit-learn's, for few and many classes,
and the size of fasttree's model file.

Usage (from the repository root, with fasttree and scikit-learn installed)::

    python bench/compare_model_size.py
    python bench/compare_model_size.py --classes 26 --n-estimators 100

Data: ``make_classification(n_samples, 20 features, 15 informative,
n_classes, n_clusters_per_class=1, random_state=0)``. Both forests grow
``n_estimators`` full trees with sqrt features on two threads; the script
prints the bytes of ``pickle.dumps`` of each, their ratio (fasttree /
scikit-learn), the bytes of fasttree's model file (``forest.save``), and
checks that the forest reloaded from each predicts exactly as before.
"""

import argparse
import os
import pickle
import tempfile

import numpy as np

import fasttree


def main(argv=None):
    """Fit both forests for each class count, print their pickled sizes and
    return them as rows of 'classes', 'bytes' (fasttree, scikit-learn) and
    'file_bytes' (fasttree's model file)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=20_000)
    parser.add_argument("--n-estimators", type=int, default=100)
    parser.add_argument("--classes", type=int, nargs="*", default=[2, 10, 26, 100])
    args = parser.parse_args(argv)

    import sklearn
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    print(f"{args.n_samples} x 20, {args.n_estimators} trees; fasttree {fasttree.__version__}, "
          f"scikit-learn {sklearn.__version__}")
    print(f"{'classes':>8}{'fasttree MB':>13}{'sklearn MB':>12}{'ratio':>8}{'file MB':>9}"
          f"{'nodes/tree':>12}")
    rows = []
    for n_classes in args.classes:
        X, y = make_classification(n_samples=args.n_samples, n_features=20, n_informative=15,
                                   n_classes=n_classes, n_clusters_per_class=1,
                                   random_state=0)
        ours = fasttree.RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=2,
                                               random_state=0).fit(X, y)
        theirs = RandomForestClassifier(n_estimators=args.n_estimators, n_jobs=2,
                                        random_state=0).fit(X, y)
        ours_bytes, theirs_bytes = pickle.dumps(ours), pickle.dumps(theirs)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "forest.ft")
            ours.save(path)
            file_bytes = os.path.getsize(path)
            from_file = fasttree.load(path)
        for reloaded in (pickle.loads(ours_bytes), from_file):
            if not np.array_equal(reloaded.predict_proba(X), ours.predict_proba(X)):
                raise SystemExit("a reloaded forest predicts differently")
        nodes = np.mean([member.tree_.node_count for member in ours.estimators_])
        print(f"{n_classes:>8}{len(ours_bytes) / 1e6:>13.2f}{len(theirs_bytes) / 1e6:>12.2f}"
              f"{len(ours_bytes) / len(theirs_bytes):>8.3f}{file_bytes / 1e6:>9.2f}"
              f"{nodes:>12.0f}", flush=True)
        rows.append({"classes": n_classes, "bytes": (len(ours_bytes), len(theirs_bytes)),
                     "file_bytes": file_bytes})
    return rows


if __name__ == "__main__":
    main()
