"""Damaged model files, loaded (and, when they load, used) many times over:
run as a child process by test_model_file.py, so that a crash shows as its
exit status. Prints one JSON line of counts.

Three kinds of damage: bytes of the file flipped, the file truncated, and
(past the zip's checksums, which catch the first two) values of the
header and of the arrays changed and the file written again intact.

Every damaged file must be refused with ModelFileError, or load as a model
that answers as the original does ('same') or as some valid model would
('valid', see ``verdict``); anything else is counted 'invalid', with what
was wrong.
"""

import io
import json
import sys
import warnings

import numpy as np

from fasttree import ModelFileError, NotFittedError
from fasttree._model_file import dumps, loads

SPECIAL_NUMBERS = [0, -1, 1, 2, 7, 2 ** 31 - 1, -2 ** 31, 2 ** 63 - 1, 10 ** 30, 0.5]
SPECIAL_FLOATS = [np.nan, np.inf, -np.inf, -0.0, 1e38, 3.5e38, -1.0]


def parts_of(data):
    """The header (parsed) and the array entries of a model file's bytes."""
    with np.load(io.BytesIO(data), allow_pickle=False) as archive:
        arrays = {name: archive[name].copy() for name in archive.files}
    return json.loads(arrays.pop("header").tobytes()), arrays


def file_of(header, arrays):
    """A model file of a header (parsed, or its bytes) and array entries, its
    checksums intact."""
    buffer = io.BytesIO()
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    np.savez(buffer, header=np.frombuffer(text, dtype=np.uint8), **arrays)
    return buffer.getvalue()


