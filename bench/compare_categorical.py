"""Forests on categorical data with missing values against scikit-learn.

Usage (from the repository root, with fasttree, pandas and scikit-learn)::

    python bench/compare_categorical.py              # every data set
    python bench/compare_categorical.py --quick      # the small textbook tables only
    python bench/compare_categorical.py --rows 100000 --repeats 3
    python bench/compare_categorical.py --textbook   # small multiway forests, 10 splits
    python bench/compare_categorical.py --many-classes  # 1,000 levels and 1,000 classes

fasttree fits the DataFrame as it is: string and category columns are
categorical (binary subset splits), NaN and None are missing values.
scikit-learn needs them preprocessed: the pipeline a user would write,
``OneHotEncoder(handle_unknown="ignore")`` for the categorical columns (their
missing values first filled with a "missing" category) and a median
``SimpleImputer`` for the numeric ones, then its ``RandomForestClassifier``.
Both forests: 100 trees, ``sqrt`` features, the same number of threads.

Reported per data set: fit time (preprocessing included for scikit-learn),
``predict_proba`` time on new rows, both as medians of ``--repeats`` runs
taken in turns, their ratio fasttree / scikit-learn, and the accuracy of each
on the new rows (for the small tables: the mean over twenty 70/30 splits; with
five, a difference of half a point on a table of 435 rows was noise).

``--textbook``: the textbooks' small forests on the categorical tables (50
trees of 100 drawn rows each, depth 5, half the rows held out; the mean
accuracy over ``--splits`` splits): fasttree's multiway forest (C4.5's gain
ratio, or ID3's information gain), with missing values learnt or fractional,
and its binary-subset forest, against
scikit-learn's forest on one-hot and on ordinal codes; then each multiway
forest's mean difference from scikit-learn's, split by split, with its
standard error.

``--many-classes``: a tree and a 10-tree forest on ``many_levels`` (1,000
rows of three string columns of about 1,000 levels each, and about 1,000
classes), fasttree on the strings against scikit-learn's tree and forest on
one-hot and on ordinal codes: fit times (encoding included), medians of
``--repeats`` runs taken in turns, their ratio, and accuracy on 1,000 new
rows. Few rows of many categories and many classes make every node try an
ordering of its categories per class.

Data: ``synthetic`` (``--rows`` training rows and as many new ones: eight
numeric columns and six string columns of 3 to 5,000 categories, 10% of
every column missing, a target that depends on sets of categories and on
numbers); the German credit, Titanic and congressional votes tables of
``tests/data`` (see its README for their origin).
"""

import argparse
import statistics
from pathlib import Path

import numpy as np

import fasttree
from timing import timed

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CARDINALITIES = (3, 8, 30, 100, 1000, 5000)


def synthetic(n_rows, seed=0):
    """A DataFrame of numbers and strings with gaps, and a binary target."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    columns = {}
    signal = np.zeros(n_rows)
    for index in range(8):
        values = rng.normal(size=n_rows)
        if index < 3:
            signal += (1.0 - 0.3 * index) * values
        values[rng.random(n_rows) < 0.1] = np.nan
        columns[f"number_{index}"] = values
    for index, cardinality in enumerate(CARDINALITIES):
        codes = rng.integers(0, cardinality, n_rows)
        effect = np.random.default_rng(100 + index).normal(size=cardinality)
        signal += 0.8 * effect[codes]
        names = np.array([f"c{index}_{code}" for code in range(cardinality)], dtype=object)
        values = names[codes]
        values[rng.random(n_rows) < 0.1] = None
        columns[f"category_{index}"] = values
    y = (signal + rng.normal(scale=1.0, size=n_rows) > 0).astype(int)
    return pd.DataFrame(columns), y


def many_levels(n_rows, seed=0, n_levels=1000, n_classes=1000):
    """Three string columns of ``n_levels`` levels and a target of
    ``n_classes`` classes, half of it the class of the first column's level."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_levels, (n_rows, 3))
    class_of_level = np.random.default_rng(1000).integers(0, n_classes, n_levels)
    y = np.where(rng.random(n_rows) < 0.5, class_of_level[codes[:, 0]],
                 rng.integers(0, n_classes, n_rows))
    names = np.array([f"v{code}" for code in range(n_levels)], dtype=object)
    return names[codes], y


