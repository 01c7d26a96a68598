"""The child process of the API fuzz test (``tests/api_fuzz.py``).

It reads one JSON request a line on standard input, ``{"id": ..., "spec":
...}``, runs the case the description ``spec`` makes (see
``api_fuzz_cases.py``): the estimator's every public call, on the case's
inputs, with the invariants of ``api_fuzz_checks.py`` checked after each.
It answers on standard output, a line before each call (so that the parent
knows which call a crash or a hang was in) and a last line with the case's
outcomes. Everything else the calls print goes to standard error.

Outcomes: ``ok``; ``error`` (a documented exception with a clear message,
``type`` and ``message`` given); ``unclear`` (an exception that is not, with
``reason``); ``invariant`` (a result that breaks an invariant, ``detail``
saying which); ``harness`` (the harness itself failed: a bug of the test).
"""

import faulthandler
import json
import os
import pickle
import re
import resource
import sys
import tempfile
import threading
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api_fuzz_checks as checks  # noqa: E402
from api_fuzz_cases import CRITERIA, PARAMETERS, kind_of  # noqa: E402
from api_fuzz_inputs import build  # noqa: E402

import fasttree  # noqa: E402

FAILED = object()
TREES = ("DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
         "ExtraTreeRegressor")
FORESTS = ("RandomForestClassifier", "RandomForestRegressor", "ExtraTreesClassifier",
           "ExtraTreesRegressor")
BAGGING = ("BaggingClassifier", "BaggingRegressor")
# Methods of X alone, in the order they are called.
PREDICTIONS = ("predict", "predict_proba", "predict_log_proba", "decision_function", "apply",
               "decision_path", "vote_fractions", "staged_predict", "staged_predict_proba",
               "staged_decision_function")
# Inputs no fit may tell apart from their dense copy: growth must not depend on them.
GROWTH_LIMITS = {"max_depth": None, "min_samples_split": 2, "min_samples_leaf": 1,
                 "min_weight_fraction_leaf": 0.0, "max_leaf_nodes": None,
                 "min_impurity_decrease": 0.0, "ccp_alpha": 0.0, "monotonic_cst": None,
                 "loss_matrix": None, "categorical_split": "binary", "missing": "learn"}


class Runner:
    """Runs the calls of one case and keeps their outcomes."""

    def __init__(self, emit):
        self.emit = emit
        self.outcomes = []

    def call(self, name, function, *args, **kwargs):
        """function(*args, **kwargs), or FAILED when it raised (its outcome kept)."""
        self.emit({"event": "call", "call": name})
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = function(*args, **kwargs)
                if name.split(".")[-1].startswith("staged_"):
                    result = list(result)
        except Exception as error:  # noqa: BLE001 (every exception is judged)
            reason = checks.why_unclear(error, name)
            outcome = {"call": name, "type": type(error).__name__, "message": str(error)[:300]}
            if reason is None:
                self.outcomes.append({**outcome, "outcome": "error"})
            else:
                self.outcomes.append({**outcome, "outcome": "unclear", "reason": reason,
                                      "traceback": checks.short_traceback(error)})
            return FAILED
        self.outcomes.append({"call": name, "outcome": "ok"})
        return result

    def check(self, name, problem):
        """Keep a broken invariant: ``problem`` is None or a sentence."""
        self.outcomes.append({"call": name, "outcome": "check"})
        if problem:
            self.outcomes.append({"call": name, "outcome": "invariant", "detail": problem[:400]})

    def expect_failure(self, name, function, *args, what, **kwargs):
        """A call that must raise: one that returns breaks an invariant."""
        if self.call(name, function, *args, **kwargs) is not FAILED:
            self.check(name, f"{what} was accepted")


def predictions_of(runner, model, X, prefix=""):
    """Every prediction method of a fitted model on X: {method: result}."""
    results = {}
    for method in PREDICTIONS:
        if hasattr(type(model), method) and hasattr(model, method):
            result = runner.call(prefix + method, getattr(model, method), X)
            if result is not FAILED:
                results[method] = result
    return results


def n_rows_of(X):
    return len(X) if isinstance(X, list) else X.shape[0]


