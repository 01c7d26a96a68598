"""Trees drawn (``fasttree.rules``): Graphviz DOT and the matplotlib drawing."""

import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from fasttree import (DecisionTreeClassifier, DecisionTreeRegressor,  # noqa: E402
                      export_graphviz, plot_tree)
from test_rules import fitted, shapes_fit  # noqa: E402


@pytest.fixture
def axes():
    figure, ax = plt.subplots()
    yield ax
    plt.close(figure)


def stump():
    X = np.array([[0.0], [1.0], [2.0], [3.0]], dtype=np.float32)
    return DecisionTreeClassifier().fit(X, ["no", "no", "yes", "yes"])


def node_rows(estimator, X):
    """Per node, the mask of the rows of X that pass through it."""
    return estimator.decision_path(X).toarray().astype(bool).T


def fill_colours(dot):
    """Node -> (hue, saturation, value) of its fillcolor."""
    return {int(node): tuple(float(part) for part in colour.split())
            for node, colour in re.findall(r'^(\d+) \[.*fillcolor="([^"]+)"\];$', dot,
                                           flags=re.MULTILINE)}


# --- Graphviz ---------------------------------------------------------------------------

def test_graphviz_of_a_stump_is_exactly_as_documented():
    assert export_graphviz(stump(), feature_names=["hours"]) == (
        'digraph Tree {\n'
        'node [shape=box, style="rounded", fontname="helvetica"];\n'
        'edge [fontname="helvetica"];\n'
        '0 [label="hours <= 1.5\\nsamples = 4\\nweight = 4\\nshare = 0.5\\nclass = no"];\n'
        '1 [label="samples = 2\\nweight = 2\\nshare = 1\\nclass = no"];\n'
        '2 [label="samples = 2\\nweight = 2\\nshare = 1\\nclass = yes"];\n'
        '0 -> 1 [label="true"];\n'
        '0 -> 2 [label="false"];\n'
        '}\n')


def test_graphviz_labels_only_the_roots_edges_true_and_false():
    estimator, _, _, _ = fitted(False, max_depth=3)
    tree = estimator.tree_
    edges = re.findall(r"^(\d+) -> (\d+)(.*);$", export_graphviz(estimator), flags=re.MULTILINE)
    assert len(edges) == tree.node_count - 1
    for parent, child, label in edges:
        parent, child = int(parent), int(child)
        if parent != 0:
            assert label == ""
        else:
            assert label == (' [label="true"]' if child == tree.children_left[0]
                             else ' [label="false"]')


def test_graphviz_writes_four_significant_digits_unless_told():
    X = np.array([[0.0], [2.4691358], [5.0]], dtype=np.float32)
    estimator = DecisionTreeRegressor().fit(X, [0.0, 1.0, 7.0])
    threshold = float(estimator.tree_.threshold[0])
    assert f"{threshold:.4g}" != f"{threshold:.5g}"  # the digits tell the two apart
    assert f'0 [label="x[0] <= {threshold:.4g}\\n' in export_graphviz(estimator)
    assert f'0 [label="x[0] <= {threshold:.6g}\\n' in export_graphviz(estimator, decimals=6)


def test_graphviz_escapes_backslashes_and_quotes_in_names():
    X = np.array([[0.0], [1.0]], dtype=np.float32)
    estimator = DecisionTreeClassifier().fit(X, [0, 1])
    dot = export_graphviz(estimator, feature_names=['dir\\name "q"'])
    assert '0 [label="dir\\\\name \\"q\\" <= 0.5\\n' in dot


def test_graphviz_is_filled_only_when_asked():
    estimator, _, _, _ = fitted(False, max_depth=2)
    plain = export_graphviz(estimator)
    assert 'node [shape=box, style="rounded", fontname="helvetica"];' in plain
    assert "fillcolor" not in plain
    filled = export_graphviz(estimator, filled=True)
    assert 'node [shape=box, style="rounded,filled", fontname="helvetica"];' in filled
    assert re.search(r'^0 \[label="[^"]*", fillcolor="[\d.]+ [\d.]+ 0\.95"\];$', filled,
                     flags=re.MULTILINE)


