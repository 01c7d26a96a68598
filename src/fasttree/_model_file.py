"""Model files: a fitted estimator saved without pickle, and loaded without
running code from the file.

A model file is a zip archive of ``.npy`` arrays (numpy's ``savez`` layout),
read back with ``allow_pickle=False``. Its entry ``header`` is the UTF-8
JSON document that describes the model; the other entries are the arrays
the document names. The document is::

    {"format": "fasttree-model", "format_version": 1,
     "fasttree_version": "0.1.0", "model": <value>}

where a value is JSON (``null``, booleans, integers, strings, finite floats)
or a tagged object ``{"type": ..., ...}``:

- ``float``: ``{"value": "nan" | "inf" | "-inf"}``;
- ``scalar``: a numpy scalar, ``{"dtype": ..., "value": ...}``;
- ``array``: ``{"entry": name, "offset": int, "shape": [...]}``, an array
  of numbers, booleans, strings or records: ``prod(shape)`` values from
  ``offset`` on of the entry ``name``, in C order. The entries are flat
  arrays, one per dtype, each the model's arrays of that dtype back to
  back; every value of an entry belongs to exactly one array;
- ``objects``: an array of Python objects (class labels, feature names),
  ``{"shape": [...], "items": [<value>, ...]}`` in C order;
- ``list``, ``tuple``, ``set``, ``frozenset``: ``{"items": [<value>, ...]}``;
- ``dict``: ``{"items": [[<key>, <value>], ...]}``;
- ``random_state``: a ``numpy.random.RandomState``, its Mersenne Twister
  state ``{"key": <value>, "pos": int, ...}``;
- ``dtype``: ``{"name": ...}`` (a numeric numpy dtype);
- ``object``: one of fasttree's own classes (an estimator, a tree, a rule),
  ``{"class": name, "state": <value>}``; only the classes registered with
  ``model_file_class`` are made, and a tree's state goes through the checks
  a pickled tree does.

Loading checks the document's structure, the format version and every
array's dtype, then each estimator's consistency (see ``_state_checks.py``).
"""

import bisect
import codecs
import dataclasses
import io
import json
import math

import numpy as np

from ._version import __version__

FORMAT_NAME = "fasttree-model"
FORMAT_VERSION = 1
HEADER_ENTRY = "header"
# A model file is a zip archive: it starts with a local file header (or, for
# an archive of no entries, the end of its central directory).
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")
# Nesting deeper than this is refused on load (a hostile document could
# otherwise exhaust the stack).
MAX_DEPTH = 64


class ModelFileError(ValueError):
    """A model file that cannot be read: not a fasttree model file, of an
    unknown format version, truncated, corrupted or inconsistent."""


# The classes a model file may hold, by name. Each registers itself where it
# is defined (fasttree's estimators, its tree and its rules), so that this
# module imports none of them; a file naming any other class is refused.
MODEL_CLASSES = {}


def model_file_class(cls):
    """Class decorator: ``cls`` may be saved in model files and is made again
    on load, from its state (through its ``__setstate__``, if it has one)."""
    MODEL_CLASSES[cls.__name__] = cls
    return cls


def is_estimator(value):
    """Whether ``value`` is a fasttree estimator: one that checks its loaded
    state (``BaseEstimator._check_loaded_state``). Asked of the value, so
    that this module imports no estimator."""
    return callable(getattr(type(value), "_check_loaded_state", None))


def _state_of(obj):
    # The file is compressed as a whole: a tree's, or an estimator's, state
    # as it is before a pickle compresses it.
    if hasattr(obj, "plain_state"):
        return obj.plain_state()
    if hasattr(obj, "_model_file_state"):
        return obj._model_file_state()
    if type(obj).__getstate__ is not object.__getstate__:
        return obj.__getstate__()
    return dict(obj.__dict__)


