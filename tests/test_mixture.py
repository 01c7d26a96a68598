"""The mixtures of experts (``fasttree.mixture``): EM against the pure-Python
oracle, the likelihood that never falls, regimes a gate learns to separate,
one expert, save and load, threads and the errors of bad input."""

import pickle
import warnings

import numpy as np
import pytest

import fasttree
from fasttree import (ConvergenceWarning, DecisionTreeClassifier, DecisionTreeRegressor,
                      LinearExpert, LogisticExpert, MixtureOfExpertsClassifier,
                      MixtureOfExpertsRegressor, ModelFileError)
from fasttree.reference.mixture import fit_mixture

# Two computations of the same EM in another order (and Newton's method
# stopped by another rule for the logistic expert) agree to rounding.
TOLERANCE = dict(rtol=1e-6, atol=1e-8)


def regimes(n_samples, seed, noise_features=1):
    """Two regimes: the label follows x1 where x0 > 0 and x2 elsewhere."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_samples, 3 + noise_features))
    y = np.where(X[:, 0] > 0, X[:, 1] > 0, X[:, 2] > 0).astype(int)
    return X, y


def regression_regimes(n_samples, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_samples, 3))
    y = np.where(X[:, 0] > 0, 3.0 * X[:, 1], -2.0 * X[:, 2]) + rng.normal(0, 0.1, n_samples)
    return X, y


def expert_seeds(random_state, n_experts):
    """The seeds the estimator gives its experts (boosting_generators' stream)."""
    stream = np.random.default_rng(np.random.SeedSequence([random_state, 1]))
    return stream.integers(0, 2**31 - 1, size=n_experts)


CASES = {
    "logistic flat": (MixtureOfExpertsClassifier, None, 1, 3),
    "logistic hierarchical": (MixtureOfExpertsClassifier, None, 2, 2),
    "stumps flat": (MixtureOfExpertsClassifier, DecisionTreeClassifier(max_depth=1), 1, 2),
    "trees hierarchical": (MixtureOfExpertsClassifier, DecisionTreeClassifier(max_depth=2), 2,
                           2),
    "linear flat": (MixtureOfExpertsRegressor, None, 1, 2),
    "linear hierarchical": (MixtureOfExpertsRegressor, None, 2, 2),
    "regression trees flat": (MixtureOfExpertsRegressor, DecisionTreeRegressor(max_depth=2), 1,
                              3),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_em_agrees_with_the_pure_python_oracle(case):
    cls, expert, levels, n_experts = CASES[case]
    classifier = cls is MixtureOfExpertsClassifier
    X, y = regimes(160, 1) if classifier else regression_regimes(160, 1)
    X[::17, 3 if classifier else 2] = np.nan if expert is not None else X[::17, 0]
    weights = np.random.default_rng(2).uniform(0.5, 2.0, len(y))
    model = cls(expert, n_experts, levels=levels, max_iter=15, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y, sample_weight=weights)
    seeds = expert_seeds(3, n_experts ** levels)
    make_expert = None if expert is None else (
        lambda index: type(expert)(**{**expert.get_params(), "random_state": int(seeds[index])}))
    oracle = fit_mixture(X, y, kind="classifier" if classifier else "regressor",
                         n_experts=n_experts, levels=levels, make_expert=make_expert,
                         max_iter=15, seed=3, sample_weight=weights,
                         leaf_steps=expert is not None)
    assert model.n_iter_ == oracle.n_iter
    np.testing.assert_allclose(model.log_likelihood_, oracle.log_likelihood, **TOLERANCE)
    for coef, intercept, V in zip(model.gate_coef_, model.gate_intercept_, oracle.gates,
                                  strict=True):
        np.testing.assert_allclose(intercept, V[0], **TOLERANCE)
        np.testing.assert_allclose(coef, V[1:].T, **TOLERANCE)
    X_new = regimes(50, 9)[0] if classifier else regression_regimes(50, 9)[0]
    np.testing.assert_allclose(model.gate_weights(X_new), oracle.gate_weights(X_new), **TOLERANCE)
    np.testing.assert_allclose(model.responsibilities(X, y), oracle.responsibilities(X, y),
                               **TOLERANCE)
    if classifier:
        np.testing.assert_allclose(model.predict_proba(X_new), oracle.predict_proba(X_new),
                                   **TOLERANCE)
    else:
        np.testing.assert_allclose(model.expert_variances_, oracle.variances, **TOLERANCE)
        np.testing.assert_allclose(model.predict(X_new), oracle.predict(X_new), **TOLERANCE)


@pytest.mark.parametrize("expert", [None, DecisionTreeClassifier(max_depth=2)])
@pytest.mark.parametrize("levels", [1, 2])
@pytest.mark.parametrize("seed", range(4))
def test_the_log_likelihood_never_decreases_between_em_iterations(expert, levels, seed):
    X, y = regimes(300, seed, noise_features=3)
    flipped = np.random.default_rng(seed).random(len(y)) < 0.1  # noise: no perfect fit
    y = np.where(flipped, 1 - y, y)
    model = MixtureOfExpertsClassifier(expert, 2, levels=levels, max_iter=30, tol=0.0,
                                       random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert model.n_iter_ == 30
    assert np.all(np.diff(model.log_likelihood_) >= -1e-12)


@pytest.mark.parametrize("expert", [None, DecisionTreeRegressor(max_depth=2)])
def test_the_regressors_log_likelihood_never_decreases(expert):
    X, y = regression_regimes(300, 4)
    model = MixtureOfExpertsRegressor(expert, 3, max_iter=25, tol=0.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    assert np.all(np.diff(model.log_likelihood_) >= -1e-12)


def test_a_gate_over_stumps_separates_two_regimes_and_beats_a_deeper_tree():
    X, y = regimes(3000, 0)
    X_new, y_new = regimes(3000, 1)
    # EM finds a local maximum from each start: five starts, the best kept.
    mixture = MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=1), 2, n_init=5,
                                         random_state=0).fit(X, y)
    # The gate's weight of one expert follows the true regime (x0 > 0) on new rows.
    first_expert = mixture.gate_weights(X_new)[:, 0] > 0.5
    agreement = np.mean(first_expert == (X_new[:, 0] > 0))
    assert max(agreement, 1 - agreement) > 0.95
    accuracy = mixture.score(X_new, y_new)
    stump = DecisionTreeClassifier(max_depth=1).fit(X, y).score(X_new, y_new)
    deeper = DecisionTreeClassifier(max_depth=2).fit(X, y).score(X_new, y_new)
    assert accuracy >= stump + 0.05
    assert accuracy > deeper + 0.05


def test_a_mixture_of_linear_experts_fits_two_linear_regimes():
    X, y = regression_regimes(2000, 0)
    X_new, y_new = regression_regimes(2000, 1)
    mixture = MixtureOfExpertsRegressor(n_experts=2, n_init=2, random_state=0).fit(X, y)
    single = LinearExpert().fit(X, y)
    assert mixture.score(X_new, y_new) > 0.9 > single.score(X_new, y_new) + 0.3
    # Each expert's variance is about the noise's (0.1 ** 2).
    np.testing.assert_allclose(mixture.expert_variances_, 0.01, rtol=0.5)


def nested_regimes(n_samples, seed):
    """Four regions, nested: x0's sign, then x1's; the label follows another
    feature in each."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n_samples, 6))
    region = 2 * (X[:, 0] > 0) + (X[:, 1] > 0)
    y = (X[np.arange(n_samples), 2 + region] > 0).astype(int)
    return X, y


def test_the_hierarchical_mixture_reaches_the_flat_ones_likelihood_on_nested_regimes():
    X, y = nested_regimes(2000, 0)
    stump = DecisionTreeClassifier(max_depth=1)
    flat = MixtureOfExpertsClassifier(stump, 4, n_init=2, random_state=0).fit(X, y)
    nested = MixtureOfExpertsClassifier(stump, 2, levels=2, n_init=2, random_state=0).fit(X, y)
    assert len(nested.experts_) == len(flat.experts_) == 4
    assert nested.log_likelihood_[-1] >= flat.log_likelihood_[-1] - 1e-3


@pytest.mark.parametrize("levels", [1, 2])
@pytest.mark.parametrize("expert", [DecisionTreeClassifier(max_depth=3), LogisticExpert()])
def test_a_mixture_of_one_expert_predicts_as_that_expert(expert, levels):
    X, y = regimes(400, 3)
    X_new = regimes(100, 4)[0]
    mixture = MixtureOfExpertsClassifier(expert, 1, levels=levels, random_state=0).fit(X, y)
    alone = type(expert)(**expert.get_params()).fit(X, y)
    np.testing.assert_array_equal(mixture.predict_proba(X_new), alone.predict_proba(X_new))
    np.testing.assert_array_equal(mixture.gate_weights(X_new), 1.0)


@pytest.mark.parametrize("expert", [DecisionTreeRegressor(max_depth=3), LinearExpert()])
def test_a_regression_mixture_of_one_expert_predicts_as_that_expert(expert):
    X, y = regression_regimes(400, 3)
    X_new = regression_regimes(100, 4)[0]
    mixture = MixtureOfExpertsRegressor(expert, 1, random_state=0).fit(X, y)
    alone = type(expert)(**expert.get_params()).fit(X, y)
    np.testing.assert_array_equal(mixture.predict(X_new), alone.predict(X_new))


def test_gate_weights_and_responsibilities_are_distributions_over_the_experts():
    X, y = regimes(300, 5)
    mixture = MixtureOfExpertsClassifier(n_experts=2, levels=2, random_state=0).fit(X, y)
    weights, posterior = mixture.gate_weights(X), mixture.responsibilities(X, y)
    assert weights.shape == posterior.shape == (300, 4)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0)
    np.testing.assert_allclose(posterior.sum(axis=1), 1.0)
    # Bayes' rule: the posterior is the prior times each expert's likelihood.
    likelihood = np.column_stack([expert.predict_proba(X)[np.arange(300), y]
                                  for expert in mixture.experts_])
    expected = weights * likelihood
    np.testing.assert_allclose(posterior, expected / expected.sum(axis=1, keepdims=True),
                               rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="not among the classes"):
        mixture.responsibilities(X, np.full(300, 7))


def test_the_same_mixture_whatever_the_threads():
    X, y = regimes(1000, 6)
    fits = [MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=2), 3, n_jobs=n_jobs,
                                       random_state=1).fit(X, y) for n_jobs in (1, 2)]
    np.testing.assert_array_equal(fits[0].log_likelihood_, fits[1].log_likelihood_)
    np.testing.assert_array_equal(fits[0].predict_proba(X), fits[1].predict_proba(X))


@pytest.mark.parametrize("model", [
    MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=2), 2, levels=2,
                               random_state=0),
    MixtureOfExpertsClassifier(n_experts=3, random_state=0),
    MixtureOfExpertsRegressor(n_experts=2, random_state=0),
    MixtureOfExpertsRegressor(DecisionTreeRegressor(max_depth=2), 2, random_state=0)],
    ids=["trees hierarchical", "logistic", "linear", "regression trees"])
def test_model_files_and_pickles_predict_bit_for_bit(model, tmp_path):
    classifier = isinstance(model, MixtureOfExpertsClassifier)
    X, y = regimes(300, 7) if classifier else regression_regimes(300, 7)
    model.fit(X, y)
    path = tmp_path / "mixture.fasttree"
    model.save(path)
    for copy in (fasttree.load(path), pickle.loads(pickle.dumps(model))):
        method = "predict_proba" if classifier else "predict"
        np.testing.assert_array_equal(getattr(copy, method)(X), getattr(model, method)(X))
        np.testing.assert_array_equal(copy.gate_weights(X), model.gate_weights(X))


def test_a_loaded_mixture_whose_gates_do_not_match_is_refused():
    X, y = regimes(200, 8)
    model = MixtureOfExpertsClassifier(n_experts=2, random_state=0).fit(X, y)
    model.gate_coef_ = [model.gate_coef_[0][:, :-1]]
    with pytest.raises(ModelFileError, match="gates do not match"):
        pickle.loads(pickle.dumps(model))
    model.fit(X, y)
    model.experts_ = model.experts_[:1]
    with pytest.raises(ModelFileError, match="does not hold 2 experts"):
        fasttree._model_file.loads(fasttree._model_file.dumps(model))


def test_categorical_and_missing_features_reach_gates_one_hot_and_trees_natively():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    colour = rng.choice(["red", "green", "blue"], 400)
    size = rng.normal(size=400)
    size[::10] = np.nan
    X = pd.DataFrame({"colour": pd.Categorical(colour), "size": size})
    y = np.where(colour == "red", np.nan_to_num(size) > 0, np.nan_to_num(size) < 0).astype(int)
    model = MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=1), 2,
                                       random_state=0).fit(X, y)
    assert model.gate_coef_[0].shape == (2, 3 + 1)  # three colours one-hot, then size
    assert model.experts_[0].is_categorical_.tolist() == [True, False]
    assert model.score(X, y) > 0.9
    unseen = X.iloc[:5].copy()
    unseen["colour"] = pd.Categorical(["purple"] * 5)
    np.testing.assert_allclose(model.predict_proba(unseen).sum(axis=1), 1.0)


def test_experts_from_scikit_learn_work():
    linear_model = pytest.importorskip("sklearn.linear_model")
    X, y = regimes(600, 9)
    model = MixtureOfExpertsClassifier(linear_model.LogisticRegression(), 2, n_init=3,
                                       random_state=0).fit(X, y)
    single = linear_model.LogisticRegression().fit(X, y)
    assert model.score(X, y) > single.score(X, y) + 0.1
    assert all(isinstance(expert, linear_model.LogisticRegression) for expert in model.experts_)


def test_verbose_reports_each_em_iteration(capsys):
    X, y = regimes(200, 10)
    model = MixtureOfExpertsClassifier(n_experts=2, verbose=1, random_state=0).fit(X, y)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == model.n_iter_
    assert lines[-1].startswith(f"MixtureOfExpertsClassifier: EM iteration {model.n_iter_}/100")


def leaf_iterations(capsys, model, X, y):
    """Fit a verbose copy of ``model``; whether each iteration only
    re-estimated the experts' leaves (rather than regrowing them)."""
    model.set_params(verbose=1).fit(X, y)
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == model.n_iter_
    return model, np.array(["(leaves re-estimated)" in line for line in lines])


@pytest.mark.parametrize("model", [
    MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=2), 2, random_state=0),
    MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=1), 2, levels=2, random_state=1),
    MixtureOfExpertsRegressor(DecisionTreeRegressor(max_depth=2), 2, random_state=0)])
