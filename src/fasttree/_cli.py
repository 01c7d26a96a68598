"""The command line: ``python -m fasttree train | predict | evaluate | show``.

Every failure the user can cause (a missing file, a bad CSV, an unknown
column, a target of one class, a corrupt model) ends as one line on standard
error and exit status 1; a wrong command line as argparse's usage and 2.
"""

import argparse
import ast
import os
import re
import shlex
import sys
import time

import numpy as np

from ._model_file import ModelFileError, load
from ._tables import TableError, read_table, write_csv

MODEL_KINDS = ("tree", "forest", "extra-trees", "bagging", "adaboost", "quantile-forest",
               "quantile-extra-trees")
# A numeric target of at most this many distinct whole numbers is taken as
# class labels (task 'auto').
MAX_AUTO_CLASSES = 50
# A target column of numbers in which at most this share of the cells is text
# is refused (unless --task classification): the text is most likely a typo.
MAX_STRAY_TEXT = 0.1


class CommandError(ValueError):
    """A mistake in what the command was asked to do."""


def estimator_class(kind, task):
    """The estimator class of a ``--model`` kind for a task."""
    from . import (AdaBoostClassifier, AdaBoostRegressor, BaggingClassifier,
                   BaggingRegressor, DecisionTreeClassifier, DecisionTreeRegressor,
                   ExtraTreesClassifier, ExtraTreesQuantileRegressor, ExtraTreesRegressor,
                   RandomForestClassifier, RandomForestQuantileRegressor,
                   RandomForestRegressor)
    classes = {
        "tree": (DecisionTreeClassifier, DecisionTreeRegressor),
        "forest": (RandomForestClassifier, RandomForestRegressor),
        "extra-trees": (ExtraTreesClassifier, ExtraTreesRegressor),
        "bagging": (BaggingClassifier, BaggingRegressor),
        "adaboost": (AdaBoostClassifier, AdaBoostRegressor),
        "quantile-forest": (None, RandomForestQuantileRegressor),
        "quantile-extra-trees": (None, ExtraTreesQuantileRegressor),
    }
    cls = classes[kind][0 if task == "classification" else 1]
    if cls is None:
        raise CommandError(f"--model {kind} predicts quantiles of a number; the target is "
                           "classes (use --task regression for a numeric target)")
    return cls


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


def quantile_list(text):
    """A ``--quantiles`` value: comma-separated numbers in [0, 1]."""
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"quantiles are numbers in [0, 1]; got {text!r}") from None
    if not values or not all(0.0 <= value <= 1.0 for value in values):
        raise argparse.ArgumentTypeError(f"quantiles are numbers in [0, 1]; got {text!r}")
    return values


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
                           f"value{'s' if missing.sum() > 1 else ''}; drop or fill those rows")
    if target.dtype == object and task != "classification":
        refuse_stray_text(table, name, task)
    if task == "auto":
        whole = target.dtype != object and np.array_equal(target, np.round(target))
        task = ("classification" if target.dtype == object or (
            whole and np.unique(target).shape[0] <= MAX_AUTO_CLASSES) else "regression")
        if task == "classification":
            refuse_a_class_per_row(target, name)
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


def is_number(text):
    """Whether a cell's text reads as a number."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def refuse_stray_text(table, name, task):
    """CommandError for a target column of numbers with a few cells of text
    (at most the share ``MAX_STRAY_TEXT`` of its cells): a typo or a mark of a
    missing value far more often than a class label, and it would turn a
    regression into a classification of every distinct number."""
    target = table.column(name)
    text_rows = [row for row, cell in enumerate(target) if not is_number(cell)]
    if not text_rows or len(text_rows) > MAX_STRAY_TEXT * len(target):
        return
    shown = ", ".join(f"{target[row]!r} ({table.place(row)})" for row in text_rows[:3])
    more = f" and {len(text_rows) - 3} more" if len(text_rows) > 3 else ""
    advice = ("correct those cells or drop their rows" if task == "regression" else
              "correct those cells or drop their rows, or pass --task classification if "
              "the column holds class labels")
    raise CommandError(f"the target column {name!r} holds numbers but {len(text_rows)} "
                       f"cell{'s' if len(text_rows) > 1 else ''} of text: {shown}{more}; "
                       f"{advice}")


def refuse_a_class_per_row(target, name):
    """CommandError for a target (taken as classes by ``--task auto``) in which
    most rows have a class of their own: an identifier or a free-text column,
    not something a classifier can learn."""
    labels = target.astype(str) if target.dtype == object else target
    classes, counts = np.unique(labels, return_counts=True)
    alone = int(np.sum(counts == 1))
    if alone > len(target) / 2:
        raise CommandError(f"the target column {name!r} has {len(classes)} classes in "
                           f"{len(target)} rows, {alone} of them a class of one row, which no "
                           "classifier learns from; choose another target, or pass --task "
                           "classification to fit it anyway")


def fitted_on(estimator, table, target):
    """``estimator`` fitted on the table's columns, knowing their names."""
    estimator.fit(table.matrix(), target)
    estimator.feature_names_in_ = np.array(table.names, dtype=object)
    return estimator


