"""scikit-learn's ``sklearn.ensemble.tests.test_weight_boosting`` run against fasttree's estimators."""

from conformance.swap import import_swapped

globals().update(import_swapped("sklearn.ensemble.tests.test_weight_boosting"))