def check_predictions(runner, model, case, results, X):
    """The invariants of one model's predictions on X."""
    n_rows = n_rows_of(X)
    kind = case.kind
    if "predict" in results:
        if kind == "classifier":
            runner.check("predict", checks.labels_problem(results["predict"], model.classes_))
        else:
            runner.check("predict", checks.finite_problem(results["predict"], "predictions")
                         or (None if checks.extrapolates(model) else
                             checks.range_problem(results["predict"], case.y, case.weight)))
    for method in ("predict_proba", "vote_fractions"):
        if method in results:
            runner.check(method, checks.probabilities_problem(results[method], n_rows))
    if "predict_log_proba" in results:
        runner.check("predict_log_proba",
                     checks.log_probabilities_problem(results["predict_log_proba"]))
    if "decision_function" in results:
        runner.check("decision_function",
                     checks.finite_problem(results["decision_function"], "decisions"))
    for method, final in (("staged_predict_proba", "predict_proba"),
                          ("staged_decision_function", "decision_function"),
                          ("staged_predict", "predict")):
        stages = results.get(method)
        # Labels of the last stage may differ from predict's at a tie of rounding.
        if not stages or final not in results or (method, kind) == ("staged_predict",
                                                                   "classifier"):
            continue
        scale = 1.0 if kind == "classifier" else checks.data_scale(case.y)
        runner.check(method, None if checks.close(stages[-1], results[final], scale)
                     else f"the last stage differs from {final}")
    # (AdaBoost predicts by its decision function, of which predict_proba is a
    # softmax: at a tie of rounding the two may name different classes.)
    if (kind == "classifier" and "predict" in results and "predict_proba" in results
            and not hasattr(model, "decision_function")
            and getattr(model, "voting", "soft") == "soft"
            and getattr(model, "loss_matrix", None) is None
            and not isinstance(results["predict_proba"], list)
            and np.ndim(results["predict"]) == 1 and n_rows):
        expected = np.asarray(model.classes_)[np.argmax(results["predict_proba"], axis=1)]
        runner.check("predict", None if checks.same(results["predict"], expected)
                     else "predict is not the class of largest probability")


def deterministic(model):
    """Whether two fits of the model on the same data must be identical."""
    return isinstance(model.get_params(deep=False).get("random_state", 0), int)


def copies(runner, model, case, results):
    """A pickled copy and a saved-and-loaded copy predict exactly as the model."""
    copy = runner.call("pickle", lambda: pickle.loads(pickle.dumps(model)))
    if copy is not FAILED:
        again = predictions_of(runner, copy, case.X_test, "pickled.")
        runner.check("pickled", first_difference(results, again, "the pickled copy"))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.ft")
        if runner.call("save", model.save, path) is not FAILED:
            loaded = runner.call("load", fasttree.load, path)
            if loaded is not FAILED:
                again = predictions_of(runner, loaded, case.X_test, "loaded.")
                runner.check("loaded", first_difference(results, again, "the loaded copy"))


def first_difference(results, others, what, scale=None):
    """None when two sets of predictions agree, method by method (the same
    methods failing), else a sentence: exactly, or with a ``scale`` up to
    rounding where they are numbers."""
    for method in PREDICTIONS:
        if (method in results) != (method in others):
            return f"{what} {'fails' if method in results else 'succeeds'} at {method}"
        if method in results and not agree(results[method], others[method], scale):
            return f"{what} gives another {method}"
    return None


def agree(first, second, scale):
    if scale is None or not all(
            isinstance(part, np.ndarray) and part.dtype.kind == "f"
            for result in (first, second)
            for part in (result if isinstance(result, list) else [result])):
        return checks.same(first, second)
    return checks.close(first, second, scale)


def foreign_members(model):
    """Whether the model's members come from another library: their sparse
    and dense paths may round differently (scikit-learn's do)."""
    template = model.get_params(deep=False).get("estimator")
    return template is not None and not type(template).__module__.startswith("fasttree")


def parameters(runner, model):
    """A clone has the model's parameters, and set_params takes them back."""
    def described(estimator):
        # Copied objects (a random Generator, a member) differ only in address.
        return re.sub(r" at 0x[0-9A-Fa-f]+", "", repr(estimator.get_params(deep=False)))

    if runner.call("get_params", model.get_params) is FAILED:
        return
    twin = runner.call("clone", clone, model)
    if twin is not FAILED:
        runner.check("clone", None if described(twin) == described(model)
                     else "a clone has other parameters")
        runner.call("set_params", twin.set_params, **model.get_params(deep=False))


