"""Cases of the API fuzz test (``tests/api_fuzz.py``).

A case is a JSON-able description drawn by :func:`cases`, a hypothesis
strategy: which public estimator, with which parameters, fitted on which
inputs (dtype, container, layout, sparse format, shape, extreme values,
targets, sample weights) and misused how. ``api_fuzz_inputs.build`` makes
the inputs it describes, deterministically from its ``seed``, so a
description is a reproducer: ``python tests/api_fuzz.py --replay '<description>'``.

Values a description cannot hold as JSON, or that depend on the data (NaN, a
member estimator, a ``class_weight`` naming the labels), are tokens starting
with ``@``, resolved when the inputs are built.
"""

import inspect

from hypothesis import strategies as st

import fasttree

ESTIMATORS = sorted(name for name in fasttree.__all__
                    if inspect.isclass(getattr(fasttree, name))
                    and hasattr(getattr(fasttree, name), "get_params"))

# Parameter values: (valid, invalid). Only parameters an estimator has are drawn.
PARAMETERS = {
    # A stopping rule beyond any tree is taken as the largest reachable one.
    "max_depth": ([None, 1, 2, 3, 6, 2 ** 63], [0, -1, 1.5, "3", "@nan"]),
    "min_samples_split": ([2, 3, 5, 0.3, 1.0], [1, 0, 0.0, -2, 1.5, "@inf"]),
    "min_samples_leaf": ([1, 2, 4, 0.2, 0.7], [0, 0.0, -1, 1.0, "@nan"]),
    "min_weight_fraction_leaf": ([0.0, 0.1, 0.5], [0.6, -0.1, "@nan"]),
    "max_features": ([None, 1, 2, "sqrt", "log2", 0.5, 1.0],
                     [0, 0.0, 1000, -1, 1.5, "auto", "bogus"]),
    "max_leaf_nodes": ([None, 2, 3, 10], [1, 0, -1, 2.5]),
    "min_impurity_decrease": ([0.0, 0.01, 1e-300, 1e300], [-1.0, "@nan", "@inf"]),
    "ccp_alpha": ([0.0, 0.01, 0.1, 1e300], [-1.0, "@nan", "@inf"]),
    "splitter": (["best", "random"], ["bogus"]),
    "random_state": ([0, 1, 7, 12345, 2 ** 40, None, "@generator", "@randomstate"],
                     [-1, 1.5, "bogus"]),
    "class_weight": ([None, "balanced", "@cw_dict", "@cw_one_zero"],
                     ["@cw_zero_all", "@cw_huge", "@cw_unknown", "@cw_negative", "bogus"]),
    "loss_matrix": ([None, "@lm_valid"], ["@lm_negative", "@lm_wrong_shape", "@lm_diagonal",
                                         "@lm_nan"]),
    "monotonic_cst": ([None, "@mono_up", "@mono_mixed"], ["@mono_wrong_length", "@mono_two"]),
    "interaction_cst": ([None, "pairwise", "no_interactions", [[0]]],
                        ["bogus", [[-1]], [[10 ** 9]]]),
    "categorical_features": (["from_dtype", None, "@cat_first", "@cat_mask", "@cat_all"],
                             ["@cat_out_of_range", "@cat_unknown_name", "@cat_float", "bogus"]),
    "categorical_split": (["binary", "multiway"], ["bogus"]),
    "missing": (["learn", "fractional"], ["bogus"]),
    "n_estimators": ([1, 2, 3, 5, 8], [0, -1, None, 2.5, "3"]),
    "bootstrap": ([True, False], ["yes"]),
    "bootstrap_features": ([False, True], []),
    "max_samples": ([None, 0.5, 1.0, 3, 1.5], [0, -1, 0.0, 10 ** 9, "@nan"]),
    "oob_score": ([False, True], ["bogus"]),
    "oob_batch_size": ([None, 1, 2], [0, -1]),
    "oob_tol": ([1e-3, 0.0, 0.5], [-1.0, "@nan"]),
    "oob_patience": ([3, 1], [0, -1]),
    "warm_start": ([False, True], []),
    "voting": (["soft", "hard"], ["bogus"]),
    "aggregation": (["mean", "median"], ["bogus"]),
    "quantile": ([0.5, 0.1, 0.9], [0.0, 1.0, -0.1, "@nan", "0.5"]),
    "n_jobs": ([None, 1, 2, -1], [0, 1.5, "two"]),
    "verbose": ([0, 1], [-1]),
    "estimator": ([None, "@stump", "@tree3", "@extra_tree", "@sk_tree"],
                  ["@class", "@wrong_task", "bogus"]),
    "learning_rate": ([1.0, 0.5, 2.0, 1e-300, 1e300], [0.0, -1.0, "@nan", "@inf"]),
    "boosting": (["reweight", "resample"], ["bogus"]),
    "loss": (["linear", "square", "exponential"], ["bogus"]),
    "validation_fraction": ([1 / 3, 0.5, 0.1, 0.9], [0.0, 1.0, -0.1, "@nan"]),
    # Mixtures of experts and their linear experts.
    "n_experts": ([1, 2, 3], [0, -1, 1.5, "2"]),
    "levels": ([1, 2], [0, 3, "2", True]),
    "max_iter": ([1, 5, 100], [0, -1, 2.5]),
    "tol": ([1e-3, 0.0, 1.0], [-1.0, "@nan"]),
    "alpha": ([1e-3, 0.0, 10.0], [-1.0, "@nan", "@inf"]),
    "n_init": ([1, 2], [0, -1]),
}
CRITERIA = {"classifier": (["gini", "entropy", "log_loss", "misclassification", "gain_ratio"],
                           ["squared_error", "bogus", None]),
            "regressor": (["squared_error", "friedman_mse", "absolute_error", "quantile",
                           "poisson"],
                          ["gini", "bogus", None])}

