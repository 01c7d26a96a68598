"""scikit-learn's ``sklearn.tree.tests.test_monotonic_tree`` run against fasttree's estimators."""

from conformance.swap import import_swapped

globals().update(import_swapped("sklearn.tree.tests.test_monotonic_tree"))