class _Writer:
    def __init__(self):
        self.arrays = {}
        self.classes = MODEL_CLASSES

    def array(self, value):
        # Arrays of one dtype are stored back to back in one entry: a
        # forest's thousands of small arrays cost a few entries, not an
        # entry's headers each.
        parts = self.arrays.setdefault(value.dtype, [])
        offset = sum(part.size for part in parts)
        parts.append(np.ascontiguousarray(value).ravel())
        return {"type": "array", "entry": f"d{list(self.arrays).index(value.dtype)}",
                "offset": offset, "shape": list(value.shape)}

    def entries(self):
        return {f"d{index}": np.concatenate(parts)
                for index, parts in enumerate(self.arrays.values())}

    def value(self, value, depth=0):
        # ``depth`` counts the containers around ``value`` as the reader
        # will: a model nested deeper than it reads is refused here, at save.
        if depth > MAX_DEPTH:
            raise ValueError(f"cannot save a model nested more than {MAX_DEPTH} levels deep "
                             "(ensembles of ensembles); model files do not hold it, use pickle")
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int) and not isinstance(value, np.integer):
            return value
        if isinstance(value, float) and not isinstance(value, np.floating):
            if math.isfinite(value):
                return value
            return {"type": "float", "value": repr(value)}
        if isinstance(value, np.generic):
            if value.dtype.kind not in "biuf":
                return self.value(value.item(), depth)
            return {"type": "scalar", "dtype": value.dtype.str,
                    "value": self.value(value.item(), depth + 1)}
        if isinstance(value, np.ndarray):
            if value.dtype.hasobject:
                return {"type": "objects", "shape": list(value.shape),
                        "items": [self.value(item, depth + 1) for item in value.ravel().tolist()]}
            return self.array(value)
        if isinstance(value, np.dtype):
            return {"type": "dtype", "name": value.str}
        if isinstance(value, type) and issubclass(value, np.generic):
            return {"type": "dtype", "name": np.dtype(value).str}
        if isinstance(value, np.random.RandomState):
            name, key, pos, has_gauss, cached = value.get_state()
            return {"type": "random_state", "key": self.value(key, depth + 1), "pos": int(pos),
                    "has_gauss": int(has_gauss), "cached_gaussian": float(cached)}
        for kind in (list, tuple, set, frozenset):
            if type(value) is kind:
                items = sorted(value, key=repr) if kind in (set, frozenset) else value
                return {"type": kind.__name__,
                        "items": [self.value(item, depth + 1) for item in items]}
        if type(value) is dict:
            return {"type": "dict",
                    "items": [[self.value(key, depth + 1), self.value(item, depth + 1)]
                              for key, item in value.items()]}
        name = type(value).__name__
        if self.classes.get(name) is type(value):
            return {"type": "object", "class": name,
                    "state": self.value(_state_of(value), depth + 1)}
        raise TypeError(f"cannot save a model holding a {type(value).__module__}.{name}; "
                        "fasttree model files hold fasttree's own estimators only "
                        "(use pickle for others)")