# Special values sprinkled over X: each goes into a few cells (or a whole column or row).
X_SPECIALS = ["nan", "inf", "-inf", "1e38", "3.5e38", "-3.5e38", "1e300", "5e-324", "1e-45",
              "-0.0", "nan_column", "nan_row", "mixed_1"]
LAYOUTS = {
    "array": (["C", "F"], ["strided", "readonly", "reversed"]),
    "sparse": (["csr", "csc", "coo"],
               ["csr_array", "lil", "dok", "csr_duplicates", "csr_unsorted",
                "csr_explicit_zeros", "csr_int64", "csr_corrupt_indptr", "csr_corrupt_indices",
                "csc_corrupt_indptr"]),
    "pandas": (["object"], ["category", "string", "int_names"]),
    "polars": (["string"], ["categorical"]),
    "list": (["rows"], []),
}
DTYPES = {"array": (["float64", "float32", "int64"],
                    ["int32", "uint8", "int8", "bool", "float16", "object", "longdouble",
                     "complex128", "numeric_strings"]),
          "sparse": (["float64", "float32", "int64"], ["int32", "uint8", "int8", "bool",
                                                       "complex128"])}
X_VALUES = (["normal", "integers", "binary"],
            ["constant", "huge", "tiny", "wide", "big_integers", "ties",
             "float32_neighbours"])
Y_KINDS = {
    "classifier": (["int", "strings", "bool"],
                   ["many", "constant", "float_labels", "negative", "huge_ints", "mixed",
                    "with_nan", "with_none", "object_ints", "column", "continuous"]),
    "regressor": (["normal", "integers", "counts"],
                  ["constant", "huge_outlier", "far_outlier", "huge", "very_huge", "extreme",
                   "offset", "tiny", "denormal", "beyond_sqrt", "negative", "with_nan",
                   "with_inf", "bool", "numeric_strings", "strings", "column"]),
}
WEIGHTS = ([None, "ones", "positive", "integers"],
           ["some_zero", "all_zero", "denormal", "denormal_some", "huge", "huge_some", "tiny",
            "negative_one", "nan_one", "inf_one", "wrong_length", "column", "scalar",
            "strings", "list", "bool", "object"])
MISUSES = ["before_fit", "wrong_n_features", "warm_start_outputs", "foreign_member",
           "refit_fewer_features", "set_unknown_parameter", "threads"]


def kind_of(estimator_name):
    """'classifier' or 'regressor'."""
    return getattr(fasttree, estimator_name)._estimator_type


def parameter_names(estimator_name):
    return sorted(getattr(fasttree, estimator_name)().get_params(deep=False))


def pick(draw, choices, rare_percent=15):
    """One of ``choices`` = (common, rare): a rare one ``rare_percent`` of the time."""
    common, rare = choices
    if rare and draw(st.integers(0, 99)) < rare_percent:
        return draw(st.sampled_from(rare))
    return draw(st.sampled_from(common))


