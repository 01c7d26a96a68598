"""Ctrl-C and stop requests: kernels stop at their polls, threads stop together,
nothing is freed twice, and the interpreter goes on as before."""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

import numpy as np
import pytest

import fasttree
from fasttree._features import rank_features
from fasttree._interrupt import Interrupt, current_interrupt, interrupt_scope
from fasttree._threads import _shared_pool, run_together

from interrupt_child import JOBS

HERE = Path(__file__).parent

# The jobs whose long work runs on the main thread, where the signal lands:
# at least one of their three interruptions must come from a kernel's poll.
MAIN_THREAD_KERNELS = {"tree", "tree best-first", "forest", "adaboost"}


@pytest.mark.parametrize("job", sorted(JOBS))
def test_sigint_during_long_work_raises_keyboard_interrupt_and_leaves_a_usable_process(job):
    # Before the kernels polled, a tree or a forest fit aborted the process
    # ("double free or corruption") and a fit on 2 threads went on growing
    # every tree after the KeyboardInterrupt (the timeout).
    result = subprocess.run([sys.executable, str(HERE / "interrupt_child.py"), job],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["caught"] == 3
    assert report["leftover_threads"] == []
    assert report["same_model"]
    if job in MAIN_THREAD_KERNELS:
        assert any(report["by_kernel"]), report


@pytest.fixture
def stopped():
    """An Interrupt already asked to stop, made the scope's."""
    interrupt = Interrupt()
    interrupt.request()
    with interrupt_scope(interrupt):
        yield interrupt


def small_data(n_samples=300, n_features=5):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n_samples, n_features)).astype(np.float32)
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("estimator", [
    fasttree.DecisionTreeClassifier(),
    fasttree.DecisionTreeRegressor(max_leaf_nodes=20),
    fasttree.DecisionTreeClassifier(criterion="entropy", categorical_split="multiway"),
    fasttree.RandomForestClassifier(n_estimators=3),
    fasttree.ExtraTreesRegressor(n_estimators=3, n_jobs=2),
], ids=lambda estimator: type(estimator).__name__)
def test_a_fit_in_a_stopped_scope_raises_keyboard_interrupt(stopped, estimator):
    X, y = small_data()
    with pytest.raises(KeyboardInterrupt):
        estimator.fit(X, y)


@pytest.mark.parametrize("estimator", [
    fasttree.DecisionTreeClassifier(),
    fasttree.DecisionTreeClassifier(criterion="entropy", categorical_split="multiway"),
    fasttree.RandomForestClassifier(n_estimators=3),
    fasttree.ExtraTreesClassifier(n_estimators=3, n_jobs=2),
    fasttree.BaggingClassifier(n_estimators=3),
    fasttree.AdaBoostClassifier(n_estimators=3),
    fasttree.RuleListClassifier(),
], ids=lambda estimator: type(estimator).__name__)
def test_an_interrupted_refit_leaves_the_fitted_model_as_it_was(estimator):
    X, y = small_data()
    estimator.fit(X, y)
    fitted = {name: value for name, value in vars(estimator).items() if name.endswith("_")}
    predicted = estimator.predict(X)
    other_X = np.random.default_rng(1).normal(size=(200, 7)).astype(np.float32)
    interrupt = Interrupt()
    interrupt.request()
    with interrupt_scope(interrupt), pytest.raises(KeyboardInterrupt):
        estimator.fit(other_X, np.where(other_X[:, 0] > 0, "a", "b"))
    after = {name: value for name, value in vars(estimator).items() if name.endswith("_")}
    assert after.keys() == fitted.keys()
    assert all(after[name] is fitted[name] for name in fitted)
    np.testing.assert_array_equal(estimator.predict(X), predicted)


def test_feature_ranking_in_a_stopped_scope_raises_keyboard_interrupt(stopped):
    X, _ = small_data()
    with pytest.raises(KeyboardInterrupt):
        rank_features(X)


