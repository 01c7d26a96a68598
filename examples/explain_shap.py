"""Explain a forest's predictions with SHAP (pip install "fasttree[explain]"):
each row's SHAP values add up to its predicted probability, and the features of
largest mean effect.

Run: python examples/explain_shap.py

Prints:

    SHAP values + expected value = probability of malignant, for all 100 rows: True
    largest mean |SHAP| for malignant:
      uniformity_cell_size         0.105
      bare_nuclei                  0.105
      uniformity_cell_shape        0.092
"""

import numpy as np
import shap

import fasttree
from fasttree.datasets import load_breast_cancer_wisconsin

X, y, feature_names = load_breast_cancer_wisconsin()
forest = fasttree.RandomForestClassifier(n_estimators=30, random_state=0).fit(X, y)

explainer = shap.TreeExplainer(fasttree.export_shap(forest))
values = np.asarray(explainer.shap_values(X[:100]))        # rows x features x classes
malignant = list(forest.classes_).index("malignant")
total = values[:, :, malignant].sum(axis=1) + explainer.expected_value[malignant]
adds_up = np.allclose(total, forest.predict_proba(X[:100])[:, malignant])
print(f"SHAP values + expected value = probability of malignant, for all 100 rows: "
      f"{adds_up}")

mean_effect = np.abs(values[:, :, malignant]).mean(axis=0)
print("largest mean |SHAP| for malignant:")
for index in np.argsort(-mean_effect)[:3]:
    print(f"  {feature_names[index]:<28} {mean_effect[index]:.3f}")