def layouts(runner, model, case, results):
    """Predictions of the case's layout equal those of its dense copy, and so
    does a model fitted on the dense copy."""
    spec = case.spec
    if case.X_dense is None or (spec["container"], spec["layout"], spec["dtype"]) == (
            "array", "C", "float64"):
        return
    if spec["container"] == "sparse" and np.isnan(case.X_test_dense).any():
        # Documented: NaN stored in a sparse X is refused; its dense copy
        # holds missing values.
        runner.check("layout", "a sparse X holding NaN was accepted at predict"
                     if any(method in results for method in PREDICTIONS) else None)
        return
    dense = predictions_of(runner, model, case.X_test_dense, "dense X.")
    runner.check("layout", first_difference(results, dense, "the dense copy of X"))
    if deterministic(model):
        twin = runner.call("dense fit", clone(model).fit, case.X_dense, case.y,
                           sample_weight=case.weight)
        if twin is FAILED:
            runner.check("layout", "the dense copy of X fails to fit")
            return
        dense = predictions_of(runner, twin, case.X_test_dense, "dense model.")
        scale = None if not foreign_members(model) else (
            1.0 if case.kind == "classifier" else checks.data_scale(case.y))
        runner.check("layout", first_difference(results, dense, "the model of the dense copy",
                                                scale))


def member_mean(runner, model, case, results):
    """A forest's (or bagging's) predict_proba / predict is the mean (or
    median) of its members'."""
    name = case.spec["estimator"]
    X = case.X_test_dense
    if name not in FORESTS + BAGGING or X is None or not n_rows_of(X):
        return
    if name in BAGGING and getattr(model, "is_categorical_", None) is not None:
        return  # the members see category codes, not X
    classifier = case.kind == "classifier"
    method = "predict_proba" if classifier else "predict"
    members = model.estimators_
    if method not in results or (classifier and (
            getattr(model, "voting", "soft") != "soft"
            or not all(hasattr(member, method) for member in members))):
        return
    features = getattr(model, "estimators_features_", [slice(None)] * len(members))
    outputs = []
    for member, columns in zip(members, features):
        output = runner.call(f"member.{method}", getattr(member, method), X[:, columns])
        if output is FAILED:
            return
        outputs.append(placed(model, member, output) if classifier
                       else np.asarray(output, dtype=np.float64))
    if classifier:
        expected = [np.mean([output[k] for output in outputs], axis=0)
                    for k in range(len(outputs[0]))]
        scale = 1.0
    else:
        median = getattr(model, "aggregation", "mean") == "median"
        # Over a power of two at least the number of members (exact), so
        # that a mean of values near 1.7e308 does not overflow.
        shift = int(np.ceil(np.log2(len(outputs))))
        expected = np.ldexp((np.median if median else np.mean)(
            np.ldexp(np.asarray(outputs), -shift), axis=0), shift)
        scale = checks.data_scale(case.y)
    actual = results[method]
    runner.check("member mean", None if checks.close(actual, expected, scale)
                 else "the ensemble predicts other than the mean (or median) of its members")


def placed(model, member, proba):
    """A member's probabilities (a list, one array per output) in the
    ensemble's class columns."""
    model_classes = model.classes_ if isinstance(model.classes_, list) else [model.classes_]
    member_classes = member.classes_ if isinstance(member.classes_, list) else [member.classes_]
    probas = proba if isinstance(proba, list) else [proba]
    out = []
    for classes, own, values in zip(model_classes, member_classes, probas):
        full = np.zeros((values.shape[0], len(classes)))
        full[:, np.searchsorted(classes, own)] = values
        out.append(full)
    return out


def at_default(value, default):
    if default is None:
        return value is None
    return isinstance(value, (int, float, str)) and value == default


def reproduces_training(runner, model, case):
    """A fully grown single tree on distinct rows of comparable weights
    predicts its training targets exactly (pure leaves keep their values)."""
    spec = case.spec
    params = model.get_params(deep=False)
    if (spec["estimator"] not in TREES or case.X_dense is None or not spec["rows"]
            or not all(at_default(params.get(name, default), default)
                       for name, default in GROWTH_LIMITS.items())
            or params["criterion"] not in ("gini", "entropy", "log_loss", "squared_error",
                                           "friedman_mse", "absolute_error")
            or model.max_features_ != model.n_features_in_
            or params.get("class_weight") not in (None, "balanced")):
        return
    rows = np.asarray(case.X_dense, dtype=np.float32)
    if np.isnan(rows).any() or len(np.unique(rows, axis=0)) != len(rows):
        return
    if not checks.comparable_weights(case.weight, len(rows)):
        return
    predicted = runner.call("predict training rows", model.predict, case.X)
    if predicted is FAILED:
        return
    if case.kind == "classifier":
        exact = checks.same(np.asarray(predicted, dtype=object),
                            np.asarray(case.y, dtype=object).reshape(np.shape(predicted)))
    else:
        y = np.asarray(case.y, dtype=np.float64).reshape(np.shape(predicted))
        exact = np.allclose(predicted, y, rtol=checks.ROUNDING, atol=1e-300)
    runner.check("training rows", None if exact else
                 "a fully grown tree does not predict its own training targets")


