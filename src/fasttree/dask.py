"""Random forests and extra trees trained and applied on a Dask cluster.

Needs ``dask[distributed]`` (``pip install "fasttree[dask]"``); importing
``fasttree`` itself does not import it. Each estimator here is its local
twin (``fasttree.RandomForestClassifier`` for ``DaskRandomForestClassifier``,
and so on) with two more parameters, ``client`` and ``mode``; fitted, it
predicts locally as its twin does, and lazily on Dask collections.

With ``mode='replicated'`` the training data is placed once on every worker
(computed there from a Dask collection, or scattered from the client), each
worker prepares it once (validation, feature ranks or bins), and the trees
are grown by tasks of a few trees each, on all of a worker's threads. A
tree's random draws depend only on ``random_state`` and its position, so
the forest is the local forest of the same ``random_state``, for any
number of workers; a task lost with its worker is run again elsewhere and
grows the same trees. Trees come back as compact node arrays.

With ``mode='partitioned'`` no rows move (but y, which is gathered to the
client for the classes and the out-of-bag scores): each worker grows trees
on the partitions it holds, as many as its share of the rows, with the
categories and classes of all partitions. A tree's out-of-bag rows are
those of its worker's partitions that it did not draw.
"""

import copy
import inspect
import threading
import uuid

import numpy as np

try:
    import dask
    import dask.array as dask_array
    import distributed
except ImportError as error:  # pragma: no cover - the dask extra is missing
    raise ImportError("fasttree.dask needs dask.distributed: "
                      "pip install \"fasttree[dask]\"") from error

from .forest import (ExtraTreesClassifier, ExtraTreesRegressor, RandomForestClassifier,
                     RandomForestRegressor)
from ._out_of_bag import OutOfBagGrowth
from ._categories import CategoryEncoding, column_levels
from ._ensemble import tree_random_states
from ._frames import as_frame
from ._progress import progress_of
from ._validation import check_choice, feature_names_of, warn_user

__all__ = ["DaskExtraTreesClassifier", "DaskExtraTreesRegressor",
           "DaskRandomForestClassifier", "DaskRandomForestRegressor", "WorkersLostError"]

MODES = ("replicated", "partitioned")

# Tasks of trees a worker is given in a fit, about (see _grow_on_cluster).
TASKS_PER_WORKER = 4

# A task whose data was lost with a worker (a scattered copy is not
# recomputed) is run again once the data is placed anew; more losses than
# this in one batch end the fit.
MAX_PLACEMENTS = 3

# Per worker process: each fit's prepared data (its token -> (forest, plan)),
# made by the first of the fit's tasks to run there and read by the rest.
_plans = {}
_plans_lock = threading.Lock()


# ---------------------------------------------------------------- on workers

def _worker_threads():
    try:
        return max(1, int(distributed.get_worker().state.nthreads))
    except (ValueError, AttributeError):  # not on a worker (a local scheduler)
        return 1


def _cached_plan(token, template, prepare):
    """The fit ``token``'s forest and plan on this worker: ``prepare(forest)``
    on a copy of ``template`` (in a cluster of threads, the client's own
    object), made by the fit's first task here and read by the others."""
    with _plans_lock:
        entry = _plans.get(token)
        if entry is None:
            forest = copy.deepcopy(template)
            forest.set_params(n_jobs=_worker_threads(), verbose=0)
            entry = _plans[token] = (forest, prepare(forest))
    return entry


def _worker_plan(token, template, X, y, sample_weight):
    """The plan of all the rows (replicated mode)."""
    return _cached_plan(token, template,
                        lambda forest: forest._fit_plan(X, y, sample_weight))


def _plan_summary(token, template, X, y, sample_weight):
    """What the client needs of the plan to assemble the forest: all but the
    data (and the trees a warm start keeps, which the client has)."""
    forest, plan = _worker_plan(token, template, X, y, sample_weight)
    if plan is None:  # a warm start that leaves the forest as it was
        return None
    summary = {key: value for key, value in plan.items()
               if key not in ("X", "ranked", "oob", "trees", "importances")}
    if plan["oob"] is not None:
        summary["oob_sums"] = plan["oob"].sums
        summary["oob_curve"] = list(plan["oob"].curve)
    return summary


