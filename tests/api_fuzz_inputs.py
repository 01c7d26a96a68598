"""The inputs a case description of the API fuzz test describes
(``api_fuzz_cases.py``): X and the rows to predict in the case's container,
dtype and layout, their dense copies, y, the sample weights and the
estimator, all made deterministically from the description's ``seed``."""

import numpy as np

import fasttree
from api_fuzz_cases import kind_of


def numeric_values(rng, rows, features, values):
    shape = (rows, features)
    if values == "normal":
        return rng.normal(size=shape)
    if values == "integers":
        return rng.integers(0, 5, size=shape).astype(np.float64)
    if values == "binary":
        return rng.integers(0, 2, size=shape).astype(np.float64)
    if values == "constant":
        return np.full(shape, 1.5)
    if values == "huge":
        return rng.normal(size=shape) * 1e37
    if values == "tiny":
        return rng.normal(size=shape) * 1e-40
    if values == "wide":
        return np.sign(rng.normal(size=shape)) * 10.0 ** rng.uniform(-30, 30, size=shape)
    if values == "big_integers":
        return (2.0 ** 40 + rng.integers(0, 10, size=shape)).astype(np.float64)
    if values == "ties":
        return rng.choice([0.0, 1e-8, 1.0, 1.0 + 1e-9], size=shape)
    if values == "float32_neighbours":
        # Values one float32 step apart: a rounding anywhere changes their order.
        one = np.float32(1.0)
        steps = np.array([np.nextafter(one, np.float32(0)), one, np.nextafter(one, np.float32(2))])
        return rng.choice(steps.astype(np.float64), size=shape) * rng.choice([1.0, 3.0, 0.1],
                                                                             size=shape)
    raise ValueError(values)


def sprinkle(rng, X, specials):
    """X (float64, or object with categorical columns) with the special values."""
    rows, features = X.shape
    if rows == 0 or features == 0:
        return X
    for special in specials:
        if special == "nan_column":
            X[:, rng.integers(features)] = np.nan
        elif special == "nan_row":
            X[rng.integers(rows), :] = np.nan
        elif special != "mixed_1":
            for _ in range(rng.integers(1, 4)):
                X[rng.integers(rows), rng.integers(features)] = float(special)
    return X


def category_column(rng, rows, levels, mixed):
    codes = rng.integers(0, max(int(levels), 1), size=rows)
    column = np.array([f"c{code}" for code in codes], dtype=object)
    if mixed:  # both 1 and '1' in one column
        column[codes % 2 == 0] = 1
        column[codes % 2 == 1] = "1"
    return column


def features_of(spec, rng, rows, unseen=False):
    """The rows of X as float64 (numeric) or object (with categorical
    columns, None for missing values), before any container or dtype."""
    X = numeric_values(rng, rows, spec["features"], spec["values"])
    X = sprinkle(rng, X, [s for s in spec["specials"] if s != "mixed_1"])
    if not spec["categorical"]:
        return X
    X = X.astype(object)
    for j in range(spec["categorical"]):
        column = category_column(rng, rows, spec["levels"], "mixed_1" in spec["specials"])
        if unseen and rows:
            column[rng.integers(rows)] = "never seen"
        missing = np.array([isinstance(v, float) and np.isnan(v) for v in X[:, j]], bool)
        column[missing] = None
        X[:, j] = column
    return X


def with_dtype(X, dtype):
    if dtype in ("float64", "object") or X.dtype == object:
        return X if dtype == "float64" else X.astype(object)
    with np.errstate(all="ignore"):
        if dtype == "numeric_strings":
            return X.astype(str)
        if dtype == "bool":
            return np.nan_to_num(X) > 0
        if np.dtype(dtype).kind in "iu":
            info = np.iinfo(dtype)
            return np.clip(np.nan_to_num(np.round(X)), info.min, info.max).astype(dtype)
        return X.astype(dtype)