def n_jobs(runner, model, case, results):
    """Any n_jobs gives the same model."""
    params = model.get_params(deep=False)
    if "n_jobs" not in params or not case.spec["check_n_jobs"] or not deterministic(model):
        return
    other = 2 if params["n_jobs"] in (None, 1) else 1
    twin = runner.call("fit n_jobs", clone(model).set_params(n_jobs=other).fit, case.X, case.y,
                       sample_weight=case.weight)
    if twin is not FAILED:
        again = predictions_of(runner, twin, case.X_test, "n_jobs.")
        runner.check("n_jobs", first_difference(results, again, f"n_jobs={other}"))


def tree_extras(runner, model, case):
    name = case.spec["estimator"]
    if name in TREES:
        for function in (fasttree.export_text, fasttree.export_graphviz, fasttree.tree_rules):
            runner.call(function.__name__, function, model)
        path = runner.call("cost_complexity_pruning_path", model.cost_complexity_pruning_path,
                           case.X, case.y, sample_weight=case.weight)
        if path is not FAILED:
            runner.check("cost_complexity_pruning_path", checks.pruning_path_problem(path))
        pruned = runner.call("prune_reduced_error", model.prune_reduced_error, case.X, case.y,
                             sample_weight=case.weight)
        if pruned is not FAILED:
            runner.call("pruned.predict", pruned.predict, case.X_test)
        if hasattr(model, "prune_pessimistic"):
            runner.call("prune_pessimistic", model.prune_pessimistic)
    if name in TREES + FORESTS + BAGGING:
        runner.call("export_shap", fasttree.export_shap, model)
    if name in FORESTS and getattr(model, "bootstrap", False):
        runner.call("oob_permutation_importance", model.oob_permutation_importance, case.X,
                    case.y)
    if hasattr(type(model), "feature_importances_"):
        importances = runner.call("feature_importances_", getattr, model, "feature_importances_")
        if importances is not FAILED:
            runner.check("feature_importances_", checks.finite_problem(importances,
                                                                       "importances"))
    if hasattr(model, "staged_score"):
        runner.call("staged_score", model.staged_score, case.X, case.y,
                    sample_weight=case.weight)


def misuse_before_fit(runner, model, case):
    for method in PREDICTIONS + ("score",):
        if hasattr(type(model), method) and hasattr(model, method):
            args = (case.X_test,) if method != "score" else (case.X, case.y)
            runner.expect_failure(f"{method} before fit", getattr(model, method), *args,
                                  what="a call before fit")


