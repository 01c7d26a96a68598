"""Small real data sets bundled with fasttree for demos, examples and tests.

Breast Cancer Wisconsin (Original)
----------------------------------
Wolberg, W. H. (1990). *Breast Cancer Wisconsin (Original)* [Dataset].
UCI Machine Learning Repository. https://doi.org/10.24432/C5HP4Z
(https://archive.ics.uci.edu/dataset/15/breast+cancer+wisconsin+original).
Collected by Dr. William H. Wolberg, University of Wisconsin Hospitals,
Madison. Licence: Creative Commons Attribution 4.0 International (CC BY 4.0),
https://creativecommons.org/licenses/by/4.0/.

The bundled file ``breast_cancer_wisconsin.csv`` is an unmodified copy of the
project's ``shared/data/breast_cancer_wisconsin_original.csv``, which was taken
from the PyPI package Orange3==3.20.1
(``Orange/datasets/breast-cancer-wisconsin-disc.tab``) and checked to be
identical to R's MASS ``biopsy`` and mlbench ``BreastCancer`` copies. See
``README.md`` in this folder.
"""

import csv
import io
from importlib.resources import files

import numpy as np

__all__ = ["BREAST_CANCER_WISCONSIN_CITATION", "load_breast_cancer_wisconsin"]

BREAST_CANCER_WISCONSIN_CITATION = (
    "Wolberg, W. H. (1990). Breast Cancer Wisconsin (Original) [Dataset]. "
    "UCI Machine Learning Repository. https://doi.org/10.24432/C5HP4Z (CC BY 4.0)"
)

_CSV_NAME = "breast_cancer_wisconsin.csv"
_ID_COLUMN = "sample_code_number"
_TARGET_COLUMN = "class"
_CLASS_NAMES = {"2": "benign", "4": "malignant"}


def load_breast_cancer_wisconsin():
    """Load the Breast Cancer Wisconsin (Original) data set.

    Rows with a missing ``bare_nuclei`` value (16 of 699) are dropped, as
    in the data set's usual benchmark form; 683 rows remain.
    The ``sample_code_number`` column identifies rows (some IDs repeat) and
    is not returned as a feature.

    Returns
    -------
    X : ndarray of shape (683, 9), dtype float64
        The nine cytology features, each an integer score from 1 to 10.
    y : ndarray of shape (683,), dtype str
        ``'benign'`` (UCI class 2) or ``'malignant'`` (UCI class 4).
    feature_names : list of str
        Column names of ``X``, in order.

    Notes
    -----
    Cite the data as given in ``BREAST_CANCER_WISCONSIN_CITATION``
    (CC BY 4.0).

    Examples
    --------
    >>> from fasttree.datasets import load_breast_cancer_wisconsin
    >>> X, y, feature_names = load_breast_cancer_wisconsin()
    >>> X.shape
    (683, 9)
    """
    text = files(__package__).joinpath(_CSV_NAME).read_text(encoding="utf-8")
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    target_at = header.index(_TARGET_COLUMN)
    feature_at = [
        i for i, name in enumerate(header) if name not in (_ID_COLUMN, _TARGET_COLUMN)
    ]
    rows, labels = [], []
    for record in reader:
        if not record:
            continue
        values = [record[i].strip() for i in feature_at]
        # Only bare_nuclei has gaps in this file; skipping any empty field keeps
        # the loader honest should another copy have gaps elsewhere.
        if any(v == "" for v in values):
            continue
        rows.append([float(v) for v in values])
        labels.append(_CLASS_NAMES[record[target_at].strip()])
    X = np.asarray(rows, dtype=np.float64)
    y = np.asarray(labels, dtype=str)
    feature_names = [header[i] for i in feature_at]
    return X, y, feature_names