def table(name):
    import pandas as pd

    frame = pd.read_csv(DATA / f"{name}.csv")
    target = {"german_credit": "class", "titanic_passengers": "survived",
              "congressional_votes": "Class"}[name]
    y = frame.pop(target).to_numpy()
    return frame, y


def sklearn_forest(frame, n_jobs):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from pandas.api.types import is_numeric_dtype

    categorical = [name for name in frame.columns if not is_numeric_dtype(frame[name])]
    numeric = [name for name in frame.columns if name not in categorical]
    encode = make_pipeline(SimpleImputer(strategy="constant", fill_value="missing"),
                           OneHotEncoder(handle_unknown="ignore"))
    prepare = ColumnTransformer([("categorical", encode, categorical),
                                 ("numeric", SimpleImputer(strategy="median"), numeric)])
    return make_pipeline(prepare, RandomForestClassifier(n_estimators=100, n_jobs=n_jobs,
                                                         random_state=0))


def ours(n_jobs):
    return fasttree.RandomForestClassifier(n_estimators=100, n_jobs=n_jobs, random_state=0)


def compare_large(frame, y, new_frame, new_y, repeats, n_jobs):
    """Median fit and predict times, taking turns, and accuracy on the new rows."""
    times = {"fit": [], "predict": []}
    accuracy = {}
    for _ in range(repeats):
        pair = []
        for label, make in (("fasttree", lambda: ours(n_jobs)),
                            ("sklearn", lambda: sklearn_forest(frame, n_jobs))):
            fit_time, model = timed(lambda: make().fit(frame, y))
            predict_time, proba = timed(lambda: model.predict_proba(new_frame))
            accuracy[label] = float(np.mean(model.classes_[proba.argmax(axis=1)] == new_y))
            pair.append((fit_time, predict_time))
        times["fit"].append(pair[0][0] / pair[1][0])
        times["predict"].append(pair[0][1] / pair[1][1])
        times.setdefault("seconds", []).append(pair)
    return times, accuracy


def report(name, times, accuracy):
    """Print one data set's line and return it as a row: 'data', 'fit_seconds'
    (fasttree, scikit-learn), 'fit' and 'predict' ratios and 'accuracy' pairs."""
    seconds = times["seconds"]
    fit = [statistics.median(pair[i][0] for pair in seconds) for i in range(2)]
    predict = [statistics.median(pair[i][1] for pair in seconds) for i in range(2)]
    row = {"data": name, "fit_seconds": tuple(fit), "fit": statistics.median(times["fit"]),
           "predict": statistics.median(times["predict"]),
           "accuracy": (accuracy["fasttree"], accuracy["sklearn"])}
    print(f"{name:20s} fit {fit[0]:7.3f} s vs {fit[1]:7.3f} s  ratio "
          f"{row['fit']:.2f}   predict_proba {predict[0]:6.3f} s vs "
          f"{predict[1]:6.3f} s  ratio {row['predict']:.2f}   "
          f"accuracy {accuracy['fasttree']:.4f} vs {accuracy['sklearn']:.4f}", flush=True)
    return row


def compare_small(name, repeats, n_jobs, n_splits=20):
    frame, y = table(name)
    rng = np.random.default_rng(0)
    scores = {"fasttree": [], "sklearn": []}
    all_times = {"fit": [], "predict": [], "seconds": []}
    for split in range(n_splits):
        order = rng.permutation(len(y))
        train, test = order[:int(0.7 * len(y))], order[int(0.7 * len(y)):]
        times, accuracy = compare_large(frame.iloc[train], y[train], frame.iloc[test],
                                        y[test], repeats if split == 0 else 1, n_jobs)
        for key in all_times:
            all_times[key] += times[key]
        for label in scores:
            scores[label].append(accuracy[label])
    return report(name, all_times,
                  {label: float(np.mean(value)) for label, value in scores.items()})