def check_output(path):
    """CommandError, before any work, when ``--out`` cannot be written: its
    directory does not exist, or it is a directory."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CommandError(f"cannot write --out {path}: the directory "
                           f"{os.path.dirname(path) or directory} does not exist")
    if os.path.isdir(path):
        raise CommandError(f"cannot write --out {path}: it is a directory; give a file name")


def dropped_names(args):
    """The column names of every ``--drop``, split at commas."""
    return [name.strip() for option in args.drop or () for name in option.split(",")
            if name.strip()]


def learning_data(args):
    """The target, the task and the feature columns of ``args.data``, without
    the ``--drop`` columns; a warning for each feature that looks like a row
    identifier."""
    table = read_table(args.data)
    dropped = dropped_names(args)
    for name in dropped:
        if name == args.target:
            raise CommandError(f"--drop names the target column {name!r}")
        if name not in table.columns:
            raise CommandError(f"--drop names no column of the data: {name!r} (the columns "
                               f"are: {', '.join(table.names)})")
    kept = table.select([name for name in table.names if name not in dropped])
    if dropped and kept.names == [args.target]:
        raise CommandError("--drop leaves no column besides the target")
    target, task, features = target_of(kept, args.target, args.task)
    for name in features.names:
        reason = row_identifier_reason(name, features.column(name))
        if reason:
            print(f"fasttree: warning: the column {name!r} looks like a row identifier "
                  f"({reason}), which a model only memorises; --drop {shlex.quote(name)} "
                  "unless it means something", file=sys.stderr)
    return target, task, features


# Value-based identifier warnings need at least this many rows (a toy file's
# few rows are often numbered by chance).
MIN_ROWS_FOR_IDENTIFIERS = 10
IDENTIFIER_NAME = re.compile(r"(?i:^(id|index|row|rowid|row_id)$|[_\s.-]id$)|[a-z](Id|ID)$")


def row_identifier_reason(name, column):
    """Why a feature column looks like a row identifier, or None: a name such
    as ``id`` or ``customer_id``; the numbers 0 to n-1 or 1 to n, each once;
    a text in every row of its own."""
    if IDENTIFIER_NAME.search(name):
        return "by its name"
    if len(column) < MIN_ROWS_FOR_IDENTIFIERS:
        return None
    if column.dtype == object:
        if all(value is not None for value in column) and len(set(column)) == len(column):
            return "a different text in every row"
        return None
    numbers = np.sort(column)
    for first in (0, 1):
        if np.array_equal(numbers, np.arange(first, first + len(column))):
            return f"the numbers {first} to {first + len(column) - 1}, each once"
    return None


def command_train(args):
    check_output(args.out)
    target, task, features = learning_data(args)
    estimator = build_estimator(args, task)
    start = time.perf_counter()
    fitted_on(estimator, features, target)
    seconds = time.perf_counter() - start
    estimator.save(args.out)
    score = estimator.score(features.matrix(), target)
    what = "accuracy" if task == "classification" else "R^2"
    print(f"trained {type(estimator).__name__} on {features.n_rows} rows x "
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
    if args.out is not None:
        check_output(args.out)
    model = load(args.model_file)
    rows = model_rows(model, read_table(args.data))
    predicted = model.predict(rows)
    names, columns = ["prediction"], [np.asarray(predicted).tolist()]
    if args.quantiles is not None:
        if not hasattr(model, "quantile_ranks"):
            raise CommandError(f"--quantiles needs a quantile forest (--model quantile-forest "
                               f"or quantile-extra-trees); this is a {type(model).__name__}")
        if model.n_outputs_ != 1:
            raise CommandError("--quantiles is for models of one target column")
        quantiles = model.predict(rows, quantiles=list(args.quantiles)).reshape(len(rows), -1)
        names += [f"quantile_{q:g}" for q in args.quantiles]
        columns += [quantiles[:, k] for k in range(quantiles.shape[1])]
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
    target, task, features = learning_data(args)
    if not 2 <= args.cv <= features.n_rows:
        raise CommandError(f"--cv must be between 2 and the number of rows ({features.n_rows})")
    matrix = features.matrix()
    predicted = np.empty(features.n_rows, dtype=target.dtype)
    for fold in fold_indices(features.n_rows, args.cv, args.random_state or 0):
        train = np.setdiff1d(np.arange(features.n_rows), fold)
        estimator = build_estimator(args, task).fit(matrix[train], target[train])
        predicted[fold] = estimator.predict(matrix[fold])
    name = type(build_estimator(args, task)).__name__
    print(f"{name}, {args.cv}-fold cross-validation on {features.n_rows} rows x "
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
    model = load(args.model_file)
    members = getattr(model, "estimators_", None)
    rule_list = getattr(model, "rules_", None)
    check_show_options(args, model, members if rule_list is None else None)
    names = getattr(model, "feature_names_in_", None)
    names = None if names is None else [str(name) for name in names]
    print(f"{type(model).__name__} ({model.n_features_in_} features"
          + (f", classes {list(np.asarray(model.classes_).tolist())})"
             if isinstance(getattr(model, "classes_", None), np.ndarray) else ")"))
    if rule_list is not None:
        print(f"rules: {len(rule_list)}, then the default class {model.default_class_}")
    elif members is not None:
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
    if args.rules and rule_list is not None:
        print("rules, the first that holds decides:")
        print(model)
    elif args.rules:
        print_tree_rules(model, names, members, 0 if args.tree is None else args.tree)
    return 0


def check_show_options(args, model, members):
    """CommandError, before anything is printed, for an option of ``show``
    that does not apply to ``model`` (whose ensemble ``members`` or None)."""
    kind = type(model).__name__
    if args.tree is not None:
        if members is None:
            raise CommandError(f"--tree is for ensembles; a {kind} is "
                               + ("one list of rules" if hasattr(model, "rules_")
                                  else "one model"))
        if not args.rules:
            raise CommandError("--tree picks the member whose rules to print; add --rules")
        if not 0 <= args.tree < len(members):
            raise CommandError(f"--tree must be from 0 to {len(members) - 1}")
    if args.importances and not hasattr(model, "feature_importances_"):
        raise CommandError(f"a {kind} has no feature importances")


def print_tree_rules(model, names, members, member):
    """Print the if-then rules of a tree, or of the ensemble's ``member``."""
    from .rules import tree_rules
    tree, tree_names = model, names
    if members is not None:
        tree = members[member]
        subsets = getattr(model, "estimators_features_", None)
        if names is not None and subsets is not None:
            tree_names = [names[index] for index in subsets[member]]
        print(f"rules of tree {member}:")
    for rule in tree_rules(tree, feature_names=tree_names):
        print(rule)