def sparse_of(X, layout):
    """X (a numeric array) as the sparse matrix ``layout`` names."""
    import scipy.sparse as sp

    csr = sp.csr_matrix(X)
    if layout in ("csr", "csc", "coo", "lil", "dok"):
        return csr.asformat(layout)
    if layout == "csr_array":
        return sp.csr_array(X)
    if layout == "csr_int64":
        return sp.csr_matrix((csr.data, csr.indices.astype(np.int64), csr.indptr.astype(np.int64)),
                             shape=csr.shape)
    if layout == "csr_duplicates":
        # Every stored value split into two entries of one cell, side by side
        # (built from indptr, as the (data, (row, col)) form would sum them).
        part = csr.data / 3.0
        data = np.column_stack([part, csr.data - part]).ravel()
        return sp.csr_matrix((data, np.repeat(csr.indices, 2), 2 * csr.indptr),
                             shape=csr.shape)
    if layout == "csr_unsorted":
        data, indices = csr.data.copy(), csr.indices.copy()
        for i in range(csr.shape[0]):
            span = slice(csr.indptr[i], csr.indptr[i + 1])
            data[span], indices[span] = data[span][::-1], indices[span][::-1]
        return sp.csr_matrix((data, indices, csr.indptr.copy()), shape=csr.shape)
    if layout == "csr_explicit_zeros":
        coo = sp.coo_matrix(np.where(X == 0, 1.0, 0.0))
        extra = sp.csr_matrix((np.zeros(coo.nnz), (coo.row, coo.col)), shape=csr.shape)
        out = sp.csr_matrix((np.r_[csr.tocoo().data, extra.tocoo().data],
                             (np.r_[csr.tocoo().row, coo.row], np.r_[csr.tocoo().col, coo.col])),
                            shape=csr.shape)
        out.sum_duplicates()
        return out
    if layout in ("csr_corrupt_indptr", "csc_corrupt_indptr"):
        # An indptr that falls (or, with one row, ends past the entries).
        matrix = csr if layout.startswith("csr") else csr.tocsc()
        matrix.indptr[min(1, matrix.indptr.size - 1)] = matrix.nnz + 5
        return matrix
    if layout == "csr_corrupt_indices":
        # A column index past the last column.
        if not csr.nnz and csr.shape[0]:
            csr = sp.csr_matrix(([1.0], [0], [0] + [1] * csr.shape[0]), shape=csr.shape)
        if csr.nnz:
            csr.indices[0] = csr.shape[1] + 3
        return csr
    raise ValueError(layout)


def frame_of(X, spec):
    """X (float64 or object) as a pandas or polars DataFrame."""
    names = ([j for j in range(X.shape[1])] if spec["layout"] == "int_names"
             else [f"x{j}" for j in range(X.shape[1])])
    columns = {}
    for j, name in enumerate(names):
        column = X[:, j]
        if j < spec["categorical"]:
            columns[name] = column
        else:
            columns[name] = column.astype(np.float64)
    if spec["container"] == "polars":
        import polars as pl

        series = []
        for j, name in enumerate(names):
            if j < spec["categorical"]:
                values = [None if v is None else str(v) for v in columns[name]]
                dtype = pl.Categorical if spec["layout"] == "categorical" else pl.Utf8
                series.append(pl.Series(name, values, dtype=dtype))
            else:
                series.append(pl.Series(name, columns[name], dtype=pl.Float64,
                                        nan_to_null=False))
        return pl.DataFrame(series)
    import pandas as pd

    frame = pd.DataFrame(columns, columns=names)
    for j, name in enumerate(names[:spec["categorical"]]):
        if spec["layout"] == "category":
            frame[name] = frame[name].astype("category")
        elif spec["layout"] == "string":
            frame[name] = frame[name].astype("string")
    return frame


def in_layout(X, spec):
    """X (float64 or object rows) in the case's container, dtype and layout."""
    container, layout = spec["container"], spec["layout"]
    if container in ("pandas", "polars"):
        return frame_of(X, spec)
    X = with_dtype(X, spec["dtype"])
    if container == "list":
        return X.tolist()
    if container == "sparse":
        if X.dtype.kind not in "biuf":
            X = X.astype(np.float64) if X.dtype.kind != "c" else X
        return sparse_of(X, layout)
    if layout == "F":
        return np.asfortranarray(X)
    if layout == "strided":
        wide = np.zeros((2 * X.shape[0], 2 * X.shape[1]), dtype=X.dtype)
        wide[::2, ::2] = X
        return wide[::2, ::2]
    if layout == "readonly":
        X = X.copy()
        X.setflags(write=False)
        return X
    if layout == "reversed":
        return np.ascontiguousarray(X[::-1, ::-1])[::-1, ::-1]
    return np.ascontiguousarray(X)


def dense_copy(X, spec):
    """The dense C-ordered float64 copy of X the case's layout must agree
    with, or None where there is none (categorical columns, corrupt sparse
    structure, dtypes with no documented float equivalent)."""
    if spec["categorical"] or "corrupt" in spec["layout"]:
        return None
    if spec["dtype"] in ("numeric_strings", "complex128"):
        return None
    if spec["dtype"] == "bool" and spec["params"].get("categorical_features") not in (
            None, "from_dtype"):
        # Categories of bools are False and True, not the numbers 0 and 1
        # (as in pandas): a float copy holds other categories.
        return None
    X = with_dtype(X, spec["dtype"])
    return np.array(X, dtype=np.float64, order="C")


