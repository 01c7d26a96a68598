"""The command line on a CSV file: train a forest and save it, predict with the saved
model, cross-validate the same forest, and show its importances.

Run: python examples/command_line.py

Prints each command (run in a temporary directory) and what it printed:

    $ python -m fasttree train cancer.csv --target diagnosis --model forest --n-estimators 50 --random-state 0 --out cancer.ft
    trained RandomForestClassifier on 683 rows x 9 features in ... s; training accuracy 1.0000
    saved to cancer.ft
    $ python -m fasttree predict cancer.ft cancer.csv --out predictions.csv
    wrote 683 predictions to predictions.csv
    predictions.csv: 683 rows, 100.0% of them the diagnosis
    $ python -m fasttree evaluate cancer.csv --target diagnosis --model forest --n-estimators 50 --random-state 0 --cv 3
    RandomForestClassifier, 3-fold cross-validation on 683 rows x 9 features
    accuracy: 0.9649
    balanced accuracy: 0.9614
    ...
    $ python -m fasttree show cancer.ft --importances
    RandomForestClassifier (9 features, classes ['benign', 'malignant'])
    trees: 50
    parameters: n_estimators=50, random_state=0
    feature importances:
      uniformity_cell_shape          0.2320
    ...
"""

import csv
import os
import shlex
import subprocess
import sys
import tempfile

from fasttree.datasets import load_breast_cancer_wisconsin

FOREST = ["--model", "forest", "--n-estimators", "50", "--random-state", "0"]


def fasttree(*arguments, cwd):
    """Run ``python -m fasttree ARGUMENTS`` in ``cwd``; print the command and its output."""
    print("$ python -m fasttree", shlex.join(arguments))
    result = subprocess.run([sys.executable, "-m", "fasttree", *arguments], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            check=True)
    print(result.stdout, end="")


X, y, feature_names = load_breast_cancer_wisconsin()
with tempfile.TemporaryDirectory() as directory:
    with open(os.path.join(directory, "cancer.csv"), "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow([*feature_names, "diagnosis"])
        writer.writerows([*map(int, row), label] for row, label in zip(X, y))

    fasttree("train", "cancer.csv", "--target", "diagnosis", *FOREST, "--out", "cancer.ft",
             cwd=directory)
    fasttree("predict", "cancer.ft", "cancer.csv", "--out", "predictions.csv", cwd=directory)
    with open(os.path.join(directory, "predictions.csv"), newline="") as file:
        predicted = [row["prediction"] for row in csv.DictReader(file)]
    agree = sum(p == label for p, label in zip(predicted, y)) / len(y)
    print(f"predictions.csv: {len(predicted)} rows, {agree:.1%} of them the diagnosis")
    fasttree("evaluate", "cancer.csv", "--target", "diagnosis", *FOREST, "--cv", "3",
             cwd=directory)
    fasttree("show", "cancer.ft", "--importances", cwd=directory)
