"""Save a fitted model as a fasttree model file (no pickle) and load it back:
the loaded model predicts exactly as the saved one.

Run: python examples/save_and_load.py

Prints (the file's size depends on the zlib library):

    model file: ... bytes
    the loaded model predicts exactly as the saved one: True
"""

import os
import tempfile

import numpy as np

import fasttree
from fasttree.datasets import load_breast_cancer_wisconsin

X, y, _ = load_breast_cancer_wisconsin()
model = fasttree.ExtraTreesClassifier(n_estimators=50, random_state=0).fit(X, y)

with tempfile.TemporaryDirectory() as directory:
    path = os.path.join(directory, "cancer.ft")
    model.save(path)
    loaded = fasttree.load(path)
    print(f"model file: {os.path.getsize(path):,} bytes")

same = np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
print(f"the loaded model predicts exactly as the saved one: {same}")
