"""Fitted trees as people read them: if-then rules, indented text, Graphviz
DOT and a matplotlib drawing."""

from dataclasses import dataclass, replace

import numpy as np

from ._model_file import model_file_class
from ._targets import predicted_classes

__all__ = ["Condition", "Rule", "export_graphviz", "export_text", "plot_tree", "tree_rules"]


@model_file_class
@dataclass(frozen=True)
class Condition:
    """One test on a path from the root.

    ``x[feature] <= threshold`` or ``x[feature] > threshold`` on a numeric
    feature; ``x[feature] in categories`` or ``not in`` on a categorical one.
    Missing values pass when ``missing`` is true (so do categories not seen
    in training, which the tree treats as missing). A split of the missing
    values from all others prints as ``x is missing`` / ``x is not missing``.

    Attributes
    ----------
    feature : int
    name : str
        The feature's name, for printing.
    operator : {'<=', '>', 'in', 'not in'}
    threshold : float or None
        Numeric tests.
    codes : frozenset of int or None
        Categorical tests: the category codes of ``categories``.
    categories : tuple or None
        Categorical tests: the categories named (in code order).
    missing : bool
        Whether missing values pass the test.
    show_missing : bool
        Whether the text says where missing values go (when the tree met
        missing values at the node in training).
    """

    feature: int
    name: str
    operator: str
    threshold: float = None
    codes: frozenset = None
    categories: tuple = None
    missing: bool = False
    show_missing: bool = False

    @property
    def is_categorical(self):
        return self.codes is not None

    @property
    def missing_test(self):
        """``'is missing'`` or ``'is not missing'`` when the test only asks
        that (no value passes, or every value does), else None."""
        if self.is_categorical:
            no_value = self.operator == "in" and not self.codes
            every_value = self.operator == "not in" and not self.codes
        else:
            no_value = self.operator == ">" and self.threshold == np.inf
            every_value = self.operator == "<=" and self.threshold == np.inf
        if no_value and self.missing:
            return "is missing"
        if every_value and not self.missing:
            return "is not missing"
        return None

    def holds(self, X):
        """Boolean mask of the rows of X (numbers, categories as codes, NaN
        for missing values) that pass the test."""
        values = np.asarray(np.asarray(X)[:, self.feature], dtype=np.float64)
        missing = np.isnan(values)
        if self.is_categorical:
            codes = np.where(missing, -1, values)
            member = np.isin(codes, sorted(self.codes))
            passes = member if self.operator == "in" else ~member
            # Codes beyond those of fit (unseen categories) count as missing.
            if self.operator == "not in":
                passes &= codes == np.floor(codes)
            return np.where(missing, self.missing, passes)
        with np.errstate(invalid="ignore"):
            passes = (values <= self.threshold if self.operator == "<="
                      else values > self.threshold)
        return np.where(missing, self.missing, passes)

    def format(self, decimals=4):
        if self.missing_test is not None:
            return f"{self.name} {self.missing_test}"
        if self.is_categorical and len(self.categories) == 1:
            equals = "=" if self.operator == "in" else "!="
            text = f"{self.name} {equals} {self.categories[0]}"
        elif self.is_categorical:
            names = ", ".join(str(category) for category in self.categories)
            text = f"{self.name} {self.operator} {{{names}}}"
        else:
            text = f"{self.name} {self.operator} {_number(self.threshold, decimals)}"
        if self.show_missing and self.missing:
            text += " or missing"
        return text

    def __str__(self):
        return self.format()


