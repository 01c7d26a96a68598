"""The command line's options (fasttree._cli): each model option reaching the
estimator, --param, --max-features, --task and the target checks, --drop,
--cv, the options of show, and the exit statuses of run."""

import csv
import re
from pathlib import Path

import numpy as np
import pytest

import fasttree
from fasttree import _cli
from fasttree.__main__ import main

from test_cli import TITANIC, numbers_file, run, write


def trained(capsys, tmp_path, *options, data=TITANIC, target="survived"):
    """The model ``train`` saves with ``options``, and its standard output."""
    path = tmp_path / "model.ft"
    status, out, err = run(capsys, "train", data, "--target", target, *options, "--out", path)
    assert status == 0, err
    return fasttree.load(path), out


def test_every_model_option_reaches_the_estimator(tmp_path, capsys):
    model, _ = trained(capsys, tmp_path, "--model", "forest", "--max-depth", 3,
                       "--n-estimators", 7, "--min-samples-leaf", 2, "--max-features", 0.5,
                       "--criterion", "entropy", "--random-state", 4, "--n-jobs", 2)
    assert type(model) is fasttree.RandomForestClassifier
    params = model.get_params(deep=False)
    assert {name: params[name] for name in (
        "max_depth", "n_estimators", "min_samples_leaf", "max_features", "criterion",
        "random_state", "n_jobs", "verbose")} == {
        "max_depth": 3, "n_estimators": 7, "min_samples_leaf": 2, "max_features": 0.5,
        "criterion": "entropy", "random_state": 4, "n_jobs": 2, "verbose": 0}
    assert len(model.estimators_) == 7
    assert max(member.get_depth() for member in model.estimators_) <= 3
    # Options not given keep the estimator's defaults.
    model, _ = trained(capsys, tmp_path)
    assert model.get_params(deep=False) == fasttree.DecisionTreeClassifier().get_params(
        deep=False)


@pytest.mark.parametrize("kind, classifier, regressor", [
    ("tree", "DecisionTreeClassifier", "DecisionTreeRegressor"),
    ("forest", "RandomForestClassifier", "RandomForestRegressor"),
    ("extra-trees", "ExtraTreesClassifier", "ExtraTreesRegressor"),
    ("bagging", "BaggingClassifier", "BaggingRegressor"),
    ("adaboost", "AdaBoostClassifier", "AdaBoostRegressor"),
])
def test_each_model_kind_is_its_classifier_or_regressor(tmp_path, capsys, kind, classifier,
                                                      regressor):
    ensemble = () if kind == "tree" else ("--n-estimators", 3)
    model, out = trained(capsys, tmp_path, "--model", kind, *ensemble)
    assert type(model).__name__ == classifier and out.startswith(f"trained {classifier} ")
    values = [f"{value:.3f}" for value in np.random.default_rng(0).normal(size=60)]
    path = numbers_file(tmp_path / "numbers.csv", values)
    model, out = trained(capsys, tmp_path, "--model", kind, *ensemble, data=path, target="y")
    assert type(model).__name__ == regressor and out.startswith(f"trained {regressor} ")


def test_the_default_model_is_a_tree_and_the_default_file_model_ft(tmp_path, capsys,
                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "train", TITANIC, "--target", "survived")
    assert status == 0 and out.splitlines()[-1] == "saved to model.ft"
    assert type(fasttree.load(tmp_path / "model.ft")) is fasttree.DecisionTreeClassifier


def test_an_option_the_model_does_not_take_is_refused_by_its_name(tmp_path, capsys):
    for model, option, value, cls in (("tree", "--n-estimators", 5, "DecisionTreeClassifier"),
                                      ("adaboost", "--n-jobs", 2, "AdaBoostClassifier"),
                                      ("adaboost", "--max-depth", 2, "AdaBoostClassifier"),
                                      ("bagging", "--criterion", "gini", "BaggingClassifier")):
        status, out, err = run(capsys, "train", TITANIC, "--target", "survived", "--model",
                               model, option, value, "--out", tmp_path / "model.ft")
        assert status == 1 and out == ""
        assert err == (f"fasttree: error: {option} does not apply to --model {model} "
                       f"({cls})\n")
    assert not (tmp_path / "model.ft").exists()


