"""Export a forest to ONNX and run it with onnxruntime
(pip install "fasttree[onnx]"): the graph predicts the forest's labels, and its
probabilities to float32 precision.

Run: python examples/export_onnx.py

Prints:

    labels agree on 100.0% of the rows
    probabilities agree to 1e-6: True (largest difference ...)
"""

import numpy as np
import onnxruntime

import fasttree
from fasttree.datasets import load_breast_cancer_wisconsin

X, y, _ = load_breast_cancer_wisconsin()
forest = fasttree.RandomForestClassifier(n_estimators=30, random_state=0).fit(X, y)

graph = fasttree.export_onnx(forest)
session = onnxruntime.InferenceSession(graph.SerializeToString(),
                                       providers=["CPUExecutionProvider"])
labels, probabilities = session.run(None, {"X": fasttree.onnx_rows(forest, X)})

print(f"labels agree on {np.mean(labels == forest.predict(X)):.1%} of the rows")
difference = np.abs(probabilities - forest.predict_proba(X)).max()
print(f"probabilities agree to 1e-6: {difference <= 1e-6} (largest difference "
      f"{difference:.1e})")