@model_file_class
@dataclass(frozen=True)
class Rule:
    """The path to one leaf as an if-then rule.

    Attributes
    ----------
    conditions : tuple of Condition
        All must hold; tests on the same feature along the path are merged
        into at most one upper and one lower bound.
    prediction : object
        The leaf's class label (classifiers) or mean target (regressors); for
        a tree of several outputs, a tuple of one per output.
    leaf : int
        The leaf's node index in ``tree_``.
    n_samples : int
        Training rows that reach the leaf.
    support : float
        Their total training weight.
    accuracy : float, tuple of float or None
        Classifiers: the share of that weight in the predicted class (per
        output, for several outputs).
    mean_squared_error : float or None
        Regressors: the weighted mean squared error of the leaf's training
        rows about its mean.
    """

    conditions: tuple
    prediction: object
    leaf: int
    n_samples: int
    support: float
    accuracy: float = None
    mean_squared_error: float = None

    def covers(self, X):
        """Boolean mask of the rows of the 2-D array X that satisfy every condition."""
        X = np.asarray(X)
        covered = np.ones(X.shape[0], dtype=bool)
        for condition in self.conditions:
            covered &= condition.holds(X)
        return covered

    def format(self, decimals=4):
        condition = " and ".join(_bracketed(c.format(decimals))
                                 for c in self.conditions) or "always"
        if self.accuracy is not None:
            quality = f"accuracy {_numbers(self.accuracy, decimals)}"
            outcome = f"class = {_per_output([str(label) for label in _items(self.prediction)])}"
        else:
            quality = f"mse {self.mean_squared_error:.{decimals}g}"
            outcome = f"value = {_numbers(self.prediction, decimals)}"
        return (f"if {condition} then {outcome}  "
                f"(support {_number(self.support, decimals)}, {quality})")

    def __str__(self):
        return self.format()


def _bracketed(text):
    """A condition joined to others: in brackets when it holds an "or"."""
    return f"({text})" if " or " in text else text


def _number(value, decimals):
    return f"{float(value):.{decimals}g}"


def _items(value):
    """A rule's per-output tuple as a list; one output's value as a list of one."""
    return list(value) if isinstance(value, tuple) else [value]


def _numbers(value, decimals):
    """A number, or a tuple of one per output, as text."""
    return _per_output([_number(item, decimals) for item in _items(value)])


