"""Docstring entries that several estimators share.

Many estimators take the same parameters (a forest takes its trees') and
set the same attributes. Each such entry is written once here, and a class
or method decorated with :func:`shared_docs` puts it in its docstring where
a line holds only ``{key}``: help() then shows every entry in full, and a
fix made here reaches every estimator. A shared parameter entry names no
default: ``shared_docs`` appends the one of the decorated signature, so
estimators that differ only in their defaults share the text.
"""

import inspect
import re

PLACEHOLDER = re.compile(r"( *)\{(\w+)\}")

CATEGORICAL_FEATURES = """\
categorical_features : 'from_dtype', None or array-like
    Which features are categorical. 'from_dtype': a DataFrame's category,
    object and string columns, and the columns of an object or string
    array that hold anything but numbers; None: no feature; else an
    array of feature indices, a boolean mask or column names. A
    categorical column holds strings or other labels; a category not seen
    in fit is treated as a missing value."""

X_INPUTS = """\
X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
    A numpy array, a scipy sparse matrix (numbers, no missing values), or a
    pandas or polars DataFrame (or pyarrow Table), whose string column
    names become ``feature_names_in_``. Numbers, and in categorical columns
    (see ``categorical_features``) strings or other labels; NaN (or None,
    or pandas' NA) is a missing value, infinity is refused."""

# The regression criteria, as every estimator that takes them describes them
# (after the line that lists their names).
REGRESSION_CRITERIA_TEXT = """\
    'squared_error': splits minimise the children's weighted variance and
    leaves predict the weighted mean. 'absolute_error': the children's
    weighted absolute deviations from their weighted medians, and leaves
    predict the weighted median (robust to outliers; numeric features
    only). 'poisson': the half Poisson deviance, for counts and rates
    (y >= 0 with a positive sum; no split leaves a child without a positive
    target, so every leaf predicts more than 0). 'friedman_mse' grows the
    same trees as 'squared_error', which it becomes with a FutureWarning,
    as in scikit-learn 1.9."""

