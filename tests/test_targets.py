"""_targets.py: class labels encoded by their own classes or by the classes of a
larger whole (a worker's part of the rows)."""

import numpy as np
import pytest

from fasttree._targets import encode_labels, encode_outputs


def test_labels_are_numbered_by_their_own_sorted_classes():
    classes, index = encode_labels(np.array(["b", "a", "b"]), 3, "Forest")
    np.testing.assert_array_equal(classes, ["a", "b"])
    np.testing.assert_array_equal(index, [1, 0, 1])
    assert index.dtype == np.int32


def test_labels_are_numbered_by_the_classes_given():
    classes, index = encode_labels(np.array([3, 7, 3]), 3, "Forest", np.array([1, 3, 5, 7]))
    np.testing.assert_array_equal(classes, [1, 3, 5, 7])
    np.testing.assert_array_equal(index, [1, 3, 1])


def test_each_output_is_numbered_by_its_classes_given():
    y = np.array([[0, 10], [2, 10]])
    classes, index = encode_outputs(y, 2, "Forest", [np.array([0, 1, 2]), np.array([5, 10])])
    np.testing.assert_array_equal(index, [[0, 1], [2, 1]])
    assert [list(output) for output in classes] == [[0, 1, 2], [5, 10]]


@pytest.mark.parametrize("given, outside", [(np.array([1, 2]), 3),
                                            (np.array([], dtype=int), 1)])
def test_a_label_outside_the_classes_given_is_named(given, outside):
    with pytest.raises(ValueError, match=f"label {outside}, which is not among the classes"):
        encode_labels(np.array([1, 3]), 2, "Forest", given)