class _TreeView:
    """What the exporters read from a fitted single-tree estimator."""

    def __init__(self, estimator, feature_names=None, class_names=None):
        tree = getattr(estimator, "tree_", None)
        if tree is None:
            raise ValueError(f"{type(estimator).__name__} is not a fitted fasttree tree; "
                             "pass a fitted DecisionTreeClassifier or DecisionTreeRegressor "
                             "(or one of a forest's estimators_)")
        self.tree = tree
        self.classes = getattr(estimator, "classes_", None)
        self.is_classifier = self.classes is not None
        if feature_names is None:
            feature_names = getattr(estimator, "feature_names_in_", None)
        if feature_names is None:
            feature_names = [f"x[{index}]" for index in range(tree.n_features)]
        self.feature_names = [str(name) for name in feature_names]
        if len(self.feature_names) != tree.n_features:
            raise ValueError(f"feature_names has {len(self.feature_names)} names; the tree "
                             f"has {tree.n_features} features")
        self.n_outputs = tree.n_outputs
        if self.is_classifier:
            # Per output, its classes (one output: a list of one).
            self.output_classes = (self.classes if isinstance(self.classes, list)
                                   else [self.classes])
            self.class_names = _class_names(self.output_classes, class_names)
        self.left, self.right = tree.children_left, tree.children_right
        self.feature, self.threshold = tree.feature, tree.threshold
        self.missing_left = tree.missing_go_to_left.astype(bool)
        self.missing_seen = tree.missing_seen
        # Category names of the categorical features, by feature.
        self.levels = {}
        mask = getattr(estimator, "is_categorical_", None)
        if mask is not None:
            self.levels = dict(zip(np.flatnonzero(mask).tolist(), estimator.categories_))
        # The number of codes of each feature a category set tests.
        self.n_codes = {int(tree.feature[node]): tree.n_category_codes(node)
                        for node in np.flatnonzero(tree.is_categorical)}
        self.values = tree.node_values
        # What each node predicts, per output: its majority class, or with a
        # loss matrix its class of least expected cost (as the estimator's
        # predict).
        if self.is_classifier:
            loss = getattr(estimator, "loss_matrix_", None)
            self.predicted = np.column_stack([predicted_classes(values, loss) for values
                                              in tree.split_outputs(self.values)])
        # Trees of forests pickled by older fasttree keep no per-node statistics.
        self.has_statistics = tree.n_node_samples is not None

    def is_leaf(self, node):
        return self.left[node] == -1

    def branches(self, node):
        """(child, condition) of every branch of an inner node, in order."""
        if not self.tree.is_multiway[node]:
            return [(self.left[node], self.condition(node, True)),
                    (self.right[node], self.condition(node, False))]
        feature = int(self.feature[node])
        codes, missing_child = self.tree.branches(node)
        n_codes = self.tree.n_category_codes(node)
        # Codes absent at the node go with the missing values.
        absent = frozenset(range(n_codes)) - frozenset(np.concatenate(codes).tolist())
        return [(child, self.category_condition(
                    feature, frozenset(codes[position].tolist())
                    | (absent if position == missing_child else frozenset()),
                    position == missing_child, n_codes, bool(self.missing_seen[node])))
                for position, child in enumerate(self.tree.children(node))]

    def condition(self, node, goes_left):
        feature = int(self.feature[node])
        missing = bool(self.missing_left[node]) == goes_left
        name = self.feature_names[feature]
        if not self.tree.is_categorical[node]:
            return Condition(feature, name, "<=" if goes_left else ">",
                             threshold=float(self.threshold[node]), missing=missing,
                             show_missing=bool(self.missing_seen[node]))
        n_codes = self.tree.n_category_codes(node)
        left = frozenset(self.tree.left_categories(node).tolist())
        return self.category_condition(feature, left if goes_left else
                                       frozenset(range(n_codes)) - left, missing, n_codes,
                                       bool(self.missing_seen[node]))

    def category_condition(self, feature, codes, missing, n_codes, show_missing):
        """A test that passes the codes ``codes`` of a feature of ``n_codes``:
        written as the shorter of ``in`` and ``not in``."""
        if len(codes) > n_codes / 2:
            operator, named = "not in", frozenset(range(n_codes)) - codes
        else:
            operator, named = "in", codes
        levels = self.levels.get(feature)
        categories = tuple(levels[code] if levels is not None else code
                           for code in sorted(named))
        return Condition(feature, self.feature_names[feature], operator, codes=named,
                         categories=categories, missing=missing, show_missing=show_missing)

    def first_output_values(self, node):
        """The node's values of its first (or only) output."""
        return self.tree.split_outputs(self.values[node])[0]

    def shares(self, node):
        """Per output, the share of the node's weight in the class it predicts."""
        return [values[self.predicted[node, k]] for k, values
                in enumerate(self.tree.split_outputs(self.values[node]))]

    def outcome(self, node, decimals):
        """The leaf's prediction as text: one class or value, or one per output."""
        if self.is_classifier:
            labels = [names[self.predicted[node, k]] for k, names in enumerate(self.class_names)]
            return f"class: {_per_output(labels)}"
        return "value: " + _per_output([_number(value, decimals)
                                        for value in self.values[node][:self.n_outputs]])

    def statistics(self, node, decimals):
        """The node's training statistics, each as "name = value" (none when
        the tree keeps none)."""
        if not self.has_statistics:
            return []
        parts = [f"samples = {int(self.tree.n_node_samples[node])}",
                 f"weight = {_number(self.tree.weighted_n_node_samples[node], decimals)}"]
        if self.is_classifier:
            shares = _per_output([_number(share, decimals) for share in self.shares(node)])
            return parts + [f"share = {shares}"]
        return parts + [f"mse = {_number(self.tree.impurity[node], decimals)}"]