def test_filled_graphviz_colours_a_node_by_its_class_and_paler_where_less_pure():
    # Three classes: hue k / 3 for class k, saturation from 0.15 (no class
    # ahead) to 0.75 (pure), from the node's weighted training rows.
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 3)).astype(np.float32)
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=400), [-0.5, 0.5])
    weight = rng.uniform(0.5, 2.0, size=400)
    estimator = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y, sample_weight=weight)
    colours = fill_colours(export_graphviz(estimator, filled=True))
    assert sorted(colours) == list(range(estimator.tree_.node_count))
    classes = set()
    for node, rows in enumerate(node_rows(estimator, X)):
        shares = np.bincount(y[rows], weights=weight[rows], minlength=3) / weight[rows].sum()
        hue, saturation, value = colours[node]
        classes.add(int(np.argmax(shares)))
        assert hue == pytest.approx(np.argmax(shares) / 3, abs=6e-4)
        assert saturation == pytest.approx(0.15 + 0.6 * shares.max(), abs=1e-3)
        assert value == 0.95
    assert classes == {0, 1, 2}


@pytest.mark.parametrize("n_outputs", [1, 2])
def test_filled_graphviz_colours_a_regressor_darker_where_its_first_output_is_higher(n_outputs):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 2)).astype(np.float32)
    Y = np.column_stack([3.0 * X[:, 0] + rng.normal(size=300), -10.0 * X[:, 1]])[:, :n_outputs]
    estimator = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, Y.squeeze())
    colours = fill_colours(export_graphviz(estimator, filled=True))
    means = np.array([Y[rows, 0].mean() for rows in node_rows(estimator, X)])
    low, high = means.min(), means.max()
    for node, mean in enumerate(means):
        hue, saturation, _ = colours[node]
        assert hue == 0.08
        assert saturation == pytest.approx(0.15 + 0.6 * (mean - low) / (high - low), abs=1e-3)


def test_filled_graphviz_of_a_constant_target_is_pale():
    X = np.arange(6, dtype=np.float32).reshape(-1, 1)
    estimator = DecisionTreeRegressor().fit(X, np.full(6, 2.5))
    assert fill_colours(export_graphviz(estimator, filled=True)) == {0: (0.08, 0.15, 0.95)}


def test_graphviz_of_a_multiway_tree_labels_each_branch_with_its_categories():
    estimator, _ = shapes_fit()
    dot = export_graphviz(estimator)
    tree = estimator.tree_
    edges = re.findall(r'^(\d+) -> (\d+) \[label="([^"]*)"\];$', dot, flags=re.MULTILINE)
    assert len(edges) == tree.node_count - 1
    labels = {int(parent): [] for parent, _, _ in edges}
    for parent, child, label in edges:
        labels[int(parent)].append(label)
    assert labels == {0: ["= disc", "= ring", "= star"],
                      3: ["= blue", "in {gold, green} or missing", "= red"]}
    # A multiway node's box names its feature above its statistics.
    assert re.search(r'^0 \[label="shape\\nsamples = 600\\n', dot, flags=re.MULTILINE)
    assert re.search(r'^3 \[label="colour\\nsamples = \d+\\n.*class = 2"\];$', dot,
                     flags=re.MULTILINE)


# --- plot_tree --------------------------------------------------------------------------

def depth_first(tree):
    """(node, depth) in depth-first order, children in their order."""
    order, pending = [], [(0, 0)]
    while pending:
        node, depth = pending.pop()
        order.append((node, depth))
        pending.extend((int(child), depth + 1) for child in reversed(tree.children(node)))
    return order


@pytest.mark.parametrize("which", ["binary", "multiway"])
def test_plot_tree_spaces_leaves_evenly_and_centres_each_parent_over_its_children(which, axes):
    estimator = fitted(False, max_depth=3)[0] if which == "binary" else shapes_fit()[0]
    tree = estimator.tree_
    boxes = plot_tree(estimator, ax=axes, fontsize=5)
    order = depth_first(tree)
    assert len(boxes) == len(order)
    where = {node: box.xy for (node, _), box in zip(order, boxes)}
    leaves = [node for node, _ in order if tree.children(node).size == 0]
    deepest = max(depth for _, depth in order)
    for slot, leaf in enumerate(leaves):
        assert where[leaf][0] == pytest.approx((slot + 0.5) / len(leaves))
    for node, depth in order:
        assert where[node][1] == pytest.approx(1.0 - (depth + 0.5) / (deepest + 1))
        children = tree.children(node)
        if children.size:
            assert where[node][0] == pytest.approx(
                (where[children[0]][0] + where[children[-1]][0]) / 2)