def sklearn_ordinal_forest(frame, **params):
    """scikit-learn's forest on ordinal codes (categories numbered, gaps filled)."""
    from pandas.api.types import is_numeric_dtype
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    categorical = [name for name in frame.columns if not is_numeric_dtype(frame[name])]
    numeric = [name for name in frame.columns if name not in categorical]
    encode = make_pipeline(SimpleImputer(strategy="constant", fill_value="missing"),
                           OrdinalEncoder(handle_unknown="use_encoded_value",
                                          unknown_value=-1))
    prepare = ColumnTransformer([("categorical", encode, categorical),
                                 ("numeric", SimpleImputer(strategy="median"), numeric)])
    return make_pipeline(prepare, RandomForestClassifier(**params))


def compare_textbook_forests(n_splits=10):
    """Small forests on the categorical tables: 50 trees of 100 drawn rows,
    depth 5, half the rows held out. Prints and returns the mean accuracy over
    ``n_splits`` splits, a row of 'data' and 'accuracy' (model name to mean)
    per table."""
    from sklearn.ensemble import RandomForestClassifier

    shape = {"n_estimators": 50, "max_samples": 100, "max_depth": 5}
    rows = []
    for name in ("german_credit", "titanic_passengers", "congressional_votes"):
        frame, y = table(name)
        scores = {}
        for split in range(n_splits):
            order = np.random.default_rng(split).permutation(len(y))
            train, test = order[:len(y) // 2], order[len(y) // 2:]
            models = {
                "fasttree multiway (gain ratio)": fasttree.RandomForestClassifier(
                    criterion="gain_ratio", categorical_split="multiway", random_state=split,
                    **shape),
                "fasttree multiway (entropy)": fasttree.RandomForestClassifier(
                    criterion="entropy", categorical_split="multiway", random_state=split,
                    **shape),
                "fasttree multiway, fractional": fasttree.RandomForestClassifier(
                    criterion="gain_ratio", categorical_split="multiway",
                    missing="fractional", random_state=split, **shape),
                "fasttree binary subsets": fasttree.RandomForestClassifier(
                    random_state=split, **shape),
                "sklearn one-hot": sklearn_forest(frame, 1).set_params(
                    randomforestclassifier__random_state=split,
                    **{f"randomforestclassifier__{key}": value for key, value in shape.items()}),
                "sklearn ordinal": sklearn_ordinal_forest(frame, random_state=split, **shape),
            }
            for label, model in models.items():
                model.fit(frame.iloc[train], y[train])
                accuracy = float(np.mean(model.predict(frame.iloc[test]) == y[test]))
                scores.setdefault(label, []).append(accuracy)
        text = ", ".join(f"{label} {np.mean(values):.4f}" for label, values in scores.items())
        print(f"{name:20s} {text}", flush=True)
        # The same splits for every model: their differences, split by split,
        # vary far less than their accuracies do.
        for label in (label for label in scores if "multiway" in label):
            differences = ", ".join(
                f"{paired_difference(scores[label], scores[peer])} vs {peer}"
                for peer in ("sklearn one-hot", "sklearn ordinal"))
            print(f"{'':20s}   {label}: {differences}", flush=True)
        rows.append({"data": name, "accuracy": {label: float(np.mean(values))
                                                for label, values in scores.items()}})
    return rows


def sklearn_encoded(model, encoding):
    """A scikit-learn model after a one-hot or an ordinal encoding of every column."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    encoder = (OneHotEncoder(handle_unknown="ignore") if encoding == "one-hot" else
               OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1))
    return make_pipeline(encoder, model)


def compare_many_classes(repeats, n_jobs, n_rows=1000):
    """A tree and a 10-tree forest on ``many_levels``: fasttree on the strings
    against scikit-learn on one-hot and on ordinal codes. Prints and returns a
    row per model and encoding: 'model', 'encoding', 'fit_seconds' (fasttree,
    scikit-learn), 'fit' (their ratio) and 'accuracy' pairs."""
    import warnings

    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier

    # (scikit-learn warns that so many classes might be a regression target.)
    warnings.filterwarnings("ignore", message="The number of unique classes")
    X, y = many_levels(n_rows, 0)
    X_new, y_new = many_levels(n_rows, 1)
    models = {"tree": (lambda: fasttree.DecisionTreeClassifier(random_state=0),
                       lambda: DecisionTreeClassifier(random_state=0)),
              "forest of 10": (
                  lambda: fasttree.RandomForestClassifier(n_estimators=10, n_jobs=n_jobs,
                                                          random_state=0),
                  lambda: RandomForestClassifier(n_estimators=10, n_jobs=n_jobs,
                                                 random_state=0))}
    rows = []
    for label, (make_ours, make_theirs) in models.items():
        for encoding in ("one-hot", "ordinal"):
            seconds = []
            for _ in range(repeats):
                ours_time, ours_model = timed(lambda: make_ours().fit(X, y))
                theirs_time, theirs_model = timed(
                    lambda: sklearn_encoded(make_theirs(), encoding).fit(X, y))
                seconds.append((ours_time, theirs_time))
            fit = [statistics.median(pair[side] for pair in seconds) for side in (0, 1)]
            accuracy = tuple(float(np.mean(model.predict(X_new) == y_new))
                             for model in (ours_model, theirs_model))
            row = {"model": label, "encoding": encoding, "fit_seconds": tuple(fit),
                   "fit": statistics.median(ours / theirs for ours, theirs in seconds),
                   "accuracy": accuracy}
            print(f"{label:12s} vs sklearn {encoding:8s} fit {fit[0]:7.3f} s vs {fit[1]:7.3f} s"
                  f"  ratio {row['fit']:.2f}   accuracy {accuracy[0]:.4f} vs {accuracy[1]:.4f}",
                  flush=True)
            rows.append(row)
    return rows


def paired_difference(ours, theirs):
    """Mean difference in points, with its standard error over the splits."""
    difference = 100 * (np.asarray(ours) - np.asarray(theirs))
    error = difference.std(ddof=1) / np.sqrt(difference.size) if difference.size > 1 else 0.0
    return f"{difference.mean():+.2f} (± {error:.2f}) points"


def main(argv=None):
    """Run the chosen comparisons, print them and return their rows (see
    ``report`` and ``compare_textbook_forests``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small tables only")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--textbook", action="store_true",
                        help="only the small multiway forests on the categorical tables")
    parser.add_argument("--many-classes", action="store_true",
                        help="only the tree and small forest on 1,000 levels and classes")
    parser.add_argument("--splits", type=int, default=None,
                        help="splits of the small tables (default 20, 10 for --textbook)")
    args = parser.parse_args(argv)
    if args.textbook:
        return compare_textbook_forests(args.splits or 10)
    if args.many_classes:
        return compare_many_classes(args.repeats, args.n_jobs,
                                    min(args.rows, 1000) if args.quick else 1000)
    rows = [compare_small(name, args.repeats, args.n_jobs, args.splits or 20)
            for name in ("german_credit", "titanic_passengers", "congressional_votes")]
    if args.quick:
        return rows
    frame, y = synthetic(2 * args.rows)
    train, new = slice(0, args.rows), slice(args.rows, None)
    times, accuracy = compare_large(frame.iloc[train], y[train], frame.iloc[new], y[new],
                                    args.repeats, args.n_jobs)
    return rows + [report(f"synthetic {args.rows:,} rows", times, accuracy)]


if __name__ == "__main__":
    main()