def _per_output(texts):
    """One output's text as it is; several in brackets, in output order."""
    return texts[0] if len(texts) == 1 else f"({', '.join(texts)})"


def _class_names(output_classes, class_names):
    """Per output, the names of its classes as text: ``class_names`` (a list of
    names, or for several outputs a list of one such list per output) or the
    classes themselves."""
    several = len(output_classes) > 1
    if class_names is None:
        class_names = output_classes
    elif not several:
        class_names = [class_names]
    elif len(class_names) != len(output_classes) or any(
            isinstance(names, str) or not hasattr(names, "__len__") for names in class_names):
        raise ValueError(f"class_names must hold one list of names per output: the tree has "
                         f"{len(output_classes)} outputs")
    named = [[str(name) for name in names] for names in class_names]
    for k, (names, classes) in enumerate(zip(named, output_classes)):
        if len(names) != len(classes):
            where = f"class_names[{k}]" if several else "class_names"
            of = f"output {k} has" if several else "the tree has"
            raise ValueError(f"{where} has {len(names)} names; {of} {len(classes)} classes")
    return named


def _merged(view, conditions):
    """Per feature, the tightest upper and lower bound (numeric) or the one set
    of categories that passes every test (categorical), in path order;
    missing values pass a merged test only if they pass every test merged."""
    # A dict keeps its keys in first-insertion order, whatever replaces them.
    bounds = {}
    for condition in conditions:
        if condition.is_categorical:
            key = (condition.feature, "categories")
            n_codes = view.n_codes[condition.feature]
            codes = (condition.codes if condition.operator == "in"
                     else frozenset(range(n_codes)) - condition.codes)
            kept = bounds.get(key)
            if kept is not None:
                codes &= kept[0]
            missing = condition.missing and (kept is None or kept[1])
            show = condition.show_missing or (kept is not None and kept[2])
            bounds[key] = (codes, missing, show)
            continue
        key = (condition.feature, condition.operator)
        kept = bounds.get(key)
        if kept is None:
            bounds[key] = condition
            continue
        tighter = (condition.threshold < kept.threshold if condition.operator == "<="
                   else condition.threshold > kept.threshold)
        bounds[key] = replace((condition if tighter else kept),
                              missing=condition.missing and kept.missing,
                              show_missing=condition.show_missing or kept.show_missing)
    merged = tuple(view.category_condition(key[0], kept[0], kept[1],
                                           view.n_codes[key[0]], kept[2])
                   if key[1] == "categories" else kept for key, kept in bounds.items())
    # "x is not missing" beside other tests of x is said by those tests
    # failing missing values.
    present = {condition.feature for condition in merged
               if condition.missing_test == "is not missing"}
    tested = [condition.feature for condition in merged]
    folded = {feature for feature in present if tested.count(feature) > 1}
    return tuple(replace(condition, missing=False) if condition.feature in folded
                 else condition for condition in merged
                 if condition.feature not in folded
                 or condition.missing_test != "is not missing")


def _one_or_tuple(items):
    return items[0] if len(items) == 1 else tuple(items)


