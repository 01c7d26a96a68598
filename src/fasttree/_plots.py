"""Pictures of fitted models through matplotlib (an optional extra):
feature importances with error bars, the out-of-bag error as trees are
added, and a boosted model's score round by round. ``plot_tree`` is in
``fasttree.rules``."""

import numpy as np


def _pyplot(function):
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(f"{function} draws with matplotlib; install it with "
                          "pip install 'fasttree[plot]'") from None
    return plt


def impurity_importances(model):
    """Mean decrease in impurity of every feature, and its standard deviation
    over the ensemble's members (zeros for a single tree)."""
    model._check_fitted()
    members = getattr(model, "estimators_", None)
    if not members:
        return np.asarray(model.feature_importances_, dtype=np.float64), \
            np.zeros(model.n_features_in_)
    subsets = getattr(model, "estimators_features_", None)
    rows = np.zeros((len(members), model.n_features_in_))
    for index, member in enumerate(members):
        columns = np.arange(model.n_features_in_) if subsets is None else subsets[index]
        # A feature a member drew twice adds both its columns' shares.
        np.add.at(rows[index], columns, member.feature_importances_)
    return np.asarray(model.feature_importances_, dtype=np.float64), rows.std(axis=0)


def permutation_importances(model, X, y, n_repeats=5, random_state=0):
    """Drop in ``model.score(X, y)`` when each feature's column is shuffled:
    the mean and standard deviation over ``n_repeats`` shuffles.

    X may be an array or a DataFrame; its rows are best new ones (not the
    training rows), so that the drops measure what generalises.
    """
    model._check_fitted()
    rng = np.random.default_rng(random_state)
    baseline = model.score(X, y)
    frame = hasattr(X, "iloc") and hasattr(X, "columns")
    drops = np.zeros((n_repeats, model.n_features_in_))
    for feature in range(model.n_features_in_):
        for repeat in range(n_repeats):
            shuffled = X.copy() if frame else np.array(X, copy=True)
            order = rng.permutation(len(shuffled))
            if frame:
                shuffled.iloc[:, feature] = shuffled.iloc[order, feature].to_numpy()
            else:
                shuffled[:, feature] = shuffled[order, feature]
            drops[repeat, feature] = baseline - model.score(shuffled, y)
    return drops.mean(axis=0), drops.std(axis=0)


def plot_importances(model, X=None, y=None, *, kind="impurity", n_repeats=5,
                     random_state=0, feature_names=None, max_features=20, ax=None):
    """Horizontal bars of feature importances with error bars.

    Parameters
    ----------
    model : fitted fasttree estimator
    X, y : array-like, optional
        Rows to shuffle for ``kind='permutation'`` (new rows, ideally).
    kind : {'impurity', 'permutation'}, default='impurity'
        'impurity': mean decrease in impurity, error bars its standard
        deviation over the members; 'permutation': the drop in score when a
        feature is shuffled, error bars its standard deviation over repeats.
    n_repeats, random_state
        The shuffles of ``kind='permutation'``.
    feature_names : list of str, optional
        Default: ``feature_names_in_``, else "feature i".
    max_features : int, default=20
        The most important features drawn.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    plt = _pyplot("plot_importances")
    if kind == "impurity":
        means, spreads = impurity_importances(model)
        label = "mean decrease in impurity"
    elif kind == "permutation":
        if X is None or y is None:
            raise ValueError("kind='permutation' needs X and y to shuffle")
        means, spreads = permutation_importances(model, X, y, n_repeats, random_state)
        label = "drop in score when shuffled"
    else:
        raise ValueError(f"kind must be 'impurity' or 'permutation'; got {kind!r}")
    names = _feature_names(model, feature_names)
    shown = np.argsort(-means, kind="stable")[:max_features][::-1]
    ax = plt.gca() if ax is None else ax
    ax.barh(np.arange(len(shown)), means[shown], xerr=spreads[shown], color="#4c72b0",
            ecolor="#333333", capsize=3)
    ax.set_yticks(np.arange(len(shown)))
    ax.set_yticklabels([names[index] for index in shown])
    ax.set_xlabel(label)
    ax.set_title(f"{type(model).__name__}: feature importances")
    return ax


def plot_oob_curve(forest, ax=None):
    """The out-of-bag error (1 - accuracy, or 1 - R^2) against the number of
    trees, from ``oob_curve_`` (a forest fitted with ``oob_score=True`` or
    ``oob_batch_size``).

    Returns
    -------
    matplotlib Axes
    """
    plt = _pyplot("plot_oob_curve")
    curve = getattr(forest, "oob_curve_", None)
    if curve is None:
        raise ValueError(f"this {type(forest).__name__} has no oob_curve_: fit it with "
                         "oob_score=True or oob_batch_size (and bootstrap=True) to record "
                         "the curve")
    ax = plt.gca() if ax is None else ax
    ax.plot(curve[:, 0], curve[:, 1], marker="o")
    ax.set_xlabel("trees")
    ax.set_ylabel("out-of-bag error")
    ax.set_title(f"{type(forest).__name__}: out-of-bag error as trees are added")
    return ax


def plot_staged_scores(model, X, y, *, label=None, ax=None):
    """A boosted model's score on (X, y) after each round (``staged_score``):
    its training curve on the training rows, or its test curve on new ones.

    Returns
    -------
    matplotlib Axes
    """
    plt = _pyplot("plot_staged_scores")
    if not hasattr(model, "staged_score"):
        raise ValueError(f"{type(model).__name__} has no staged_score; it is for AdaBoost")
    scores = np.fromiter(model.staged_score(X, y), dtype=np.float64)
    ax = plt.gca() if ax is None else ax
    ax.plot(np.arange(1, len(scores) + 1), scores, label=label)
    ax.set_xlabel("rounds")
    ax.set_ylabel("accuracy" if hasattr(model, "classes_") else "R^2")
    ax.set_title(f"{type(model).__name__}: score by round")
    if label is not None:
        ax.legend()
    return ax


def _feature_names(model, feature_names):
    if feature_names is not None:
        return [str(name) for name in feature_names]
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(name) for name in names]
    return [f"feature {index}" for index in range(model.n_features_in_)]
