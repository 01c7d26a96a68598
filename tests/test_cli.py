"""The command line (fasttree._cli, fasttree.__main__): train, predict,
evaluate and show on CSV and Parquet files; every mistake one line and a
non-zero exit status."""

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import fasttree
from fasttree.__main__ import main

DATA = Path(__file__).parent / "data"
TITANIC = DATA / "titanic_passengers.csv"


def run(capsys, *argv):
    """Exit status, standard output and standard error of a command."""
    status = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def rows_of(path):
    with open(path, newline="") as file:
        return list(csv.DictReader(file))


def test_train_saves_a_model_that_predicts_as_the_library_does(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    status, out, _ = run(capsys, "train", TITANIC, "--target", "survived", "--model", "forest",
                         "--n-estimators", 10, "--random-state", 0, "--out", model_path)
    assert status == 0
    assert "RandomForestClassifier" in out and "training accuracy" in out
    model = fasttree.load(model_path)
    assert model.n_estimators == 10 and list(model.feature_names_in_) == [
        "pclass", "sex", "age", "sibsp", "parch"]
    # The library fitted on the same columns gives the same predictions.
    table = rows_of(TITANIC)
    X = np.array([[row["pclass"], row["sex"], float(row["age"]) if row["age"] else np.nan,
                   float(row["sibsp"]), float(row["parch"])] for row in table], dtype=object)
    y = np.array([row["survived"] for row in table], dtype=object)
    library = fasttree.RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    out_path = tmp_path / "predicted.csv"
    status, _, _ = run(capsys, "predict", model_path, TITANIC, "--out", out_path, "--proba")
    assert status == 0
    predicted = rows_of(out_path)
    assert [row["prediction"] for row in predicted] == library.predict(X).tolist()
    np.testing.assert_array_equal([float(row["proba_survived"]) for row in predicted],
                                  library.predict_proba(X)[:, 1])


def test_predict_matches_columns_by_name_and_writes_to_standard_output(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 3, "--out", model_path)
    with open(TITANIC, newline="") as file:
        rows = list(csv.reader(file))
    shuffled = tmp_path / "columns.csv"
    with open(shuffled, "w", newline="") as file:
        csv.writer(file).writerows([list(reversed(row)) for row in rows])
    status, out, _ = run(capsys, "predict", model_path, shuffled)
    _, expected, _ = run(capsys, "predict", model_path, TITANIC)
    assert status == 0 and out == expected
    assert out.splitlines()[0] == "prediction"
    assert len(out.splitlines()) == len(rows)


def test_a_numeric_target_of_many_values_is_a_regression(tmp_path, capsys):
    rng = np.random.default_rng(0)
    path = tmp_path / "numbers.csv"
    X = rng.normal(size=(200, 3))
    y = X[:, 0] * 2 + rng.normal(size=200) * 0.1
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["a", "b", "c", "y"])
        writer.writerows(np.c_[X, y].tolist())
    status, out, _ = run(capsys, "evaluate", path, "--target", "y", "--cv", 4)
    assert status == 0
    assert "DecisionTreeRegressor" in out
    r2 = float(next(line for line in out.splitlines() if line.startswith("R^2")).split()[1])
    assert r2 > 0.8
    assert any(line.startswith("MAE") for line in out.splitlines())


def titanic_features_and_labels():
    """The titanic file's features and labels as the library takes them."""
    table = rows_of(TITANIC)
    X = np.array([[row["pclass"], row["sex"], float(row["age"]) if row["age"] else np.nan,
                   float(row["sibsp"]), float(row["parch"])] for row in table], dtype=object)
    y = np.array([row["survived"] for row in table], dtype=object)
    return X, y


def shuffled_folds(n_rows, n_folds, seed):
    """The folds of ``evaluate`` (``fasttree._cli.fold_indices``), made here:
    the rows shuffled by numpy's default_rng(seed) (seed: --random-state,
    else 0), cut into n_folds runs of consecutive positions, the first ones
    a row longer."""
    order = np.random.default_rng(seed).permutation(n_rows)
    sizes = [n_rows // n_folds + (k < n_rows % n_folds) for k in range(n_folds)]
    return [order[sum(sizes[:k]):sum(sizes[:k + 1])] for k in range(n_folds)]


def test_evaluate_reports_accuracy_balanced_accuracy_and_the_confusion_matrix(capsys):
    status, out, _ = run(capsys, "evaluate", TITANIC, "--target", "survived", "--cv", 3,
                         "--max-depth", 4, "--random-state", 0)
    assert status == 0
    lines = out.splitlines()
    # The same cross-validation done here: each fold predicted by a tree
    # fitted on the other folds' rows only.
    X, y = titanic_features_and_labels()
    predicted = np.empty(len(y), dtype=object)
    folds = shuffled_folds(len(y), 3, 0)
    assert sorted(np.concatenate(folds).tolist()) == list(range(len(y)))
    for fold in folds:
        train = np.ones(len(y), dtype=bool)
        train[fold] = False
        tree = fasttree.DecisionTreeClassifier(max_depth=4, random_state=0)
        predicted[fold] = tree.fit(X[train], y[train]).predict(X[fold])
    labels = ["died", "survived"]
    expected = [[int(np.sum((y == truth) & (predicted == guess))) for guess in labels]
                for truth in labels]
    accuracy = np.mean(predicted == y)
    recall = [expected[k][k] / sum(expected[k]) for k in range(2)]
    assert f"accuracy: {accuracy:.4f}" in lines
    assert f"balanced accuracy: {np.mean(recall):.4f}" in lines
    # Fitted on all rows, the trees would score higher on them.
    in_sample = fasttree.DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, y)
    assert in_sample.score(X, y) > accuracy + 0.01
    # The confusion matrix cell by cell: rows the true class, columns the
    # predicted one, as its title says.
    header = lines.index("confusion matrix (rows: true class, columns: predicted):")
    assert lines[header + 1].split() == labels
    table = [line.split() for line in lines[header + 2:]]
    assert [row[0] for row in table] == labels
    assert [[int(count) for count in row[1:]] for row in table] == expected
    assert expected[0][1] != expected[1][0]  # a transposed matrix would differ
    assert sum(map(sum, expected)) == len(y)


