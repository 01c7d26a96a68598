"""Progress of long fits (fasttree._progress): members done, time so far and
an estimate of the rest, on standard error."""

import io

import numpy as np
import pytest

from fasttree import AdaBoostClassifier, AdaBoostRegressor
from fasttree._progress import Progress, progress_of
from synthetic import classification_data, regression_data


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_verbose_2_reports_every_member_with_an_estimate_of_the_rest():
    stream = io.StringIO()
    progress = Progress("Forest", "trees built", 4, verbose=2, stream=stream)
    for _ in range(4):
        progress.step()
    lines = stream.getvalue().splitlines()
    assert [line.split(",")[0] for line in lines] == [
        f"Forest: {done}/4 trees built" for done in range(1, 5)]
    assert all("s elapsed" in line for line in lines)
    assert all("s left" in line for line in lines[:-1]) and "left" not in lines[-1]


def test_verbose_1_reports_at_most_every_half_second_and_at_the_end():
    stream = io.StringIO()
    progress = Progress("Forest", "trees built", 1000, verbose=1, stream=stream)
    for _ in range(1000):
        progress.step()
    lines = stream.getvalue().splitlines()
    # Steps this quick fall within one interval, but for the end.
    elapsed = float(lines[-1].split(", ")[1].split()[0])
    assert 1 <= len(lines) <= 2 + elapsed / 0.5
    assert lines[-1].startswith("Forest: 1000/1000 trees built")


def test_on_a_terminal_the_line_is_rewritten_in_place():
    stream = Terminal()
    progress = Progress("Bagging", "estimators fitted", 2, verbose=1, stream=stream)
    progress.step()
    progress.step()
    text = stream.getvalue()
    assert text.count("\r") >= 1 and text.endswith("\n") and text.count("\n") == 1


def test_an_early_stop_ends_the_report_at_the_members_made():
    stream = io.StringIO()
    progress = Progress("AdaBoost", "rounds boosted", 50, verbose=2, stream=stream)
    progress.step(3)
    progress.finish()
    assert stream.getvalue().splitlines()[-1].startswith("AdaBoost: 3/3 rounds boosted")


def test_no_progress_is_made_when_verbose_is_off():
    assert progress_of(AdaBoostClassifier(), "rounds boosted", 5) is None


@pytest.mark.parametrize("estimator_class, data", [
    (AdaBoostClassifier, classification_data), (AdaBoostRegressor, regression_data)])
def test_adaboost_reports_its_rounds_when_verbose(estimator_class, data, capsys):
    X, y = data(n_samples=120)
    model = estimator_class(n_estimators=6, verbose=2, random_state=0).fit(X, y)
    lines = capsys.readouterr().err.splitlines()
    n_rounds = len(model.estimators_)
    assert lines[-1].startswith(f"{estimator_class.__name__}: {n_rounds}/{n_rounds} rounds")
    quiet = estimator_class(n_estimators=6, random_state=0).fit(X, y)
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(quiet.predict(X), model.predict(X))