@st.composite
def parameters(draw, estimator_name):
    """A few parameters of the estimator, mostly valid; ensembles always get a
    small ``n_estimators`` and everything with a ``random_state`` gets one."""
    names = parameter_names(estimator_name)
    kind = kind_of(estimator_name)
    chosen = {}
    if "n_estimators" in names:
        chosen["n_estimators"] = pick(draw, PARAMETERS["n_estimators"], 4)
    if "random_state" in names:
        chosen["random_state"] = pick(draw, PARAMETERS["random_state"], 3)
    for name in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
        if name == "criterion":
            chosen[name] = pick(draw, CRITERIA[kind], 8)
        elif name in PARAMETERS:
            chosen[name] = pick(draw, PARAMETERS[name], 12)
    return chosen


@st.composite
def cases(draw):
    """A case of the API fuzz test (a JSON-able dict; see the module docstring)."""
    estimator = draw(st.sampled_from(ESTIMATORS))
    kind = kind_of(estimator)
    container = pick(draw, (["array", "array", "sparse", "pandas"], ["polars", "list"]), 12)
    layout = pick(draw, LAYOUTS[container], 35)
    size = draw(st.integers(0, 999))
    if size < 30:
        rows = draw(st.sampled_from([0, 1, 2]))
    elif size < 900:
        rows = draw(st.integers(3, 40))
    elif size < 995:
        rows = draw(st.integers(41, 300))
    else:
        rows = draw(st.sampled_from([500, 1000, 2000]))
    categorical = 0
    if container not in ("sparse", "list") and draw(st.integers(0, 99)) < 25:
        categorical = draw(st.integers(1, 3))
    features = pick(draw, ([1, 2, 3, 4, 6], [0, 30, 300]), 5)
    if size >= 995 and categorical:
        # Many rows of categorical columns whose every value is its own level.
        rows = min(rows, 1000)
        return {**stress_case(estimator, rows, categorical), "seed": draw(st.integers(0, 99))}
    return {
        "estimator": estimator,
        "params": draw(parameters(estimator)),
        "rows": rows,
        "features": max(features, categorical),
        "outputs": pick(draw, ([1], [2, 3]), 12),
        "container": container,
        "layout": layout,
        "dtype": pick(draw, DTYPES[container], 15) if container in DTYPES else "float64",
        # Duplicate entries round differently when summed in float32 or in
        # float64: that shows where values are one float32 step apart.
        "values": (pick(draw, X_VALUES, 20) if layout != "csr_duplicates"
                   else draw(st.sampled_from(["float32_neighbours", "normal"]))),
        "specials": draw(st.lists(st.sampled_from(X_SPECIALS), max_size=2, unique=True))
        if draw(st.integers(0, 99)) < 25 else [],
        "categorical": categorical,
        "levels": pick(draw, ([2, 3, 5], [50, 300, rows]), 15),
        "unseen": draw(st.integers(0, 99)) < 20,
        "test_rows": pick(draw, ([5, 17], [0, 1]), 5),
        "y": pick(draw, Y_KINDS[kind], 20),
        "classes": pick(draw, ([2, 3], [1, 5, 40]), 15),
        "weight": pick(draw, WEIGHTS, 20),
        "misuse": draw(st.sampled_from(MISUSES)) if draw(st.integers(0, 99)) < 10 else None,
        "check_n_jobs": draw(st.integers(0, 99)) < 20,
        "onnx": draw(st.integers(0, 99)) < 5,
        "seed": draw(st.integers(0, 2 ** 31 - 1)),
    }


def stress_case(estimator, rows, categorical):
    """Large categorical columns of as many levels as rows (and as many
    classes), where a split's search could grow faster than n log n."""
    names = parameter_names(estimator)
    params = {name: value for name, value in (("random_state", 0), ("n_estimators", 2))
              if name in names}
    return {"estimator": estimator, "params": params,
            "rows": rows, "features": categorical, "outputs": 1, "container": "array",
            "layout": "C", "dtype": "object", "values": "normal", "specials": [],
            "categorical": categorical, "levels": rows, "unseen": False, "test_rows": 5,
            "y": "many" if kind_of(estimator) == "classifier" else "normal", "classes": 2,
            "weight": None, "misuse": None, "check_n_jobs": False, "onnx": False}
