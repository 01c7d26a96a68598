"""Ctrl-C during long fasttree work, in a child process of test_interrupt.py,
so that a crash shows as its exit status and a hang as its timeout.

    python interrupt_child.py JOB

JOB names a long job (see JOBS). The child fits a small model of the job's
kind, then three times starts the long job with a real SIGINT timed to
arrive while it runs (sent by a timer thread, as a terminal's Ctrl-C comes
from outside the main thread), and catches the KeyboardInterrupt. It prints
one JSON line: how many interruptions were caught, whether each one was
raised by a kernel's poll (the traceback ends in _interrupt.pyx), the
threads left running, and whether the small model
fitted again afterwards is the same as before.
"""

import json
import os
import pickle
import signal
import sys
import threading
import traceback

import numpy as np

import fasttree

# Seconds after the start of the long job at which SIGINT arrives, one per
# try: the jobs run for minutes, so each one is still running then.
SIGNAL_DELAYS = (0.05, 0.2, 0.5)


def data(n_samples, n_features, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=n_samples) > 0).astype(int)
    return X, y


def refitting(model):
    # A single tree takes a second or so: fitted over and over, it keeps the
    # process inside the growth kernel until the signal comes.
    def job(X, y):
        while True:
            model.fit(X, y)
    return job


def fitting(model):
    return lambda X, y: model.fit(X, y)


def predicting(model, n_rows):
    def job(X, y):
        model.fit(X[:3000], y[:3000])
        rows = np.resize(X, (n_rows, X.shape[1]))
        while True:
            model.predict_proba(rows)
    return job


# Each job: the estimator (for the small model) and the long work with it.
JOBS = {
    "tree": (lambda: fasttree.DecisionTreeClassifier(random_state=0),
             lambda model: refitting(model), (200_000, 20)),
    "tree best-first": (lambda: fasttree.DecisionTreeRegressor(max_leaf_nodes=10**6,
                                                               random_state=0),
                        lambda model: refitting(model), (200_000, 20)),
    "multiway tree": (lambda: fasttree.DecisionTreeClassifier(
                          criterion="gain_ratio", categorical_split="multiway",
                          random_state=0),
                      lambda model: refitting(model), (100_000, 10)),
    "forest": (lambda: fasttree.RandomForestClassifier(n_estimators=5, random_state=0),
               lambda model: fitting(model.set_params(n_estimators=2_000)), (100_000, 20)),
    "forest, 2 threads": (lambda: fasttree.RandomForestClassifier(n_estimators=5, n_jobs=2,
                                                                  random_state=0),
                          lambda model: fitting(model.set_params(n_estimators=2_000)),
                          (100_000, 20)),
    "extra trees, 2 threads": (lambda: fasttree.ExtraTreesRegressor(n_estimators=5, n_jobs=2,
                                                                    random_state=0),
                               lambda model: fitting(model.set_params(n_estimators=2_000)),
                               (100_000, 20)),
    "bagging, 2 threads": (lambda: fasttree.BaggingClassifier(n_estimators=5, n_jobs=2,
                                                              random_state=0),
                           lambda model: fitting(model.set_params(n_estimators=2_000)),
                           (100_000, 20)),
    "adaboost": (lambda: fasttree.AdaBoostClassifier(n_estimators=5, random_state=0),
                 lambda model: fitting(model.set_params(
                     n_estimators=2_000, learning_rate=1e-6,
                     estimator=fasttree.DecisionTreeClassifier(max_depth=12))),
                 (50_000, 20)),
    "feature ranking, 2 threads": (lambda: fasttree.RandomForestClassifier(
                                       n_estimators=5, n_jobs=2, random_state=0),
                                   lambda model: refitting(model.set_params(
                                       n_estimators=1)),
                                   (20_000, 2_000)),
    "forest prediction, 2 threads": (lambda: fasttree.RandomForestClassifier(
                                         n_estimators=5, n_jobs=2, random_state=0),
                                     lambda model: predicting(
                                         model.set_params(n_estimators=200), 2_000_000),
                                     (20_000, 20)),
}


def working_threads():
    # The shared prediction threads (named fasttree_*) stay for the process's
    # life, started as they are first needed; any other thread beyond the
    # main one is left over from a job.
    return [thread.name for thread in threading.enumerate()
            if thread is not threading.main_thread()
            and not thread.name.startswith("fasttree")]


def interrupted_by_kernel(error):
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and frames[-1].filename.endswith("_interrupt.pyx")


def main(job_name):
    make, long_job, (n_samples, n_features) = JOBS[job_name]
    X_small, y_small = data(500, 8, seed=1)
    before = pickle.dumps(make().fit(X_small, y_small))
    X, y = data(n_samples, n_features)
    caught, by_kernel = 0, []
    for delay in SIGNAL_DELAYS:
        job = long_job(make())
        timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        try:
            job(X, y)
        except KeyboardInterrupt as error:
            caught += 1
            by_kernel.append(interrupted_by_kernel(error))
        finally:
            timer.join()
    leftover_threads = working_threads()
    after = pickle.dumps(make().fit(X_small, y_small))
    print(json.dumps({"caught": caught, "by_kernel": by_kernel,
                      "leftover_threads": leftover_threads, "same_model": after == before}))


if __name__ == "__main__":
    main(sys.argv[1])