def add_model_options(parser):
    parser.add_argument("--model", choices=MODEL_KINDS, default="tree",
                        help="what to train (default: tree)")
    parser.add_argument("--task", choices=("auto", "classification", "regression"),
                        default="auto",
                        help="auto: classification for a text target or one of at most "
                             f"{MAX_AUTO_CLASSES} whole numbers, else regression; it refuses "
                             "a target of numbers with a few text cells, and one in which "
                             "most rows are a class of their own (default: auto)")
    parser.add_argument("--max-depth", type=int, metavar="N")
    parser.add_argument("--n-estimators", type=int, metavar="N",
                        help="members of a forest, bagging or AdaBoost")
    parser.add_argument("--min-samples-leaf", type=int, metavar="N")
    parser.add_argument("--max-features", type=max_features_value, metavar="M",
                        help="sqrt, log2, a count or a fraction of the features")
    parser.add_argument("--criterion", metavar="NAME", help="gini, entropy, squared_error, ...")
    parser.add_argument("--random-state", type=int, metavar="SEED")
    parser.add_argument("--n-jobs", type=int, metavar="N", help="threads (a tree's sweep its large nodes' features)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="report ensembles' members done, time elapsed and left on "
                             "standard error (default: when it is a terminal)")
    parser.add_argument("--drop", action="append", metavar="COLUMN[,COLUMN...]",
                        help="columns that are not features, such as an identifier "
                             "(repeatable); a saved model reads only the columns it was "
                             "trained on")
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
    predict.add_argument("--quantiles", type=quantile_list, metavar="Q[,Q...]",
                         help="add these quantiles of the target, each in [0, 1] (quantile "
                              "forests)")
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
    show.add_argument("--rules", action="store_true",
                      help="print the if-then rules, one per leaf of the tree (or a rule "
                           "list's rules in order)")
    show.add_argument("--tree", type=int, metavar="N",
                      help="with --rules, which member of a forest, bagging or AdaBoost "
                           "(from 0; default: 0)")
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