def _grow_trees(token, template, X, y, sample_weight, indices):
    """Grow the trees at ``indices`` on all of this worker's threads."""
    forest, plan = _worker_plan(token, template, X, y, sample_weight)
    return forest._grow_trees(plan, indices, _worker_threads(), progress=False)


def _partition_encoding(template, part):
    """The categorical columns of one partition and their levels there (a
    CategoryEncoding, or None without any)."""
    frame = as_frame(part)
    return template._categories_for_fit(frame, feature_names_of(frame))[1]


def _partition_length(part):
    return len(part)


def _own_rows_plan(token, template, parts, row_spans, encoding, classes):
    """The plan of this worker's own rows (``parts``: the X, y and weight
    partitions it holds, at ``row_spans`` of all rows), encoded as all rows
    are (partitioned mode)."""
    def prepare(forest):
        X, y, weight = (_concatenate(chunks) if chunks else None for chunks in parts)
        plan = forest._fit_plan(X, y, weight, encoding=encoding, classes=classes)
        plan["row_ids"] = np.concatenate([np.arange(start, start + length)
                                          for start, length in row_spans])
        return plan

    return _cached_plan(token, template, prepare)


def _own_rows_summary(token, template, parts, row_spans, encoding, classes):
    forest, plan = _own_rows_plan(token, template, parts, row_spans, encoding, classes)
    return {"feature_names": plan["feature_names"], "limits": plan["limits"],
            "fitted": plan["fitted"], "n_features": plan["n_features"]}


def _grow_own_rows(token, template, parts, row_spans, encoding, classes, indices):
    """Grow the trees at ``indices`` on this worker's rows; their out-of-bag
    rows numbered among all rows."""
    forest, plan = _own_rows_plan(token, template, parts, row_spans, encoding, classes)
    grown = forest._grow_trees(plan, indices, _worker_threads(), progress=False)
    return [(tree, importances, None if oob is None else (plan["row_ids"][oob[0]], oob[1]))
            for tree, importances, oob in grown]


def _forget_plan(token):
    with _plans_lock:
        _plans.pop(token, None)


def _concatenate(parts, columns=None):
    """Row partitions (arrays, DataFrames or Series) as one; DataFrame
    partitions must have ``columns`` (by default the first one's)."""
    first = parts[0]
    if hasattr(first, "iloc"):
        import pandas as pd

        if hasattr(first, "columns"):
            columns = list(first.columns) if columns is None else columns
            for index, part in enumerate(parts):
                if list(part.columns) != columns:
                    raise ValueError(f"partition {index} has columns {list(part.columns)}, "
                                     f"but the DataFrame's are {columns}")
        return pd.concat(parts, axis=0, ignore_index=True) if len(parts) > 1 else first
    blocks = [np.asarray(part) for part in parts]
    return np.concatenate(blocks, axis=0) if len(blocks) > 1 else blocks[0]


def _predict_part(model, part, method):
    if len(part) == 0:
        width = len(model._trees) if method == "apply" else _output_width(model, method)
        shape = (0,) if width is None else (0, width)
        return np.empty(shape, dtype=_output_dtype(model, method))
    return np.asarray(getattr(model, method)(part))


def _output_width(model, method):
    """Columns of ``method``'s output for one output, None for a vector."""
    if method == "predict_proba":
        return len(model.classes_) if model.n_outputs_ == 1 else None
    return None if model.n_outputs_ == 1 else model.n_outputs_


# ------------------------------------------------------------- on the client

def _settle(futures):
    """Wait until every future is done (finished, failed or cancelled), on its
    own client (``distributed.wait`` would look for a default one)."""
    for future in futures:
        future.exception()


def _output_dtype(model, method):
    if method == "apply":
        return np.intp
    if method == "predict" and hasattr(model, "classes_"):
        classes = [model.classes_] if model.n_outputs_ == 1 else list(model.classes_)
        return np.result_type(*[np.asarray(labels).dtype for labels in classes])
    return np.float64