def test_tree_experts_regrow_while_their_splits_move_and_when_leaf_steps_stall(capsys, model):
    classifier = isinstance(model, MixtureOfExpertsClassifier)
    X, y = regimes(600, 12) if classifier else regression_regimes(600, 12)
    model, leaves_only = leaf_iterations(capsys, model, X, y)
    assert model.converged_
    assert leaves_only.any()
    # The first and the converged last iteration regrew the trees; an
    # iteration after leaf steps that gained less than tol regrows them.
    assert not leaves_only[0] and not leaves_only[-1]
    gains = np.diff(model.log_likelihood_)
    stalled = np.flatnonzero(leaves_only[1:-1] & (gains[:-1] < model.tol)) + 1
    assert not leaves_only[stalled + 1].any()


@pytest.mark.parametrize("model", [
    MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=2, class_weight="balanced"), 2),
    MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=2, monotonic_cst=[1, 0, 0, 0]),
                               2),
    MixtureOfExpertsClassifier(LogisticExpert(), 2),
    MixtureOfExpertsRegressor(DecisionTreeRegressor(max_depth=2, criterion="absolute_error"), 2),
    MixtureOfExpertsRegressor(DecisionTreeRegressor(max_depth=2, criterion="quantile",
                                                    quantile=0.3), 2)])
