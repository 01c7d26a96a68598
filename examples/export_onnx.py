"""Export a forest to ONNX and run it with onnxruntime
(pip install "fasttree[onnx]").

Run: python examples/export_onnx.py
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
print(f"largest probability difference: "
      f"{np.abs(probabilities - forest.predict_proba(X)).max():.1e}")