def _is_collection(data):
    return dask.is_dask_collection(data)


def _is_frame(data):
    return hasattr(data, "to_delayed") and hasattr(data, "columns") and hasattr(
        data, "map_partitions")


def _client_of(client):
    if client is not None:
        return client
    try:
        return distributed.default_client()
    except ValueError:
        raise ValueError("fasttree.dask needs a dask.distributed Client: create one "
                         "(distributed.Client(...)) or pass client=") from None


def _row_parts(data):
    """A collection's partitions (DataFrames, Series) or row blocks (arrays,
    whole columns each), as a list of delayed objects."""
    if isinstance(data, dask_array.Array):
        if data.ndim == 2:
            data = data.rechunk({1: -1})
            return list(data.to_delayed()[:, 0])
        return list(data.to_delayed())
    return list(data.to_delayed())


def _place_everywhere(client, data):
    """A future of ``data`` held by every worker (None for None): a Dask
    collection is computed on the cluster, other data scattered from here."""
    if data is None:
        return None
    if _is_collection(data):
        columns = list(data.columns) if _is_frame(data) and data.ndim == 2 else None
        future = client.submit(_concatenate, client.compute(_row_parts(data)), columns,
                               pure=False)
        _settle([future])
        if future.status == "error":
            future.result()  # raises the worker's error here
        client.replicate([future])
        return future
    return client.scatter(data, broadcast=True, hash=False)


def _held_parts(client, X, y, sample_weight):
    """X's, y's and the weights' partitions as futures, each left on the worker
    that computed it (a list per input; empty for no weights). Data that is
    not a Dask collection is cut into one block of rows per worker, each
    scattered to its worker."""
    if _is_collection(X):
        inputs = [X, y, sample_weight]
        for name, data in (("y", y), ("sample_weight", sample_weight)):
            if data is not None and not _is_collection(data):
                raise ValueError(f"mode='partitioned': X is a Dask collection, so {name} "
                                 "must be one too, partitioned as X is")
        delayed = [_row_parts(data) if data is not None else [] for data in inputs]
        if any(parts and len(parts) != len(delayed[0]) for parts in delayed[1:]):
            raise ValueError("mode='partitioned': y (and sample_weight) must have as many "
                             "partitions as X")
        # Computed together, so that a partition's X and y land together.
        flat = client.compute([part for parts in delayed for part in parts])
        _settle(flat)
        for future in flat:
            if future.status == "error":
                future.result()
        futures, start = [], 0
        for parts in delayed:
            futures.append(flat[start:start + len(parts)])
            start += len(parts)
        return futures
    workers = sorted(client.nthreads())
    n_rows = len(X)
    bounds = np.linspace(0, n_rows, len(workers) + 1).astype(np.int64)
    futures = []
    for data in (X, y, sample_weight):
        if data is None:
            futures.append([])
            continue
        blocks = [data.iloc[start:stop] if hasattr(data, "iloc") else
                  np.asarray(data)[start:stop] for start, stop in zip(bounds[:-1], bounds[1:])]
        futures.append([client.scatter(block, workers=[worker], hash=False)
                        for block, worker in zip(blocks, workers) if len(block)])
    return futures


def _merged_encoding(encodings):
    """One CategoryEncoding of the partitions' (their levels merged), or None."""
    first = encodings[0]
    for index, encoding in enumerate(encodings):
        if (encoding is None) != (first is None) or (
                encoding is not None and not np.array_equal(encoding.mask, first.mask)):
            raise ValueError(f"partition {index} has other categorical columns than "
                             "partition 0")
    if first is None:
        return None
    levels = [column_levels(np.concatenate([np.asarray(encoding.levels[column], dtype=object)
                                            for encoding in encodings]))
              for column in range(len(first.levels))]
    return CategoryEncoding(first.mask, levels)


