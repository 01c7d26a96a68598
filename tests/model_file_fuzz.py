"""Damaged model files, loaded (and, when they load, used) many times over:
run as a child process by test_model_file.py, so that a crash shows as its
exit status. Prints one JSON line of counts.

Three kinds of damage: bytes of the file flipped, the file truncated, and
(past the zip's checksums, which catch the first two) values of the
header and of the arrays changed and the file written again intact.
"""

import io
import json
import sys

import numpy as np

from fasttree import ModelFileError
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


def use(model, X):
    model.predict(X)
    if hasattr(model, "predict_proba"):
        model.predict_proba(X)


def main(seed, n_rounds):
    sys.path.insert(0, sys.argv[3])
    from test_model_file import MODELS  # noqa: E402 (the tests' own catalog)

    rng = np.random.default_rng(seed)
    counts = {"damaged": 0, "refused": 0, "loaded": 0, "failed_after_loading": 0}
    failures = {}
    names = sorted(MODELS)
    for round_ in range(n_rounds):
        model, X = MODELS[names[round_ % len(names)]]
        data = dumps(model)
        damaged = damaged_bytes(data, rng) if rng.random() < 0.4 else damaged_values(data, rng)
        counts["damaged"] += 1
        try:
            loaded = loads(damaged)
        except ModelFileError:
            counts["refused"] += 1
            continue
        counts["loaded"] += 1
        try:
            use(loaded, X)
        except Exception as error:  # noqa: BLE001 (counted and reported)
            counts["failed_after_loading"] += 1
            key = f"{names[round_ % len(names)]}: {type(error).__name__}: {error}"[:200]
            failures[key] = failures.get(key, 0) + 1
    print(json.dumps({"counts": counts, "failures": failures}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