SHARED = {
    # ---------------------------------------------------------- fit's X
    "fit_X": X_INPUTS + """
    Converted once to float32, categories to their codes.""",
    "member_fit_X": X_INPUTS + """
    Categories become their codes; X is converted once to float32 for
    fasttree members, while members from other libraries get float64 (a
    sparse X stays sparse) and decide on NaN themselves.""",

    "mixture_fit_X": X_INPUTS + """
    Categories become their codes for the experts (fasttree's trees split
    them as categories) and one-hot columns for the gates; NaN reaches the
    experts as it is and the gates as the training mean. A sparse X is made
    dense, since the gates read every value.""",
    "linear_fit_X": X_INPUTS + """
    A categorical column becomes one input per category (a missing or
    unseen category: none of them) and a missing number the column's
    training mean. A sparse X is made dense.""",

    # ---------------------------------------------------------- trees
    "classification_criterion": """\
criterion : {'gini', 'entropy', 'log_loss', 'gain_ratio', 'misclassification'}
    Impurity a split lowers: 'gini', the Gini impurity; 'entropy', the
    Shannon entropy in bits, so that splits maximise information gain
    ('log_loss' is scikit-learn's name for it); 'gain_ratio', C4.5's
    information gain over split information (needs
    ``categorical_split='multiway'``); 'misclassification', 1 - largest
    class share, which sees only splits that change a child's majority
    class, so bound such trees with ``max_depth`` or
    ``min_impurity_decrease``. scikit-learn's criterion objects stand for
    their names.""",
    "regression_criterion": """\
criterion : {'squared_error', 'absolute_error', 'poisson', 'friedman_mse'}
""" + REGRESSION_CRITERIA_TEXT,
    "regression_criterion_with_quantile": """\
criterion : {'squared_error', 'absolute_error', 'quantile', 'poisson', 'friedman_mse'}
""" + REGRESSION_CRITERIA_TEXT + """
    'quantile': the children's weighted mean pinball losses at the level
    ``quantile`` around their weighted quantiles of that level, and leaves
    predict the weighted quantile (numeric features only; for quantile
    regression); ``quantile=0.5`` grows the trees of 'absolute_error', with
    half its impurities.""",
    "quantile_level": """\
quantile : float
    The level alpha of ``criterion='quantile'``, in (0, 1); the other
    criteria ignore it. A node's pinball loss is ``sum w * rho(y - q) /
    sum w``, where ``rho(r) = alpha * r`` for ``r >= 0`` and ``(alpha - 1) *
    r`` below, around its weighted alpha-quantile q: sorting the node's
    targets, the first at which the cumulative weight reaches alpha times
    the total, or the mean of it and the next when it reaches that exactly
    (scikit-learn's weighted percentile with ``average=True``, its median
    at 0.5).""",
    "splitter": """\
splitter : {'best', 'hist', 'random'}
    'best' searches every threshold of each feature drawn at a node;
    'hist' every threshold between bins of a feature's values (see
    ``max_bins``), faster on features of many values; 'random' draws one
    threshold per drawn feature, uniformly between the node's least and
    largest value, and keeps the best of those (extremely randomized trees;
    missing values go to a side drawn at random). Categorical features keep
    their exact search of category sets in every case; multiway trees need
    'best'.""",
    "forest_splitter": """\
splitter : {'best', 'hist', 'random'}
    How every tree searches a feature's thresholds, as the ``splitter`` of
    :class:`DecisionTreeClassifier`: 'hist' among bins of the values (see
    ``max_bins``), 'random' one drawn threshold (as extra trees do).""",
    "extra_tree_splitter": """\
splitter : {'best', 'hist', 'random'}
    'random' draws one threshold per feature drawn at a node, uniformly
    between the node's least and largest value, and keeps the best of those
    (missing values go to a side drawn at random); 'hist' draws likewise,
    but a boundary between bins of the feature's values (see ``max_bins``),
    uniformly among the bins from the node's least to its largest; 'best'
    searches every threshold, as a decision tree does. Categorical features
    keep their exact search of category sets in every case.""",
    "extra_trees_splitter": """\
splitter : {'best', 'hist', 'random'}
    How every tree searches a feature's thresholds, as the ``splitter`` of
    :class:`ExtraTreeClassifier`: 'random' one threshold drawn between the
    node's extremes, 'hist' one boundary drawn among the node's bins of the
    values (see ``max_bins``; binned once for all the trees), 'best' every
    threshold.""",
    "max_bins": """\
max_bins : int
    With ``splitter='hist'``, the most bins a numeric feature's known values
    are grouped into, once per fit, each of about as many training rows
    (missing values keep a bin of their own). A feature of at most this
    many distinct values keeps a bin per value, so its thresholds are those
    of the exact search. A threshold between two bins lies halfway between the largest
    training value of the left bin and the smallest of the right one.""",
    "tree_limits": """\
max_depth : int or None
    Deepest level a node may sit at; None grows until the leaves are pure
    or the other limits stop the tree.
min_samples_split : int or float
    Fewest samples a node needs to be split; a float is that fraction of
    the samples (rounded up).
min_samples_leaf : int or float
    Fewest samples each child of a split must keep; a float is that
    fraction of the samples (rounded up).
min_weight_fraction_leaf : float
    Least share of the total sample weight each child must keep (at most
    0.5).""",
    "max_features": """\
max_features : int, float, {'sqrt', 'log2'} or None
    Features tried at each node, drawn afresh at every node: an int is
    that many, a float that fraction of the features (rounded down, at
    least 1), 'sqrt' and 'log2' that function of their number, None all of
    them.""",
    "tree_random_state": """\
random_state : None, int, numpy Generator or RandomState
    Seed of the features drawn at each node (and of the thresholds with
    ``splitter='random'``).""",
    "growth_limits": """\
max_leaf_nodes : int or None
    Grow best-first (largest impurity decrease first) and stop at this many
    leaves; None grows depth-first without that limit.
min_impurity_decrease : float
    Split a node only when the split lowers the weighted impurity,
    ``N_t / N * (impurity - N_tL / N_t * left - N_tR / N_t * right)``, by
    at least this much.""",
    "ccp_alpha": """\
ccp_alpha : float
    Minimal cost-complexity pruning: once grown, a tree is pruned back,
    weakest link first, while a collapse adds at most ``ccp_alpha`` risk
    (impurity times weight share) per leaf removed; 0 keeps the whole
    tree.""",
    "tree_class_weight": """\
class_weight : dict, list of dict, 'balanced' or None
    Weights by class that multiply the sample weights: a dict
    ``{label: weight}`` (a list of one per output for several outputs), or
    'balanced' for ``n_samples / (n_classes * count(class))``; None weighs
    every class 1.""",
    "tree_loss_matrix": """\
loss_matrix : array-like of shape (n_classes, n_classes) or None
    ``loss_matrix[i, j]`` is the cost of predicting class j (in
    ``classes_`` order) for a row of class i; zero diagonal. The tree then
    grows with the cost-sensitive Gini impurity, the sum over i != j of
    ``L[i, j] p_i p_j`` (needs ``criterion='gini'``), and ``predict`` gives
    each leaf's class of least expected cost (``predict_proba`` still gives
    the class fractions). One output only.""",
    "categorical_features": CATEGORICAL_FEATURES,
    "member_categorical_features": CATEGORICAL_FEATURES + """
    The categories are encoded once; members that take
    ``categorical_features`` (fasttree's) are told which of their features
    are categorical, others see the codes as numbers.""",
    "categorical_split": """\
categorical_split : {'binary', 'multiway'}
    'binary': CART's two-way splits, on a threshold or on a set of
    categories against the rest. 'multiway': ID3 / C4.5 trees, one child
    per category of a categorical feature (numeric features still split on
    a threshold); it needs criterion 'entropy', 'log_loss' or 'gain_ratio',
    one output, no ``monotonic_cst`` or ``interaction_cst``, and ``splitter``,
    ``max_leaf_nodes``, ``min_samples_leaf``, ``min_impurity_decrease``,
    ``ccp_alpha`` and ``loss_matrix`` at their defaults.""",
    "missing": """\
missing : {'learn', 'fractional'}
    Where a row missing the split feature goes. 'learn': to the child that
    suits the node's training rows with missing values best (the heavier
    child where it had none). 'fractional' (needs
    ``categorical_split='multiway'``): C4.5's rule, down every branch with
    the branch's share of the node's weight, in fit and in predict.""",
    "monotonic_cst": """\
monotonic_cst : array-like of int of shape (n_features,) or None
    Per feature, 1 if the prediction must rise with it, -1 if it must fall,
    0 for no constraint; a classifier's prediction is then the probability
    of its second class (two classes only). As in scikit-learn, a
    constrained split orders its children's values as asked and every node
    stays within the bounds its ancestors' constrained splits set. One
    output, binary trees and numeric features only (categorical features
    take 0).""",
    "tree_n_jobs": """\
n_jobs : int or None
    Threads that sweep the candidate features of a large node (its rows
    times the features it tries at least 25,000; smaller nodes stay on
    one): None is 1, -1 all cores.
    The tree is the same whatever ``n_jobs`` is. The exact sweeps of
    numeric features (``splitter='best'`` and ``'hist'``) use them; drawn
    thresholds (``splitter='random'``), categorical features and sparse
    features with a common value are swept on one thread.""",
    "interaction_cst": """\
interaction_cst : {'pairwise', 'no_interactions'}, sequence of collections of int or None
    Interaction constraints, as scikit-learn's HistGradientBoosting reads
    them: groups of features (indices of X's columns) that may interact.
    The root may split on any feature; below a split, a node may split only
    on the features of the groups that hold every feature split on above
    it (its ancestors' groups that hold its parent's feature). A list or
    tuple of groups, each a list, tuple or set of feature indices; the
    features no group names form one more group. 'pairwise' makes every
    pair of features a group, 'no_interactions' every feature a group of
    its own (each branch splits on one feature). The ``max_features``
    features tried at a node are drawn among those it may split on. None
    (the default) constrains nothing. Binary trees only.""",

    # ---------------------------------------------------------- forests
    "forest_size": """\
n_estimators : int
    Number of trees (the most, with ``oob_batch_size``).""",
    "forest_draws": """\
bootstrap : bool
    Grow each tree on a bootstrap sample of the rows, kept as per-row draw
    counts that the tree takes as sample weights; False grows every tree
    on all rows.
max_samples : int, float or None
    Draws per bootstrap sample: None is n_samples, a float that fraction of
    n_samples (of the total sample weight when fitted with weights; above
    1 draws more rows than there are), an int that many.
oob_score : bool or callable
    Score the forest on the rows each tree left out (``oob_score_``):
    accuracy for a classifier, R^2 for a regressor, or a callable
    ``score(y_true, y_pred)`` (a classifier's given class indices, as
    scikit-learn gives them). Needs ``bootstrap=True``.
n_jobs : int or None
    Threads that grow the trees and predict: None is 1, -1 all cores.
random_state : None, int, numpy Generator or RandomState
    Seeds the draws of rows, features and thresholds; the same value gives
    the same forest whatever ``n_jobs`` is.
verbose : int
    Report progress on standard error while fitting (trees done of the
    total, seconds elapsed, an estimate of those left): 1 at most twice a
    second, 2 or more after every tree.
warm_start : bool
    Keep the fitted trees and add trees up to ``n_estimators``; the result
    equals one fit with the final number.""",
    "forest_oob_growth": """\
oob_batch_size : int or None
    Grow until the out-of-bag error settles: add trees in batches of this
    size, measuring the out-of-bag error (1 - accuracy, or 1 - R^2) after
    each, and stop once the best error of the last ``oob_patience``
    batches improves on the best before them by less than ``oob_tol``, or
    at ``n_estimators`` trees. Needs ``bootstrap=True``.
oob_tol : float
    Least improvement of the out-of-bag error that keeps
    ``oob_batch_size`` growing.
oob_patience : int
    Batches over which ``oob_batch_size`` looks for that improvement.""",
    "forest_class_weight": """\
class_weight : dict, list of dict, 'balanced', 'balanced_subsample' or None
    As for :class:`DecisionTreeClassifier`; a bootstrap draws rows in
    proportion to the sample weights times these, and
    'balanced_subsample' computes the balanced weights on each tree's
    bootstrap sample.""",
    "forest_voting": """\
voting : {'soft', 'hard'}
    'soft' averages the trees' class probabilities; 'hard' counts one vote
    per tree (ties go to the first class in ``classes_``).""",
    "forest_loss_matrix": """\
loss_matrix : array-like of shape (n_classes, n_classes) or None
    Costs of predicting class j for a row of class i, as for
    :class:`DecisionTreeClassifier`: every tree grows with the
    cost-sensitive Gini; soft voting predicts the class of least expected
    cost under the mean probabilities, hard voting counts each tree's
    least-cost class.""",
    "forest_aggregation": """\
aggregation : {'mean', 'median'}
    How the trees' predictions combine; 'median' is robust bagging
    ("bragging").""",

    "quantile_parameters": """\
default_quantiles : float, list of floats or 'mean'
    What ``predict`` gives when not told: the median by default.
max_samples_leaf : int, float or None
    The most training targets a leaf keeps, drawn at random among those its
    tree drew there (a float: that fraction of the rows); None keeps them
    all (Meinshausen's forest). 1 (quantile-forest's default) keeps one
    target per leaf: the quantiles of a row are then those of its trees'
    picks, and the model is smallest.
target_dtype : {'float64', 'float32'}
    How the leaves' training targets are stored: 'float32' halves them
    where their last digits do not matter.
honest : bool
    Honest trees (Athey and Wager, 2018): each tree's drawn rows are cut
    in two at random; one part grows the splits, the other gives the
    leaves' values and targets. A leaf none of the other part reaches
    keeps no targets (its tree does not count for rows that reach it).
honest_fraction : float
    The share of each tree's drawn rows that grows its splits.""",

    # ---------------------------------------------------------- bagging
    "bagging": """\
n_estimators : int
    Number of members.
max_samples : int, float or None
    Rows drawn per member: None is n_samples, a float that fraction of
    n_samples (rounded; of the total sample weight, rounded down, when
    fitted with ``sample_weight``), an int that many; more than n_samples
    only with ``bootstrap=True``.
max_features : int or float
    Features drawn per member: a float is that fraction of n_features
    (rounded down, at least 1), an int that many.
bootstrap : bool
    Draw rows with replacement; False draws without (subagging when
    ``max_samples`` is below all rows).
bootstrap_features : bool
    Draw features with replacement.
oob_score : bool
    Score the ensemble on the rows each member left out (``oob_score_``:
    accuracy, or R^2 for the regressor); needs ``bootstrap=True`` or
    ``max_samples`` below all rows.
warm_start : bool
    Keep the fitted members and add members up to ``n_estimators``; the
    result equals one fit with the final ``n_estimators``.
n_jobs : int or None
    Threads that fit the members and predict: None is 1, -1 all cores.
random_state : None, int, numpy Generator or RandomState
    Seeds the draws and every member's ``random_state`` (also nested
    ones); the same value gives the same ensemble whatever ``n_jobs`` is.
verbose : int
    Report progress on standard error while fitting (members done of the
    total, seconds elapsed, an estimate of those left): 1 at most twice a
    second, 2 or more after every member.""",
    "fitted_bagging": """\
estimator_ : estimator
    The estimator the members were cloned from.
estimators_ : list of estimators
    The fitted members.
estimators_features_ : list of ndarray of int
    The original feature indices each member sees, in its column order.
estimators_samples_ : list of ndarray of int
    The training rows each member drew, with repeats.
feature_importances_ : ndarray of shape (n_features,)
    The members' importances mapped back to the original features,
    averaged and normalised to sum to 1; only when every member has
    ``feature_importances_``.
oob_score_ : float
    With ``oob_score``: the score of the out-of-bag predictions.""",

    # ---------------------------------------------------------- boosting
    "boosting_verbose": """\
verbose : int
    Report progress on standard error while fitting (rounds done of
    ``n_estimators``, seconds elapsed, an estimate of those left): 1 at
    most twice a second, 2 or more after every round.""",
    "fitted_boosting": """\
estimators_ : list of estimators
    The fitted members, in the order they were boosted.
estimator_weights_ : ndarray of float64
    Each member's weight in the vote (or weighted median).
feature_importances_ : ndarray of shape (n_features,)
    The members' importances averaged with their weights, normalised to
    sum to 1.""",

    # ---------------------------------------------------------- mixtures
    "mixture_parameters": """\
n_experts : int
    Experts under each gate: ``n_experts`` with ``levels=1``,
    ``n_experts ** 2`` with ``levels=2``.
levels : {1, 2}
    1: one softmax gate over the experts; 2: a top gate over
    ``n_experts`` groups, and a gate per group over its experts.
max_iter : int
    Most EM iterations (a ``ConvergenceWarning`` when EM reaches it
    without converging).
tol : float
    EM stops when an iteration raises the weighted mean log-likelihood of
    the training rows by less than this.
alpha : float
    Ridge penalty of the gates' coefficients (on their standardised
    inputs; not the intercepts).
n_init : int
    EM runs from this many initial splits (the k-means draws go on from
    one to the next) and keeps the run of the highest final
    log-likelihood (the first on ties), as scikit-learn's GaussianMixture
    does; EM finds a local maximum from each.
random_state : None, int, numpy Generator or RandomState
    Seeds the initial splits (k-means) and, separately, each expert's own
    ``random_state``, which stays the same over the EM iterations.
categorical_features : 'from_dtype', None or array-like
    Which features are categorical (as fasttree's trees take it; see
    their ``categorical_features``): the gates read them one-hot, and
    experts that take ``categorical_features`` are told which they are.
n_jobs : int or None
    Threads refitting the experts in each M-step (fasttree's trees fit
    without the GIL); the same mixture whatever its value.
verbose : int
    1 or more: a line on standard error after each EM iteration, with the
    log-likelihood, its change and the time so far.""",
    "fitted_mixture": """\
gate_coef_ : list of ndarray of shape (n_branches, n_gate_inputs)
    Each gate's coefficients on the gates' inputs (numeric features
    standardised, categorical ones one-hot): gate 0 is the top gate, then
    (``levels=2``) each group's in order. The last branch's are 0, the
    reference of the softmax.
gate_intercept_ : list of ndarray of shape (n_branches,)
    Each gate's intercepts, in the same order.
log_likelihood_ : ndarray of float64
    The training rows' weighted mean log-likelihood after each EM
    iteration (of the run kept); it never decreases.
n_iter_ : int
    EM iterations of the run kept.
converged_ : bool
    Whether that run stopped by ``tol`` rather than ``max_iter``.""",

    # ---------------------------------------------------------- attributes
    "fitted_inputs": """\
n_features_in_ : int
    Number of features seen in fit.
feature_names_in_ : ndarray of str
    The column names; only when X was a DataFrame with string column names.
is_categorical_ : ndarray of bool of shape (n_features,)
    Which features are categorical; only when some are.
categories_ : list of ndarray
    Per categorical feature, in column order, its sorted categories (its
    codes are their positions); only when some features are categorical.""",
    "fitted_classes": """\
classes_ : ndarray, or list of ndarray
    The class labels, sorted (one array per output for several outputs).
n_classes_ : int, or list of int
    Number of classes (per output).""",
    "fitted_tree": """\
tree_ : Tree
    The fitted nodes, as arrays with scikit-learn's names (``children_left``,
    ``feature``, ``threshold``, ``value``, ...).
n_outputs_ : int
    Number of outputs (columns of y).
max_features_ : int
    Features tried at each node, as ``max_features`` resolved.
feature_importances_ : ndarray of shape (n_features,)
    Total impurity decrease brought by each feature, normalised to sum to
    1.""",
    "fitted_loss_matrix": """\
loss_matrix_ : ndarray of shape (n_classes, n_classes) or None
    The checked ``loss_matrix`` as float64; None without one.""",
    "fitted_forest": """\
estimators_ : list of trees
    The fitted trees, stored compactly (leaf counts and, for classifiers,
    leaf class fractions; inner nodes' follow from them).
estimators_samples_ : list of ndarray of int
    Per tree, the rows it drew, with repeats (every row without a
    bootstrap).
n_outputs_ : int
    Number of outputs (columns of y).
max_features_ : int
    Features drawn at each node, as ``max_features`` resolved.
feature_importances_ : ndarray of shape (n_features,)
    Mean decrease in impurity over the trees, normalised to sum to 1.
oob_score_ : float
    With ``oob_score``: the score of the out-of-bag predictions.
oob_curve_ : ndarray of shape (n_points, 2)
    With ``oob_score`` or ``oob_batch_size``: numbers of trees and the
    out-of-bag error with that many (after each batch; without batches,
    every ``ceil(n_estimators / 50)`` trees and at the last).""",
    "fitted_oob_decision_function": """\
oob_decision_function_ : ndarray of shape (n_samples, n_classes)
    With ``oob_score``: the mean class probabilities of the trees that
    left each row out; NaN for rows that every tree drew.""",
    "fitted_oob_prediction": """\
oob_prediction_ : ndarray of shape (n_samples,) or (n_samples, n_outputs)
    With ``oob_score``: the mean prediction of the trees that left each
    row out; NaN for rows that every tree drew.""",
}
# What the ensembles' vote_fractions are for.
SHARED["vote_fractions_use"] = """\
With it a caller can ask for unanimity (a fraction of 1) or a strict
majority (above 0.5) and abstain otherwise."""
SHARED["tree_ccp_alpha"] = SHARED["ccp_alpha"] + """
    See :meth:`cost_complexity_pruning_path`."""