def _allot(n_trees, rows):
    """Trees per worker in proportion to its rows (largest remainders)."""
    rows = np.asarray(rows, dtype=np.float64)
    quotas = n_trees * rows / rows.sum()
    shares = np.floor(quotas).astype(np.int64)
    for index in np.argsort(-(quotas - shares), kind="stable")[:n_trees - shares.sum()]:
        shares[index] += 1
    return shares.tolist()


def _dask_init(local_class):
    """An ``__init__`` taking every parameter of ``local_class`` plus
    ``client`` and ``mode``, with that signature for ``get_params``."""
    local_parameters = list(inspect.signature(local_class.__init__).parameters.values())

    def __init__(self, *args, client=None, mode="replicated", **kwargs):
        local_class.__init__(self, *args, **kwargs)
        self.client = client
        self.mode = mode

    extra = [inspect.Parameter("client", inspect.Parameter.KEYWORD_ONLY, default=None),
             inspect.Parameter("mode", inspect.Parameter.KEYWORD_ONLY, default="replicated")]
    __init__.__signature__ = inspect.Signature(local_parameters + extra)
    __init__.__doc__ = local_class.__init__.__doc__
    return __init__


class WorkersLostError(RuntimeError):
    """Workers died again and again while growing a forest's trees (out of
    memory, most often), or took its training data with them."""


def _workers_lost(what, cause=None):
    error = WorkersLostError(
        f"fasttree.dask: {what}. A worker that runs out of memory is killed: each holds the "
        "training data and its prepared copy (ranks or bins) and grows as many trees at once "
        "as it has threads. Give the workers more memory or fewer threads each, or use "
        "mode='partitioned'")
    error.__cause__ = cause
    return error


def _raise_task_error(future, indices):
    """Raise a task's error here; a task whose workers kept dying is said to be so."""
    if future.status != "error":
        raise _workers_lost(f"the task of trees {indices[0]} to {indices[-1]} lost its data "
                            "with a worker")
    error = future.exception()
    if isinstance(error, distributed.KilledWorker):
        raise _workers_lost(f"the workers running the task of trees {indices[0]} to "
                            f"{indices[-1]} died, each time it ran", error)
    future.result()


def _grow_chunks(client, token, place, data, chunks, progress, ready):
    """Grow each chunk of tree indices in a task; returns the trees in index
    order and the data futures (placed anew if a worker took them away).
    ``ready()`` is called once the tasks are sent, before any is waited for."""
    results = {}
    for _ in range(MAX_PLACEMENTS):
        futures = {client.submit(_grow_trees, token, *data, chunk, pure=False): index
                   for index, chunk in enumerate(chunks) if index not in results}
        ready(data)
        for future, grown in distributed.as_completed(futures, loop=client.loop,
                                                      with_results=True, raise_errors=False):
            if future.status == "finished":
                results[futures[future]] = grown
                if progress is not None:
                    for _ in grown:
                        progress.step()
            elif future.status == "error":
                _raise_task_error(future, chunks[futures[future]])
            # Other tasks lost their data with a worker: grown again below.
        if len(results) == len(chunks):
            return [tree for index in range(len(chunks)) for tree in results[index]], data
        data = place()
    raise _workers_lost(f"workers died and took the training data with them "
                        f"{MAX_PLACEMENTS} times during one batch of trees")