def tree_rules(estimator, feature_names=None):
    """A fitted tree as one if-then rule per leaf.

    Parameters
    ----------
    estimator : DecisionTreeClassifier or DecisionTreeRegressor
        Fitted (a forest's tree pickled by an older fasttree keeps no
        per-node statistics, and has no rules).
    feature_names : list of str, default=None
        Defaults to ``feature_names_in_``, else ``x[0]``, ``x[1]``, ...

    Returns
    -------
    list of Rule
        In node order of the leaves; every row satisfies exactly one rule.
    """
    view = _TreeView(estimator, feature_names)
    if not view.has_statistics:
        raise ValueError("this tree belongs to a forest pickled by an older fasttree and "
                         "keeps no node statistics; rules need a tree fitted anew")
    tree = view.tree
    rules = []
    pending = [(0, ())]
    while pending:
        node, path = pending.pop()
        if view.is_leaf(node):
            weight = float(tree.weighted_n_node_samples[node])
            if view.is_classifier:
                extra = {"prediction": _one_or_tuple(
                             [classes[view.predicted[node, k]]
                              for k, classes in enumerate(view.output_classes)]),
                         "accuracy": _one_or_tuple([float(share)
                                                    for share in view.shares(node)])}
            else:
                extra = {"prediction": _one_or_tuple(
                             [float(value) for value in view.values[node][:view.n_outputs]]),
                         "mean_squared_error": float(tree.impurity[node])}
            rules.append(Rule(conditions=_merged(view, path), leaf=int(node),
                              n_samples=int(tree.n_node_samples[node]), support=weight,
                              **extra))
            continue
        for child, condition in reversed(view.branches(node)):
            pending.append((child, path + (condition,)))
    rules.sort(key=lambda rule: rule.leaf)
    return rules


def export_text(estimator, feature_names=None, class_names=None, decimals=4,
                show_statistics=True, max_depth=None):
    """The tree as indented text, one line per branch and per leaf.

    Parameters
    ----------
    estimator : fitted DecisionTreeClassifier or DecisionTreeRegressor
    feature_names : list of str, default=None
        Defaults to ``feature_names_in_``, else ``x[0]``, ``x[1]``, ...
    class_names : list of str, default=None
        Defaults to ``classes_``; for a tree of several outputs, one list of
        names per output. Leaves of several outputs show one class (or value)
        per output, in brackets.
    decimals : int, default=4
        Significant digits of thresholds and values.
    show_statistics : bool, default=True
        Add each leaf's training samples, weight and class share (or mean
        squared error) when the tree keeps them.
    max_depth : int or None, default=None
        Deepest level written (the root's tests are level 0); each subtree
        cut below it is one line giving its depth and number of leaves.

    Returns
    -------
    str
    """
    view = _TreeView(estimator, feature_names, class_names)
    _check_max_depth(max_depth)
    lines = []

    # A stack rather than recursion: trees can be deeper than Python's limit.
    # It holds nodes to write and the lines that follow their subtrees.
    stack = [("node", 0, 0)]
    while stack:
        kind, node, depth = stack.pop()
        if kind == "line":
            lines.append(node)
            continue
        indent = "|   " * depth
        if max_depth is not None and depth > max_depth and not view.is_leaf(node):
            subtree_depth, leaves = _subtree_size(view, node)
            lines.append(f"{indent}... (a subtree of depth {subtree_depth}, {leaves} leaves)")
            continue
        if view.is_leaf(node):
            line = f"{indent}{view.outcome(node, decimals)}"
            statistics = view.statistics(node, decimals) if show_statistics else []
            lines.append(f"{line}  ({', '.join(statistics)})" if statistics else line)
            continue
        # Each branch's test line, then its subtree.
        for child, condition in reversed(view.branches(node)):
            stack.append(("node", child, depth + 1))
            stack.append(("line", f"{indent}{condition.format(decimals)}", depth))
    return "\n".join(lines) + "\n"


def _check_max_depth(max_depth):
    if max_depth is not None and (not isinstance(max_depth, (int, np.integer))
                                  or isinstance(max_depth, bool) or max_depth < 0):
        raise ValueError(f"max_depth must be None or an int >= 0; got {max_depth!r}")


def _subtree_size(view, node):
    """The depth of the subtree under ``node`` and its number of leaves."""
    subtree_depth, leaves = 0, 0
    pending = [(node, 0)]
    while pending:
        node, depth = pending.pop()
        if view.is_leaf(node):
            subtree_depth, leaves = max(subtree_depth, depth), leaves + 1
        else:
            pending.extend((child, depth + 1) for child, _ in view.branches(node))
    return subtree_depth, leaves


