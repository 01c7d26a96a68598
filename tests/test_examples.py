"""Every script in examples/ runs to the end and does what its docstring says: the
docstring names the file in its ``Run:`` line and states, under ``Prints``, what the
script prints (compared as the guide's stated output is, tests/stated_output.py), a
line for each step its first sentence names."""

import ast
import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from stated_output import output_mismatch

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))


def docstring(script):
    return ast.get_docstring(ast.parse(script.read_text(encoding="utf-8")))


def stated_output(script):
    """The indented block under the docstring's line that starts with 'Prints'."""
    match = re.search(r"^Prints\b.*:\n\n((?:    .*\n?|\n)+)", docstring(script), flags=re.M)
    assert match, f"{script.name}: its docstring has no 'Prints...:' block"
    return textwrap.dedent(match.group(1))


def run(script, tmp_path):
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, env={**os.environ, "MPLBACKEND": "Agg"})
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def test_there_are_examples():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda path: path.name)
def test_example_prints_what_its_docstring_says(script, tmp_path):
    assert re.search(rf"^Run: python examples/{re.escape(script.name)}$", docstring(script),
                     flags=re.M)
    stated = stated_output(script)
    printed = run(script, tmp_path)
    problem = output_mismatch(stated, printed)
    assert problem is None, f"{script.name}: {problem}"


def test_the_command_line_example_trains_predicts_and_evaluates_the_same_forest(tmp_path):
    printed = run(EXAMPLES[0].parent / "command_line.py", tmp_path)
    commands = [shlex.split(line)[4:] for line in printed.splitlines()
                if line.startswith("$ python -m fasttree ")]
    assert [command[0] for command in commands] == ["train", "predict", "evaluate", "show"]
    train, predict, evaluate, show = commands

    def model_options(command, leave_out):
        options = command[2:]
        at = options.index(leave_out)
        return options[:at] + options[at + 2:]

    assert "forest" in train
    assert model_options(train, "--out") == model_options(evaluate, "--cv")
    model_file = train[train.index("--out") + 1]
    assert predict[1] == model_file and show[1] == model_file
    assert "RandomForestClassifier, 3-fold cross-validation" in printed
    first_sentence = docstring(EXAMPLES[0].parent / "command_line.py").split(".")[0]
    assert [step for step in ("train", "predict", "cross-validate", "show")
            if step in first_sentence] == ["train", "predict", "cross-validate", "show"]


def test_a_docstring_that_says_otherwise_fails(tmp_path):
    script = tmp_path / "wrong.py"
    script.write_text('"""Says 6 times 7 is 41.\n\nRun: python examples/wrong.py\n\n'
                      'Prints:\n\n    41\n"""\n\nprint(6 * 7)\n')
    assert stated_output(script).strip() == "41"
    assert output_mismatch(stated_output(script), run(script, tmp_path)) is not None
