"""A random forest on the bundled breast cancer data: out-of-bag accuracy,
test accuracy and the most important features.

Run: python examples/forest_out_of_bag.py

Prints:

    out-of-bag accuracy: 0.971
    test accuracy:       0.980
    most important features (mean decrease in impurity):
      uniformity_cell_size         0.285
      bare_nuclei                  0.189
      uniformity_cell_shape        0.188
"""

import numpy as np

from fasttree import RandomForestClassifier
from fasttree.datasets import load_breast_cancer_wisconsin

X, y, feature_names = load_breast_cancer_wisconsin()
order = np.random.default_rng(0).permutation(len(y))
train, test = order[:478], order[478:]

forest = RandomForestClassifier(n_estimators=200, oob_score=True, random_state=0)
forest.fit(X[train], y[train])

print(f"out-of-bag accuracy: {forest.oob_score_:.3f}")
print(f"test accuracy:       {forest.score(X[test], y[test]):.3f}")
print("most important features (mean decrease in impurity):")
for index in np.argsort(-forest.feature_importances_)[:3]:
    print(f"  {feature_names[index]:<28} {forest.feature_importances_[index]:.3f}")