class _DaskForest:
    """What the Dask forests add to their local twins (``_local_class``)."""

    _local_class = None

    def __getstate__(self):
        state = super().__getstate__()
        state["client"] = None  # a client is not carried with the model
        state.pop("_model_futures", None)
        return state

    def to_local(self):
        """The fitted (or unfitted) forest as its plain local twin.

        Returns
        -------
        forest
            A ``fasttree`` forest of the same parameters (without ``client``
            and ``mode``) and, when fitted, the same trees.
        """
        params = {name: value for name, value in self.get_params(deep=False).items()
                  if name not in ("client", "mode")}
        local = self._local_class(**params)
        if hasattr(self, "_trees"):
            state = self.__getstate__()
            for name in ("client", "mode"):
                state.pop(name, None)
            local.__setstate__(state)
        return local

    def save(self, path):
        """Write the forest to ``path`` as a model file of its local twin
        (``to_local()``): ``fasttree.load`` reads it back as that.

        Parameters
        ----------
        path : str or path-like
        """
        self.to_local().save(path)

    def fit(self, X, y, sample_weight=None):
        """Grow the forest on the cluster.

        Parameters
        ----------
        X : dask Array or DataFrame, or array-like of shape (n_samples, n_features)
            Training rows; a Dask collection is computed on the workers,
            other data is scattered to them once.
        y : dask Array or Series, or array-like of shape (n_samples,) or (n_samples, n_outputs)
        sample_weight : dask Array or Series, or array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        self._check_forest_parameters()
        check_choice(self.mode, "mode", MODES)
        client = _client_of(self.client)
        self.__dict__.pop("_model_futures", None)
        token = f"fasttree-fit-{uuid.uuid4().hex}"
        # A warm start goes on from the trees fitted so far. (Its checks run on
        # a worker; their warning is given here too, where it is seen.)
        if (self.warm_start and hasattr(self, "estimators_")
                and self.n_estimators == len(self._trees)):
            warn_user("Warm-start fitting without increasing n_estimators does not fit "
                      "new trees.", UserWarning)
        template = self.to_local() if self.warm_start else self._local_class(
            **{name: value for name, value in self.get_params(deep=False).items()
               if name not in ("client", "mode")})

        def place():
            return [client.scatter(template, broadcast=True, hash=False)] + [
                _place_everywhere(client, part) for part in (X, y, sample_weight)]

        try:
            if self.mode == "partitioned":
                if self.warm_start:
                    raise ValueError("warm_start=True needs mode='replicated': a partitioned "
                                     "fit's rows stay where the cluster holds them, and the "
                                     "trees kept drew theirs elsewhere")
                return self._grow_partitioned(client, token, template, X, y, sample_weight)
            return self._grow_on_cluster(client, token, place)
        finally:
            client.run(_forget_plan, token)

    def _grow_on_cluster(self, client, token, place):
        data = place()
        # The plan is made on a worker while the first trees grow; the client
        # needs its summary only to add them.
        summary_futures = [client.submit(_plan_summary, token, *data, pure=False)]
        plan = {}

        def ready(data):
            # The summary's data too may have gone with a worker: asked again.
            for _ in range(MAX_PLACEMENTS):
                if plan:
                    return
                _settle([summary_futures[0]])
                if summary_futures[0].status in ("finished", "error"):
                    summary = summary_futures[0].result()
                    plan.update(self._plan_from_summary(summary) if summary is not None
                                else {"unchanged": True})
                    return
                summary_futures[0] = client.submit(_plan_summary, token, *data, pure=False)
            raise _workers_lost("workers died and took the training data with them "
                                f"{MAX_PLACEMENTS} times")

        n_grown = len(self._trees) if self.warm_start and hasattr(self, "_trees") else 0
        # Tasks of as many trees as a worker has threads (so that one task
        # keeps a worker busy), or more, to make about TASKS_PER_WORKER per
        # worker: fewer messages, and a lost worker still loses few trees.
        threads = client.nthreads()
        per_task = max(1, min(threads.values()) if threads else 1,
                       (self.n_estimators - n_grown) // (TASKS_PER_WORKER * max(1, len(threads))))
        batch_size = self.oob_batch_size or self.n_estimators
        progress = progress_of(self, "trees built", self.n_estimators - n_grown)
        while n_grown < self.n_estimators:
            stop = min(self.n_estimators, n_grown + batch_size)
            chunks = [list(range(first, min(stop, first + per_task)))
                      for first in range(n_grown, stop, per_task)]
            grown, data = _grow_chunks(client, token, place, data, chunks, progress, ready)
            n_grown = stop
            if self._add_grown(plan, grown):
                break
        ready(data)
        # (A warm start given other targets and no trees to add: as locally,
        # scikit-learn's warning and the forest as it was.)
        return self if plan.get("unchanged") else self._finish_fit(plan)

    def _plan_from_summary(self, summary):
        """The client's plan: a worker's summary, the trees kept, out-of-bag sums."""
        plan = dict(summary)
        fitted = plan["fitted"]
        plan["trees"] = list(self._trees) if fitted else []
        plan["importances"] = list(self._tree_importances) if fitted else []
        plan["oob"] = None
        if plan["track_oob"]:
            plan["oob"] = OutOfBagGrowth(self, plan["targets"], plan["n_samples"],
                                         self._n_values(plan["targets"]))
            plan["oob"].sums = plan.pop("oob_sums")
            plan["oob"].curve = plan.pop("oob_curve")
        return plan

    def _grow_partitioned(self, client, token, template, X, y, sample_weight):
        parts = _held_parts(client, X, y, sample_weight)
        lengths = client.gather(client.map(_partition_length, parts[0], pure=False))
        for name, other in (("y", parts[1]), ("sample_weight", parts[2])):
            if other and client.gather(client.map(_partition_length, other,
                                                  pure=False)) != lengths:
                raise ValueError(f"{name}'s partitions do not hold as many rows as X's")
        starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        template_future = client.scatter(template, broadcast=True, hash=False)
        encoding = _merged_encoding(client.gather([
            client.submit(_partition_encoding, template_future, part, pure=False)
            for part in parts[0]]))
        # y is gathered (it is small): the classes of the whole, and the
        # out-of-bag scores, need every row's.
        y_all = _concatenate(client.gather(parts[1]))
        targets = self._encode_targets(y_all, int(starts[-1]))
        classes = targets.get("classes")
        # Each worker grows trees on the partitions it holds, in proportion
        # to their rows.
        holders = client.who_has(parts[0])
        by_worker = {}
        for index, part in enumerate(parts[0]):
            by_worker.setdefault(sorted(holders[part.key])[0], []).append(index)
        workers = sorted(by_worker, key=lambda worker: by_worker[worker][0])
        threads = client.nthreads()
        work = []
        for number, worker in enumerate(workers):
            indices = by_worker[worker]
            row_spans = [(int(starts[index]), int(lengths[index])) for index in indices]
            work.append({
                "worker": worker, "rows": sum(lengths[index] for index in indices),
                "threads": max(1, threads.get(worker, 1)),
                "args": (f"{token}-{number}", template_future,
                         [[part[index] for index in indices] if part else []
                          for part in parts], row_spans, encoding, classes)})
        # What the forest records of its features and limits, from the first
        # worker's plan, made while the trees grow.
        summary = client.submit(_own_rows_summary, *work[0]["args"], workers=[workers[0]],
                                allow_other_workers=True, pure=False)
        plan = dict(encoding=encoding, targets=targets, n_samples=int(starts[-1]),
                    seeds=tree_random_states(self.random_state, 0, self.n_estimators),
                    draw_weight=None, n_draws=None, trees=[], importances=[], oob=None,
                    track_oob=bool(self.oob_score or self.oob_batch_size is not None))
        if plan["track_oob"]:
            plan["oob"] = OutOfBagGrowth(self, targets, plan["n_samples"],
                                         self._n_values(targets))
        batch_size = self.oob_batch_size or self.n_estimators
        progress = progress_of(self, "trees built", self.n_estimators)
        while len(plan["trees"]) < self.n_estimators:
            start = len(plan["trees"])
            stop = min(self.n_estimators, start + batch_size)
            futures, chunk_of = [], {}
            first = start
            for share, piece in zip(_allot(stop - start, [piece["rows"] for piece in work]),
                                    work):
                for chunk_start in range(first, first + share, piece["threads"]):
                    chunk = list(range(chunk_start, min(first + share,
                                                        chunk_start + piece["threads"])))
                    futures.append(client.submit(
                        _grow_own_rows, *piece["args"], chunk, workers=[piece["worker"]],
                        allow_other_workers=True, pure=False))
                    chunk_of[futures[-1].key] = chunk
                first += share
            results = {}
            for future, grown in distributed.as_completed(futures, loop=client.loop,
                                                          with_results=True, raise_errors=False):
                if future.status != "finished":
                    _raise_task_error(future, chunk_of[future.key])
                results[future.key] = grown
                if progress is not None:
                    for _ in grown:
                        progress.step()
            if self._add_grown(plan, [tree for future in futures
                                      for tree in results[future.key]]):
                break
        plan.update(summary.result())
        self._finish_fit(plan)
        # Each tree drew from its worker's rows: which of all rows is not kept.
        self._rows_differ = True
        return self

    def _model_future(self, client):
        """The fitted local forest, sent to every worker once per client."""
        futures = self.__dict__.setdefault("_model_futures", {})
        key = id(client)
        if key not in futures:
            futures[key] = client.scatter(self.to_local(), broadcast=True, hash=False)
        return futures[key]

    def _lazy(self, X, method):
        """``method``'s output on a Dask collection: a Dask array, one task
        per partition, the model read from the workers' copies."""
        self._check_fitted()
        client = _client_of(self.client)
        model = dask.delayed(self._model_future(client))
        width = len(self._trees) if method == "apply" else _output_width(self, method)
        dtype = _output_dtype(self, method)
        blocks = []
        if isinstance(X, dask_array.Array) and X.ndim == 2:
            X = X.rechunk({1: -1})
            lengths = X.chunks[0]
        else:
            lengths = [np.nan] * X.npartitions
        for part, length in zip(_row_parts(X), lengths):
            shape = (length,) if width is None else (length, width)
            blocks.append(dask_array.from_delayed(
                dask.delayed(_predict_part)(model, part, method), shape=shape, dtype=dtype))
        return dask_array.concatenate(blocks, axis=0)

    def predict(self, X):
        """Predicted classes or values; lazily, a Dask array, for a Dask collection."""
        if _is_collection(X):
            return self._lazy(X, "predict")
        return super().predict(X)

    def apply(self, X):
        """Leaf index in every tree of every row; lazily for a Dask collection."""
        if _is_collection(X):
            return self._lazy(X, "apply")
        return super().apply(X)


