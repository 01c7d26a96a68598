"""scikit-learn's ``sklearn.ensemble.tests.test_bagging`` run against fasttree's estimators."""

from conformance.swap import import_swapped

globals().update(import_swapped("sklearn.ensemble.tests.test_bagging"))