def _joined(*keys):
    """The entries ``SHARED[key]`` one after the other: the list of
    parameters or attributes that a family of estimators shares (a tree and
    its extremely randomized variant, say), kept in one place."""
    return "\n".join(SHARED[key] for key in keys)


# A tree's parameters; an extra tree's are the same but for its splitter's entry.
CLASSIFICATION_TREE_KEYS = (
    "classification_criterion", "splitter", "max_bins", "tree_limits", "max_features",
    "tree_random_state", "growth_limits", "tree_class_weight", "tree_ccp_alpha",
    "tree_loss_matrix", "categorical_features", "categorical_split", "missing",
    "monotonic_cst", "interaction_cst", "tree_n_jobs")
REGRESSION_TREE_KEYS = (
    "regression_criterion_with_quantile", "quantile_level", "splitter", "max_bins", "tree_limits", "max_features",
    "tree_random_state", "growth_limits", "tree_ccp_alpha", "categorical_features",
    "monotonic_cst", "interaction_cst", "tree_n_jobs")


def _with_extra_tree_splitter(keys):
    return ["extra_tree_splitter" if key == "splitter" else key for key in keys]


SHARED.update({
    "classification_tree_parameters": _joined(*CLASSIFICATION_TREE_KEYS),
    "regression_tree_parameters": _joined(*REGRESSION_TREE_KEYS),
    "extra_classification_tree_parameters": _joined(*_with_extra_tree_splitter(
        CLASSIFICATION_TREE_KEYS)),
    "extra_regression_tree_parameters": _joined(*_with_extra_tree_splitter(
        REGRESSION_TREE_KEYS)),
    "fitted_classification_tree": _joined(
        "fitted_classes", "fitted_tree", "fitted_loss_matrix", "fitted_inputs"),
    # A forest's parameters after max_features (whose default and note
    # differ between random forests and extra trees) and before monotonic_cst.
    "forest_classifier_growth": _joined(
        "growth_limits", "ccp_alpha", "forest_draws", "forest_class_weight",
        "forest_voting", "forest_oob_growth", "forest_loss_matrix",
        "categorical_features", "categorical_split", "missing"),
    "forest_regressor_growth": _joined(
        "growth_limits", "ccp_alpha", "forest_draws", "forest_aggregation",
        "forest_oob_growth", "categorical_features"),
    "forest_quantile_growth": _joined(
        "growth_limits", "ccp_alpha", "forest_draws", "forest_oob_growth",
        "categorical_features"),
    "fitted_forest_classifier": _joined(
        "fitted_forest", "fitted_oob_decision_function", "fitted_classes",
        "fitted_loss_matrix", "fitted_inputs"),
    "fitted_forest_regressor": _joined(
        "fitted_forest", "fitted_oob_prediction", "fitted_inputs"),
})


