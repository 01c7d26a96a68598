"""Real tables for the benchmarks, read from ``bench/data`` (see its README);
the asv suite and ``bench/compare_real_tables.py`` share them.

Each loader returns ``(X_train, y_train, X_test, y_test)`` as pandas objects:
the columns as the file has them (strings stay strings, missing values are
NaN), the labels as 0/1 integers.
"""

from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"

ADULT_STRINGS = ["workclass", "education", "marital-status", "occupation", "relationship",
                 "race", "sex", "native-country"]


def _adult_part(name):
    import pandas as pd

    table = pd.read_csv(DATA / name, skipinitialspace=True, na_values="?")
    # The test file's labels end in a full stop ('>50K.'); the training file's do not.
    y = table.pop("income").str.rstrip(".").eq(">50K").astype(int)
    for column in ADULT_STRINGS:
        table[column] = table[column].astype(object)
    return table, y


def adult():
    """UCI Adult: 32,561 rows to train and its own 16,281 to test, 14 columns
    (8 of strings, 3 of them with missing values), income above 50K or not."""
    return (*_adult_part("adult.data.gz"), *_adult_part("adult.test.gz"))


def credit_default(test_share=0.2, seed=0):
    """UCI default of credit card clients: 30,000 rows x 23 integer columns (repayment
    statuses of 11 values, amounts with many repeats), a fixed shuffled
    ``test_share`` of them held out; default next month or not."""
    import numpy as np
    import pandas as pd

    table = pd.read_csv(DATA / "credit_default.csv.gz").drop(columns="ID")
    y = table.pop("default.payment.next.month").astype(int)
    order = np.random.default_rng(seed).permutation(len(table))
    n_test = int(round(test_share * len(table)))
    test, train = order[:n_test], order[n_test:]
    return table.iloc[train], y.iloc[train], table.iloc[test], y.iloc[test]


TABLES = {"adult": adult, "credit_default": credit_default}
