"""Timing benchmarks for ``fasttree.dask``: forests on a LocalCluster.

A ``LocalCluster`` of one or two single-threaded worker processes, started
once per benchmark (``setup``) and warmed by one small fit: the fit of 20
trees on 20,000 x 50 float32 numpy rows in each mode (the data placed on
the workers each fit, as users pay it), lazy ``predict_proba`` of 20,000 new
rows given as a dask array of four chunks, and a one-row ``predict`` of the
fitted Dask forest (numpy in, the local path). Skipped without dask.
"""

import numpy as np

from . import REPEAT
from .tree import _classification

N_TREES = 20
SIZE = (20_000, 50)


def _start_cluster(n_workers):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise NotImplementedError("dask.distributed is not installed") from None
    cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=40)
    return cluster, Client(cluster, set_as_default=False)


class _OnCluster:
    number = 1
    repeat = REPEAT
    warmup_time = 0.0
    timeout = 600

    def start(self, n_workers):
        self.cluster, self.client = _start_cluster(n_workers)
        self.X, self.y = _classification(*SIZE)

    def teardown(self, *params):
        self.client.close()
        self.cluster.close()


class DaskForestFit(_OnCluster):
    """``DaskRandomForestClassifier(n_estimators=20)`` fit on 1 and 2 workers, in
    each mode."""

    params = [[1, 2], ["replicated", "partitioned"]]
    param_names = ["n_workers", "mode"]

    def setup(self, n_workers, mode):
        self.start(n_workers)
        self.time_fit(n_workers, mode)  # the workers import fasttree once

    def time_fit(self, n_workers, mode):
        from fasttree.dask import DaskRandomForestClassifier

        DaskRandomForestClassifier(n_estimators=N_TREES, random_state=0, mode=mode,
                                   client=self.client).fit(self.X, self.y)


class DaskForestPredict(_OnCluster):
    """A fitted ``DaskRandomForestClassifier`` on 2 workers: lazy ``predict_proba``
    of a dask array, computed, and ``predict`` of one numpy row."""

    def setup(self):
        import dask.array as da

        from fasttree.dask import DaskRandomForestClassifier

        self.start(2)
        self.forest = DaskRandomForestClassifier(n_estimators=N_TREES, random_state=0,
                                                 client=self.client).fit(self.X, self.y)
        # New rows: the second half of rows drawn twice as many.
        X_new = _classification(2 * SIZE[0], SIZE[1])[0][SIZE[0]:]
        self.lazy_rows = da.from_array(X_new, chunks=(SIZE[0] // 4, SIZE[1]))
        self.row = np.ascontiguousarray(X_new[:1])
        self.time_predict_proba_dask()  # the model reaches the workers once

    def time_predict_proba_dask(self):
        # Not the default client: the lazy result is computed on it by name.
        self.client.compute(self.forest.predict_proba(self.lazy_rows)).result()

    def time_predict_one_row(self):
        self.forest.predict(self.row)