def misuse_after_fit(runner, model, case):
    misuse = case.spec["misuse"]
    if misuse == "wrong_n_features":
        wider = build({**case.spec, "features": case.spec["features"] + 1})
        runner.expect_failure("predict wider X", model.predict, wider.X_test,
                              what="X with another number of features")
    elif misuse == "set_unknown_parameter":
        runner.expect_failure("set_params unknown", model.set_params, no_such_parameter=1,
                              what="an unknown parameter")
    elif misuse == "refit_fewer_features" and case.spec["features"] > max(
            1, case.spec["categorical"]):
        narrower = build({**case.spec, "features": case.spec["features"] - 1})
        if runner.call("refit narrower", model.fit, narrower.X, narrower.y,
                       sample_weight=narrower.weight) is not FAILED:
            runner.expect_failure("predict old width", model.predict, case.X_test,
                                  what="X with the features of an earlier fit")
    elif misuse == "warm_start_outputs" and "warm_start" in model.get_params():
        y = np.asarray(case.y)
        other_y = y[:, 0] if y.ndim == 2 else np.column_stack([y, y])
        model.set_params(warm_start=True, n_estimators=len(model.estimators_) + 1)
        if runner.call("warm refit other outputs", model.fit, case.X, other_y,
                       sample_weight=case.weight) is not FAILED:
            runner.call("predict after warm refit", model.predict, case.X_test)
    elif misuse == "foreign_member" and hasattr(model, "estimators_") and len(model.estimators_):
        foreign = (fasttree.DecisionTreeRegressor() if case.kind == "classifier"
                   else fasttree.DecisionTreeClassifier())
        y = np.arange(n_rows_of(case.X)) % 2
        if runner.call("fit foreign member", foreign.fit, case.X, y) is not FAILED:
            model.estimators_[0] = foreign
            runner.expect_failure("predict with foreign member", model.predict, case.X_test,
                                  what=f"a {type(foreign).__name__} among the members")
    elif misuse == "threads":
        single = runner.call("predict in one thread", model.predict, case.X_test)
        if single is FAILED:
            return
        found = [None] * 4

        def predict(index):
            found[index] = model.predict(case.X_test)

        threads = [threading.Thread(target=predict, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        runner.check("threads", None if all(checks.same(single, other) for other in found)
                     else "predictions from concurrent threads differ")


def invalid_parameters(spec):
    """The (name, value) of the description's parameters drawn as invalid."""
    found = []
    for name, value in spec["params"].items():
        invalid = (CRITERIA[kind_of(spec["estimator"])][1] if name == "criterion"
                   else PARAMETERS.get(name, ((), ()))[1])
        # By type too: 1 is an invalid min_samples_split, 1.0 a valid one.
        if any(type(other) is type(value) and other == value for other in invalid):
            found.append((name, value))
    return found


def selftest(kind):
    """Misbehaviours the harness must catch (tests/test_api_fuzz.py)."""
    if kind == "abort":
        os.abort()
    if kind == "hang":
        while True:
            pass
    if kind == "unclear":
        return np.zeros(3)[5]
    if kind == "clear":
        return fasttree.DecisionTreeClassifier(max_depth=-1).fit(np.zeros((2, 1)), [0, 1])


def run_case(spec, emit):
    """The outcomes of every call of the case ``spec``."""
    runner = Runner(emit)
    if "selftest" in spec:
        runner.call("selftest", selftest, spec["selftest"])
        return runner.outcomes
    case = build(spec)
    model = case.estimator
    if spec["misuse"] == "before_fit":
        misuse_before_fit(runner, model, case)
    if runner.call("fit", model.fit, case.X, case.y, sample_weight=case.weight) is FAILED:
        return runner.outcomes
    if "corrupt" in spec["layout"]:
        runner.check("fit", "a sparse X of corrupt structure was accepted")
    for name, value in invalid_parameters(spec):
        runner.check("fit", f"the invalid {name}={value!r} was accepted")
    results = predictions_of(runner, model, case.X_test)
    check_predictions(runner, model, case, results, case.X_test)
    if case.kind == "regressor":
        fitted = runner.call("predict training rows", model.predict, case.X)
        if fitted is not FAILED and not checks.extrapolates(model):
            runner.check("predict training rows",
                         checks.range_problem(fitted, case.y, case.weight))
    score = runner.call("score", model.score, case.X, case.y, sample_weight=case.weight)
    if score is not FAILED:
        runner.check("score", None if np.isfinite(score) and score <= 1 + checks.ROUNDING
                     else f"a score of {score!r}")
    copies(runner, model, case, results)
    parameters(runner, model)
    layouts(runner, model, case, results)
    member_mean(runner, model, case, results)
    reproduces_training(runner, model, case)
    n_jobs(runner, model, case, results)
    tree_extras(runner, model, case)
    if case.spec["onnx"]:
        runner.call("export_onnx", fasttree.export_onnx, model)
    misuse_after_fit(runner, model, case)
    return runner.outcomes


def limit_memory(gigabytes):
    """Cap the address space, so that a huge request fails here instead of
    pushing the machine into swap."""
    limit = int(gigabytes * 2 ** 30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main():
    # Answers go to the original standard output; anything printed goes to stderr.
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    faulthandler.enable()
    limit_memory(float(os.environ.get("API_FUZZ_MEMORY_GB", "6")))
    answers.write(json.dumps({"event": "ready"}) + "\n")
    for line in sys.stdin:
        request = json.loads(line)

        def emit(event, request_id=request["id"]):
            answers.write(json.dumps({"id": request_id, **event}) + "\n")

        try:
            outcomes = run_case(request["spec"], emit)
        except Exception as error:  # noqa: BLE001 (a bug of the harness, reported)
            outcomes = [{"call": "harness", "outcome": "harness",
                         "detail": checks.short_traceback(error, 8)}]
        emit({"event": "done", "outcomes": outcomes})


if __name__ == "__main__":
    main()