def test_evaluate_scores_a_regressor_on_the_rows_each_fold_left_out(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 3))
    y = np.sin(2 * X[:, 0]) + X[:, 1] + rng.normal(size=150) * 0.3
    path = tmp_path / "numbers.csv"
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["a", "b", "c", "y"])
        writer.writerows(np.c_[X, y].tolist())
    status, out, _ = run(capsys, "evaluate", path, "--target", "y", "--cv", 4,
                         "--min-samples-leaf", 3, "--random-state", 3)
    assert status == 0
    predicted = np.empty(150)
    for fold in shuffled_folds(150, 4, 3):
        train = np.setdiff1d(np.arange(150), fold)
        tree = fasttree.DecisionTreeRegressor(min_samples_leaf=3, random_state=3)
        predicted[fold] = tree.fit(X[train], y[train]).predict(X[fold])
    r2 = 1.0 - np.sum((y - predicted) ** 2) / np.sum((y - y.mean()) ** 2)
    lines = out.splitlines()
    assert f"R^2: {r2:.4f}" in lines
    assert f"MAE: {np.mean(np.abs(y - predicted)):.4f}" in lines
    in_sample = fasttree.DecisionTreeRegressor(min_samples_leaf=3, random_state=3).fit(X, y)
    assert in_sample.score(X, y) > r2 + 0.05


def test_show_prints_the_summary_rules_and_importances(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 2, "--out", model_path)
    status, out, _ = run(capsys, "show", model_path, "--rules", "--importances")
    assert status == 0
    assert out.startswith("DecisionTreeClassifier (5 features, classes ['died', 'survived'])")
    assert "max_depth=2" in out
    assert "sex" in out and " then class = " in out
    assert "feature importances:" in out