def test_plot_tree_of_one_leaf_draws_it_in_the_middle(axes):
    X = np.arange(4, dtype=np.float32).reshape(-1, 1)
    (box,) = plot_tree(DecisionTreeClassifier().fit(X, [1, 1, 1, 1]), ax=axes)
    assert box.xy == pytest.approx((0.5, 0.5))


def test_plot_tree_below_max_depth_gives_each_cut_subtree_a_slot(axes):
    estimator, _, _, _ = fitted(True, max_depth=4)
    boxes = plot_tree(estimator, ax=axes, max_depth=1, fontsize=5)
    bottom = [box for box in boxes if box.get_text() == "(...)"]
    assert len(bottom) == 4
    assert [box.xy[0] for box in bottom] == pytest.approx([0.125, 0.375, 0.625, 0.875])
    assert [box.xy[1] for box in bottom] == pytest.approx([1 - 2.5 / 3] * 4)


def test_plot_tree_draws_an_arrow_from_each_box_to_its_childrens_behind_the_boxes(axes):
    estimator, _, _, _ = fitted(False, max_depth=3)
    tree = estimator.tree_
    boxes = plot_tree(estimator, ax=axes, fontsize=5)
    where = {node: box.xy for (node, _), box in zip(depth_first(tree), boxes)}
    arrows = [text for text in axes.texts if all(text is not box for box in boxes)]
    expected = sorted((where[node], where[int(child)]) for node, _ in depth_first(tree)
                      for child in tree.children(node))
    assert sorted((arrow.xyann, arrow.xy) for arrow in arrows) == expected
    for arrow in arrows:
        assert arrow.get_text() == "" and arrow.arrow_patch is not None
        assert arrow.xycoords == "axes fraction" and arrow.anncoords == "axes fraction"
        assert arrow.zorder < min(box.zorder for box in boxes)


def test_plot_tree_centres_each_box_on_its_place_in_the_axes_whatever_the_data(axes):
    axes.plot([0, 100], [-50, 50])  # data limits far from [0, 1]
    estimator, _, _, _ = fitted(False, max_depth=2)
    boxes = plot_tree(estimator, ax=axes, fontsize=6)
    renderer = axes.figure.canvas.get_renderer()
    axes.figure.draw(renderer)
    for box in boxes:
        extent = box.get_bbox_patch().get_window_extent(renderer)
        centre = axes.transAxes.transform(box.xy)
        assert (extent.x0 + extent.x1) / 2 == pytest.approx(centre[0], abs=1.0)
        assert (extent.y0 + extent.y1) / 2 == pytest.approx(centre[1], abs=1.0)


def test_plot_tree_writes_the_names_given_and_three_significant_digits(axes):
    X = np.array([[0.0], [2.4691358], [5.0], [6.0]], dtype=np.float32)
    estimator = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    threshold = float(estimator.tree_.threshold[0])
    boxes = plot_tree(estimator, feature_names=["dose"], class_names=["low", "high"], ax=axes)
    texts = [box.get_text() for box in boxes]
    assert texts[0].startswith(f"dose <= {threshold:.3g}\n")
    assert f"{threshold:.3g}" != f"{threshold:.4g}"
    assert texts[1].endswith("class = low") and texts[2].endswith("class = high")


def test_plot_tree_draws_into_the_current_axes_unless_told():
    figure, (first, second) = plt.subplots(1, 2)
    try:
        plt.sca(second)
        boxes = plot_tree(stump())
        assert all(box.axes is second for box in boxes) and not first.texts
    finally:
        plt.close(figure)


# --- plot_tree's font -------------------------------------------------------------------