@pytest.mark.parametrize("text, expected", [
    ("sqrt", "sqrt"), ("log2", "log2"), ("3", 3), ("1", 1), ("0.5", 0.5), ("1.0", 1.0),
    ("1e1", 10), ("0", 0.0),
])
def test_max_features_is_a_name_a_count_or_a_fraction(text, expected):
    args = _cli.parser_of().parse_args(["train", "d.csv", "--target", "y",
                                        "--max-features", text])
    assert args.max_features == expected and type(args.max_features) is type(expected)


def test_a_bad_max_features_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["train", str(TITANIC), "--target", "survived", "--max-features", "half"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m fasttree train: error: argument --max-features: must be sqrt, log2, a "
        "count or a fraction")


def test_a_missing_target_option_or_an_unknown_model_is_a_usage_error(capsys):
    for argv in (["train", str(TITANIC)], ["evaluate", str(TITANIC)],
                 ["train", str(TITANIC), "--target", "survived", "--model", "svm"],
                 ["train", str(TITANIC), "--target", "survived", "--task", "ranking"]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("usage: python -m fasttree ")
        assert "--target" in err or "invalid choice" in err


def test_param_values_are_python_literals_or_else_text(tmp_path, capsys):
    model, _ = trained(capsys, tmp_path, "--param", "ccp_alpha=0.01", "--param",
                       "criterion=entropy", "--param", " max-depth = 4", "--param",
                       "class_weight='balanced'", "--param", "max_features=None")
    params = model.get_params(deep=False)
    assert params["ccp_alpha"] == 0.01 and params["criterion"] == "entropy"
    assert params["max_depth"] == 4 and params["class_weight"] == "balanced"
    assert params["max_features"] is None
    assert _cli.parameter_value("[1, 'a']") == [1, "a"]
    assert _cli.parameter_value("{'a': 1}") == {"a": 1}
    assert _cli.parameter_value("True") is True
    assert _cli.parameter_value("gini(") == "gini("


def test_a_param_without_a_name_or_value_and_an_unknown_one_are_named(tmp_path, capsys):
    for assignment in ("depth", "=3"):
        status, _, err = run(capsys, "train", TITANIC, "--target", "survived", "--param",
                             assignment, "--out", tmp_path / "model.ft")
        assert status == 1
        assert err == f"fasttree: error: --param takes NAME=VALUE; got {assignment!r}\n"
    status, _, err = run(capsys, "train", TITANIC, "--target", "survived", "--model", "bagging",
                         "--param", "depth=3", "--out", tmp_path / "model.ft")
    known = sorted(fasttree.BaggingClassifier().get_params())
    assert status == 1 and err == ("fasttree: error: BaggingClassifier has no parameter "
                                   f"'depth' (it has: {', '.join(known)})\n")


def test_progress_follows_the_terminal_unless_asked_and_verbose_by_param_wins(
        tmp_path, capsys, monkeypatch):
    ensemble = ("--model", "forest", "--n-estimators", 2)
    monkeypatch.setattr(_cli.sys.stderr, "isatty", lambda: True, raising=False)
    model, _ = trained(capsys, tmp_path, *ensemble)
    assert model.verbose == 1
    model, _ = trained(capsys, tmp_path, *ensemble, "--no-progress")
    assert model.verbose == 0
    model, _ = trained(capsys, tmp_path, *ensemble, "--param", "verbose=0")
    assert model.verbose == 0
    monkeypatch.setattr(_cli.sys.stderr, "isatty", lambda: False, raising=False)
    model, _ = trained(capsys, tmp_path, *ensemble, "--progress", "--param", "verbose=2")
    assert model.verbose == 2
    # A tree has no verbose parameter and takes none.
    model, _ = trained(capsys, tmp_path, "--progress")
    assert "verbose" not in model.get_params()


def test_a_target_alone_in_the_data_is_refused(tmp_path, capsys):
    path = write(tmp_path / "alone.csv", "y\na\nb\na\n")
    status, _, err = run(capsys, "train", path, "--target", "y")
    assert status == 1
    assert err == "fasttree: error: the data has no column besides the target\n"


def test_missing_target_cells_are_counted(tmp_path, capsys):
    path = write(tmp_path / "gaps.csv", "a,y\n1,2.5\n2,\n3,NA\n4,1.5\n")
    status, _, err = run(capsys, "train", path, "--target", "y")
    assert status == 1 and "the target column 'y' has 2 missing values; drop or fill" in err


def target_file(path, cells):
    """A CSV of one feature (0, 1, 2, ...) and the target ``y`` of ``cells``."""
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["a", "y"])
        writer.writerows([row % 7, cell] for row, cell in enumerate(cells))
    return path