def _node_label(view, node, decimals):
    """A node's lines of text: its test (inner nodes), statistics and outcome."""
    parts = []
    if not view.is_leaf(node) and not view.tree.is_multiway[node]:
        parts.append(view.condition(node, True).format(decimals))
    elif not view.is_leaf(node):
        parts.append(view.feature_names[int(view.feature[node])])
    parts.extend(view.statistics(node, decimals))
    if view.is_leaf(node) or view.has_statistics:
        parts.append(view.outcome(node, decimals).replace(": ", " = "))
    return "\n".join(parts)


def _dot_string(text):
    """``text`` as a quoted DOT string, line breaks as centred ``\\n``."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def export_graphviz(estimator, feature_names=None, class_names=None, decimals=4,
                    filled=False):
    """The tree in Graphviz's DOT language (render with ``dot -Tpng``).

    Parameters
    ----------
    estimator, feature_names, class_names, decimals
        As for :func:`export_text`.
    filled : bool, default=False
        Colour nodes by their majority class (classifiers) or value
        (regressors), paler where they are less pure or lower; by the first
        output's, for several outputs.

    Returns
    -------
    str
    """
    view = _TreeView(estimator, feature_names, class_names)
    lines = ["digraph Tree {",
             'node [shape=box, style="rounded' + (',filled' if filled else '')
             + '", fontname="helvetica"];',
             'edge [fontname="helvetica"];']
    if not view.is_classifier and filled:
        means = view.values[:, 0]
        low, high = float(np.nanmin(means)), float(np.nanmax(means))
    for node in range(view.tree.node_count):
        attributes = [f"label={_dot_string(_node_label(view, node, decimals))}"]
        if filled and not np.isnan(view.values[node]).any():
            if view.is_classifier:
                values = view.first_output_values(node)
                hue = int(np.argmax(values)) / max(values.shape[0], 1)
                strength = float(np.max(values))
            else:
                hue = 0.08
                strength = 0.0 if high == low else (view.values[node][0] - low) / (high - low)
            attributes.append(f'fillcolor="{hue:.3f} {0.15 + 0.6 * strength:.3f} 0.95"')
        lines.append(f"{node} [{', '.join(attributes)}];")
    for node in range(view.tree.node_count):
        if view.is_leaf(node):
            continue
        if view.tree.is_multiway[node]:
            # Every edge of a multiway node is labelled with its categories.
            for child, condition in view.branches(node):
                label = condition.format(decimals)[len(condition.name) + 1:]
                lines.append(f"{node} -> {child} [label={_dot_string(label)}];")
            continue
        for child, label in ((view.left[node], "true"), (view.right[node], "false")):
            edge = f' [label="{label}"]' if node == 0 else ""
            lines.append(f"{node} -> {child}{edge};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def plot_tree(estimator, feature_names=None, class_names=None, decimals=3, max_depth=None,
              ax=None, fontsize=None):
    """Draw the tree with matplotlib (an optional dependency).

    Leaves are spaced evenly along the bottom of their level, each inner node
    centred above its children; edges from a node go left when its test
    holds. Nodes below ``max_depth`` are drawn as one "(...)" box per cut
    subtree.

    Parameters
    ----------
    estimator, feature_names, class_names, decimals
        As for :func:`export_text`.
    max_depth : int or None, default=None
        Deepest level drawn (the root is 0).
    ax : matplotlib Axes, default=None
        Drawn into the current axes when None.
    fontsize : float, default=None
        When None, matplotlib's default, made smaller until no two boxes
        overlap, down to 1 point (a tree too big for its axes overlaps at
        that size).

    Returns
    -------
    list of matplotlib.text.Annotation
        One per box drawn, in depth-first order.
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plot_tree draws with matplotlib; install it with "
                          "pip install 'fasttree[plot]'") from None
    view = _TreeView(estimator, feature_names, class_names)
    _check_max_depth(max_depth)
    if ax is None:
        ax = plt.gca()
    # Depth-first placement: (node, depth, is_cut) in drawing order, leaves
    # and cut subtrees taking the next x slot, parents the middle of theirs.
    x_of = {}
    next_slot = 0
    stack = [(0, 0, False)]
    order = []
    while stack:
        node, depth, expanded = stack.pop()
        cut = max_depth is not None and depth > max_depth
        if cut or view.is_leaf(node):
            x_of[node] = next_slot
            next_slot += 1
            order.append((node, depth, cut))
            continue
        children = [child for child, _ in view.branches(node)]
        if expanded:
            x_of[node] = (x_of[children[0]] + x_of[children[-1]]) / 2.0
            continue
        order.append((node, depth, False))
        stack.append((node, depth, True))
        for child in reversed(children):
            stack.append((child, depth + 1, False))
    # The slots and the levels share the axes evenly, each box in the middle
    # of its share.
    deepest = max(depth for _, depth, _ in order)
    position = {node: ((x_of[node] + 0.5) / next_slot,
                       1.0 - (depth + 0.5) / (deepest + 1)) for node, depth, _ in order}
    box = {"boxstyle": "round", "facecolor": "white", "edgecolor": "black"}
    kwargs = {} if fontsize is None else {"fontsize": fontsize}
    drawn = []
    for node, _, cut in order:
        text = "(...)" if cut else _node_label(view, node, decimals)
        drawn.append(ax.annotate(text, position[node], xycoords="axes fraction",
                                 ha="center", va="center", bbox=box, **kwargs))
        if not cut and not view.is_leaf(node):
            for child, _ in view.branches(node):
                ax.annotate("", position[child], xytext=position[node],
                            xycoords="axes fraction", textcoords="axes fraction",
                            arrowprops={"arrowstyle": "->", "color": "gray"}, zorder=0)
    ax.set_axis_off()
    if fontsize is None:
        _shrink_to_fit(ax, drawn, [depth for _, depth, _ in order])
    return drawn


