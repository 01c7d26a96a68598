"""Textbook ID3 on categorical data, as a test oracle for multiway splits."""

from collections import Counter

from .criteria import information_gain

__all__ = ["id3_tree"]


def id3_tree(rows, attributes, target):
    """Grow an ID3 tree: multiway splits chosen by largest information gain.

    Parameters
    ----------
    rows : sequence of mapping
        One mapping per example, e.g. the dicts of ``csv.DictReader``.
    attributes : sequence of str
        Categorical attributes that may be split on, in tie-breaking order.
    target : str
        Key of the class label.

    Returns
    -------
    label or dict
        A leaf is the class label.  An inner node is
        ``{attribute: {value: subtree, ...}}`` with one branch per value of
        `attribute` present in `rows`, in order of first appearance.

    Notes
    -----
    A node becomes a leaf when its rows share one label, or when no attribute
    is left (then the majority label, the first seen on ties).  Otherwise the
    attribute with the largest gain is used, even if that gain is zero, and is
    not offered again below; equal gains go to the earliest in `attributes`.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("id3_tree needs at least one row")
    labels = [row[target] for row in rows]
    # Counter keeps first-seen order, so most_common breaks ties by it.
    majority_label = Counter(labels).most_common(1)[0][0]
    if len(set(labels)) == 1 or not attributes:
        return majority_label

    best_attribute = None
    best_gain = None
    for attribute in attributes:
        gain = information_gain(labels, [row[attribute] for row in rows])
        if best_gain is None or gain > best_gain:
            best_attribute, best_gain = attribute, gain

    remaining = [a for a in attributes if a != best_attribute]
    branches = {}
    for value in dict.fromkeys(row[best_attribute] for row in rows):
        subset = [row for row in rows if row[best_attribute] == value]
        branches[value] = id3_tree(subset, remaining, target)
    return {best_attribute: branches}
