"""The command line: ``python -m fasttree train | predict | evaluate | show``.

Every failure the user can cause (a missing file, a bad CSV, an unknown
column, a target of one class, a corrupt model) ends as one line on standard
error and exit status 1; a wrong command line as argparse's usage and 2.
"""

import argparse
import ast
import sys
import time

import numpy as np

from ._model_file import ModelFileError, load
from ._tables import TableError, read_table, write_csv

MODEL_KINDS = ("tree", "forest", "extra-trees", "bagging", "adaboost")
# A numeric target of at most this many distinct whole numbers is taken as
# class labels (task 'auto').
MAX_AUTO_CLASSES = 50


class CommandError(ValueError):
    """A mistake in what the command was asked to do."""


def estimator_class(kind, task):
    """The estimator class of a ``--model`` kind for a task."""
    from . import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                   BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                   ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                   RandomForestRegressor)
    classes = {
        "tree": (DecisionTreeClassifier, DecisionTreeRegressor),
        "forest": (RandomForestClassifier, RandomForestRegressor),
        "extra-trees": (ExtraTreesClassifier, ExtraTreesRegressor),
        "bagging": (BaggingClassifier, BaggingRegressor),
        "adaboost": (AdaBoostClassifier, AdaBoostRegressor),
    }
    return classes[kind][0 if task == "classification" else 1]


def parameter_value(text):
    """A ``--param`` value: a Python literal (number, string, None, True,
    list, dict), or else the text itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def build_estimator(args, task):
    cls = estimator_class(args.model, task)
    known = set(cls().get_params())
    params = {}
    for name, value in (("max_depth", args.max_depth), ("n_estimators", args.n_estimators),
                        ("min_samples_leaf", args.min_samples_leaf),
                        ("max_features", args.max_features), ("criterion", args.criterion),
                        ("random_state", args.random_state), ("n_jobs", args.n_jobs)):
        if value is None:
            continue
        if name not in known:
            raise CommandError(f"--{name.replace('_', '-')} does not apply to "
                               f"--model {args.model} ({cls.__name__})")
        params[name] = value
    for assignment in args.param or ():
        name, equals, text = assignment.partition("=")
        name = name.strip().replace("-", "_")
        if not equals or not name:
            raise CommandError(f"--param takes NAME=VALUE; got {assignment!r}")
        if name not in known:
            raise CommandError(f"{cls.__name__} has no parameter {name!r} (it has: "
                               f"{', '.join(sorted(known))})")
        params[name] = parameter_value(text)
    progress = sys.stderr.isatty() if args.progress is None else args.progress
    if "verbose" in known and "verbose" not in params:
        params["verbose"] = int(progress)
    return cls(**params)


def max_features_value(text):
    if text in ("sqrt", "log2"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be sqrt, log2, a count or a fraction") from None
    return int(value) if value.is_integer() and value >= 1 and "." not in text else value


def target_of(table, name, task):
    """The target column, its task, and the table without it."""
    target = table.column(name)
    rest = table.without(name)
    if not rest.names:
        raise CommandError("the data has no column besides the target")
    if target.dtype == object:
        missing = np.array([value is None for value in target])
    else:
        missing = np.isnan(target)
    if missing.any():
        raise CommandError(f"the target column {name!r} has {int(missing.sum())} missing "
                           "values; drop or fill those rows")
    if task == "auto":
        whole = target.dtype != object and np.array_equal(target, np.round(target))
        task = ("classification" if target.dtype == object or (
            whole and np.unique(target).shape[0] <= MAX_AUTO_CLASSES) else "regression")
    if task == "classification":
        if target.dtype != object and np.array_equal(target, np.round(target)):
            target = target.astype(np.int64)
        if np.unique(target.astype(str) if target.dtype == object else target).shape[0] < 2:
            raise CommandError(f"the target column {name!r} has only one class; a "
                               "classifier needs two or more")
    elif target.dtype == object:
        raise CommandError(f"the target column {name!r} holds text; regression needs numbers "
                           "(use --task classification)")
    return target, task, rest


def fitted_on(estimator, table, target):
    """``estimator`` fitted on the table's columns, knowing their names."""
    estimator.fit(table.matrix(), target)
    estimator.feature_names_in_ = np.array(table.names, dtype=object)
    return estimator


def command_train(args):
    table = read_table(args.data)
    target, task, features = target_of(table, args.target, args.task)
    estimator = build_estimator(args, task)
    start = time.perf_counter()
    fitted_on(estimator, features, target)
    seconds = time.perf_counter() - start
    estimator.save(args.out)
    score = estimator.score(features.matrix(), target)
    what = "accuracy" if task == "classification" else "R^2"
    print(f"trained {type(estimator).__name__} on {table.n_rows} rows x "
          f"{len(features.names)} features in {seconds:.2f} s; training {what} {score:.4f}")
    print(f"saved to {args.out}")
    return 0