def _shrink_to_fit(ax, boxes, depths):
    """Make the font of ``boxes`` (at levels ``depths``) smaller until no
    box overlaps its neighbour on the same level or a box one level down."""
    get_renderer = getattr(ax.figure.canvas, "get_renderer", None)
    if get_renderer is None:  # a backend that cannot measure text
        return
    renderer = get_renderer()
    for _ in range(20):
        for box in boxes:
            box.draw(renderer)  # lays out the frame around the text
        extents = [box.get_bbox_patch().get_window_extent(renderer) for box in boxes]
        scale = _room(extents, depths)
        if scale >= 1.0:
            return
        # No smaller than 1 point: a tree too big for its axes overlaps there.
        size = max(boxes[0].get_fontsize() * scale * 0.97, 1.0)
        for box in boxes:
            box.set_fontsize(size)
        if size == 1.0:
            return


def _room(extents, depths):
    """The smallest ratio of the room a box has to the room it takes:
    below 1 where boxes overlap."""
    scale = np.inf
    levels = {}
    for extent, depth in zip(extents, depths):
        levels.setdefault(depth, []).append(extent)
    for depth, row in levels.items():
        row.sort(key=lambda extent: extent.x0)
        for left, right in zip(row, row[1:]):
            # Centres stay where they are: each of two boxes may take half
            # of the distance between them.
            distance = (right.x0 + right.x1 - left.x0 - left.x1) / 2.0
            scale = min(scale, distance / max((left.width + right.width) / 2.0, 1e-9))
        below = levels.get(depth + 1, [])
        if row and below:
            distance = (min(extent.y0 + extent.y1 for extent in row)
                        - max(extent.y0 + extent.y1 for extent in below)) / 2.0
            needed = (max(extent.height for extent in row)
                      + max(extent.height for extent in below)) / 2.0
            scale = min(scale, distance / max(needed, 1e-9))
    return scale