def labels(rng, rows, kind, n_classes, X):
    n_classes = max(int(n_classes), 1)
    codes = rng.integers(0, n_classes, size=rows)
    if rows and X.shape[1] and X.dtype != object:
        # Tie the labels to the first feature, so that trees have something to learn.
        order = np.argsort(np.nan_to_num(X[:, 0]), kind="stable")
        codes = np.empty(rows, dtype=np.int64)
        codes[order] = np.arange(rows) * n_classes // rows
        flip = rng.random(rows) < 0.2
        codes[flip] = rng.integers(0, n_classes, size=int(flip.sum()))
    table = {
        "int": lambda: codes, "many": lambda: np.arange(rows),
        "strings": lambda: np.array([f"class {c}" for c in codes]),
        "bool": lambda: codes % 2 == 1, "constant": lambda: np.zeros(rows, dtype=int),
        "float_labels": lambda: codes + 0.5, "negative": lambda: -codes,
        "huge_ints": lambda: codes + 2 ** 62,
        "mixed": lambda: np.array([c if c % 2 else f"{c}" for c in codes], dtype=object),
        "with_nan": lambda: np.where(np.arange(rows) == 0, np.nan, codes.astype(float)),
        "with_none": lambda: np.array([None if i == 0 else f"c{c}" for i, c in enumerate(codes)],
                                      dtype=object),
        "object_ints": lambda: codes.astype(object), "column": lambda: codes[:, None],
        "continuous": lambda: rng.normal(size=rows),
    }
    return table[kind]()


def targets(rng, rows, kind):
    normal = rng.normal(size=rows)
    table = {
        "normal": lambda: normal, "integers": lambda: rng.integers(-3, 4, size=rows) * 1.0,
        "counts": lambda: rng.poisson(2.0, size=rows) * 1.0,
        "constant": lambda: np.full(rows, 3.0),
        "huge_outlier": lambda: np.where(np.arange(rows) == 0, 1e17, 1.0),
        "far_outlier": lambda: np.where(np.arange(rows) == 0, 1e12, 0.3),
        "huge": lambda: normal * 1e17, "very_huge": lambda: normal * 1e200,
        "extreme": lambda: np.sign(normal) * 1.7e308, "offset": lambda: 1e12 + normal * 1e-3,
        "tiny": lambda: normal * 1e-300,
        "denormal": lambda: rng.integers(0, 4, size=rows) * 5e-324,
        "beyond_sqrt": lambda: normal * 1e160, "negative": lambda: -np.abs(normal),
        "with_nan": lambda: np.where(np.arange(rows) == 0, np.nan, normal),
        "with_inf": lambda: np.where(np.arange(rows) == 0, np.inf, normal),
        "bool": lambda: normal > 0, "numeric_strings": lambda: normal.round(3).astype(str),
        "strings": lambda: np.array([f"t{i}" for i in range(rows)]),
        "column": lambda: normal[:, None],
    }
    return table[kind]()


def target_of(spec, rng, X):
    rows, outputs = spec["rows"], spec["outputs"]
    columns = []
    for _ in range(outputs):
        if kind_of(spec["estimator"]) == "classifier":
            columns.append(labels(rng, rows, spec["y"], spec["classes"], X))
        else:
            columns.append(targets(rng, rows, spec["y"]))
    if outputs == 1:
        return columns[0]
    return np.column_stack([np.asarray(c)[:, 0] if np.ndim(c) == 2 else c for c in columns])


def weight_of(kind, rows, rng):
    table = {
        None: lambda: None, "ones": lambda: np.ones(rows),
        "positive": lambda: rng.uniform(0.5, 2.0, size=rows),
        "integers": lambda: rng.integers(0, 4, size=rows).astype(np.float64),
        "some_zero": lambda: np.where(np.arange(rows) % 3 == 0, 0.0, 1.0),
        "all_zero": lambda: np.zeros(rows), "denormal": lambda: np.full(rows, 5e-324),
        "denormal_some": lambda: np.where(np.arange(rows) % 2 == 0, 5e-324, 1.0),
        "huge": lambda: np.full(rows, 1e308),
        "huge_some": lambda: np.where(np.arange(rows) % 2 == 0, 1e308, 1.0),
        "tiny": lambda: np.full(rows, 1e-300),
        "negative_one": lambda: np.where(np.arange(rows) == 0, -1.0, 1.0),
        "nan_one": lambda: np.where(np.arange(rows) == 0, np.nan, 1.0),
        "inf_one": lambda: np.where(np.arange(rows) == 0, np.inf, 1.0),
        "wrong_length": lambda: np.ones(rows + 1), "column": lambda: np.ones((rows, 1)),
        "scalar": lambda: 2.0, "strings": lambda: np.array(["2"] * rows),
        "list": lambda: [1.0] * rows, "bool": lambda: np.arange(rows) % 2 == 0,
        "object": lambda: np.ones(rows).astype(object),
    }
    return table[kind]()


