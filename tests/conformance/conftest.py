"""Runs scikit-learn's own tests for trees, forests, bagging and AdaBoost
against fasttree (see ``swap.py``); the tests known to fail are listed, each
under a one-line reason, in ``known_failures.txt``.

A listed test is expected to fail (strictly: once it passes, the run fails
until the line is removed), so the list can only shrink. The exception is a
reason that starts with "rounding:": whether such a test passes depends on
how a machine rounds, so passing there is not an error.
"""

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
KNOWN_FAILURES = HERE / "known_failures.txt"


def read_known_failures(path=KNOWN_FAILURES):
    """``{test id: reason}`` from the list: ``[reason]`` lines, each followed by
    the ids of the tests it explains; ``#`` starts a comment."""
    reasons, reason = {}, None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split(" #", 1)[0].strip() if not line.startswith("#") else ""
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            reason = line[1:-1]
        elif reason is None:
            raise ValueError(f"{path.name}:{number}: a test listed before any [reason]")
        elif line in reasons:
            raise ValueError(f"{path.name}:{number}: {line} is listed twice")
        else:
            reasons[line] = reason
    return reasons


def pytest_configure(config):
    # Markers scikit-learn's tests carry for its own thread-parallel runs.
    for marker in ("thread_unsafe", "parallel_threads(n)", "iterations(n)"):
        config.addinivalue_line("markers", f"{marker}: scikit-learn's test marker")


def pytest_generate_tests(metafunc):
    # scikit-learn's default seed for the tests that take one.
    if "global_random_seed" in metafunc.fixturenames:
        metafunc.parametrize("global_random_seed", [42])


@pytest.fixture
def global_dtype():
    import numpy as np

    return np.float64


def pytest_collection_modifyitems(config, items):
    known = read_known_failures()
    collected = set()
    for item in items:
        path = Path(str(item.fspath)).resolve()
        if path.parent != HERE:
            continue
        test_id = f"{path.name}::{item.name}"
        collected.add(test_id)
        if test_id in known:
            reason = known[test_id]
            item.add_marker(pytest.mark.xfail(reason=reason,
                                              strict=not reason.startswith("rounding:")))
    # A line naming no test (renamed, or mistyped) is an error, when every
    # conformance test was collected and a stale line can be told apart.
    every_file = {path.name for path in HERE.glob("test_sklearn_*.py")}
    whole_run = not config.option.keyword and not config.option.markexpr
    if whole_run and {test_id.split("::")[0] for test_id in collected} == every_file:
        stale = sorted(set(known) - collected)
        if stale:
            raise pytest.UsageError(f"{KNOWN_FAILURES.name} lists tests that do not exist: "
                                    + ", ".join(stale[:5]))