def test_parquet_files_are_read_as_csv_files_are(tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = rows_of(TITANIC)
    table = pa.table({
        "pclass": [row["pclass"] for row in rows],
        "sex": [row["sex"] for row in rows],
        "age": [float(row["age"]) if row["age"] else None for row in rows],
        "sibsp": [int(row["sibsp"]) for row in rows],
        "parch": [int(row["parch"]) for row in rows],
        "survived": [row["survived"] for row in rows],
    })
    parquet_path = tmp_path / "titanic.parquet"
    pq.write_table(table, parquet_path)
    for source, name in ((TITANIC, "from_csv.ft"), (parquet_path, "from_parquet.ft")):
        assert run(capsys, "train", source, "--target", "survived", "--out",
                   tmp_path / name)[0] == 0
    _, from_csv, _ = run(capsys, "predict", tmp_path / "from_csv.ft", parquet_path)
    _, from_parquet, _ = run(capsys, "predict", tmp_path / "from_parquet.ft", TITANIC)
    assert from_csv == from_parquet


def write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("make_argv, message", [
    (lambda tmp: ["train", tmp / "absent.csv", "--target", "y"], "no such file"),
    (lambda tmp: ["train", write(tmp / "ragged.csv", "a,b,y\n1,2,3\n4,5\n"), "--target", "y"],
     "line 3: 2 fields"),
    (lambda tmp: ["train", write(tmp / "empty.csv", ""), "--target", "y"], "is empty"),
    (lambda tmp: ["train", TITANIC, "--target", "fare"], "no column 'fare'"),
    (lambda tmp: ["train", write(tmp / "one.csv", "a,y\n1,x\n2,x\n3,x\n"), "--target", "y"],
     "the target column 'y' has only one class; a classifier needs two or more\n"),
    (lambda tmp: ["train", TITANIC, "--target", "survived", "--param", "depth=3"],
     "no parameter 'depth'"),
    (lambda tmp: ["train", TITANIC, "--target", "survived", "--param", "max_depth=-2"],
     "max_depth"),
    (lambda tmp: ["predict", write(tmp / "bad.ft", "not a model"), TITANIC],
     "fasttree model file"),
    (lambda tmp: ["show", tmp / "absent.ft"], "no such file"),
    (lambda tmp: ["evaluate", TITANIC, "--target", "survived", "--cv", 1], "--cv"),
    (lambda tmp: ["train", TITANIC, "--target", "age", "--task", "regression"],
     "missing values"),
    (lambda tmp: ["train", write(tmp / "gap.csv", "a,y\n1,x\n2,\n3,z\n"), "--target", "y"],
     "the target column 'y' has 1 missing value; drop or fill"),
])
def test_mistakes_are_one_line_and_a_non_zero_exit(tmp_path, capsys, make_argv, message):
    status, _, err = run(capsys, *make_argv(tmp_path))
    assert status == 1
    assert err.count("\n") == 1 and err.startswith("fasttree: error: ")
    assert message in err


def test_a_model_trained_without_names_needs_the_same_number_of_columns(tmp_path, capsys):
    X = np.random.default_rng(0).normal(size=(50, 3))
    model_path = tmp_path / "plain.ft"
    fasttree.DecisionTreeRegressor().fit(X, X[:, 0]).save(model_path)
    path = write(tmp_path / "two.csv", "a,b\n1,2\n3,4\n")
    status, _, err = run(capsys, "predict", model_path, path)
    assert status == 1 and "3 features" in err


def test_the_module_runs_the_demo_alone_and_documents_every_command():
    demo = subprocess.run([sys.executable, "-m", "fasttree"], capture_output=True, text=True,
                          check=True)
    assert "accuracy:" in demo.stdout
    help_text = subprocess.run([sys.executable, "-m", "fasttree", "--help"],
                               capture_output=True, text=True, check=True).stdout
    for command in ("train", "predict", "evaluate", "show", "demo"):
        assert command in help_text
    train_help = subprocess.run([sys.executable, "-m", "fasttree", "train", "--help"],
                                capture_output=True, text=True, check=True).stdout
    for option in ("--target", "--model", "--out", "--param", "--max-depth"):
        assert option in train_help
    broken = subprocess.run([sys.executable, "-m", "fasttree", "predict", "absent.ft",
                             "absent.csv"], capture_output=True, text=True)
    assert broken.returncode == 1 and "Traceback" not in broken.stderr



def test_progress_is_reported_on_request_and_off_when_not_a_terminal(tmp_path, capsys):
    argv = ["train", TITANIC, "--target", "survived", "--model", "bagging", "--n-estimators",
            4, "--out", tmp_path / "model.ft"]
    status, _, err = run(capsys, *argv)
    assert status == 0 and err == ""
    status, _, err = run(capsys, *argv, "--progress")
    assert status == 0
    assert err.strip().splitlines()[-1].startswith("BaggingClassifier: 4/4 estimators fitted")
    # The model keeps the verbose setting it was fitted with.
    assert fasttree.load(tmp_path / "model.ft").verbose == 1


def test_a_reader_that_stops_early_is_not_an_error(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 3, "--out", model_path)
    # Far more rows than a pipe holds, so that writing fails once head exits.
    lines = TITANIC.read_text().splitlines()
    many = tmp_path / "many.csv"
    many.write_text("\n".join([lines[0]] + lines[1:] * 40) + "\n")
    piped = subprocess.run(f'"{sys.executable}" -m fasttree predict "{model_path}" "{many}" '
                           "--proba | head -n 2", shell=True, capture_output=True, text=True)
    assert piped.stdout.startswith("prediction,proba_") and len(piped.stdout.splitlines()) == 2
    assert piped.stderr == ""
    # The command's own exit status (a shell pipeline reports head's) is 0.
    process = subprocess.Popen([sys.executable, "-m", "fasttree", "predict", str(model_path),
                                str(many)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()
    err = process.stderr.read()
    process.stderr.close()
    assert process.wait() == 0 and first.strip() == b"prediction" and err == b""


def numbers_file(path, target_cells, extra=None):
    """A CSV of two numeric features and the target ``y`` of ``target_cells``
    (one row each), with the columns of ``extra`` (name: cells) first."""
    rng = np.random.default_rng(0)
    extra = extra or {}
    with open(path, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow([*extra, "a", "b", "y"])
        for row, cell in enumerate(target_cells):
            writer.writerow([*(cells[row] for cells in extra.values()),
                             *rng.normal(size=2).round(3), cell])
    return path


def test_a_numeric_target_with_a_few_text_cells_is_refused_naming_them(tmp_path, capsys):
    cells = [f"{value:.2f}" for value in np.random.default_rng(1).normal(size=300) * 100]
    cells[7] = "unknown"
    path = numbers_file(tmp_path / "typo.csv", cells)
    for task in ("auto", "regression"):
        status, out, err = run(capsys, "train", path, "--target", "y", "--task", task,
                               "--out", tmp_path / "model.ft")
        assert status == 1 and out == "" and err.count("\n") == 1
        # The column, the cell, its line in the file (the header is line 1).
        assert "'y'" in err and "'unknown'" in err and "line 9" in err
    _, _, auto_err = run(capsys, "evaluate", path, "--target", "y")
    assert "'unknown'" in auto_err and "--task classification" in auto_err
    assert not (tmp_path / "model.ft").exists()
    # Labels that happen to be mostly numbers are fitted when the user says so.
    status, out, _ = run(capsys, "train", path, "--target", "y", "--task", "classification",
                         "--out", tmp_path / "model.ft")
    assert status == 0 and "DecisionTreeClassifier" in out


def test_a_few_text_labels_among_many_are_still_classes(tmp_path, capsys):
    # Grades 1-5 and F: text cells are a sixth of the column, the classes few.
    path = numbers_file(tmp_path / "grades.csv", ["1", "2", "3", "4", "5", "F"] * 20)
    status, out, _ = run(capsys, "train", path, "--target", "y", "--out", tmp_path / "m.ft")
    assert status == 0 and "DecisionTreeClassifier" in out
    assert fasttree.load(tmp_path / "m.ft").classes_.tolist() == ["1", "2", "3", "4", "5", "F"]


def test_a_target_of_a_class_per_row_is_refused_unless_asked_for(tmp_path, capsys):
    path = numbers_file(tmp_path / "names.csv", [f"passenger {row}" for row in range(100)])
    status, _, err = run(capsys, "train", path, "--target", "y", "--out", tmp_path / "m.ft")
    assert status == 1 and err.count("\n") == 1
    assert "'y'" in err and "100 classes in 100 rows" in err and "--task classification" in err
    status, _, _ = run(capsys, "train", path, "--target", "y", "--task", "classification",
                       "--out", tmp_path / "m.ft")
    assert status == 0


def test_show_rules_prints_a_trees_if_then_rules(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 2, "--out", model_path)
    status, out, _ = run(capsys, "show", model_path, "--rules")
    assert status == 0
    rules = [line for line in out.splitlines() if line.startswith("if ")]
    expected = [str(rule) for rule in fasttree.tree_rules(fasttree.load(model_path))]
    assert rules == expected and len(rules) == 4
    # The rule docs/command-line.md quotes.
    assert ("if sex = female and pclass != 3rd then class = survived  (support 250, "
            "accuracy 0.932)") in rules
    assert all(" then class = " in rule and "(support " in rule for rule in rules)
    assert "|   " not in out


def test_show_rules_prints_a_forest_members_rules_by_its_names(tmp_path, capsys):
    model_path = tmp_path / "forest.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--model", "forest",
        "--n-estimators", 3, "--max-depth", 2, "--random-state", 0, "--out", model_path)
    forest = fasttree.load(model_path)
    status, out, _ = run(capsys, "show", model_path, "--rules", "--tree", 2)
    assert status == 0 and "rules of tree 2:" in out
    rules = [line for line in out.splitlines() if line.startswith("if ")]
    names = list(forest.feature_names_in_)
    assert rules == [str(rule) for rule in fasttree.tree_rules(forest.estimators_[2], names)]
    status, out, err = run(capsys, "show", model_path, "--rules", "--tree", 3)
    assert status == 1 and out == "" and "--tree must be from 0 to 2" in err
    status, out, err = run(capsys, "show", model_path, "--tree", 1)
    assert status == 1 and out == "" and err == (
        "fasttree: error: --tree picks the member whose rules to print; add --rules\n")
    tree_path = tmp_path / "tree.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--out", tree_path)
    status, out, err = run(capsys, "show", tree_path, "--rules", "--tree", 1)
    assert status == 1 and out == "" and "--tree is for ensembles" in err


def test_show_prints_a_rule_lists_rules(tmp_path, capsys):
    import pandas as pd

    table = pd.read_csv(TITANIC).fillna({"age": -1})
    X, y = table.drop(columns="survived"), table["survived"]
    model = fasttree.RuleListClassifier(random_state=0).fit(X, y)
    model_path = tmp_path / "rules.ft"
    model.save(model_path)
    status, out, _ = run(capsys, "show", model_path)
    assert status == 0 and out.startswith("RuleListClassifier (5 features")
    assert f"rules: {len(model.rules_)}, then the default class" in out
    status, out, _ = run(capsys, "show", model_path, "--rules")
    assert status == 0
    assert out.rstrip("\n").endswith("\nrules, the first that holds decides:\n" + str(model))
    status, out, err = run(capsys, "show", model_path, "--importances")
    assert status == 1 and out == ""
    assert "a RuleListClassifier has no feature importances" in err


def test_a_csv_with_pandas_index_names_the_unnamed_column(tmp_path, capsys):
    import pandas as pd

    path = tmp_path / "indexed.csv"
    pd.read_csv(TITANIC).to_csv(path)
    status, _, err = run(capsys, "train", path, "--target", "survived")
    assert status == 1 and err.count("\n") == 1
    assert "column 1 of the header has no name" in err and "index=False" in err
    repeated = write(tmp_path / "repeated.csv", "a,b,a,y\n1,2,3,4\n")
    status, _, err = run(capsys, "train", repeated, "--target", "y")
    assert status == 1 and "columns 1 and 3 both 'a'" in err


def test_an_output_directory_that_does_not_exist_is_named_before_any_work(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 2, "--out", model_path)
    for argv in (["train", TITANIC, "--target", "survived", "--out", tmp_path / "nodir" / "z.ft"],
                 ["predict", model_path, TITANIC, "--out", tmp_path / "nodir" / "p.csv"]):
        status, out, err = run(capsys, *argv)
        assert status == 1 and out == "" and err.count("\n") == 1
        assert f"the directory {tmp_path / 'nodir'} does not exist" in err
        assert "no such file" not in err
    status, _, err = run(capsys, "predict", model_path, TITANIC, "--out", tmp_path)
    assert status == 1 and "is a directory" in err


def test_dropped_columns_are_not_features_and_predict_reads_the_models_columns(tmp_path,
                                                                             capsys):
    n_rows = 120
    rng = np.random.default_rng(0)
    path = numbers_file(tmp_path / "people.csv", rng.integers(0, 2, n_rows).astype(str),
                        extra={"customer": rng.permutation(n_rows) + 1,
                               "leak": rng.normal(size=n_rows).round(3)})
    model_path = tmp_path / "model.ft"
    status, out, err = run(capsys, "train", path, "--target", "y", "--drop", "customer,leak",
                           "--out", model_path)
    assert status == 0 and err == "" and "120 rows x 2 features" in out
    assert list(fasttree.load(model_path).feature_names_in_) == ["a", "b"]
    # predict reads a and b by name, with or without the dropped columns there.
    status, with_dropped, _ = run(capsys, "predict", model_path, path)
    assert status == 0
    slim = tmp_path / "slim.csv"
    slim.write_text("\n".join(",".join(line.split(",")[2:4])
                              for line in path.read_text().splitlines()) + "\n")
    assert run(capsys, "predict", model_path, slim)[1] == with_dropped
    # Repeated --drop options add up; evaluate drops the same way.
    status, out, err = run(capsys, "evaluate", path, "--target", "y", "--drop", "customer",
                           "--drop", "leak", "--cv", 3)
    assert status == 0 and err == "" and "on 120 rows x 2 features" in out


@pytest.mark.parametrize("drop, message", [
    ("age,fare", "--drop names no column of the data: 'fare' (the columns are: pclass, "
                 "survived, sex, age, sibsp, parch)"),
    ("survived", "--drop names the target column 'survived'"),
    ("pclass,sex,age,sibsp,parch", "--drop leaves no column besides the target"),
])
def test_a_bad_drop_is_one_clear_line(tmp_path, capsys, drop, message):
    status, _, err = run(capsys, "train", TITANIC, "--target", "survived", "--drop", drop,
                         "--out", tmp_path / "model.ft")
    assert status == 1 and err == f"fasttree: error: {message}\n"


def test_a_feature_that_looks_like_a_row_identifier_is_warned_about(tmp_path, capsys):
    n_rows = 60
    rng = np.random.default_rng(0)
    path = numbers_file(tmp_path / "ids.csv", rng.integers(0, 2, n_rows).astype(str),
                        extra={"row": rng.permutation(n_rows), "CustomerId": rng.integers(
                            0, 5, n_rows), "name": [f"person {k}" for k in range(n_rows)]})
    status, _, err = run(capsys, "train", path, "--target", "y", "--out", tmp_path / "m.ft")
    assert status == 0
    warnings = err.splitlines()
    assert len(warnings) == 3 and all(line.startswith("fasttree: warning: the column ")
                                      for line in warnings)
    assert warnings[0] == ("fasttree: warning: the column 'row' looks like a row identifier "
                           "(by its name), which a model only memorises; "
                           "--drop row unless it means something")
    assert "'CustomerId'" in warnings[1] and "by its name" in warnings[1]
    assert "'name'" in warnings[2] and "a different text in every row" in warnings[2]
    status, _, err = run(capsys, "evaluate", path, "--target", "y", "--cv", 2,
                         "--drop", "row,CustomerId,name")
    assert status == 0 and err == ""
    # Ordinary features are not: numbers repeated, counts, names such as "paid".
    status, _, err = run(capsys, "train", TITANIC, "--target", "survived",
                         "--out", tmp_path / "m.ft")
    assert status == 0 and err == ""
    assert cli_module().row_identifier_reason("paid", np.arange(60.0) * 2) is None
    assert cli_module().row_identifier_reason("valid", np.arange(60.0) + 1) is not None


def cli_module():
    from fasttree import _cli
    return _cli


def test_train_reports_the_rows_features_time_and_training_score(tmp_path, capsys):
    import time

    model_path = tmp_path / "model.ft"
    start = time.perf_counter()
    status, out, err = run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 3,
                           "--out", model_path)
    elapsed = time.perf_counter() - start
    assert status == 0 and err == ""
    X, y = titanic_features_and_labels()
    accuracy = fasttree.DecisionTreeClassifier(max_depth=3).fit(X, y).score(X, y)
    first, second = out.splitlines()
    head, _, tail = first.partition(" in ")
    assert head == "trained DecisionTreeClassifier on 1309 rows x 5 features"
    seconds, unit = tail.split(";")[0].split()
    assert unit == "s" and 0 <= float(seconds) <= elapsed + 0.005
    assert tail.endswith(f" s; training accuracy {accuracy:.4f}")
    assert second == f"saved to {model_path}"
    # A regressor reports R^2 on its training rows.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 2))
    y = X[:, 0] + rng.normal(size=80) * 0.5
    path = tmp_path / "numbers.csv"
    with open(path, "w", newline="") as file:
        csv.writer(file).writerows([["a", "b", "y"], *np.c_[X, y].tolist()])
    status, out, _ = run(capsys, "train", path, "--target", "y", "--max-depth", 2,
                         "--out", model_path)
    r2 = fasttree.DecisionTreeRegressor(max_depth=2).fit(X, y).score(X, y)
    assert status == 0 and out.splitlines()[0].endswith(f" s; training R^2 {r2:.4f}")
    assert " on 80 rows x 2 features in " in out


def test_predict_to_a_file_says_so_on_standard_error_only(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 2, "--out", model_path)
    out_path = tmp_path / "predicted.csv"
    status, out, err = run(capsys, "predict", model_path, TITANIC, "--out", out_path)
    assert status == 0 and out == ""
    assert err == f"wrote 1309 predictions to {out_path}\n"
    status, out, err = run(capsys, "predict", model_path, TITANIC)
    assert status == 0 and err == "" and out.splitlines() == out_path.read_text().splitlines()


def test_predict_proba_writes_every_class_column(tmp_path, capsys):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 2))
    y = np.digitize(X[:, 0] + rng.normal(size=120) * 0.5, [-0.5, 0.5]) + 1
    model = fasttree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    model.save(tmp_path / "model.ft")
    path = tmp_path / "rows.csv"
    with open(path, "w", newline="") as file:
        csv.writer(file).writerows([["a", "b"], *X.tolist()])
    status, _, _ = run(capsys, "predict", tmp_path / "model.ft", path, "--proba", "--out",
                       tmp_path / "p.csv")
    assert status == 0
    rows = rows_of(tmp_path / "p.csv")
    assert list(rows[0]) == ["prediction", "proba_1", "proba_2", "proba_3"]
    assert [int(row["prediction"]) for row in rows] == model.predict(X).tolist()
    np.testing.assert_array_equal(
        [[float(row[f"proba_{label}"]) for label in (1, 2, 3)] for row in rows],
        model.predict_proba(X))