def test_experts_whose_leaves_are_not_weighted_means_are_refitted_every_iteration(capsys,
                                                                                   model):
    classifier = isinstance(model, MixtureOfExpertsClassifier)
    X, y = regimes(300, 13) if classifier else regression_regimes(300, 13)
    model, leaves_only = leaf_iterations(capsys, model.set_params(random_state=0), X, y)
    assert model.n_iter_ > 2 and not leaves_only.any()


def test_em_that_stops_at_max_iter_warns_that_it_did_not_converge():
    X, y = regimes(300, 11)
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=2"):
        model = MixtureOfExpertsClassifier(n_experts=2, max_iter=2, tol=0.0,
                                           random_state=0).fit(X, y)
    assert not model.converged_ and model.n_iter_ == 2


def test_n_init_keeps_the_run_of_the_highest_likelihood():
    X, y = regimes(600, 12)
    stump = DecisionTreeClassifier(max_depth=1)
    runs = [MixtureOfExpertsClassifier(stump, 2, random_state=0, n_init=n_init).fit(X, y)
            for n_init in (1, 4)]
    assert runs[1].log_likelihood_[-1] >= runs[0].log_likelihood_[-1]


@pytest.mark.parametrize("params, message", [
    ({"n_experts": 0}, "'n_experts' parameter"),
    ({"levels": 3}, "'levels' parameter"),
    ({"max_iter": 0}, "'max_iter' parameter"),
    ({"tol": -1.0}, "'tol' parameter"),
    ({"alpha": -1.0}, "'alpha' parameter"),
    ({"n_init": 0}, "'n_init' parameter"),
    ({"n_experts": 20, "levels": 2}, "400 experts need at least 400 samples"),
    ({"expert": DecisionTreeRegressor()}, "needs a classifier"),
])
def test_bad_parameters_are_refused_by_name(params, message):
    X, y = regimes(100, 13)
    with pytest.raises(ValueError, match=message):
        MixtureOfExpertsClassifier(**params).fit(X, y)