def test_auto_takes_at_most_50_whole_numbers_as_classes(tmp_path, capsys):
    fifty = target_file(tmp_path / "fifty.csv", [str(row % 50) for row in range(200)])
    model, out = trained(capsys, tmp_path, data=fifty, target="y")
    assert type(model) is fasttree.DecisionTreeClassifier and "training accuracy" in out
    # Whole numbers are class labels of integers, not floats.
    assert model.classes_.tolist() == list(range(50))
    assert model.classes_.dtype.kind == "i"
    fifty_one = target_file(tmp_path / "fifty_one.csv", [str(row % 51) for row in range(204)])
    model, out = trained(capsys, tmp_path, data=fifty_one, target="y")
    assert type(model) is fasttree.DecisionTreeRegressor and "training R^2" in out
    halves = target_file(tmp_path / "halves.csv", ["0.5", "1.5"] * 20)
    model, _ = trained(capsys, tmp_path, data=halves, target="y")
    assert type(model) is fasttree.DecisionTreeRegressor
    # Given as classification, whole numbers written as 1.0 are the classes 1, 2.
    wholes = target_file(tmp_path / "wholes.csv", ["1.0", "2.0"] * 20)
    model, _ = trained(capsys, tmp_path, "--task", "classification", data=wholes, target="y")
    assert model.classes_.tolist() == [1, 2] and model.classes_.dtype.kind == "i"
    status, out, _ = run(capsys, "predict", tmp_path / "model.ft", wholes)
    assert status == 0 and set(out.splitlines()[1:]) <= {"1", "2"}


def test_the_task_given_overrides_auto(tmp_path, capsys):
    labels = target_file(tmp_path / "labels.csv", ["1", "2", "3"] * 10)
    model, _ = trained(capsys, tmp_path, "--task", "regression", data=labels, target="y")
    assert type(model) is fasttree.DecisionTreeRegressor
    model, _ = trained(capsys, tmp_path, "--task", "classification", data=labels, target="y")
    assert model.classes_.tolist() == [1, 2, 3]
    words = target_file(tmp_path / "words.csv", ["low", "high"] * 10)
    status, _, err = run(capsys, "train", words, "--target", "y", "--task", "regression")
    assert status == 1 and err == (
        "fasttree: error: the target column 'y' holds text; regression needs numbers "
        "(use --task classification)\n")


def test_stray_text_in_a_numeric_target_is_refused_up_to_a_tenth_of_the_cells(tmp_path,
                                                                             capsys):
    cells = ["0.25", "1.75", "2.5", "3.25"] * 25
    for row in range(10):
        cells[5 * row] = f"typo{row}"
    path = target_file(tmp_path / "tenth.csv", cells)
    status, _, err = run(capsys, "train", path, "--target", "y", "--task", "regression")
    assert status == 1 and err == (
        "fasttree: error: the target column 'y' holds numbers but 10 cells of text: "
        "'typo0' (line 2), 'typo1' (line 7), 'typo2' (line 12) and 7 more; correct those "
        "cells or drop their rows\n")
    # Past a tenth, text cells are class labels.
    cells[1] = "typo10"
    path = target_file(tmp_path / "more.csv", cells)
    model, _ = trained(capsys, tmp_path, data=path, target="y")
    assert len(model.classes_) == 4 + 11
    one = ["0.25", "1.75"] * 10
    one[3] = "?x"
    status, _, err = run(capsys, "train", target_file(tmp_path / "one.csv", one), "--target",
                         "y")
    assert status == 1 and "holds numbers but 1 cell of text: '?x' (line 5); correct" in err
    assert err.rstrip().endswith("or pass --task classification if the column holds class "
                                 "labels")