class _Reader:
    def __init__(self, arrays):
        self.arrays = arrays
        self.classes = MODEL_CLASSES
        self.used = {}

    def value(self, value, depth=0):
        if depth > MAX_DEPTH:
            raise ModelFileError("the model is nested too deeply")
        if value is None or isinstance(value, (bool, str, int)):
            return value
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ModelFileError("a plain number in the header is not finite")
            return value
        if isinstance(value, list):
            raise ModelFileError("the header holds an untagged list")
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            raise ModelFileError("the header holds a value of no known type")
        kind = value["type"]
        reader = getattr(self, f"_{kind}", None)
        if reader is None:
            raise ModelFileError(f"the header holds a value of unknown type {kind!r}")
        try:
            return reader(value, depth + 1)
        except ModelFileError:
            raise
        except (KeyError, TypeError, ValueError, OverflowError) as error:
            raise ModelFileError(f"a {kind} in the header is malformed ({error})") from None

    def _items(self, value, depth):
        items = value["items"]
        if not isinstance(items, list):
            raise ModelFileError("a collection's items are not a list")
        return [self.value(item, depth) for item in items]

    def _float(self, value, depth):
        if value["value"] not in ("nan", "inf", "-inf"):
            raise ModelFileError("a special float is not nan, inf or -inf")
        return float(value["value"])

    def _scalar(self, value, depth):
        dtype = np.dtype(value["dtype"])
        if dtype.kind not in "biuf":
            raise ModelFileError(f"a scalar has the dtype {dtype}")
        item = self.value(value["value"], depth)
        if not isinstance(item, (bool, int, float)):
            raise ModelFileError("a scalar's value is not a number")
        return dtype.type(item)

    def _array(self, value, depth):
        entry, offset, shape = value["entry"], value["offset"], value["shape"]
        if not isinstance(entry, str) or entry not in self.arrays:
            raise ModelFileError(f"the header names an array entry {entry!r} the file lacks")
        stored = self.arrays[entry]
        if stored.ndim != 1 or stored.dtype.hasobject:
            raise ModelFileError(f"the array entry {entry!r} is not a flat array of numbers")
        if (not isinstance(shape, list) or len(shape) > 32
                or not all(isinstance(size, int) and size >= 0 for size in shape)
                or not isinstance(offset, int) or isinstance(offset, bool)):
            raise ModelFileError("an array's offset or shape is malformed")
        if stored.dtype.kind == "U":
            code_points = stored.view(np.uint32)
            if ((code_points > 0x10FFFF) | ((code_points >= 0xD800)
                                            & (code_points <= 0xDFFF))).any():
                raise ModelFileError(f"the text entry {entry!r} holds invalid characters")
        size = math.prod(shape)
        if offset < 0 or offset + size > stored.shape[0]:
            raise ModelFileError(f"an array reaches beyond its entry {entry!r}")
        # Each value of an entry belongs to one array: no two arrays share.
        spans = self.used.setdefault(entry, [])
        place = bisect.bisect_left(spans, (offset, size))
        if ((place > 0 and sum(spans[place - 1]) > offset)
                or (place < len(spans) and offset + size > spans[place][0])):
            raise ModelFileError(f"two arrays share values of the entry {entry!r}")
        spans.insert(place, (offset, size))
        return stored[offset:offset + size].reshape(shape)

    def check_entries_used(self):
        """Every entry is covered by its arrays (which do not overlap)."""
        for entry, stored in self.arrays.items():
            if sum(size for _, size in self.used.get(entry, [])) != stored.shape[0]:
                raise ModelFileError(f"the entry {entry!r} holds values no array names")

    def _objects(self, value, depth):
        shape = value["shape"]
        if (not isinstance(shape, list) or len(shape) > 32
                or not all(isinstance(size, int) and size >= 0 for size in shape)):
            raise ModelFileError("an object array has a malformed shape")
        items = self._items(value, depth)
        if math.prod(shape) != len(items):
            raise ModelFileError("an object array's items do not fill its shape")
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array.reshape(shape)

    def _list(self, value, depth):
        return self._items(value, depth)

    def _tuple(self, value, depth):
        return tuple(self._items(value, depth))

    def _set(self, value, depth):
        return set(self._items(value, depth))

    def _frozenset(self, value, depth):
        return frozenset(self._items(value, depth))

    def _dict(self, value, depth):
        pairs = value["items"]
        if not isinstance(pairs, list) or not all(isinstance(pair, list) and len(pair) == 2
                                                  for pair in pairs):
            raise ModelFileError("a dict's items are not pairs")
        result = {}
        for key, item in pairs:
            key = self.value(key, depth)
            try:
                result[key] = self.value(item, depth)
            except TypeError:
                raise ModelFileError("a dict has a key that cannot be one") from None
        return result

    def _dtype(self, value, depth):
        dtype = np.dtype(value["name"])
        if dtype.kind not in "biuf":
            raise ModelFileError(f"a dtype {dtype} is not numeric")
        return dtype.type

    def _random_state(self, value, depth):
        key = self.value(value["key"], depth)
        if not isinstance(key, np.ndarray) or key.dtype != np.uint32 or key.shape != (624,):
            raise ModelFileError("a random state's key is not 624 uint32 words")
        random_state = np.random.RandomState()
        random_state.set_state(("MT19937", key, int(value["pos"]), int(value["has_gauss"]),
                                float(value["cached_gaussian"])))
        return random_state

    def _object(self, value, depth):
        cls = self.classes.get(value["class"])
        if cls is None:
            raise ModelFileError(f"the model holds an object of unknown class "
                                 f"{value['class']!r}")
        state = self.value(value["state"], depth)
        if not isinstance(state, dict) or not all(isinstance(key, str) for key in state):
            raise ModelFileError(f"the state of a {cls.__name__} is not a dict of names")
        if dataclasses.is_dataclass(cls) and set(state) != {
                field.name for field in dataclasses.fields(cls)}:
            raise ModelFileError(f"a {cls.__name__} has the fields {sorted(state)}")
        obj = cls.__new__(cls)
        if hasattr(type(obj), "__setstate__"):
            try:
                obj.__setstate__(state)
            except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
                raise ModelFileError(f"a {cls.__name__} in the file is inconsistent "
                                     f"({error})") from None
        else:
            obj.__dict__.update(state)
        return obj


