"""Mutation testing of fasttree's Python layer with mutmut, one module at a time.

Usage (from the repository root, with the ``dev`` extra installed, and the build
tools, since the build runs without isolation)::

    python bench/mutation/run.py forest _cli      # the named modules
    python bench/mutation/run.py --all            # every module of MODULES
    python bench/mutation/run.py --score forest   # the scores of the last run, without running
    python bench/mutation/run.py --survivors forest   # the last survivors again, after new tests

Each module is mutated in its own directory ``.mutation/<module>/`` holding a
copy of ``src/``, ``tests/`` and ``docs/`` and a ``pyproject.toml`` whose ``[tool.mutmut]``
table is the repository's with ``only_mutate`` set to the module and
``pytest_add_cli_args_test_selection`` to the module's own tests (MODULES
below), so that mutmut records which of those tests reach each function and
runs only those on each mutant. mutmut copies ``src/`` into ``mutants/`` and
puts ``mutants/src`` first on ``sys.path``; the compiled kernels are not
mutated, so they are built once (a wheel, without build isolation) and their
``.so`` files are copied into the ``src/fasttree`` of each module's directory,
where they are imported beside the mutated ``.py`` files. The wheel is built
again when the kernels' sources (``.pyx``, ``.pxd``, ``.h``, ``meson.build``)
differ from those it was built from, or on ``--rebuild``. mutmut copies a file
into ``mutants/`` only if it is not there yet, so the kernels and the other
files that are not Python are copied there again by this script, lest a later
run import the kernels of an earlier one.

mutmut's own results and caches stay in each module's directory;
``mutmut results`` or ``mutmut show NAME`` run there tell about single
mutants. Prints a table of the scores; a module's score is
(killed + timed out) / (mutants that some test reaches).
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORK = REPO / ".mutation"

FOREST_ELSEWHERE = ["tests/test_ensemble.py", "tests/test_multi_output.py",
                    "tests/test_extra_trees.py", "tests/test_validation.py",
                    "tests/test_monotonic_constraints.py", "tests/test_absolute_error.py",
                    "tests/test_structure.py", "tests/test_progress.py",
                    "tests/test_docstrings.py", "tests/test_multiway.py",
                    "tests/test_sparse_input.py", "tests/test_forest_legacy_pickles.py",
                    "tests/test_quantile_criterion.py"]

# Each module holding behaviour, and the tests that mirror it.
MODULES = {
    # The forests' behaviour is tested beyond the files named for them: members
    # edited after fit (test_ensemble), several outputs, extra trees, parameter
    # validation, monotonic constraints, the absolute error and quantile
    # criteria, compact trees.
    "forest": ["tests/test_forest.py", "tests/test_forest_oob.py", "tests/test_forest_growth.py",
               *FOREST_ELSEWHERE],
    "_out_of_bag": ["tests/test_forest_oob.py", "tests/test_forest_growth.py",
                    "tests/test_multi_output.py", "tests/test_ensemble.py",
                    "tests/test_multiway.py"],
    "_forest_layout": ["tests/test_forest.py", "tests/test_forest_oob.py", *FOREST_ELSEWHERE],
    "_growth": ["tests/test_tree.py", "tests/test_tree_fitting.py", "tests/test_tree_options.py",
                "tests/test_forest.py", "tests/test_forest_growth.py",
                "tests/test_hist_splitter.py", "tests/test_binning.py",
                "tests/test_sparse_input.py", "tests/test_validation.py",
                "tests/test_quantile_criterion.py"],
    "tree": ["tests/test_tree.py", "tests/test_tree_fitting.py", "tests/test_tree_prediction.py",
             "tests/test_tree_pruning.py", "tests/test_tree_options.py",
             "tests/test_quantile_criterion.py"],
    "_cli": ["tests/test_cli.py", "tests/test_cli_options.py"],
    "_model_file": ["tests/test_model_file.py", "tests/test_model_file_checks.py"],
    "_state_checks": ["tests/test_model_file.py", "tests/test_model_file_checks.py"],
    "rules": ["tests/test_rules.py", "tests/test_rules_drawing.py"],
    "_error_pruning": ["tests/test_error_pruning.py"],
    "rule_list": ["tests/test_rule_list.py"],
    "bagging": ["tests/test_bagging.py", "tests/test_routing.py", "tests/test_ensemble.py",
                "tests/test_multi_output.py"],
    "boosting": ["tests/test_boosting.py"],
    "_onnx": ["tests/test_onnx.py"],
    "_shap": ["tests/test_shap.py"],
}

STATUS = {1: "killed", 3: "killed", 0: "survived", 5: "no tests", 33: "no tests",
          None: "not checked", -24: "timeout", 24: "timeout", 152: "timeout",
          255: "timeout", 36: "timeout"}


def kernel_sources_digest():
    """A digest of the files the compiled kernels are built from."""
    digest = hashlib.sha256()
    paths = [REPO / "meson.build", *sorted(
        path for pattern in ("*.pyx", "*.pxd", "*.h", "meson.build")
        for path in (REPO / "src").rglob(pattern))]
    for path in paths:
        digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def compiled_kernels(rebuild):
    """The built ``.so`` files of the kernels, building them first if needed:
    when there is no wheel, or it was built from other kernel sources."""
    wheels = WORK / "wheel"
    stamp = wheels / "sources.sha256"
    digest = kernel_sources_digest()
    built_from = stamp.read_text().strip() if stamp.exists() else None
    if wheels.exists() and (rebuild or built_from != digest):
        shutil.rmtree(wheels)
    if not list(wheels.glob("fasttree-*.whl")):
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                        "--no-build-isolation", "-w", str(wheels), str(REPO)], check=True)
        stamp.write_text(digest + "\n")
    (wheel,) = wheels.glob("fasttree-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist()
                 if n.startswith("fasttree/") and n.count("/") == 1 and n.endswith(".so")]
        return {Path(n).name: archive.read(n) for n in names}


def mutmut_table(module):
    """The repository's [tool.mutmut] table, narrowed to one module and its tests."""
    table = dict(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mutmut"])
    table["only_mutate"] = [f"src/fasttree/{module}.py"]
    table["pytest_add_cli_args_test_selection"] = MODULES[module]
    # Some tests compare the program with its documentation (test_cli_options
    # reads the synopsis of docs/command-line.md).
    table["also_copy"] = [*table.get("also_copy", []), "docs/"]
    # TOML and JSON agree on strings, lists of strings and booleans.
    return "[tool.mutmut]\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in table.items())


def prepare(module, kernels):
    """Lay out ``.mutation/<module>/``; keeps mutmut's results of an earlier run."""
    where = WORK / module
    for part in ("src", "tests", "docs"):
        if (where / part).exists():
            shutil.rmtree(where / part)
        shutil.copytree(REPO / part, where / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    for name, data in kernels.items():
        (where / "src" / "fasttree" / name).write_bytes(data)
    # mutmut copies src/ into mutants/ file by file, skipping the files already
    # there; it makes the .py files again itself, the others are copied here.
    mutants = where / "mutants"
    if mutants.exists():
        for path in (where / "src").rglob("*"):
            if path.is_file() and path.suffix != ".py":
                target = mutants / path.relative_to(where)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
    text = (REPO / "pyproject.toml").read_text()
    head, _, rest = text.partition("[tool.mutmut]")
    # Whatever table follows [tool.mutmut] stays.
    following = rest[rest.find("\n["):] if "\n[" in rest else ""
    (where / "pyproject.toml").write_text(head + mutmut_table(module) + following)
    return where


def run(module, where, max_children, only_survivors=False):
    mutmut = Path(sys.executable).with_name("mutmut")
    # Tests that start ``python -m fasttree`` in a subprocess (test_cli) must
    # import the mutated package there too, not whatever is installed. The
    # directory must exist before mutmut starts: Python remembers a missing
    # path entry as empty, and mutmut's own runs would not find the package.
    (where / "mutants" / "src").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(where / "mutants" / "src"), os.environ.get("PYTHONPATH")])))
    # mutmut keeps a mutant's result unless the mutant is named: naming the
    # survivors (and the mutants no test reached) tests them again, against
    # tests added since.
    names = unkilled(module) if only_survivors else []
    subprocess.run(["nice", str(mutmut), "run", "--max-children", str(max_children), *names],
                   cwd=where, env=env, check=False)


