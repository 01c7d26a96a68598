"""Settings for the whole test suite."""

import os

# scikit-learn's estimator checks run their array-API check (with numpy
# arrays) only when scipy was imported with its array-API support on; set
# it before anything imports scipy, so that the check runs instead of being
# skipped.
os.environ.setdefault("SCIPY_ARRAY_API", "1")
