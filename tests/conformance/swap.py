"""scikit-learn's own test modules with fasttree's estimators in place of its own.

A test module binds the estimators it imports (``from sklearn.tree import
DecisionTreeClassifier``) when it is imported, in names, dictionaries and
parametrize lists alike. So the module is imported once while scikit-learn's
packages hand out fasttree's classes under their names, and scikit-learn is
put back right after: the swapped names live on only inside that module, and
every other test (the comparisons with scikit-learn among them) still sees
scikit-learn's own estimators.
"""

import importlib
import sys


import fasttree

# The scikit-learn packages whose public estimators fasttree stands in for.
SWAPPED_PACKAGES = ("sklearn.tree", "sklearn.ensemble")


def swapped_names():
    """``{package: [names]}``: fasttree's public names that the package also has."""
    names = {}
    for package_name in SWAPPED_PACKAGES:
        package = importlib.import_module(package_name)
        names[package_name] = [name for name in fasttree.__all__
                               if isinstance(getattr(fasttree, name), type)
                               and hasattr(package, name)]
    return names


def import_swapped(module_name):
    """Import scikit-learn's test module ``module_name`` with fasttree's estimators.

    Returns
    -------
    dict
        The module's tests and fixtures, to be put into a test file's globals
        for pytest to collect there.
    """
    saved = []
    for package_name, names in swapped_names().items():
        package = sys.modules[package_name]
        for name in names:
            saved.append((package, name, getattr(package, name)))
            setattr(package, name, getattr(fasttree, name))
    sys.modules.pop(module_name, None)
    try:
        module = importlib.import_module(module_name)
    finally:
        for package, name, value in saved:
            setattr(package, name, value)
        # Nobody else may import the swapped copy by its name.
        sys.modules.pop(module_name, None)
    return {name: value for name, value in vars(module).items()
            if name.startswith("test_") or _is_fixture(value)}


def _is_fixture(value):
    return (hasattr(value, "_pytestfixturefunction")
            or type(value).__name__ == "FixtureFunctionDefinition")