def _entries_with_defaults(text, defaults):
    """The lines of ``text``, each parameter entry's type followed by the
    default of that parameter in ``defaults``."""
    lines = []
    for line in text.splitlines():
        name, colon, _ = line.partition(" : ")
        if colon and not line[:1].isspace() and "default=" not in line and name in defaults:
            line = f"{line}, default={defaults[name]!r}"
        lines.append(line)
    return lines


def shared_docs(documented):
    """Class or function decorator: replace every docstring line that holds
    only ``{key}`` by the entries ``SHARED[key]``, indented as the line, each
    shared parameter entry given the default of the decorated signature (a
    class's ``__init__``)."""
    if documented.__doc__ is None:  # python -OO drops docstrings
        return documented
    function = documented.__init__ if isinstance(documented, type) else documented
    defaults = {name: parameter.default
                for name, parameter in inspect.signature(function).parameters.items()
                if parameter.default is not parameter.empty}
    lines = []
    for line in documented.__doc__.splitlines():
        match = PLACEHOLDER.fullmatch(line)
        if match is None:
            lines.append(line)
            continue
        indent, key = match.groups()
        lines.extend(indent + entry if entry else entry
                     for entry in _entries_with_defaults(SHARED[key], defaults))
    documented.__doc__ = "\n".join(lines)
    return documented
