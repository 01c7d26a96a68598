"""fasttree's version: the package's ``__version__``, which model files record."""

__version__ = "0.1.0"