def test_a_class_per_row_is_refused_past_half_the_rows(tmp_path, capsys):
    half = [f"name {row}" for row in range(50)] + ["a", "b"] * 25
    model, _ = trained(capsys, tmp_path, data=target_file(tmp_path / "half.csv", half),
                       target="y")
    assert len(model.classes_) == 52
    more = [f"name {row}" for row in range(51)] + ["a"] * 49
    status, _, err = run(capsys, "train", target_file(tmp_path / "more.csv", more),
                         "--target", "y")
    assert status == 1 and err == (
        "fasttree: error: the target column 'y' has 52 classes in 100 rows, 51 of them a "
        "class of one row, which no classifier learns from; choose another target, or pass "
        "--task classification to fit it anyway\n")
    # Numbers too, when auto takes them as classes.
    numbers = target_file(tmp_path / "numbers.csv", [str(row) for row in range(40)])
    status, _, err = run(capsys, "train", numbers, "--target", "y")
    assert status == 1 and "has 40 classes in 40 rows, 40 of them" in err


def test_drop_names_are_split_at_commas_and_stripped(tmp_path, capsys):
    model, out = trained(capsys, tmp_path, "--drop", " age , sibsp,", "--drop", "parch")
    assert list(model.feature_names_in_) == ["pclass", "sex"]
    assert " x 2 features " in out


@pytest.mark.parametrize("relative", [False, True])
def test_an_out_in_a_missing_directory_is_named_as_given(tmp_path, capsys, monkeypatch,
                                                         relative):
    monkeypatch.chdir(tmp_path)
    out = "nodir/model.ft" if relative else str(tmp_path / "nodir" / "model.ft")
    status, _, err = run(capsys, "train", TITANIC, "--target", "survived", "--out", out)
    shown = "nodir" if relative else str(tmp_path / "nodir")
    assert status == 1 and err == (
        f"fasttree: error: cannot write --out {out}: the directory {shown} does not exist\n")
    status, _, err = run(capsys, "train", TITANIC, "--target", "survived", "--out", ".")
    assert status == 1 and err == (
        "fasttree: error: cannot write --out .: it is a directory; give a file name\n")


@pytest.mark.parametrize("name", ["id", "ID", "Index", "row", "rowid", "ROW_ID",
                                  "customer_id", "customer.id", "customer id", "customer-id",
                                  "CustomerId", "customerID"])
def test_identifier_names_are_warned_about(name):
    assert _cli.row_identifier_reason(name, np.zeros(3)) == "by its name"


@pytest.mark.parametrize("name", ["paid", "valid", "idea", "identity", "rows", "width",
                                  "customer_idx", "Customerid"])
def test_names_that_merely_contain_id_are_not(name):
    assert _cli.row_identifier_reason(name, np.zeros(30)) is None


def test_identifier_values_need_ten_rows_and_every_value_once():
    reason = _cli.row_identifier_reason
    assert reason("a", np.arange(9.0)[::-1]) is None
    assert reason("a", np.arange(10.0)[::-1]) == "the numbers 0 to 9, each once"
    assert reason("a", np.arange(1.0, 11.0)[::-1]) == "the numbers 1 to 10, each once"
    assert reason("a", np.arange(2.0, 12.0)) is None
    assert reason("a", np.r_[np.arange(9.0), 0.0]) is None
    words = np.array([f"w{k}" for k in range(10)], dtype=object)
    assert reason("a", words) == "a different text in every row"
    assert reason("a", words[:9]) is None
    repeated = words.copy()
    repeated[3] = "w4"
    assert reason("a", repeated) is None
    gap = words.copy()
    gap[3] = None
    assert reason("a", gap) is None


@pytest.mark.parametrize("cv, message", [
    (1, "--cv must be between 2 and the number of rows (12)"),
    (13, "--cv must be between 2 and the number of rows (12)"),
])
def test_cv_runs_from_two_folds_to_a_fold_per_row(tmp_path, capsys, cv, message):
    path = numbers_file(tmp_path / "small.csv", ["p", "q"] * 6)
    status, _, err = run(capsys, "evaluate", path, "--target", "y", "--cv", cv)
    assert status == 1 and err == f"fasttree: error: {message}\n"
    for cv in (2, 12):
        status, out, _ = run(capsys, "evaluate", path, "--target", "y", "--cv", cv)
        assert status == 0
        assert out.startswith(f"DecisionTreeClassifier, {cv}-fold cross-validation on 12 rows "
                              "x 2 features\n")