def _dask_class(name, local_class, summary):
    namespace = {
        "__init__": _dask_init(local_class),
        "_local_class": local_class,
        "__module__": __name__,
        "__doc__": (f"{summary}\n\n"
                    f"Every parameter of ``fasttree.{local_class.__name__}``, and:\n\n"
                    "Parameters\n----------\n"
                    "client : distributed.Client, default=None\n"
                    "    The cluster's client; None takes the default client.\n"
                    "mode : {'replicated', 'partitioned'}, default='replicated'\n"
                    "    How the trees reach the data: 'replicated' places the training data\n"
                    "    on every worker and grows there the trees the local forest of the\n"
                    "    same random_state grows, on any number of workers; 'partitioned'\n"
                    "    moves no rows: each worker grows trees on the partitions it holds\n"
                    "    (subagging across machines), in proportion to their rows.\n"),
    }
    bases = (_DaskForest, local_class)
    return type(name, bases, namespace)


def _predict_proba(self, X):
    """Class probabilities; lazily, a Dask array, for a Dask collection."""
    if _is_collection(X):
        return self._lazy(X, "predict_proba")
    return self._local_class.predict_proba(self, X)


DaskRandomForestClassifier = _dask_class(
    "DaskRandomForestClassifier", RandomForestClassifier,
    "A random forest of classification trees grown on a Dask cluster.")
DaskRandomForestRegressor = _dask_class(
    "DaskRandomForestRegressor", RandomForestRegressor,
    "A random forest of regression trees grown on a Dask cluster.")
DaskExtraTreesClassifier = _dask_class(
    "DaskExtraTreesClassifier", ExtraTreesClassifier,
    "Extremely randomised classification trees grown on a Dask cluster.")
DaskExtraTreesRegressor = _dask_class(
    "DaskExtraTreesRegressor", ExtraTreesRegressor,
    "Extremely randomised regression trees grown on a Dask cluster.")
DaskRandomForestClassifier.predict_proba = _predict_proba
DaskExtraTreesClassifier.predict_proba = _predict_proba