def test_predict_proba_is_refused_for_regressors_and_several_targets(tmp_path, capsys):
    X = np.random.default_rng(0).normal(size=(40, 2))
    fasttree.DecisionTreeRegressor().fit(X, X[:, 0]).save(tmp_path / "regressor.ft")
    two = np.c_[X[:, 0] > 0, X[:, 1] > 0].astype(int)
    fasttree.DecisionTreeClassifier().fit(X, two).save(tmp_path / "two.ft")
    path = write(tmp_path / "rows.csv", "a,b\n1,2\n3,4\n")
    status, out, err = run(capsys, "predict", tmp_path / "regressor.ft", path, "--proba")
    assert status == 1 and out == "" and err == (
        "fasttree: error: --proba needs a classifier; DecisionTreeRegressor predicts numbers\n")
    status, out, err = run(capsys, "predict", tmp_path / "two.ft", path, "--proba")
    assert status == 1 and out == ""
    assert err == "fasttree: error: --proba is for models of one target column\n"


def test_evaluate_prints_the_confusion_matrix_in_columns_as_wide_as_the_longest_label(
        tmp_path, capsys):
    labels = ["a", "bb", "long_label_c"]
    rng = np.random.default_rng(5)
    cells = [labels[k] for k in rng.integers(0, 3, 90)]
    path = numbers_file(tmp_path / "three.csv", cells)
    status, out, _ = run(capsys, "evaluate", path, "--target", "y", "--cv", 3,
                         "--random-state", 1)
    assert status == 0
    X = np.array([[float(row["a"]), float(row["b"])] for row in rows_of(path)])
    y = np.array(cells, dtype=object)
    predicted = np.empty(90, dtype=object)
    for fold in shuffled_folds(90, 3, 1):
        train = np.setdiff1d(np.arange(90), fold)
        tree = fasttree.DecisionTreeClassifier(random_state=1)
        predicted[fold] = tree.fit(X[train], y[train]).predict(X[fold])
    counts = [[int(np.sum((y == truth) & (predicted == guess))) for guess in labels]
              for truth in labels]
    recall = [counts[k][k] / sum(counts[k]) for k in range(3)]
    width = len("long_label_c")
    expected = [
        f"accuracy: {np.mean(predicted == y):.4f}",
        f"balanced accuracy: {np.mean(recall):.4f}",
        "confusion matrix (rows: true class, columns: predicted):",
        " " * width + "".join(" " + label.rjust(width) for label in labels),
        *(labels[k].rjust(width) + "".join(" " + str(count).rjust(width)
                                           for count in counts[k]) for k in range(3)),
    ]
    assert out.splitlines()[1:] == expected