def test_experts_that_cannot_take_responsibilities_are_refused():
    neighbors = pytest.importorskip("sklearn.neighbors")
    svm = pytest.importorskip("sklearn.svm")
    X, y = regimes(100, 14)
    with pytest.raises(ValueError, match="takes no sample_weight"):
        MixtureOfExpertsClassifier(neighbors.KNeighborsClassifier()).fit(X, y)
    with pytest.raises(ValueError, match="has no predict_proba"):
        MixtureOfExpertsClassifier(svm.LinearSVC()).fit(X, y)


def test_rows_with_infinity_or_too_few_distinct_values_are_refused():
    X, y = regimes(100, 15)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        MixtureOfExpertsClassifier().fit(X, y)
    with pytest.raises(ValueError, match="fewer distinct values"):
        MixtureOfExpertsClassifier(n_experts=3).fit(np.zeros((10, 2)), np.arange(10) % 2)


def test_an_expert_that_fits_exactly_keeps_a_floor_of_variance():
    X = np.random.default_rng(16).uniform(-1, 1, size=(200, 2))
    y = 2.0 * X[:, 0] - X[:, 1]  # linear, without noise: every expert fits it exactly
    model = MixtureOfExpertsRegressor(n_experts=2, random_state=0).fit(X, y)
    # The floor (a millionth of y's variance) keeps the likelihood finite.
    np.testing.assert_allclose(model.expert_variances_, 1e-6 * y.var(), rtol=1e-6)
    assert np.isfinite(model.log_likelihood_).all()


