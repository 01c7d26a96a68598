"""What the API fuzz test (``tests/api_fuzz.py``) asks of every call: an
exception must be of a documented type with a clear message, and a result
must keep the invariants (finite values, probabilities that sum to 1,
regression predictions within the range of y, ...).

The documented exception types are read from the "Errors" section of
``docs/compatibility.md``, so that the page and the test share one list.
"""

import builtins
import re
import traceback
from pathlib import Path

import numpy as np

import fasttree
from tolerances import ROUNDING, data_scale

COMPATIBILITY = Path(__file__).resolve().parent.parent / "docs" / "compatibility.md"

# Phrases of numpy, pandas, scipy and Python internals: a message holding one
# tells the user nothing about their input or parameters.
INTERNAL_PHRASES = re.compile("|".join([
    r"probabilities do not sum to 1", r"InvalidIndexError", r"cannot convert float",
    r"not supported between instances of", r"could not broadcast", r"operands could not be",
    r"is out of bounds for", r"input array dimensions", r"zero-size array to reduction",
    r"Unable to allocate", r"unhashable type", r"setting an array element with a sequence",
    r"has no len\(\)", r"'\w+' object (is not|has no|cannot)", r"positional argument",
    r"Buffer dtype mismatch", r"buffer source array is read-only", r"wrong number of dimensions",
    r"too large to convert", r"Cannot cast array", r"ufunc '", r"truth value of an array",
    r"invalid literal for", r"math domain error", r"division by zero",
    r"must not contain infs or NaNs", r"list index out of range", r"Python int too large",
    r"object arrays are not supported", r"expected a sequence", r"'[<>]=?' not supported",
]))


def documented_exceptions(path=COMPATIBILITY):
    """(allowed, forbidden): the exception classes the "Errors" section of the
    compatibility page allows (its bullets' leading names) and forbids (the
    names in its "Never" sentence)."""
    text = path.read_text(encoding="utf-8")
    section = text.split("\n## Errors\n", 1)[1].split("\n## ", 1)[0]
    allowed = re.findall(r"^- `(\w+)`", section, flags=re.MULTILINE)
    never = section[section.index("Never"):]
    forbidden = re.findall(r"`(\w+)`", never.split(".")[0])

    def exception_class(name):
        found = getattr(builtins, name, None) or getattr(fasttree, name)
        assert isinstance(found, type) and issubclass(found, BaseException), name
        return found

    return (tuple(exception_class(name) for name in allowed),
            tuple(exception_class(name) for name in forbidden if name != "NotFittedError"))


ALLOWED, FORBIDDEN = documented_exceptions()


def is_not_fitted_error(error):
    return any(cls.__name__ == "NotFittedError" for cls in type(error).__mro__)


def origin(error):
    """The file of the innermost frame the exception passed through."""
    frames = traceback.extract_tb(error.__traceback__)
    return frames[-1].filename if frames else ""


def library_file(filename):
    """Whether a frame's file is code of fasttree (or of scikit-learn, for
    members from there), not numpy's, pandas', scipy's or Python's."""
    parts = Path(filename).parts
    return filename.endswith(".pyx") or "fasttree" in parts or "sklearn" in parts


def why_unclear(error, call):
    """None for an exception of a documented type with a clear message, else
    the reason it is not."""
    if isinstance(error, MemoryError) and not str(error):
        return "a MemoryError without a message"
    if not is_not_fitted_error(error):
        if not isinstance(error, ALLOWED):
            return f"{type(error).__name__} is not a documented exception type"
        if isinstance(error, FORBIDDEN):
            return f"{type(error).__name__} is one of the exception types fasttree never raises"
    message = str(error)
    if len(message) < 12 or " " not in message:
        return "no sentence for a message"
    if INTERNAL_PHRASES.search(message):
        return "a message of numpy, pandas or Python internals"
    if "corrupt" in message and not call.startswith(("pickle", "save")):
        return "a message about a corrupt model where no model file is involved"
    if not library_file(origin(error)):
        return f"raised inside {Path(origin(error)).name}, not by fasttree"
    return None


def short_traceback(error, frames=4):
    return "".join(traceback.format_exception(type(error), error, error.__traceback__)
                   [-frames - 1:])[-1500:]


def normalised(message):
    """A message with its numbers and quoted values blanked: one key for one cause."""
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    message = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", message)
    return re.sub(r"\[[^\]]*\]|\([^)]*\)", "(…)", message)[:160]


# --- Invariants of results --------------------------------------------------------
# Each returns None, or a sentence saying what does not hold.


def as_outputs(result):
    """A result as a list of float arrays, one per output."""
    if isinstance(result, list):
        return [np.asarray(part, dtype=np.float64) for part in result]
    return [np.asarray(result, dtype=np.float64)]