def model_rows(model, table):
    """The rows of ``table`` the model reads: its training columns by name."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return table.select([str(name) for name in names]).matrix()
    return table.matrix()


def command_predict(args):
    model = load(args.model_file)
    rows = model_rows(model, read_table(args.data))
    predicted = model.predict(rows)
    names, columns = ["prediction"], [np.asarray(predicted).tolist()]
    if args.proba:
        if not hasattr(model, "predict_proba"):
            raise CommandError(f"--proba needs a classifier; {type(model).__name__} predicts "
                               "numbers")
        probabilities = model.predict_proba(rows)
        if isinstance(probabilities, list):
            raise CommandError("--proba is for models of one target column")
        names += [f"proba_{label}" for label in model.classes_]
        columns += [probabilities[:, k] for k in range(probabilities.shape[1])]
    write_csv(args.out, names, columns)
    if args.out is not None:
        print(f"wrote {len(predicted)} predictions to {args.out}", file=sys.stderr)
    return 0


def fold_indices(n_rows, n_folds, seed):
    """Shuffled folds: each row in exactly one."""
    order = np.random.default_rng(seed).permutation(n_rows)
    return np.array_split(order, n_folds)


def command_evaluate(args):
    table = read_table(args.data)
    target, task, features = target_of(table, args.target, args.task)
    if not 2 <= args.cv <= table.n_rows:
        raise CommandError(f"--cv must be between 2 and the number of rows ({table.n_rows})")
    matrix = features.matrix()
    predicted = np.empty(table.n_rows, dtype=target.dtype)
    for fold in fold_indices(table.n_rows, args.cv, args.random_state or 0):
        train = np.setdiff1d(np.arange(table.n_rows), fold)
        estimator = build_estimator(args, task).fit(matrix[train], target[train])
        predicted[fold] = estimator.predict(matrix[fold])
    name = type(build_estimator(args, task)).__name__
    print(f"{name}, {args.cv}-fold cross-validation on {table.n_rows} rows x "
          f"{len(features.names)} features")
    if task == "regression":
        residual = target - predicted
        r2 = 1.0 - np.sum(residual ** 2) / max(np.sum((target - target.mean()) ** 2), 1e-300)
        print(f"R^2: {r2:.4f}")
        print(f"MAE: {np.mean(np.abs(residual)):.4f}")
        return 0
    labels = np.unique(target)
    matrix_counts = np.zeros((labels.shape[0], labels.shape[0]), dtype=np.int64)
    truth = np.searchsorted(labels, target)
    guess = np.searchsorted(labels, predicted)
    np.add.at(matrix_counts, (truth, guess), 1)
    recall = np.diag(matrix_counts) / matrix_counts.sum(axis=1)
    print(f"accuracy: {np.mean(predicted == target):.4f}")
    print(f"balanced accuracy: {recall.mean():.4f}")
    print("confusion matrix (rows: true class, columns: predicted):")
    width = max(6, *(len(str(label)) for label in labels))
    print(" " * width + "".join(f" {str(label):>{width}}" for label in labels))
    for label, counts in zip(labels, matrix_counts):
        print(f"{str(label):>{width}}" + "".join(f" {count:>{width}d}" for count in counts))
    return 0


def command_show(args):
    from .rules import export_text
    model = load(args.model_file)
    names = getattr(model, "feature_names_in_", None)
    names = None if names is None else [str(name) for name in names]
    print(f"{type(model).__name__} ({model.n_features_in_} features"
          + (f", classes {list(np.asarray(model.classes_).tolist())})"
             if isinstance(getattr(model, "classes_", None), np.ndarray) else ")"))
    members = getattr(model, "estimators_", None)
    if members is not None:
        print(f"trees: {len(members)}")
    elif hasattr(model, "tree_"):
        print(f"depth {model.get_depth()}, {model.get_n_leaves()} leaves")
    changed = {name: value for name, value in model.get_params(deep=False).items()
               if value != type(model)().get_params(deep=False)[name]}
    print("parameters: " + (", ".join(f"{name}={value!r}" for name, value in changed.items())
                            or "the defaults"))
    if args.importances:
        importances = np.asarray(model.feature_importances_)
        print("feature importances:")
        for index in np.argsort(-importances, kind="stable"):
            label = names[index] if names else f"feature {index}"
            print(f"  {label:<30} {importances[index]:.4f}")
    if args.rules:
        tree, tree_names = model, names
        if members is not None:
            if not 0 <= args.tree < len(members):
                raise CommandError(f"--tree must be below {len(members)}")
            tree = members[args.tree]
            subsets = getattr(model, "estimators_features_", None)
            if names is not None and subsets is not None:
                tree_names = [names[index] for index in subsets[args.tree]]
            print(f"rules of tree {args.tree}:")
        print(export_text(tree, feature_names=tree_names))
    return 0


def add_model_options(parser):
    parser.add_argument("--model", choices=MODEL_KINDS, default="tree",
                        help="what to train (default: tree)")
    parser.add_argument("--task", choices=("auto", "classification", "regression"),
                        default="auto",
                        help="auto: classification for a text target or one of at most "
                             f"{MAX_AUTO_CLASSES} whole numbers, else regression")
    parser.add_argument("--max-depth", type=int, metavar="N")
    parser.add_argument("--n-estimators", type=int, metavar="N",
                        help="members of a forest, bagging or AdaBoost")
    parser.add_argument("--min-samples-leaf", type=int, metavar="N")
    parser.add_argument("--max-features", type=max_features_value, metavar="M",
                        help="sqrt, log2, a count or a fraction of the features")
    parser.add_argument("--criterion", metavar="NAME", help="gini, entropy, squared_error, ...")
    parser.add_argument("--random-state", type=int, metavar="SEED")
    parser.add_argument("--n-jobs", type=int, metavar="N", help="threads for ensembles")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="report ensembles' members done, time elapsed and left on "
                             "standard error (default: when it is a terminal)")
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="any other parameter of the estimator (repeatable), as a "
                             "Python literal: --param ccp_alpha=0.01 --param "
                             "class_weight=\"'balanced'\"")


def parser_of():
    parser = argparse.ArgumentParser(
        prog="python -m fasttree",
        description="Train, use and inspect fasttree models on CSV or Parquet files. "
                    "Without a command, fits a tree on bundled data (the demo). Text "
                    "columns are categorical features; empty cells, NA, NaN and ? are "
                    "missing values.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    train = commands.add_parser("train", help="fit a model and save it",
                                description="Fit a model on a table and save it as a "
                                            "fasttree model file.")
    train.add_argument("data", help="CSV or Parquet (.parquet) file with a header")
    train.add_argument("--target", required=True, metavar="COLUMN", help="the column to learn")
    add_model_options(train)
    train.add_argument("--out", default="model.ft", metavar="PATH",
                       help="where to save the model (default: model.ft)")
    predict = commands.add_parser("predict", help="predict with a saved model",
                                  description="Predict every row of a table with a saved "
                                              "model; the columns are matched by name.")
    predict.add_argument("model_file", metavar="MODEL", help="a file written by train")
    predict.add_argument("data", help="CSV or Parquet file with the model's columns")
    predict.add_argument("--out", metavar="PATH", help="CSV to write (default: standard output)")
    predict.add_argument("--proba", action="store_true",
                         help="add each class's probability (classifiers)")
    evaluate = commands.add_parser("evaluate", help="cross-validate a model",
                                   description="Cross-validated scores: accuracy, balanced "
                                               "accuracy and the confusion matrix of a "
                                               "classifier; R^2 and MAE of a regressor.")
    evaluate.add_argument("data", help="CSV or Parquet file with a header")
    evaluate.add_argument("--target", required=True, metavar="COLUMN")
    evaluate.add_argument("--cv", type=int, default=5, metavar="K", help="folds (default: 5)")
    add_model_options(evaluate)
    show = commands.add_parser("show", help="describe a saved model",
                               description="A saved model's kind, size and parameters; "
                                           "its rules and feature importances on request.")
    show.add_argument("model_file", metavar="MODEL")
    show.add_argument("--rules", action="store_true", help="print the tree as if-then rules")
    show.add_argument("--tree", type=int, default=0, metavar="N",
                      help="which member's rules, for ensembles (default: 0)")
    show.add_argument("--importances", action="store_true",
                      help="print the feature importances")
    commands.add_parser("demo", help="fit a tree on the bundled data (the default)")
    return parser


COMMANDS = {"train": command_train, "predict": command_predict,
            "evaluate": command_evaluate, "show": command_show}


def run(argv):
    """Run a command (``argv`` without the program name); the exit status."""
    args = parser_of().parse_args(argv)
    try:
        status = COMMANDS[args.command](args)
        sys.stdout.flush()
        return status
    except (TableError, ModelFileError, CommandError) as error:
        return fail(error)
    except FileNotFoundError as error:
        return fail(f"no such file: {error.filename}")
    except BrokenPipeError:
        # The reader stopped early (| head): not a mistake of the user's.
        # Standard output is pointed at /dev/null so the exit's flush passes.
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ValueError, TypeError, MemoryError) as error:
        return fail(error)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # noqa: BLE001 (one line, never a traceback)
        return fail(f"{type(error).__name__}: {error}")


def fail(message):
    print(f"fasttree: error: {message}", file=sys.stderr)
    return 1