@pytest.mark.parametrize("method", ["predict", "predict_proba", "apply", "decision_path"])
@pytest.mark.parametrize("estimator", [fasttree.DecisionTreeClassifier(max_depth=4),
                                       fasttree.RandomForestClassifier(n_estimators=4)],
                         ids=lambda estimator: type(estimator).__name__)
def test_prediction_in_a_stopped_scope_raises_keyboard_interrupt(method, estimator):
    X, y = small_data()
    estimator.fit(X, y)
    interrupt = Interrupt()
    with interrupt_scope(interrupt):
        getattr(estimator, method)(X)  # runs while not asked to stop
        interrupt.request()
        with pytest.raises(KeyboardInterrupt):
            getattr(estimator, method)(X)


def test_a_stopped_prediction_leaves_the_model_predicting_as_before():
    X, y = small_data()
    forest = fasttree.RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y)
    expected = forest.predict_proba(X)
    interrupt = Interrupt()
    interrupt.request()
    with interrupt_scope(interrupt), pytest.raises(KeyboardInterrupt):
        forest.predict_proba(X)
    np.testing.assert_array_equal(forest.predict_proba(X), expected)


def test_the_error_a_signal_handler_raises_is_raised_by_the_kernel():
    # Not only Ctrl-C: whatever a Python signal handler raises during a
    # kernel is raised once the kernel has stopped.
    class Hangup(Exception):
        pass

    def hang_up(signum, frame):
        raise Hangup

    X, y = small_data(200_000, 20)
    # The absolute error's growth outlasts the ranking of X several times
    # over (squared error's is over in a few hundredths of a second, less
    # than the ranking), so that most of the signals fall in a kernel that
    # polls for them.
    tree = fasttree.DecisionTreeRegressor(random_state=0, criterion="absolute_error")
    previous = signal.signal(signal.SIGUSR1, hang_up)
    raised_in = []
    try:
        for delay in (0.05, 0.2, 0.5):
            timer = threading.Timer(delay, os.kill, (os.getpid(), signal.SIGUSR1))
            timer.start()
            try:
                while True:
                    tree.fit(X, y)
            except Hangup as error:
                # The frame below the handler's is where Python ran it.
                raised_in.append(traceback.extract_tb(error.__traceback__)[-2].filename)
            finally:
                timer.join()
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert len(raised_in) == 3
    assert any(name.endswith("_interrupt.pyx") for name in raised_in), raised_in


def test_kernels_outside_a_scope_get_an_interrupt_of_their_own():
    assert current_interrupt() is not current_interrupt()
    interrupt = Interrupt()
    with interrupt_scope(interrupt):
        assert current_interrupt() is interrupt
        inner = Interrupt()
        with interrupt_scope(inner):
            assert current_interrupt() is inner
        assert current_interrupt() is interrupt
    assert current_interrupt() is not interrupt


def test_when_one_call_fails_the_others_are_stopped_and_the_error_raised():
    started = threading.Barrier(3)
    outcomes = []

    def spin():
        # Stands for a kernel: runs until its scope's Interrupt asks it to
        # stop, or gives up after a minute (a failure, not a hang).
        started.wait()
        interrupt = current_interrupt()
        deadline = time.monotonic() + 60
        try:
            while time.monotonic() < deadline:
                interrupt.check()
            outcomes.append("never stopped")
        except KeyboardInterrupt:
            outcomes.append("stopped")

    def fail():
        started.wait()
        raise ValueError("a member failed")

    with pytest.raises(ValueError, match="a member failed"):
        run_together(_shared_pool(), [spin, spin], on_caller=fail)
    assert outcomes == ["stopped", "stopped"]


def test_run_together_returns_every_result_in_order():
    pool = _shared_pool()
    own, results = run_together(pool, [lambda k=k: k * k for k in range(10)],
                                on_caller=lambda: "caller")
    assert own == "caller"
    assert results == [k * k for k in range(10)]