def layout_faults(boxes, depths, renderer):
    """How the drawn boxes collide: pairs of neighbours on one level that
    overlap, and pairs of adjacent levels whose bands (from the lowest box
    bottom to the highest box top) overlap."""
    levels = {}
    for box, depth in zip(boxes, depths):
        levels.setdefault(depth, []).append(box.get_bbox_patch().get_window_extent(renderer))
    faults = 0
    for depth, row in levels.items():
        row.sort(key=lambda extent: extent.x0)
        faults += sum(left.x1 > right.x0 for left, right in zip(row, row[1:]))
        if depth + 1 in levels:
            faults += min(e.y0 for e in row) < max(e.y1 for e in levels[depth + 1])
    return faults


def test_plot_tree_keeps_the_default_font_where_the_boxes_fit(axes):
    boxes = plot_tree(stump(), ax=axes)
    assert {box.get_fontsize() for box in boxes} == {matplotlib.rcParams["font.size"]}


def test_plot_tree_keeps_a_font_size_given_whether_or_not_the_boxes_fit(axes):
    estimator, _, _, _ = fitted(False, max_depth=5)
    boxes = plot_tree(estimator, ax=axes, fontsize=7)
    renderer = axes.figure.canvas.get_renderer()
    axes.figure.draw(renderer)
    depths = [depth for _, depth in depth_first(estimator.tree_)]
    assert {box.get_fontsize() for box in boxes} == {7}
    assert layout_faults(boxes, depths, renderer) > 0


@pytest.mark.parametrize("max_depth, size, smallest", [
    (3, (6.4, 4.8), 3.0),   # neighbours on a level bind
    (3, (20.0, 2.0), 3.0),  # levels bind: a wide, short figure
    (5, (9.0, 4.8), 1.0),   # a font between 1 and 2 points
    (4, (12.0, 3.0), 3.0),  # where a step 3% too large is not made up later
])
def test_plot_tree_shrinks_the_font_until_the_boxes_fit(max_depth, size, smallest):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 6)).astype(np.float32)
    y = (X.sum(axis=1) + rng.normal(size=2000) > 0).astype(int)
    estimator = DecisionTreeClassifier(max_depth=max_depth, random_state=0).fit(X, y)
    figure, ax = plt.subplots(figsize=size)
    try:
        boxes = plot_tree(estimator, ax=ax)
        depths = [depth for _, depth in depth_first(estimator.tree_)]
        renderer = figure.canvas.get_renderer()
        figure.draw(renderer)
        (font,) = {box.get_fontsize() for box in boxes}
        assert smallest <= font < min(2 * smallest, matplotlib.rcParams["font.size"])
        assert layout_faults(boxes, depths, renderer) == 0
        if smallest > 1.0:
            # Not much further than needed: a quarter larger, the boxes
            # collide. (Below 2 points text does not grow in proportion to
            # its size, and the font ends up smaller than needed.)
            for box in boxes:
                box.set_fontsize(font * 1.25)
            figure.draw(renderer)
            assert layout_faults(boxes, depths, renderer) > 0
    finally:
        plt.close(figure)


def test_plot_tree_draws_a_tree_too_big_for_its_axes_at_one_point(axes):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 6)).astype(np.float32)
    y = (X.sum(axis=1) + rng.normal(size=2000) > 0).astype(int)
    estimator = DecisionTreeClassifier(max_depth=7, random_state=0).fit(X, y)
    boxes = plot_tree(estimator, ax=axes)
    assert {box.get_fontsize() for box in boxes} == {1.0}


def test_plot_tree_into_a_figure_that_cannot_measure_text_keeps_the_default_font(tmp_path):
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure
    figure = Figure()
    FigureCanvasSVG(figure)  # no renderer to measure text with before saving
    estimator, _, _, _ = fitted(False, max_depth=4)
    boxes = plot_tree(estimator, ax=figure.add_subplot())
    assert {box.get_fontsize() for box in boxes} == {matplotlib.rcParams["font.size"]}
    figure.savefig(tmp_path / "tree.svg")
    assert (tmp_path / "tree.svg").stat().st_size > 1000