def test_evaluate_columns_are_at_least_six_wide_for_short_labels(tmp_path, capsys):
    path = numbers_file(tmp_path / "digits.csv", [str(k % 2) for k in range(40)])
    status, out, _ = run(capsys, "evaluate", path, "--target", "y", "--cv", 2)
    assert status == 0
    lines = out.splitlines()
    header = lines.index("confusion matrix (rows: true class, columns: predicted):")
    assert lines[header + 1] == " " * 6 + "      0      1"
    for line, label in zip(lines[header + 2:], "01"):
        cells = [line[k:k + 6] for k in range(0, len(line), 7)]
        assert len(line) == 20 and cells[0] == "     " + label
        assert all(cell.strip().isdigit() and cell == cell.strip().rjust(6)
                   for cell in cells[1:])
    assert sum(int(cell) for line in lines[header + 2:] for cell in line.split()[1:]) == 40


def test_evaluate_shuffles_with_seed_zero_unless_given_a_random_state(tmp_path, capsys):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(90, 2))
    y = X[:, 0] + rng.normal(size=90) * 0.3
    path = tmp_path / "numbers.csv"
    with open(path, "w", newline="") as file:
        csv.writer(file).writerows([["a", "b", "y"], *np.c_[X, y].tolist()])
    status, out, _ = run(capsys, "evaluate", path, "--target", "y", "--cv", 3,
                         "--max-depth", 3)
    assert status == 0
    predicted = np.empty(90)
    for fold in shuffled_folds(90, 3, 0):
        train = np.setdiff1d(np.arange(90), fold)
        tree = fasttree.DecisionTreeRegressor(max_depth=3)
        predicted[fold] = tree.fit(X[train], y[train]).predict(X[fold])
    r2 = 1.0 - np.sum((y - predicted) ** 2) / np.sum((y - y.mean()) ** 2)
    assert out.splitlines()[1:] == [f"R^2: {r2:.4f}", f"MAE: {np.mean(np.abs(y - predicted)):.4f}"]


