"""Explain a forest's predictions with SHAP (pip install "fasttree[explain]"):
each row's SHAP values add up to its predicted probability.

Run: python examples/explain_shap.py
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
assert np.allclose(total, forest.predict_proba(X[:100])[:, malignant])

mean_effect = np.abs(values[:, :, malignant]).mean(axis=0)
for index in np.argsort(-mean_effect)[:3]:
    print(f"{feature_names[index]:<28} mean |SHAP| {mean_effect[index]:.3f}")