class Case:
    """The inputs of a case: ``X`` / ``X_test`` in the case's layout, their
    dense copies (or None), ``y``, ``weight`` and the unfitted ``estimator``."""

    def __init__(self, spec):
        self.spec = spec
        rng = np.random.default_rng(spec["seed"])
        raw = features_of(spec, rng, spec["rows"])
        raw_test = features_of(spec, rng, spec["test_rows"], unseen=spec["unseen"])
        self.y = target_of(spec, rng, raw)
        self.weight = weight_of(spec["weight"], spec["rows"], rng)
        with np.errstate(all="ignore"):
            self.X, self.X_test = in_layout(raw, spec), in_layout(raw_test, spec)
            self.X_dense, self.X_test_dense = dense_copy(raw, spec), dense_copy(raw_test, spec)
        if spec["container"] == "sparse" and self.X_dense is not None:
            # The dense copy of a sparse matrix is scipy's (duplicates summed by it).
            self.X_dense = self.X.toarray().astype(np.float64)
            self.X_test_dense = self.X_test.toarray().astype(np.float64)
        self.raw_test = raw_test
        self.kind = kind_of(spec["estimator"])
        self.estimator = getattr(fasttree, spec["estimator"])(
            **{name: resolve(value, self) for name, value in spec["params"].items()})


def build(spec):
    """The :class:`Case` a description describes."""
    return Case(spec)


def class_labels(case):
    """The sorted labels of each output of a classification y (as lists)."""
    y = np.asarray(case.y, dtype=object)
    columns = [y] if y.ndim == 1 else [y[:, j] for j in range(y.shape[1])]
    found = []
    for column in columns:
        try:
            found.append(sorted(set(column.tolist())))
        except TypeError:
            found.append(list(dict.fromkeys(column.tolist())))
    return found


def member(case, token):
    from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                          ExtraTreeRegressor)

    classifier = case.kind == "classifier"
    tree = DecisionTreeClassifier if classifier else DecisionTreeRegressor
    if token == "@stump":
        return tree(max_depth=1)
    if token == "@tree3":
        return tree(max_depth=3)
    if token == "@extra_tree":
        return (ExtraTreeClassifier if classifier else ExtraTreeRegressor)()
    if token == "@sk_tree":
        from sklearn import tree as sk_tree

        return (sk_tree.DecisionTreeClassifier if classifier
                else sk_tree.DecisionTreeRegressor)(max_depth=3, random_state=0)
    if token == "@class":
        return tree
    if token == "@wrong_task":
        return DecisionTreeRegressor() if classifier else DecisionTreeClassifier()
    raise ValueError(token)


def class_weight(case, token):
    def one(classes):
        if token == "@cw_dict":
            return {c: 1.0 + i for i, c in enumerate(classes)}
        if token == "@cw_one_zero":
            return {c: float(i > 0) for i, c in enumerate(classes)}
        if token == "@cw_zero_all":
            return {c: 0.0 for c in classes}
        if token == "@cw_huge":
            return {c: 1e308 for c in classes}
        if token == "@cw_negative":
            return {c: -1.0 for c in classes}
        return {"no such class": 1.0}
    per_output = [one(classes) for classes in class_labels(case)]
    return per_output[0] if len(per_output) == 1 else per_output


def loss_matrix(case, token):
    k = max(len(class_labels(case)[0]), 1)
    if token == "@lm_valid":
        return 1.0 - np.eye(k)
    if token == "@lm_negative":
        # Negative on the diagonal too: of one class, 1 - eye(1) is all 0.
        return np.full((k, k), -1.0)
    if token == "@lm_wrong_shape":
        return 1.0 - np.eye(k + 1)
    if token == "@lm_diagonal":
        return np.ones((k, k))
    matrix = 1.0 - np.eye(k)
    matrix[0, -1] = np.nan
    return matrix


def resolve(value, case):
    """A parameter value of a description, its tokens resolved."""
    if not (isinstance(value, str) and value.startswith("@")):
        return value
    p = case.spec["features"]
    simple = {"@nan": float("nan"), "@inf": float("inf"),
              "@mono_up": [1] * p, "@mono_mixed": [(j % 3) - 1 for j in range(p)],
              "@mono_wrong_length": [1] * (p + 1), "@mono_two": [2] * p,
              "@cat_first": [0], "@cat_mask": [j == 0 for j in range(p)],
              "@cat_all": list(range(p)), "@cat_out_of_range": [p],
              "@cat_unknown_name": ["no such column"], "@cat_float": [0.5]}
    if value in simple:
        return simple[value]
    if value == "@generator":
        return np.random.default_rng(3)
    if value == "@randomstate":
        return np.random.RandomState(3)
    if value.startswith("@cw_"):
        return class_weight(case, value)
    if value.startswith("@lm_"):
        return loss_matrix(case, value)
    return member(case, value)
