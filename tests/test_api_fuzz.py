"""The API fuzz test's quick profile (tests/api_fuzz.py), and checks that
its harness records what it must: a crash, a hang, an unclear exception."""

import builtins

import numpy as np
from hypothesis import given, settings

import api_fuzz
from api_fuzz_cases import cases
from api_fuzz_inputs import build
from api_fuzz_checks import documented_exceptions, why_unclear
from fasttree import DecisionTreeClassifier

# A few hundred cases: about 30 s alone on two cores. The cases are the same
# on every run (derandomized), so a new find of the long profile cannot make
# CI flaky; release checks run the long profile (docs/development.md).
QUICK_CASES = 400
QUICK_TIMEOUT = 30.0


def test_quick_profile_every_call_returns_a_sound_result_or_a_documented_clear_error():
    tally = api_fuzz.run(QUICK_CASES, derandomize=True, timeout=QUICK_TIMEOUT)
    print(tally.summary())
    assert tally.cases == QUICK_CASES
    assert tally.calls > 5 * QUICK_CASES
    assert not tally.failed(), tally.summary()


def outcomes_of(*specs, timeout=60.0):
    """The outcomes of each case, run one after another by one Worker."""
    worker = api_fuzz.Worker(timeout)
    try:
        return [worker.run(spec) for spec in specs]
    finally:
        worker.stop()


def test_a_crash_is_recorded_with_its_call_and_the_next_case_runs_in_a_new_child():
    [crash], [clear] = outcomes_of({"selftest": "abort"}, {"selftest": "clear"})
    assert crash["outcome"] == "crash" and crash["call"] == "selftest"
    assert "SIGABRT" in crash["detail"]
    assert clear["outcome"] == "error" and clear["type"] == "InvalidParameterError"


def test_a_case_past_the_timeout_is_recorded_as_a_hang():
    [hang], [clear] = outcomes_of({"selftest": "hang"}, {"selftest": "clear"}, timeout=3.0)
    assert hang["outcome"] == "hang" and hang["call"] == "selftest"
    assert clear["outcome"] == "error"


def test_an_index_error_from_numpy_is_unclear_and_counts_as_a_failure():
    [[unclear]] = outcomes_of({"selftest": "unclear"})
    assert unclear["outcome"] == "unclear" and unclear["type"] == "IndexError"
    tally = api_fuzz.Tally()
    tally.add({"selftest": "unclear"}, [unclear], 0.1)
    assert tally.failed() and tally.kinds["unclear IndexError"] == 1


def raised(function, *args, **kwargs):
    try:
        function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001
        return error
    raise AssertionError("no exception")


def test_exceptions_of_fasttree_worded_for_the_user_are_clear():
    X, y = np.zeros((4, 2)), np.array([0, 1, 0, 1])
    tree = DecisionTreeClassifier().fit(X, y)
    assert why_unclear(raised(tree.predict, np.zeros((2, 3))), "predict") is None
    assert why_unclear(raised(DecisionTreeClassifier(max_depth=-1).fit, X, y), "fit") is None
    assert why_unclear(raised(DecisionTreeClassifier().predict, X), "predict") is None


def test_exceptions_of_other_types_internal_messages_or_origins_are_unclear():
    def fail(error):
        raise error

    assert "KeyError" in why_unclear(raised(fail, KeyError("x0")), "fit")
    for message in ["probabilities do not sum to 1",
                    "'<' not supported between instances of 'int' and 'NoneType'",
                    "corrupt fasttree model: impurity holds a non-finite value"]:
        assert why_unclear(raised(fail, ValueError(message)), "fit")
    assert "inside" in why_unclear(raised(np.zeros(3).reshape, 4, 5), "fit")


def test_the_documented_exception_list_is_read_from_the_compatibility_page():
    allowed, forbidden = documented_exceptions()
    assert {ValueError, TypeError, MemoryError} <= set(allowed)
    assert {IndexError, KeyError, builtins.OverflowError} <= set(forbidden)
    assert not set(allowed) & set(forbidden)


@given(cases())
@settings(max_examples=25, deadline=None, database=None)
def test_a_description_builds_the_same_inputs_every_time(spec):
    first, second = build(spec), build(spec)
    assert type(first.X) is type(second.X)
    assert repr(np.asarray(first.y, dtype=object).tolist()) == repr(
        np.asarray(second.y, dtype=object).tolist())
    if first.X_dense is not None:
        np.testing.assert_array_equal(first.X_dense, second.X_dense)
