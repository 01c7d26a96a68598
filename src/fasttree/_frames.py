"""polars DataFrames and pyarrow Tables as fasttree reads pandas DataFrames,
without importing either library (or pandas).

``as_frame`` turns one into a ``ColumnFrame``: numpy columns with the few
DataFrame attributes the estimators read (``columns``, ``dtypes``,
``iloc[:, j]``, ``to_numpy``). Numeric columns become float64 (nulls NaN;
booleans stay boolean); text, categorical and other columns become object
arrays (nulls None), which ``categorical_features='from_dtype'`` takes as
categorical, as it does pandas' object, string and category columns.
"""

import numpy as np


def _library_of(X):
    return type(X).__module__.split(".")[0]


def is_foreign_frame(X):
    """Whether X is a polars DataFrame or a pyarrow Table."""
    kind = type(X).__name__
    return ((_library_of(X) == "polars" and kind == "DataFrame")
            or (_library_of(X) == "pyarrow" and kind in ("Table", "RecordBatch")))


def is_frame(X):
    """Whether X is DataFrame-like (``columns`` and ``dtypes``, ``to_numpy``),
    asked of its type: pandas builds a new ``dtypes`` Series at every access,
    which ``hasattr`` on the frame itself would pay for."""
    kind = type(X)
    return isinstance(X, ColumnFrame) or (
        hasattr(kind, "dtypes") and hasattr(kind, "columns") and hasattr(kind, "to_numpy"))


def as_frame(X):
    """A polars DataFrame or pyarrow Table as a ``ColumnFrame``; anything
    else as it is."""
    if not is_foreign_frame(X):
        return X
    if _library_of(X) == "polars":
        names = [str(name) for name in X.columns]
        columns = [_polars_column(X.get_column(name)) for name in X.columns]
    else:
        names = [str(name) for name in X.column_names]
        columns = [_arrow_column(X.column(index)) for index in range(X.num_columns)]
    return ColumnFrame(names, columns)


def _polars_column(series):
    dtype = series.dtype
    if dtype.is_numeric():
        return series.cast(float).to_numpy().astype(np.float64) if series.null_count() \
            else series.to_numpy().astype(np.float64)
    if str(dtype) == "Boolean" and not series.null_count():
        return series.to_numpy().astype(bool)
    if dtype.is_temporal():
        # Dates and durations as numpy datetime64 / timedelta64, which the
        # checks recognise (times of day come as objects).
        return series.to_numpy()
    return np.array(series.to_list(), dtype=object)


def _arrow_column(column):
    import_type = str(column.type)
    values = column.to_pylist()
    if import_type.startswith(("int", "uint", "float", "double", "halffloat", "decimal")):
        return np.array([np.nan if value is None else float(value) for value in values],
                        dtype=np.float64)
    if import_type == "bool" and None not in values:
        return np.array(values, dtype=bool)
    if import_type.startswith(("date", "timestamp", "duration")):
        return column.to_numpy()
    return np.array(values, dtype=object)


class _Column:
    def __init__(self, values):
        self._values = values

    def to_numpy(self, dtype=None):
        return self._values if dtype is None else self._values.astype(dtype)

    def astype(self, dtype):
        return self._values.astype(dtype)


class _Positions:
    def __init__(self, getter):
        self._getter = getter

    def __getitem__(self, key):
        return self._getter(key)


class _Dtypes(list):
    """The columns' dtypes, by position also as ``dtypes.iloc[j]`` (as pandas)."""

    @property
    def iloc(self):
        return self


class ColumnFrame:
    """Named numpy columns read as a pandas DataFrame is (see module docstring).

    Parameters
    ----------
    names : list of str
    columns : list of 1-D ndarray, all of one length
    """

    def __init__(self, names, columns):
        self.columns = list(names)
        self._columns = list(columns)
        self.dtypes = _Dtypes(column.dtype for column in self._columns)
        self.iloc = _Positions(self._column_at)

    def _column_at(self, key):
        rows, index = key
        if not (isinstance(rows, slice) and rows == slice(None)):
            raise TypeError("a ColumnFrame gives whole columns only")
        return _Column(self._columns[index])

    @property
    def shape(self):
        return (len(self._columns[0]) if self._columns else 0, len(self._columns))

    def __len__(self):
        return self.shape[0]

    def to_numpy(self):
        if all(column.dtype.kind in "biuf" for column in self._columns):
            return np.column_stack(self._columns).astype(np.float64) if self._columns \
                else np.empty((0, 0))
        table = np.empty(self.shape, dtype=object)
        for index, column in enumerate(self._columns):
            table[:, index] = column
        return table

    def __array__(self, dtype=None, copy=None):
        array = self.to_numpy()
        return array if dtype is None else array.astype(dtype)
