"""Forests pickled before the trees drew their bootstraps as scikit-learn's.

Until commit 4547832 a forest drew every tree's rows and random_state from
one seed of its own, ``_base_seed``. ``BaseForest.__setstate__`` gives such a
forest the trees' random_states from it, and ``BaseForest._tree_counts`` draws
the trees' rows from it again, as the forest did when it grew them.

The pickles in ``tests/data/legacy`` were made by commit 3ca8595 (the parent
of 4547832) with ``make_legacy_pickles.py`` there, which also makes the
training data (stored beside them) and the rows predicted, and recorded what
that version computed from each forest. The same trees on the same rows must
give the same numbers, so every comparison with that record is exact.

Pickles older still, which kept the bootstrap size as ``_n_draws``, are
refused on load (they lack ``monotonic_cst``), so none is tested here.
"""

import importlib.util
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import fasttree
from tolerances import assert_rounding_close

LEGACY = Path(__file__).parent / "data" / "legacy"
FORESTS = ["rf_classifier", "rf_regressor", "extra_trees_classifier"]
BOOTSTRAPPED = ["rf_classifier", "rf_regressor"]


def import_maker():
    """``make_legacy_pickles.py``, for its data (it imports fasttree only when run)."""
    spec = importlib.util.spec_from_file_location("make_legacy_pickles",
                                                  LEGACY / "make_legacy_pickles.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


maker = import_maker()


def load_legacy(name):
    """The forest ``name`` as 3ca8595 pickled it, loaded by today's code."""
    with open(LEGACY / f"base_seed_{name}.pkl", "rb") as handle:
        return pickle.load(handle)


def recorded(name):
    """What 3ca8595 computed from forest ``name``: quantity -> array."""
    with np.load(LEGACY / "base_seed_outputs.npz") as outputs:
        return {key.split("/", 1)[1]: outputs[key] for key in outputs.files
                if key.startswith(name + "/")}


def training_data(name):
    """The X and y forest ``name`` was fitted on, as stored (the regression
    target, a matrix product, would differ in its last bits on a machine
    whose BLAS kernel adds in another order)."""
    kind = "classification" if name.endswith("classifier") else "regression"
    with np.load(LEGACY / "base_seed_data.npz") as data:
        return data[f"{kind}_X"], data[f"{kind}_y"]


def test_the_stored_training_data_are_those_the_legacy_forests_were_fitted_on():
    # Otherwise the comparisons below that read X and y fail for the data.
    digests = recorded("data_digest")
    assert maker.data_digest(*training_data("rf_classifier")) == digests["classification"]
    assert maker.data_digest(*training_data("rf_regressor")) == digests["regression"]


@pytest.mark.parametrize("name", FORESTS)
def test_a_forest_pickled_before_the_trees_drew_as_scikit_learns_predicts_as_it_did(name):
    forest, old = load_legacy(name), recorded(name)
    rows = maker.new_rows()
    assert "_base_seed" in forest.__dict__  # the pickle is a legacy one
    assert_array_equal(forest.predict(rows), old["predict"])
    if "predict_proba" in old:
        assert_array_equal(forest.predict_proba(rows), old["predict_proba"])
    assert_array_equal(forest.apply(rows), old["apply"])
    assert_array_equal(forest.feature_importances_, old["feature_importances_"])
    for attribute in ("oob_score_", "oob_decision_function_", "oob_prediction_"):
        if attribute in old:
            assert_array_equal(getattr(forest, attribute), old[attribute])


@pytest.mark.parametrize("name", BOOTSTRAPPED)
def test_a_legacy_forest_finds_the_rows_its_trees_drew_and_left_out(name):
    forest, old = load_legacy(name), recorded(name)
    X, y = training_data(name)
    assert_array_equal(np.array(forest.estimators_samples_), old["estimators_samples_"])
    # The importance permutes each tree's out-of-bag rows: the rows it did
    # not draw, found again from the forest's seed.
    importances = forest.oob_permutation_importance(X, y, n_repeats=2, random_state=0)
    if name.endswith("classifier"):
        assert_array_equal(importances, old["oob_permutation_importance"])
    else:
        # Means of squared errors, whose last bits follow the summation order
        # numpy picks for the machine's vector units.
        assert_rounding_close(importances, old["oob_permutation_importance"],
                              float(np.var(y)))


@pytest.mark.parametrize("name", FORESTS)
def test_the_rows_found_for_each_legacy_tree_are_the_rows_its_leaves_counted(name):
    # Independent of the recorded outputs: each leaf of a tree keeps how many
    # distinct rows it held and their total weight (the draw counts), as the
    # tree was grown on the draws the forest made then.
    forest = load_legacy(name)
    X, _ = training_data(name)
    for member, rows in zip(forest.estimators_, forest.estimators_samples_):
        tree = member.tree_
        counts = np.bincount(rows, minlength=len(X))
        leaf_of_row = member.apply(X)
        leaves = tree.children_left == -1
        assert_array_equal(
            np.bincount(leaf_of_row, weights=counts, minlength=tree.node_count)[leaves],
            tree.weighted_n_node_samples[leaves])
        assert_array_equal(
            np.bincount(leaf_of_row, weights=counts > 0, minlength=tree.node_count)[leaves],
            tree.n_node_samples[leaves])


def test_a_legacy_forest_without_bootstrap_gives_every_tree_every_row():
    forest = load_legacy("extra_trees_classifier")
    X, _ = training_data("extra_trees_classifier")
    samples = forest.estimators_samples_
    assert len(samples) == len(forest.estimators_)
    for rows in samples:
        assert_array_equal(rows, np.arange(len(X)))


@pytest.mark.parametrize("name", FORESTS)
def test_legacy_forest_members_keep_the_random_state_of_their_trees_feature_draws(name):
    forest = load_legacy(name)
    assert_array_equal([member.random_state for member in forest.estimators_],
                       recorded(name)["member_random_states"])


@pytest.mark.parametrize("name", FORESTS)
def test_a_legacy_forest_loads_with_every_attribute_a_forest_fitted_today_has(name):
    # Code written for today's forests reads these attributes; a legacy
    # forest holds them all, and its own seed besides.
    legacy = load_legacy(name)
    X, y = training_data(name)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Some inputs do not have OOB scores")
        today = type(legacy)(**legacy.get_params()).fit(X, y)
    # Forests of 3ca8595 recorded an out-of-bag curve only when grown in
    # batches (oob_batch_size); today every out-of-bag estimate makes one.
    missing = set(today.__dict__) - set(legacy.__dict__) - {"oob_curve_"}
    assert missing == set()
    assert set(legacy.__dict__) - set(today.__dict__) == {"_base_seed"}


@pytest.mark.parametrize("name", BOOTSTRAPPED)
def test_a_legacy_forest_pickled_or_saved_again_finds_the_same_rows(name, tmp_path):
    legacy = load_legacy(name)
    legacy.save(tmp_path / "model.ft")
    rows = maker.new_rows()
    for again in (pickle.loads(pickle.dumps(legacy)), fasttree.load(tmp_path / "model.ft")):
        assert_array_equal(again.predict(rows), legacy.predict(rows))
        assert_array_equal(np.array(again.estimators_samples_),
                           recorded(name)["estimators_samples_"])


@pytest.mark.parametrize("name", BOOTSTRAPPED)
def test_a_legacy_forest_refuses_a_warm_start_and_is_fitted_anew_as_a_forest_of_today(name):
    # Trees added now would draw their rows as today's forests do, while the
    # kept ones drew from the forest's seed: the out-of-bag estimates would
    # mix both, so more trees are grown only by fitting anew.
    legacy = load_legacy(name)
    X, y = training_data(name)
    more = legacy.get_params()["n_estimators"] + 2
    with pytest.raises(ValueError, match="was pickled by an earlier fasttree.*Fit it anew "
                                         "with warm_start=False"):
        legacy.set_params(warm_start=True, n_estimators=more).fit(X, y)
    assert_array_equal(legacy.predict(maker.new_rows()), recorded(name)["predict"])
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Some inputs do not have OOB scores")
        legacy.set_params(warm_start=False).fit(X, y)
        today = type(legacy)(**legacy.get_params()).fit(X, y)
    assert "_base_seed" not in legacy.__dict__
    assert_array_equal(np.array(legacy.estimators_samples_), np.array(today.estimators_samples_))
    assert_array_equal(legacy.oob_permutation_importance(X, y, random_state=0),
                       today.oob_permutation_importance(X, y, random_state=0))