def leaves_of(value, found):
    """Every (container, key) in a parsed header whose item is not a dict
    or list: the numbers, strings and nulls a mutation may change."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        if isinstance(item, (dict, list)):
            leaves_of(item, found)
        else:
            found.append((value, key))
    return found


def damaged_bytes(data, rng):
    data = bytearray(data)
    if rng.random() < 0.3:
        return bytes(data[:rng.integers(len(data))])
    for _ in range(rng.integers(1, 9)):
        position = rng.integers(len(data))
        data[position] ^= 1 << rng.integers(8)
    return bytes(data)


def damaged_values(data, rng):
    header, arrays = parts_of(data)
    for _ in range(rng.integers(1, 4)):
        if rng.random() < 0.5:
            container, key = leaves_of(header, [])[rng.integers(len(leaves_of(header, [])))]
            item = container[key]
            choices = SPECIAL_NUMBERS + ["x", None, True, [], {}]
            if isinstance(item, int) and not isinstance(item, bool):
                choices += [item + 1, item - 1, item * 2]
            container[key] = choices[rng.integers(len(choices))]
            continue
        name = sorted(arrays)[rng.integers(len(arrays))]
        array = arrays[name]
        if array.size == 0:
            continue
        if array.dtype.names is not None or rng.random() < 0.3:
            # Records (tree nodes), and sometimes any array: one bit.
            bytes_view = array.reshape(-1).view(np.uint8)
            position = rng.integers(bytes_view.size)
            bytes_view[position] ^= np.uint8(1 << rng.integers(8))
            continue
        index = rng.integers(array.size)
        flat = array.reshape(-1)
        if array.dtype.kind == "f":
            values = SPECIAL_FLOATS + SPECIAL_NUMBERS
        else:
            values = SPECIAL_NUMBERS
        value = values[rng.integers(len(values))]
        try:
            flat[index] = value
        except (OverflowError, ValueError):
            flat[index] = -1 if array.dtype.kind == "i" else 0
    return file_of(header, arrays)


def answers(model, X):
    """What the model answers for X: predict, predict_proba (a list of one
    array per output) and apply, where it has them."""
    found = {"predict": np.asarray(model.predict(X))}
    if hasattr(model, "predict_proba"):
        probabilities = model.predict_proba(X)
        found["predict_proba"] = (probabilities if isinstance(probabilities, list)
                                  else [probabilities])
    if hasattr(model, "apply") and not type(model).__name__.startswith("AdaBoost"):
        found["apply"] = np.asarray(model.apply(X))
    return found


def same_answers(first, second):
    def flat(found):
        return [found["predict"], *found.get("predict_proba", []), *(
            [found["apply"]] if "apply" in found else [])]
    return first.keys() == second.keys() and len(flat(first)) == len(flat(second)) and all(
        a.dtype == b.dtype and a.shape == b.shape
        and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
        for a, b in zip(flat(first), flat(second)))


def verdict(model, X, expected):
    """'same' when the loaded model answers as the original (``expected``),
    'valid' when it answers as some valid model would, else what is wrong.
    A valid model: an unfitted estimator (its parameters only), or one that
    answers every call without an error; it predicts one value per row
    (of its own classes, for a classifier; a finite number, for a
    regressor, as a fit on finite targets gives); its probabilities are one
    row per sample over its classes, each in [0, 1] and summing to 1; apply
    names leaves of its trees; and saved again and loaded, it answers the
    same."""
    if hasattr(X, "columns") and getattr(model, "feature_names_in_", None) is not None:
        # Other feature names make another valid model: ask it by its names.
        X = X.set_axis(list(model.feature_names_in_), axis=1)
    try:
        found = answers(model, X)
    except NotFittedError as error:
        # A model file of an unfitted estimator holds its parameters only
        # (and empty caches).
        if all(key in type(model)._parameter_names() or (key.startswith("_") and value is None)
               for key, value in model.__dict__.items()):
            return "valid"
        return f"NotFittedError, though it holds {sorted(model.__dict__)}: {error}"
    except Exception as error:  # noqa: BLE001 (the problem reported)
        return f"{type(error).__name__}: {error}"
    if same_answers(found, expected):
        return "same"
    n_rows = len(X)
    prediction = found["predict"]
    n_outputs = 1 if prediction.ndim == 1 else prediction.shape[1]
    if prediction.shape[0] != n_rows or prediction.ndim > 2:
        return f"predict gives shape {prediction.shape} for {n_rows} rows"
    columns = prediction.reshape(n_rows, n_outputs).T
    classes = getattr(model, "classes_", None)
    if classes is not None:
        classes = classes if isinstance(classes, list) else [classes]
        if len(classes) != n_outputs:
            return f"predict gives {n_outputs} outputs for {len(classes)} lists of classes"
        for column, own in zip(columns, classes):
            if not np.isin(column, own).all():
                return "predict gives a class not in classes_"
        for proba, own in zip(found.get("predict_proba", ()), classes, strict=False):
            if proba.shape != (n_rows, len(own)):
                return f"predict_proba gives shape {proba.shape} for {len(own)} classes"
            # The leaves of compact (forest) trees hold float32 shares.
            if not (np.isfinite(proba).all() and (proba >= 0).all()
                    and (proba <= 1 + 1e-6).all()
                    and np.allclose(proba.sum(axis=1), 1.0, rtol=0.0, atol=1e-6)):
                return "predict_proba gives rows that are not probabilities"
    elif not np.isfinite(prediction.astype(np.float64)).all():
        return "predict gives values that are not finite"
    if "apply" in found:
        leaves = found["apply"]
        if leaves.shape[0] != n_rows or leaves.dtype.kind not in "iu":
            return f"apply gives {leaves.dtype} of shape {leaves.shape}"
        trees = ([model.tree_] if hasattr(model, "tree_")
                 else [member.tree_ for member in model.estimators_])
        if leaves.shape != ((n_rows,) if hasattr(model, "tree_") else (n_rows, len(trees))):
            return f"apply gives shape {leaves.shape}"
        for column, tree in zip(leaves.reshape(n_rows, -1).T, trees):
            if not ((column >= 0) & (column < tree.node_count)).all() or (
                    tree.children_left[column] != -1).any():
                return "apply gives a node that is no leaf"
    if not same_answers(answers(loads(dumps(model)), X), found):
        return "saved again and loaded, it answers otherwise"
    return "valid"


def main(seed, n_rounds):
    sys.path.insert(0, sys.argv[3])
    from test_model_file import MODELS  # noqa: E402 (the tests' own catalog)

    rng = np.random.default_rng(seed)
    counts = {"damaged": 0, "refused": 0, "same": 0, "valid": 0, "invalid": 0}
    problems = {}
    names = sorted(MODELS)
    expected = {name: answers(*MODELS[name]) for name in names}
    for round_ in range(n_rounds):
        name = names[round_ % len(names)]
        model, X = MODELS[name]
        data = dumps(model)
        damaged = damaged_bytes(data, rng) if rng.random() < 0.4 else damaged_values(data, rng)
        counts["damaged"] += 1
        try:
            loaded = loads(damaged)
        except ModelFileError:
            counts["refused"] += 1
            continue
        with warnings.catch_warnings():
            # A damaged parameter may be one that warns (verbose output,
            # a deprecated value): a warning is no wrong answer.
            warnings.simplefilter("ignore")
            found = verdict(loaded, X, expected[name])
        if found in ("same", "valid"):
            counts[found] += 1
            continue
        counts["invalid"] += 1
        key = f"{name}: {found}"[:200]
        problems[key] = problems.get(key, 0) + 1
    print(json.dumps({"counts": counts, "problems": problems}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