def test_evaluate_of_a_constant_target_is_a_perfect_fit_not_a_division_by_zero(tmp_path,
                                                                                capsys):
    path = numbers_file(tmp_path / "constant.csv", ["2.5"] * 20)
    status, out, err = run(capsys, "evaluate", path, "--target", "y", "--task", "regression",
                           "--cv", 4)
    assert status == 0 and err == ""
    assert out.splitlines()[1:] == ["R^2: 1.0000", "MAE: 0.0000"]


def test_show_summarises_a_regressor_a_forest_and_default_parameters(tmp_path, capsys):
    X = np.random.default_rng(7).normal(size=(60, 3))
    regressor = fasttree.DecisionTreeRegressor(max_depth=3, min_samples_leaf=2).fit(X, X[:, 1])
    regressor.save(tmp_path / "regressor.ft")
    status, out, _ = run(capsys, "show", tmp_path / "regressor.ft")
    assert status == 0 and out == (
        "DecisionTreeRegressor (3 features)\n"
        f"depth {regressor.get_depth()}, {regressor.get_n_leaves()} leaves\n"
        "parameters: max_depth=3, min_samples_leaf=2\n")
    forest = fasttree.RandomForestClassifier(n_estimators=4, random_state=0).fit(X, X[:, 0] > 0)
    forest.save(tmp_path / "forest.ft")
    status, out, _ = run(capsys, "show", tmp_path / "forest.ft")
    assert status == 0 and out == (
        "RandomForestClassifier (3 features, classes [False, True])\n"
        "trees: 4\n"
        "parameters: n_estimators=4, random_state=0\n")
    fasttree.DecisionTreeClassifier().fit(X, X[:, 0] > 0).save(tmp_path / "plain.ft")
    status, out, _ = run(capsys, "show", tmp_path / "plain.ft")
    assert status == 0 and out.splitlines()[-1] == "parameters: the defaults"