def unkilled(module):
    """The last run's mutants that survived or that no test reached."""
    meta = WORK / module / "mutants" / "src" / "fasttree" / f"{module}.py.meta"
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    return sorted(name for name, code in codes.items()
                  if STATUS.get(code) in ("survived", "no tests"))


def score(module):
    meta = WORK / module / "mutants" / "src" / "fasttree" / f"{module}.py.meta"
    if not meta.exists():
        return None
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    counts = Counter(STATUS.get(code, "suspicious") for code in codes.values())
    reached = sum(counts.values()) - counts["no tests"] - counts["not checked"]
    caught = counts["killed"] + counts["timeout"]
    survivors = sorted(name for name, code in codes.items() if code == 0)
    (WORK / module / "survivors.txt").write_text("".join(f"{n}\n" for n in survivors))
    return counts, reached, caught


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="*", help=f"any of: {' '.join(MODULES)}")
    parser.add_argument("--all", action="store_true", help="every module of MODULES")
    parser.add_argument("--score", action="store_true", help="only print the last run's scores")
    parser.add_argument("--rebuild", action="store_true", help="build the kernels again")
    parser.add_argument("--survivors", action="store_true",
                        help="test only the last run's survivors again, and the mutants "
                             "no test reached (after adding tests)")
    parser.add_argument("--max-children", type=int, default=2,
                        help="mutants tested at once (default 2)")
    args = parser.parse_args(argv)
    modules = list(MODULES) if args.all else args.modules
    unknown = [m for m in modules if m not in MODULES]
    if not modules or unknown:
        parser.error(f"name modules among: {' '.join(MODULES)}"
                     + (f" (unknown: {' '.join(unknown)})" if unknown else ""))
    if not args.score:
        kernels = compiled_kernels(args.rebuild)
        for module in modules:
            run(module, prepare(module, kernels), args.max_children, args.survivors)
    print(f"{'module':<16}{'mutants':>8}{'killed':>8}{'timeout':>8}{'survived':>9}"
          f"{'no tests':>9}{'score':>8}")
    for module in modules:
        result = score(module)
        if result is None:
            print(f"{module:<16}  (not run)")
            continue
        counts, reached, caught = result
        rate = f"{100 * caught / reached:.1f}%" if reached else "-"
        print(f"{module:<16}{sum(counts.values()):>8}{counts['killed']:>8}{counts['timeout']:>8}"
              f"{counts['survived']:>9}{counts['no tests']:>9}{rate:>8}")


if __name__ == "__main__":
    main()