def probabilities_problem(result, n_rows):
    for proba in as_outputs(result):
        if proba.ndim != 2 or proba.shape[0] != n_rows:
            return f"probabilities of shape {proba.shape} for {n_rows} rows"
        if not np.all(np.isfinite(proba)):
            return "probabilities that are not finite"
        if proba.size and (proba.min() < 0 or proba.max() > 1 + ROUNDING):
            return f"probabilities outside [0, 1]: {proba.min()!r} .. {proba.max()!r}"
        sums = proba.sum(axis=1)
        if sums.size and np.max(np.abs(sums - 1)) > ROUNDING * proba.shape[1]:
            return f"probabilities whose rows sum to {sums[np.argmax(np.abs(sums - 1))]!r}"
    return None


def log_probabilities_problem(result):
    for log_proba in as_outputs(result):
        if np.isnan(log_proba).any() or (log_proba.size and log_proba.max() > ROUNDING):
            return "log-probabilities that are NaN or above 0"
    return None


def finite_problem(result, what):
    values = np.concatenate([part.ravel() for part in as_outputs(result)] or [np.zeros(0)])
    if not np.all(np.isfinite(values)):
        return f"{what} that are not finite"
    return None


def positive_weight_rows(weight, n_rows):
    """Mask of the training rows of positive weight (all, when the weight is
    not an array of one number per row)."""
    try:
        weight = np.asarray(weight, dtype=np.float64)
    except (TypeError, ValueError):
        return np.ones(n_rows, dtype=bool)
    if weight.shape != (n_rows,):
        return np.ones(n_rows, dtype=bool)
    return weight > 0


def comparable_weights(weight, n_rows):
    """Whether every row weighs enough to count: a weight of normal magnitude,
    at most 1e6 times lighter than the heaviest (a node whose impurity comes
    from a row 1e-16 times lighter than the rest is pure to the builders)."""
    if weight is None:
        return True
    if not positive_weight_rows(weight, n_rows).all():
        return False
    weight = np.asarray(weight, dtype=np.float64).reshape(-1)
    return bool(weight.size == 0 or (weight.min() >= np.finfo(np.float64).tiny
                                     and weight.max() <= 1e6 * weight.min()))


def extrapolates(model):
    """Whether the model's predictions may leave the targets' range: a
    linear function of the features (a linear expert, or a mixture of them)
    does, where every tree's leaf averages targets."""
    from fasttree import LinearExpert

    experts = getattr(model, "experts_", [model])
    return isinstance(experts[0], LinearExpert)


def range_problem(predictions, y, weight):
    """Regression predictions must lie within the range of the targets of
    the rows of positive weight (up to rounding)."""
    y = np.asarray(y, dtype=np.float64)
    rows = positive_weight_rows(weight, len(y))
    if not rows.any() or np.size(predictions) == 0:
        return None
    y = y.reshape(len(y), -1)
    predictions = np.asarray(predictions, dtype=np.float64).reshape(-1, y.shape[1])
    for k in range(y.shape[1]):
        low, high = y[rows, k].min(), y[rows, k].max()
        slack = ROUNDING * data_scale(low, high)
        outside = (predictions[:, k] < low - slack) | (predictions[:, k] > high + slack)
        if outside.any():
            return (f"a regression prediction {predictions[outside, k][0]!r} outside the range "
                    f"[{low!r}, {high!r}] of the targets of positive weight")
    return None


def pruning_path_problem(path):
    """The alphas of a pruning path are finite, not below 0 and rising, up to
    rounding of the impurities they are differences of."""
    alphas, impurities = np.asarray(path.ccp_alphas), np.asarray(path.impurities)
    if not (np.all(np.isfinite(alphas)) and np.all(np.isfinite(impurities))):
        return "a pruning path of values that are not finite"
    slack = ROUNDING * data_scale(impurities)
    if alphas.size and (alphas.min() < -slack or np.any(np.diff(alphas) < -slack)):
        return f"pruning path alphas {alphas[:4]!r} below 0 or falling"
    return None


def labels_problem(predictions, classes):
    columns = [classes] if not isinstance(classes, list) else classes
    predictions = np.asarray(predictions, dtype=object)
    predictions = predictions.reshape(len(predictions), -1 if len(predictions) else len(columns))
    for k, known in enumerate(columns):
        known = set(np.asarray(known, dtype=object).tolist())
        unknown = [value for value in predictions[:, k].tolist() if value not in known]
        if unknown:
            return f"predicted labels not in classes_: {unknown[:3]!r}"
    return None


def same(first, second):
    """Whether two results (arrays, lists of arrays, sparse matrices, numbers)
    are exactly equal, NaN equal to NaN."""
    if isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)):
        return len(first) == len(second) and all(map(same, first, second))
    if hasattr(first, "toarray") and hasattr(second, "toarray"):
        return first.shape == second.shape and (first != second).nnz == 0
    try:
        np.testing.assert_array_equal(first, second)
    except AssertionError:
        return False
    return True


def close(first, second, scale):
    """Whether two results agree up to rounding (see tests/tolerances.py)."""
    first, second = as_outputs(first), as_outputs(second)
    if len(first) != len(second):
        return False
    for a, b in zip(first, second):
        if a.shape != b.shape or not np.allclose(a, b, rtol=ROUNDING, atol=ROUNDING * scale,
                                                 equal_nan=True):
            return False
    return True