def dumps(model):
    """The bytes of ``model``'s model file (see the module docstring)."""
    writer = _Writer()
    header = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION,
              "fasttree_version": __version__, "model": writer.value(model)}
    buffer = io.BytesIO()
    text = json.dumps(header, allow_nan=False, separators=(",", ":")).encode("utf-8")
    np.savez_compressed(buffer, **{HEADER_ENTRY: np.frombuffer(text, dtype=np.uint8)},
                        **writer.entries())
    return buffer.getvalue()


def _what_it_is(data):
    """What a file that is not a zip archive seems to hold, in words."""
    if not data:
        return "the file is empty"
    if data.startswith(b"\x80"):
        return ("it is a pickle (load it with pickle.load, and only if you trust where it "
                "came from)")
    if data.startswith(b"\x93NUMPY"):
        return "it is a numpy .npy array"
    try:
        # A character cut at byte 4096 is left out, not taken for binary data.
        text = codecs.getincrementaldecoder("utf-8")().decode(data[:4096],
                                                              final=len(data) <= 4096)
    except UnicodeDecodeError:
        return "it is not a zip archive"
    lines = text.splitlines()
    if lines and "," in lines[0]:
        return "it holds text that looks like a CSV file (data, not a model)"
    return "it holds text, not a zip archive"


def loads(data):
    """The model in the bytes of a model file, checked (``ModelFileError``
    names what is wrong with a file that is not a sound model file)."""
    if not data.startswith(ZIP_SIGNATURES):
        raise ModelFileError(f"not a fasttree model file: {_what_it_is(data)}; model files "
                             "are written by fasttree.save or `python -m fasttree train`")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise ModelFileError("not a fasttree model file (not a zip of arrays)")
            names = archive.files
            if HEADER_ENTRY not in names:
                raise ModelFileError("not a fasttree model file (no header)")
            arrays = {name: archive[name] for name in names}
    except ModelFileError:
        raise
    except Exception as error:  # noqa: BLE001 (zip, zlib and npy errors of many types)
        raise ModelFileError(f"not a readable fasttree model file ({error})") from None
    text = arrays.pop(HEADER_ENTRY)
    if text.dtype != np.uint8 or text.ndim != 1:
        raise ModelFileError("the model file's header is not text")
    try:
        header = json.loads(text.tobytes().decode("utf-8"),
                            parse_constant=_refuse_constant)
    except RecursionError:
        raise ModelFileError("the model is nested too deeply") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ModelFileError(f"the model file's header is not JSON ({error})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise ModelFileError("not a fasttree model file (its header names another format)")
    version = header.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelFileError(f"cannot read a fasttree model file of format version "
                             f"{version!r}; this fasttree reads version {FORMAT_VERSION}")
    reader = _Reader(arrays)
    try:
        model = reader.value(header.get("model"))
    except RecursionError:
        raise ModelFileError("the model is nested too deeply") from None
    reader.check_entries_used()
    if not is_estimator(model):
        raise ModelFileError("the model file does not hold a fasttree estimator")
    # Checked again as a whole, as when the reader made it (see _state_checks.py).
    model._check_loaded_state()
    return model


def _refuse_constant(name):
    raise ModelFileError(f"the model file's header holds {name}, which JSON does not allow")


def save(model, path):
    """Write ``model`` to ``path`` as a fasttree model file."""
    data = dumps(model)
    with open(path, "wb") as file:
        file.write(data)


def load(path):
    """Read a fasttree model file written by ``save``.

    The file is read without pickle: it holds arrays and a JSON header,
    never code, and everything is checked before prediction can read it.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    estimator
        The fitted estimator, predicting exactly as the saved one did.

    Raises
    ------
    ModelFileError
        If the file is not a fasttree model file, is of a format version
        this fasttree does not read, or is truncated, corrupted or
        inconsistent (the message says what).
    """
    with open(path, "rb") as file:
        data = file.read()
    return loads(data)
