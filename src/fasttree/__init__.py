"""fasttree: fast, exact decision trees with a scikit-learn compatible API."""

from ._validation import NotFittedError
from .tree import DecisionTreeClassifier, DecisionTreeRegressor

__version__ = "0.1.0"

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "NotFittedError", "__version__"]
