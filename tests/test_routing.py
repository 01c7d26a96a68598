"""scikit-learn's metadata routing through bagging (src/fasttree/_routing.py)."""

import numpy as np
import pytest
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from fasttree import BaggingClassifier, BaggingRegressor


class Log(list):
    """A list that cloning the members shares rather than copies."""

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self


class Recording(BaseEstimator):
    """Records the keyword arguments its methods get, in a shared list."""

    def __init__(self, log=None):
        self.log = log

    def _record(self, method, **kwargs):
        self.log.append((method, kwargs))

    def fit(self, X, y, groups=None):
        self._record("fit", groups=None if groups is None else np.asarray(groups).copy())
        self.classes_ = np.unique(y)
        self.mean_ = float(np.mean(y)) if y.dtype.kind == "f" else 0.0
        return self


class RecordingClassifier(ClassifierMixin, Recording):
    def predict(self, X, metadata=None):
        self._record("predict", metadata=metadata)
        return np.full(len(X), self.classes_[-1])

    def predict_proba(self, X, metadata=None):
        self._record("predict_proba", metadata=metadata)
        return np.tile(np.linspace(1, 2, len(self.classes_)) / 3, (len(X), 1))

    def decision_function(self, X, metadata=None):
        self._record("decision_function", metadata=metadata)
        return np.zeros(len(X))


class VotingClassifierMember(ClassifierMixin, Recording):
    """Has predict only: bagging takes its votes."""

    def predict(self, X, metadata=None):
        self._record("predict", metadata=metadata)
        return np.full(len(X), self.classes_[0])


class RecordingRegressor(RegressorMixin, Recording):
    def predict(self, X, metadata=None):
        self._record("predict", metadata=metadata)
        return np.full(len(X), self.mean_)


class WeightedRecordingRegressor(RecordingRegressor):
    def fit(self, X, y, sample_weight=None, groups=None):
        self._record("fit", groups=np.asarray(groups).copy(),
                     sample_weight=np.asarray(sample_weight).copy())
        self.mean_ = float(np.average(y, weights=sample_weight))
        return self


X = np.arange(40, dtype=float).reshape(20, 2)
LABELS = np.array([1, 2, 3, 1, 2] * 4)


def recorded(log, method):
    return [kwargs for name, kwargs in log if name == method]


@pytest.mark.parametrize("caller, callee", [("predict", "predict_proba"),
                                            ("predict_proba", "predict_proba"),
                                            ("predict_log_proba", "predict_proba"),
                                            ("decision_function", "decision_function")])
def test_bagging_classifier_routes_requested_metadata_to_the_members(caller, callee):
    log = Log()
    with config_context(enable_metadata_routing=True):
        member = RecordingClassifier(log).set_predict_proba_request(metadata=True)
        member.set_decision_function_request(metadata=True)
        bagging = BaggingClassifier(member, n_estimators=3, random_state=0).fit(X, LABELS)
        getattr(bagging, caller)(X, metadata="tag")
    calls = recorded(log, callee)
    assert len(calls) == 3 and all(call["metadata"] == "tag" for call in calls)


def test_members_without_probabilities_get_the_metadata_in_predict():
    log = Log()
    with config_context(enable_metadata_routing=True):
        member = VotingClassifierMember(log).set_predict_request(metadata=True)
        bagging = BaggingClassifier(member, n_estimators=2, random_state=0).fit(X, LABELS)
        probabilities = bagging.predict_proba(X, metadata="votes")
        log_probabilities = bagging.predict_log_proba(X, metadata="votes")
        predicted = bagging.predict(X, metadata="votes")
    assert [call["metadata"] for call in recorded(log, "predict")] == ["votes"] * 6
    np.testing.assert_array_equal(probabilities[:, 0], 1.0)
    np.testing.assert_array_equal(np.exp(log_probabilities), probabilities)
    np.testing.assert_array_equal(predicted, 1)
    mapping = str(bagging.get_metadata_routing())
    assert "'caller': 'predict_proba', 'callee': 'predict'" in mapping


def test_bagging_regressor_routes_predict_metadata_and_fit_params_by_row():
    log = Log()
    groups = np.arange(20) * 10
    y = np.linspace(0.0, 1.0, 20)
    with config_context(enable_metadata_routing=True):
        member = RecordingRegressor(log).set_predict_request(metadata=True)
        member.set_fit_request(groups=True)
        bagging = BaggingRegressor(member, n_estimators=3, bootstrap=False, max_samples=0.5,
                                   random_state=0).fit(X, y, groups=groups)
        bagging.predict(X, metadata="m")
    fits = recorded(log, "fit")
    assert len(fits) == 3
    for call, rows in zip(fits, bagging.estimators_samples_):
        # Each member (without sample_weight: its rows repeated as drawn)
        # saw the groups of its own rows, in its rows' order.
        np.testing.assert_array_equal(call["groups"], groups[np.sort(rows)])
    assert [call["metadata"] for call in recorded(log, "predict")] == ["m"] * 3


def test_extra_arguments_without_routing_are_refused_by_name():
    bagging = BaggingClassifier(RecordingClassifier(Log()), n_estimators=2).fit(X, LABELS)
    with pytest.raises(ValueError, match=r"BaggingClassifier.predict\(\).*\['metadata'\]"
                                         r".*enable_metadata_routing"):
        bagging.predict(X, metadata="x")
    with pytest.raises(ValueError, match=r"BaggingRegressor.fit\(\).*\['groups'\]"):
        BaggingRegressor(RecordingRegressor(Log())).fit(X, np.ones(20), groups=np.ones(20))


@pytest.mark.parametrize("voting, callee", [("soft", "predict_proba"), ("hard", "predict")])
def test_metadata_no_member_requested_is_refused_naming_the_member_method(voting, callee):
    # Soft voting asks the members for probabilities, hard voting for classes.
    with config_context(enable_metadata_routing=True):
        bagging = BaggingClassifier(RecordingClassifier(Log()), n_estimators=2,
                                    voting=voting).fit(X, LABELS)
        with pytest.raises(ValueError, match=rf"\[metadata\] are passed but are not explicitly "
                                             rf"set .* for RecordingClassifier.{callee}, which "
                                             rf"is used within BaggingClassifier.predict\."):
            bagging.predict(X, metadata="x")


def test_hard_voting_routes_predicts_metadata_to_the_members_predict():
    log = Log()
    with config_context(enable_metadata_routing=True):
        member = RecordingClassifier(log).set_predict_request(metadata=True)
        bagging = BaggingClassifier(member, n_estimators=3, voting="hard",
                                    random_state=0).fit(X, LABELS)
        bagging.predict(X, metadata="vote")
    assert [call["metadata"] for call in recorded(log, "predict")] == ["vote"] * 3
    assert recorded(log, "predict_proba") == []


def test_members_with_sample_weight_get_fit_params_of_every_row():
    # Such a member sees every row, with its draw count as its weight (see
    # test_bagging), and so the fit parameters of every row.
    log = Log()
    groups = np.arange(20) * 10
    with config_context(enable_metadata_routing=True):
        member = WeightedRecordingRegressor(log).set_fit_request(groups=True,
                                                                 sample_weight=True)
        bagging = BaggingRegressor(member, n_estimators=3, random_state=0).fit(
            X, np.linspace(0.0, 1.0, 20), groups=groups)
    fits = recorded(log, "fit")
    assert len(fits) == 3
    for call, rows in zip(fits, bagging.estimators_samples_):
        np.testing.assert_array_equal(call["groups"], groups)
        np.testing.assert_array_equal(call["sample_weight"], np.bincount(rows, minlength=20))