def test_cv_takes_five_folds_unless_told(tmp_path, capsys):
    status, out, _ = run(capsys, "evaluate", TITANIC, "--target", "survived", "--max-depth", 2)
    assert status == 0 and out.startswith(
        "DecisionTreeClassifier, 5-fold cross-validation on 1309 rows x 5 features\n")


def test_show_options_that_do_not_apply_are_refused_before_printing(tmp_path, capsys):
    tree, _ = trained(capsys, tmp_path)
    status, out, err = run(capsys, "show", tmp_path / "model.ft", "--rules", "--tree", 0)
    assert status == 1 and out == "" and err == (
        "fasttree: error: --tree is for ensembles; a DecisionTreeClassifier is one model\n")
    rule_list = fasttree.RuleListClassifier(random_state=0).fit(
        np.arange(40.0).reshape(-1, 1), np.arange(40) % 2)
    rule_list.save(tmp_path / "rules.ft")
    status, out, err = run(capsys, "show", tmp_path / "rules.ft", "--rules", "--tree", 0)
    assert status == 1 and out == "" and err == (
        "fasttree: error: --tree is for ensembles; a RuleListClassifier is one list of rules\n")
    trained(capsys, tmp_path, "--model", "forest", "--n-estimators", 3)
    for member in (-1, 3):
        status, out, err = run(capsys, "show", tmp_path / "model.ft", "--rules", "--tree",
                               member)
        assert status == 1 and out == ""
        assert err == "fasttree: error: --tree must be from 0 to 2\n"
    status, out, _ = run(capsys, "show", tmp_path / "model.ft", "--rules", "--tree", 0)
    assert status == 0 and "rules of tree 0:" in out


def test_errors_end_as_one_line_and_status_one_and_an_interrupt_as_130(capsys, monkeypatch):
    argv = ["train", str(TITANIC), "--target", "survived"]
    for error, line in ((KeyboardInterrupt(), None),
                        (FileNotFoundError(2, "No such file", "x.csv"), "no such file: x.csv"),
                        (OSError("disk full"), "disk full"),
                        (ValueError("bad value"), "bad value"),
                        (TypeError("bad type"), "bad type"),
                        (MemoryError("too big"), "too big"),
                        (RuntimeError("boom"), "RuntimeError: boom"),
                        (_cli.CommandError("wrong"), "wrong")):
        def fail(args, error=error):
            raise error
        monkeypatch.setitem(_cli.COMMANDS, "train", fail)
        status = main(argv)
        err = capsys.readouterr().err
        if line is None:
            assert status == 130 and err == ""
        else:
            assert status == 1 and err == f"fasttree: error: {line}\n"


def test_a_param_is_split_at_its_first_equals_sign():
    args = _cli.parser_of().parse_args(["train", "d.csv", "--target", "y", "--param",
                                        "class_weight={'a=b': 2}"])
    estimator = _cli.build_estimator(args, "classification")
    assert estimator.class_weight == {"a=b": 2}


@pytest.mark.parametrize("n_text, shown", [
    (2, "'t0' (line 2), 't1' (line 22)"),
    (3, "'t0' (line 2), 't1' (line 22), 't2' (line 42)"),
    (4, "'t0' (line 2), 't1' (line 22), 't2' (line 42) and 1 more"),
])
def test_stray_text_shows_three_cells_and_counts_the_rest(tmp_path, capsys, n_text, shown):
    cells = ["0.25", "1.75"] * 40
    for k in range(n_text):
        cells[20 * k] = f"t{k}"
    path = target_file(tmp_path / "typos.csv", cells)
    status, _, err = run(capsys, "train", path, "--target", "y", "--task", "regression")
    assert status == 1 and err == (
        f"fasttree: error: the target column 'y' holds numbers but {n_text} cells of text: "
        f"{shown}; correct those cells or drop their rows\n")


