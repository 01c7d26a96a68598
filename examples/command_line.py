"""The command line on a CSV file: train a forest, predict, evaluate, show.

Run: python examples/command_line.py
"""

import csv
import os
import subprocess
import sys
import tempfile

from fasttree.datasets import load_breast_cancer_wisconsin

X, y, feature_names = load_breast_cancer_wisconsin()
with tempfile.TemporaryDirectory() as directory:
    data = os.path.join(directory, "cancer.csv")
    with open(data, "w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow([*feature_names, "diagnosis"])
        writer.writerows([*row, label] for row, label in zip(X.tolist(), y))
    model = os.path.join(directory, "cancer.ft")
    for command in (["train", data, "--target", "diagnosis", "--model", "forest",
                     "--n-estimators", "50", "--random-state", "0", "--out", model],
                    ["evaluate", data, "--target", "diagnosis", "--cv", "3"],
                    ["show", model, "--importances"]):
        print("$ python -m fasttree", " ".join(command[:1]), "...")
        subprocess.run([sys.executable, "-m", "fasttree", *command], check=True)