def test_show_importances_are_sorted_largest_first_by_name_or_number(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 4, "--out", model_path)
    model = fasttree.load(model_path)
    status, out, _ = run(capsys, "show", model_path, "--importances")
    assert status == 0
    lines = out.splitlines()
    start = lines.index("feature importances:") + 1
    names = list(model.feature_names_in_)
    order = sorted(range(5), key=lambda k: (-model.feature_importances_[k], k))
    assert lines[start:] == [f"  {names[k].ljust(30)} {model.feature_importances_[k]:.4f}"
                             for k in order]
    assert model.feature_importances_[order[0]] > model.feature_importances_[order[-1]]
    # Without names, the features are numbered from 0.
    X = np.random.default_rng(8).normal(size=(60, 3))
    plain = fasttree.DecisionTreeRegressor(max_depth=3).fit(X, X[:, 2] + 0.1 * X[:, 0])
    plain.save(tmp_path / "plain.ft")
    status, out, _ = run(capsys, "show", tmp_path / "plain.ft", "--importances", "--rules")
    assert status == 0
    lines = out.splitlines()
    start = lines.index("feature importances:") + 1
    assert lines[start].startswith("  feature 2 ") and len(lines[start]) == 2 + 30 + 1 + 6
    rules = [line for line in lines if line.startswith("if ")]
    assert rules == [str(rule) for rule in fasttree.tree_rules(plain)]
    assert rules[0].startswith("if x[2] ")


def test_show_rules_names_a_bagging_members_own_features(tmp_path, capsys):
    model_path = tmp_path / "bagging.ft"
    status, _, _ = run(capsys, "train", TITANIC, "--target", "survived", "--model", "bagging",
                       "--n-estimators", 3, "--max-features", 0.6, "--random-state", 0,
                       "--out", model_path)
    assert status == 0
    model = fasttree.load(model_path)
    names = list(model.feature_names_in_)
    subset = [names[k] for k in model.estimators_features_[1]]
    assert len(subset) == 3
    status, out, _ = run(capsys, "show", model_path, "--rules", "--tree", 1)
    assert status == 0
    lines = out.splitlines()
    start = lines.index("rules of tree 1:") + 1
    assert lines[start:] == [str(rule) for rule in
                             fasttree.tree_rules(model.estimators_[1], feature_names=subset)]
    # Without --tree, the first member.
    status, out, _ = run(capsys, "show", model_path, "--rules")
    assert "rules of tree 0:" in out


