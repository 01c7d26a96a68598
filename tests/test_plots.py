"""Pictures of fitted models (fasttree._plots), rendered to files."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from fasttree import (AdaBoostClassifier, BaggingClassifier, DecisionTreeClassifier,  # noqa: E402
                      RandomForestClassifier, plot_importances, plot_oob_curve,
                      plot_staged_scores)
from fasttree._plots import impurity_importances, permutation_importances  # noqa: E402
from synthetic import classification_data  # noqa: E402
from tolerances import assert_rounding_close  # noqa: E402

X, Y = classification_data(n_samples=300, n_features=5, n_classes=2)


def rendered(ax, path):
    ax.figure.savefig(path)
    plt.close(ax.figure)
    return path.stat().st_size


def gini_decreases(tree, n_features):
    """A tree's importances computed by hand from its nodes: every split's
    decrease w * gini - w_left * gini_left - w_right * gini_right (gini
    from the node's class shares), summed by feature, normalised."""
    shares = tree.value[:, 0] / tree.value[:, 0].sum(axis=1, keepdims=True)
    gini = 1.0 - (shares ** 2).sum(axis=1)
    weight = tree.weighted_n_node_samples
    totals = np.zeros(n_features)
    for node in np.flatnonzero(tree.children_left != -1):
        left, right = tree.children_left[node], tree.children_right[node]
        totals[tree.feature[node]] += (weight[node] * gini[node] - weight[left] * gini[left]
                                       - weight[right] * gini[right])
    return totals / totals.sum()


def test_impurity_importances_are_drawn_with_their_spread_over_the_members(tmp_path):
    model = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, Y)
    means, spreads = impurity_importances(model)
    per_tree = np.array([gini_decreases(member.tree_, 5) for member in model.estimators_])
    assert_rounding_close(means, per_tree.mean(axis=0) / per_tree.mean(axis=0).sum())
    assert_rounding_close(spreads, per_tree.std(axis=0))
    assert (spreads > 0.01).all()  # ten different trees: the spread is no rounding
    ax = plot_importances(model)
    heights = sorted(patch.get_width() for patch in ax.patches)
    np.testing.assert_allclose(heights, np.sort(means))
    assert rendered(ax, tmp_path / "impurity.png") > 1000


def test_bagging_members_importances_count_only_their_features():
    # Each member sees two of the five features: its importances count for
    # those two (by its own columns' order), zero for the other three.
    model = BaggingClassifier(n_estimators=6, max_features=2, random_state=0).fit(X, Y)
    means, spreads = impurity_importances(model)
    per_member = np.zeros((6, 5))
    for row, member, features in zip(per_member, model.estimators_,
                                     model.estimators_features_):
        assert len(set(features.tolist())) == 2
        row[features] = gini_decreases(member.tree_, 2)
    assert_rounding_close(means, per_member.mean(axis=0) / per_member.mean(axis=0).sum())
    assert_rounding_close(spreads, per_member.std(axis=0))
    # The members saw different pairs, and no member saw feature 3: it gets
    # neither importance nor spread.
    assert len({tuple(sorted(features)) for features in model.estimators_features_}) > 2
    unseen = np.setdiff1d(np.arange(5), np.concatenate(model.estimators_features_))
    np.testing.assert_array_equal(unseen, [3])
    assert means[3] == 0 and spreads[3] == 0 and (spreads[[0, 1, 2, 4]] > 0.01).all()


def test_permutation_importances_drop_the_score_of_the_features_used(tmp_path):
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, Y)
    means, spreads = permutation_importances(model, X, Y, n_repeats=4)
    unused = model.feature_importances_ == 0
    assert np.all(means[unused] == 0) and np.all(spreads[unused] == 0)
    assert means[~unused].max() > 0
    ax = plot_importances(model, X, Y, kind="permutation", n_repeats=3,
                          feature_names=list("abcde"))
    assert [label.get_text() for label in ax.get_yticklabels()][-1] in list("abcde")
    assert rendered(ax, tmp_path / "permutation.png") > 1000


def test_the_oob_curve_is_drawn_from_oob_curve_(tmp_path):
    model = RandomForestClassifier(n_estimators=40, oob_batch_size=10, random_state=0).fit(X, Y)
    ax = plot_oob_curve(model)
    line = ax.get_lines()[0]
    np.testing.assert_array_equal(line.get_xdata(), model.oob_curve_[:, 0])
    assert rendered(ax, tmp_path / "oob.png") > 1000
    with pytest.raises(ValueError, match="oob_score=True or oob_batch_size"):
        plot_oob_curve(RandomForestClassifier(n_estimators=3).fit(X, Y))


def test_the_boosting_curve_has_a_score_per_round(tmp_path):
    model = AdaBoostClassifier(n_estimators=15, random_state=0).fit(X, Y)
    ax = plot_staged_scores(model, X, Y, label="training")
    scores = ax.get_lines()[0].get_ydata()
    assert len(scores) == len(model.estimators_)
    assert scores[-1] == pytest.approx(model.score(X, Y))
    assert rendered(ax, tmp_path / "boosting.png") > 1000


def test_bad_requests_are_refused_by_name():
    model = DecisionTreeClassifier().fit(X, Y)
    with pytest.raises(ValueError, match="kind"):
        plot_importances(model, kind="gain")
    with pytest.raises(ValueError, match="needs X and y"):
        plot_importances(model, kind="permutation")
    with pytest.raises(ValueError, match="staged_score"):
        plot_staged_scores(model, X, Y)


def test_a_feature_a_bagging_member_drew_twice_adds_both_its_shares():
    # With bootstrap_features a member may hold a feature in two columns:
    # its spread is over the members' whole shares, as feature_importances_
    # adds them.
    model = BaggingClassifier(n_estimators=8, max_features=4, bootstrap_features=True,
                              random_state=0).fit(X, Y)
    assert any(len(set(features.tolist())) < 4 for features in model.estimators_features_)
    per_member = np.zeros((8, 5))
    for row, member, features in zip(per_member, model.estimators_,
                                     model.estimators_features_):
        for column, feature in enumerate(features):
            row[feature] += member.feature_importances_[column]
    means, spreads = impurity_importances(model)
    assert_rounding_close(means, model.feature_importances_)
    assert_rounding_close(spreads, per_member.std(axis=0))