def test_em_started_from_a_sample_of_the_rows_agrees_with_the_oracle(monkeypatch):
    import fasttree._gating
    import fasttree.reference.mixture

    # Large X start from a k-means of a sample; a small sample makes that cheap here.
    monkeypatch.setattr(fasttree._gating, "KMEANS_SAMPLE", 60)
    monkeypatch.setattr(fasttree.reference.mixture, "KMEANS_SAMPLE", 60)
    X, y = regimes(200, 17)
    model = MixtureOfExpertsClassifier(n_experts=2, levels=2, max_iter=10, random_state=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(X, y)
    oracle = fit_mixture(X, y, kind="classifier", n_experts=2, levels=2, max_iter=10, seed=5)
    np.testing.assert_allclose(model.log_likelihood_, oracle.log_likelihood, **TOLERANCE)
    np.testing.assert_allclose(model.predict_proba(X), oracle.predict_proba(X), **TOLERANCE)


def test_tree_experts_name_the_classes_in_their_rules():
    X, y = regimes(400, 18)
    labels = np.array(["benign", "malignant"])[y]
    model = MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=1), 2,
                                       random_state=0).fit(X, labels)
    for expert in model.experts_:
        assert set(expert.classes_) <= {"benign", "malignant"}
    assert "malignant" in fasttree.export_text(model.experts_[0])
    by_position = MixtureOfExpertsClassifier(DecisionTreeClassifier(max_depth=1), 2,
                                             random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), by_position.predict_proba(X))
    np.testing.assert_array_equal(model.predict(X), labels[by_position.predict(X)])
    copy = fasttree._model_file.loads(fasttree._model_file.dumps(model))
    np.testing.assert_array_equal(copy.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("expert", [None, DecisionTreeClassifier(max_depth=2)])
def test_the_same_mixture_from_any_memory_layout_or_number_dtype(expert):
    X, y = regimes(300, 19)
    X = np.round(X * 100)  # whole numbers, which int64 holds as they are
    fits = [MixtureOfExpertsClassifier(expert, 2, random_state=0).fit(layout, y)
            for layout in (X, np.asfortranarray(X), X.astype(np.int64))]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.log_likelihood_, fits[0].log_likelihood_)
        np.testing.assert_array_equal(other.predict_proba(X), fits[0].predict_proba(X))


def test_targets_whose_variance_overflows_are_refused():
    X, y = regression_regimes(100, 20)
    with pytest.raises(ValueError, match="variance overflows float64"):
        MixtureOfExpertsRegressor(random_state=0).fit(X, y * 1e200)