def test_show_lists_features_of_equal_importance_in_file_order(tmp_path, capsys):
    rng = np.random.default_rng(9)
    X = rng.normal(size=(100, 24)).round(3)
    y = (X[:, 5] + X[:, 17] > 0).astype(int)
    path = tmp_path / "wide.csv"
    names = [f"f{k}" for k in range(24)]
    with open(path, "w", newline="") as file:
        csv.writer(file).writerows([[*names, "y"], *np.c_[X, y].tolist()])
    model_path = tmp_path / "model.ft"
    assert run(capsys, "train", path, "--target", "y", "--max-depth", 2, "--out",
               model_path)[0] == 0
    importances = fasttree.load(model_path).feature_importances_
    assert np.sum(importances == 0) >= 20
    status, out, _ = run(capsys, "show", model_path, "--importances")
    lines = out.splitlines()
    shown = [line.split()[0] for line in lines[lines.index("feature importances:") + 1:]]
    used = sorted((k for k in range(24) if importances[k] > 0), key=lambda k: -importances[k])
    assert status == 0 and shown == [names[k] for k in used] + [
        names[k] for k in range(24) if importances[k] == 0]


def test_show_prints_an_estimator_parameter_as_its_repr(tmp_path, capsys):
    X = np.random.default_rng(10).normal(size=(60, 3))
    model = fasttree.BaggingClassifier(estimator=fasttree.DecisionTreeClassifier(max_depth=2),
                                       n_estimators=3, random_state=0).fit(X, X[:, 0] > 0)
    model.save(tmp_path / "bagging.ft")
    status, out, _ = run(capsys, "show", tmp_path / "bagging.ft")
    assert status == 0 and out.splitlines()[-1] == (
        "parameters: estimator=DecisionTreeClassifier(max_depth=2), n_estimators=3, "
        "random_state=0")


def test_the_saved_feature_names_are_an_object_array_as_in_scikit_learn(tmp_path, capsys):
    model_path = tmp_path / "model.ft"
    run(capsys, "train", TITANIC, "--target", "survived", "--max-depth", 2, "--out", model_path)
    names = fasttree.load(model_path).feature_names_in_
    assert names.dtype == object and names.tolist() == ["pclass", "sex", "age", "sibsp", "parch"]


def test_evaluate_r2_does_not_depend_on_the_targets_scale(tmp_path, capsys):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(80, 2))
    y = X[:, 0] + rng.normal(size=80) * 0.5
    r2_lines = []
    for scale in (1.0, 1e-3):
        path = tmp_path / f"scaled{scale}.csv"
        with open(path, "w", newline="") as file:
            csv.writer(file).writerows([["a", "b", "y"], *np.c_[X, y * scale].tolist()])
        status, out, _ = run(capsys, "evaluate", path, "--target", "y", "--cv", 4,
                             "--max-depth", 2, "--random-state", 0)
        assert status == 0
        r2_lines.append(out.splitlines()[1])
    # The small target's sum of squares is far below 1; R^2 is a ratio of two.
    assert np.sum((y * 1e-3 - np.mean(y * 1e-3)) ** 2) < 1e-3
    assert r2_lines[0] == r2_lines[1] and r2_lines[0].startswith("R^2: 0.")


def test_a_quantile_forest_trains_and_predicts_the_quantiles_asked(tmp_path, capsys):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(200, 2))
    y = X[:, 0] + rng.normal(size=200) * (0.3 + np.abs(X[:, 1]))
    path = tmp_path / "rows.csv"
    with open(path, "w", newline="") as file:
        csv.writer(file).writerows([["a", "b", "y"], *np.c_[X, y].tolist()])
    status, _, _ = run(capsys, "train", path, "--target", "y", "--model", "quantile-forest",
                       "--n-estimators", 20, "--random-state", 0, "--param",
                       "max_samples_leaf=None", "--out", tmp_path / "model.ft")
    assert status == 0
    status, _, _ = run(capsys, "predict", tmp_path / "model.ft", path, "--quantiles",
                       "0.05,0.5,0.95", "--out", tmp_path / "q.csv")
    assert status == 0
    rows = rows_of(tmp_path / "q.csv")
    assert list(rows[0]) == ["prediction", "quantile_0.05", "quantile_0.5", "quantile_0.95"]
    model = fasttree.load(tmp_path / "model.ft")
    assert isinstance(model, fasttree.RandomForestQuantileRegressor)
    np.testing.assert_array_equal(
        [[float(row[name]) for name in list(rows[0])[1:]] for row in rows],
        model.predict(X, quantiles=[0.05, 0.5, 0.95]))
    np.testing.assert_array_equal([float(row["prediction"]) for row in rows], model.predict(X))


def test_quantiles_are_refused_for_other_models_and_bad_levels(tmp_path, capsys):
    X = np.random.default_rng(0).normal(size=(40, 2))
    fasttree.RandomForestRegressor(3).fit(X, X[:, 0]).save(tmp_path / "forest.ft")
    path = write(tmp_path / "rows.csv", "a,b\n1,2\n3,4\n")
    status, out, err = run(capsys, "predict", tmp_path / "forest.ft", path, "--quantiles", "0.5")
    assert status == 1 and out == "" and "--quantiles needs a quantile forest" in err
    with pytest.raises(SystemExit):
        run(capsys, "predict", tmp_path / "forest.ft", path, "--quantiles", "0.5,2")
    assert "quantiles are numbers in [0, 1]" in capsys.readouterr().err
    classes = write(tmp_path / "classes.csv", "a,b,y\n1,2,x\n3,4,z\n5,6,x\n")
    status, _, err = run(capsys, "train", classes, "--target", "y", "--model",
                         "quantile-forest", "--out", tmp_path / "q.ft")
    assert status == 1 and "predicts quantiles of a number" in err