def test_help_lists_every_command_on_a_line_of_its_own(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps help to the terminal's width
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "usage: python -m fasttree [-h] COMMAND ..."
    # A command's name is indented by 4 spaces, a wrapped help line by more.
    listed = [line.split()[0] for line in lines
              if line.startswith("    ") and not line.startswith("     ")]
    assert listed == ["train", "predict", "evaluate", "show", "demo"]


def help_of(capsys, monkeypatch, command):
    """The text of ``python -m fasttree COMMAND --help`` at a width of 100 columns."""
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps help to the terminal's width
    with pytest.raises(SystemExit) as stop:
        main([command, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_help_usage_names_each_option_with_the_placeholder_of_the_documentation(
        capsys, monkeypatch):
    # The synopsis of docs/command-line.md, such as "[--max-depth N]", one line a
    # command; the lines that continue a command's synopsis are indented.
    page = (Path(__file__).parents[1] / "docs" / "command-line.md").read_text()
    synopsis = page.split("```text\n", 1)[1].split("```", 1)[0]
    documented = {}
    for line in synopsis.splitlines():
        if line.startswith("python -m fasttree "):
            command = line.split()[3]
        documented[command] = documented.get(command, "") + " " + line
    placeholder = re.compile(r"(--[a-z-]+) ([A-Z][A-Z=]*(?:\[,[A-Z]+\.\.\.\])?)(?![a-z])")
    expected = {command: placeholder.findall(text) for command, text in documented.items()}
    # evaluate takes "the model options of train": all but train's --out.
    assert "[the model options of train]" in documented["evaluate"]
    expected["evaluate"] += [pair for pair in expected["train"] if pair[0] != "--target"]
    assert ("--random-state", "SEED") in expected["train"]
    assert ("--drop", "COLUMN[,COLUMN...]") in expected["train"]
    assert ("--tree", "N") in expected["show"]
    for command in ("train", "evaluate", "show"):
        usage = " ".join(help_of(capsys, monkeypatch, command).split("\n\n")[0].split())
        for option, name in expected[command]:
            # The whole placeholder: "--n-jobs N" is not "--n-jobs N_JOBS".
            assert re.search(re.escape(f"{option} {name}") + r"(?=[\] ]|$)", usage), (
                command, option, usage)


def option_help(text):
    """Each option of a command's help text, with its description on one line."""
    described, option = {}, None
    for line in text.split("options:\n", 1)[1].splitlines():
        if line.startswith("  -"):
            option = line.split()[0].rstrip(",")
            described[option] = " ".join(line.split()[1:])
        else:
            described[option] += " " + line.strip()
    return described


def test_help_states_the_defaults_the_options_take(capsys, monkeypatch):
    parser = _cli.parser_of()
    for command, arguments, options in (
            ("train", ["data.csv", "--target", "y"],
             {"--model": "model", "--task": "task", "--out": "out"}),
            ("evaluate", ["data.csv", "--target", "y"],
             {"--model": "model", "--task": "task", "--cv": "cv"})):
        defaults = vars(parser.parse_args([command, *arguments]))
        described = option_help(help_of(capsys, monkeypatch, command))
        for option, name in options.items():
            assert described[option].endswith(f"(default: {defaults[name]})"), (
                command, option, described[option])


def test_help_describes_the_program_and_each_command(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps help to the terminal's width
    with pytest.raises(SystemExit):
        main(["--help"])
    usage, description, commands = capsys.readouterr().out.split("\n\n")[:3]
    assert usage.startswith("usage: ") and description.strip()
    assert not description.startswith("positional arguments")
    # Each command's line: its name, then what it does.
    listed = {line.split()[0]: line.split()[1:] for line in commands.splitlines()
              if line.startswith("    ") and not line.startswith("     ")}
    assert set(listed) == {"train", "predict", "evaluate", "show", "demo"}
    assert all(listed.values()), listed
    for command in ("train", "predict", "evaluate", "show"):
        paragraphs = help_of(capsys, monkeypatch, command).split("\n\n")
        # usage, then the command's description, then its arguments.
        assert paragraphs[0].startswith(f"usage: python -m fasttree {command} ")
        assert paragraphs[1].strip() and not paragraphs[1].startswith("positional arguments")
