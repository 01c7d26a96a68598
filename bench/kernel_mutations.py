"""Hand mutations of the Cython kernels: does the test suite notice each one?

Each mutation below is one small, deliberate bug in ``src/fasttree/*.pyx`` (a
``<`` for a ``<=`` in a threshold sweep, a swapped child, an off-by-one in a
partition, a lost weight, missing values sent the wrong way), given as an exact
(file, original text, mutated text, test files that should catch it). The
script copies the repository's committed tree (``git archive HEAD``) into a
work directory, installs the copy in editable mode into a virtual environment
of its own, runs the named tests once unmutated (they must pass), and then, one
mutation at a time, writes the change into the copy, rebuilds (meson's ninja
recompiles the changed kernel only), runs ``python -m pytest -q -x`` on the
named test files and restores the file. A mutation is *caught* when the tests
fail (or the test process crashes or times out), *survived* when they pass,
and *build failed* when the mutated kernel does not compile.

Usage (from the repository root)::

    python3 -m venv /tmp/venv-kmut
    /tmp/venv-kmut/bin/pip install numpy scipy pandas pytest hypothesis \\
        "scikit-learn==1.9.*" matplotlib pyarrow polars meson-python meson ninja cython
    nice python bench/kernel_mutations.py --venv /tmp/venv-kmut --workdir /tmp/kmut
    python bench/kernel_mutations.py --list             # the mutations, nothing run
    python bench/kernel_mutations.py --venv ... --only tree-build-swapped-children

The venv must not hold another install of fasttree that matters: the copy is
installed into it (``pip install --no-deps --no-build-isolation -e``). The
exit status is 0 when every mutation was caught, 1 when any survived or
failed to build, 2 when a mutation's original text is no longer in its file
(the kernels changed: update the mutation) or the unmutated tests fail.

Time: on two shared cores, 2 to 3 minutes for the first build, 2 to 3 for the
unmutated run of the tests, then under a minute a mutation (a rebuild of one
kernel, and the tests up to their first failure): 10 to 15 minutes in all.
Hypothesis tests run with ``--hypothesis-seed=0``, so a run catches or misses
a mutation the same way every time.
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = Path("src") / "fasttree"
BUILD_DIR = "build/kmut"


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str          # under src/fasttree
    original: str      # exact text, found exactly once in the file
    mutated: str
    tests: tuple       # test files (under tests/) that should catch it
    what: str          # the bug, in words


MUTATIONS = [
    Mutation(
        "sorted-sweep-ties-split",
        "_splitter.pyx",
        "while group_end < n_sorted and item_rank(sorted_items[group_end]) == rank:",
        "while group_end < n_sorted and item_rank(sorted_items[group_end]) < rank:",
        ("test_splitter.py", "test_tree_oracle.py", "test_sklearn_parity.py"),
        "sorted sweep: `<` for `==` in the grouping of equal values, so a threshold "
        "is offered between two equal values",
    ),
    Mutation(
        "counted-sweep-last-threshold",
        "_splitter.pyx",
        "        for b in range(first_bin, end_bin):\n            if counts[b] == 0:",
        "        for b in range(first_bin, end_bin - 1):\n            if counts[b] == 0:",
        ("test_splitter.py", "test_tree_oracle.py", "test_sklearn_parity.py"),
        "counted (histogram) sweep for ties: `b < end_bin` becomes `b < end_bin - 1`, "
        "the last threshold is never offered",
    ),
    Mutation(
        "random-split-le-lt",
        "_splitter.pyx",
        "sides[i] = (value > draw.threshold) + (value == INFINITY)",
        "sides[i] = (value >= draw.threshold) + (value == INFINITY)",
        ("test_extra_trees.py", "test_splitter.py", "test_missing_values.py"),
        "random-threshold splitter (histogram path): `value <= threshold` goes left "
        "becomes `value < threshold`",
    ),
    Mutation(
        "subset-bound-lt-le",
        "_splitter.pyx",
        "            if not beats_best(bound, feature, best.proxy_improvement, best.feature,",
        "            if bound <= best.proxy_improvement or not beats_best(\n"
        "                    bound, feature, best.proxy_improvement, best.feature,",
        ("test_splitter.py", "test_categorical.py"),
        "categorical subset sweep: a candidate whose bound equals the best is skipped "
        "(the bound must exceed it: `<` becomes `<=`) even for a feature that wins the tie",
    ),
    Mutation(
        "offer-tie-later-threshold",
        "_splitter.pyx",
        "        if beats_best(proxy, feature, best.proxy_improvement, best.feature,",
        "        if proxy == best.proxy_improvement or beats_best(\n"
        "                proxy, feature, best.proxy_improvement, best.feature,",
        ("test_splitter.py", "test_tree_oracle.py", "test_sklearn_parity.py"),
        "every sweep's acceptance: an exact tie replaces the best (`>` becomes `>=`), "
        "so ties go to the later threshold and the later feature",
    ),
    Mutation(
        "unseen-missing-lighter-child",
        "_splitter.pyx",
        "else record.weighted_n_left > record.weighted_n_right)",
        "else record.weighted_n_left < record.weighted_n_right)",
        ("test_missing_values.py", "test_splitter.py"),
        "missing-value direction: a node that saw no missing values sends them to "
        "the lighter child, not the heavier",
    ),
    Mutation(
        "partition-position-off-by-one",
        "_splitter.pyx",
        "record.position = start + n_left\n",
        "record.position = start + n_left - 1\n",
        ("test_splitter.py", "test_tree_oracle.py"),
        "partition of the sample indices: the left child's range ends one sample early",
    ),
    Mutation(
        "squared-error-missed-weight",
        "_criterion_regression.pyx",
        "        cdef double weight = self.node_weight[position]\n"
        "        self.sum_left += weight * self.node_target[position]\n",
        "        cdef double weight = self.node_weight[position]\n"
        "        self.sum_left += self.node_target[position]\n",
        ("test_criterion.py", "test_tree_oracle.py", "test_sklearn_parity.py"),
        "criterion's incremental update: squared error moves a sample's target into "
        "the left sum without its weight",
    ),
    Mutation(
        "tree-build-swapped-children",
        "_tree.pyx",
        "                                        node_id, False, split.n_constants_right,\n"
        "                                        bounds[2], bounds[3])\n"
        "        stack[stack_size + 1] = PendingNode(current.start, split.position,\n"
        "                                            current.depth + 1, node_id, True,",
        "                                        node_id, True, split.n_constants_right,\n"
        "                                        bounds[2], bounds[3])\n"
        "        stack[stack_size + 1] = PendingNode(current.start, split.position,\n"
        "                                            current.depth + 1, node_id, False,",
        ("test_tree_oracle.py", "test_reference_tree.py"),
        "tree building: the children of a split are linked the wrong way round "
        "(the left child's rows under right_child and the reverse)",
    ),
    Mutation(
        "walk-general-swapped-children",
        "_predict.pyx",
        "            elif value_goes_left(value, flags, tree[position].threshold,",
        "            elif not value_goes_left(value, flags, tree[position].threshold,",
        ("test_predict.py", "test_missing_values.py", "test_categorical.py"),
        "prediction walk (rows with NaN, category sets): left and right children "
        "swapped",
    ),
    Mutation(
        "walk-fast-le-lt",
        "_predict.pyx",
        "(<const float*> (row + offset))[0]\n                                          <= node.threshold))",
        "(<const float*> (row + offset))[0]\n                                          < node.threshold))",
        ("test_predict.py", "test_sklearn_parity.py"),
        "fast prediction walk: a value equal to the threshold goes right (`<=` "
        "becomes `<`)",
    ),
    Mutation(
        "multiway-sweep-tie-last",
        "_multiway.pyx",
        "if best_position < 0 or gain > best_gain:",
        "if best_position < 0 or gain >= best_gain:",
        ("test_reference_c45.py", "test_multiway.py"),
        "C4.5 numeric threshold sweep: ties go to the last threshold (`>` becomes `>=`)",
    ),
    Mutation(
        "boosting-stump-leaf-size",
        "_boosting.pyx",
        "if (rank != previous_rank and n_left >= min_samples_leaf",
        "if (rank != previous_rank and n_left > min_samples_leaf",
        ("test_boosting.py", "test_reference_boosting.py"),
        "boosting's stump sweep: a left side of exactly min_samples_leaf rows is "
        "refused (`>=` becomes `>`)",
    ),
    Mutation(
        "pruning-alpha-boundary",
        "_pruning.pyx",
        "if weakest < 0 or weakest_alpha > ccp_alpha:",
        "if weakest < 0 or weakest_alpha >= ccp_alpha:",
        ("test_pruning.py",),
        "cost-complexity pruning: a subtree whose effective alpha equals ccp_alpha "
        "is kept (`>` becomes `>=`)",
    ),
]


def check_texts(root):
    """Every mutation's original text occurs exactly once in its file; the
    list of those that do not."""
    problems = []
    names = set()
    for mutation in MUTATIONS:
        if mutation.name in names:
            problems.append(f"{mutation.name}: the name is used twice")
        names.add(mutation.name)
        path = root / KERNELS / mutation.file
        text = path.read_text()
        count = text.count(mutation.original)
        if count != 1:
            problems.append(f"{mutation.name}: the original text occurs {count} times in "
                            f"{path} (expected once): {mutation.original!r}")
        if mutation.original == mutation.mutated:
            problems.append(f"{mutation.name}: the mutated text is the original")
        for test in mutation.tests:
            if not (root / "tests" / test).is_file():
                problems.append(f"{mutation.name}: no test file tests/{test}")
    return problems


def run(command, cwd, log, timeout=None):
    """Runs command, its output appended to log; (return code or 'timeout',
    seconds, output)."""
    started = time.monotonic()
    output = log.with_suffix(".last")
    with open(output, "w") as out:
        try:
            code = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
    text = output.read_text(errors="replace")
    with open(log, "a") as out:
        out.write(f"\n$ {' '.join(map(str, command))}\n{text}")
    return code, time.monotonic() - started, text


def first_failure(output):
    """The first test pytest's summary names as failed, or ''."""
    for line in output.splitlines():
        if line.startswith(("FAILED ", "ERROR ")):
            return line.split()[1]
    return ""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--venv", type=Path, help="virtual environment to install the copy in")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/fasttree-kernel-mutations"),
                        help="where the copy is made (replaced if it exists)")
    parser.add_argument("--only", action="append", default=[],
                        help="run this mutation only (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutations and stop")
    parser.add_argument("--timeout", type=float, default=1200.0,
                        help="seconds a mutation's tests may take (a hang counts as caught)")
    args = parser.parse_args(argv)

    problems = check_texts(ROOT)
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name:32} {m.file:15} {m.what}\n{'':32} tests: {', '.join(m.tests)}")
    if problems:
        print("The kernels changed; update these mutations:", *problems, sep="\n  ",
              file=sys.stderr)
        return 2
    if args.list:
        return 0
    if args.venv is None:
        parser.error("--venv is required (a virtual environment for the mutated builds)")
    unknown = set(args.only) - {m.name for m in MUTATIONS}
    if unknown:
        parser.error(f"no mutation named {', '.join(sorted(unknown))}")
    selected = [m for m in MUTATIONS if not args.only or m.name in args.only]

    python = args.venv / "bin" / "python"
    copy = args.workdir / "repo"
    log = args.workdir / "log.txt"
    if args.workdir.exists():
        shutil.rmtree(args.workdir)
    copy.mkdir(parents=True)
    started = time.monotonic()
    # The committed tree, not the working tree: a mutation is judged against HEAD's tests.
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(copy)], input=archive, check=True)
    if check_texts(copy):
        print("HEAD differs from the working tree in a mutated file; commit first",
              file=sys.stderr)
        return 2
    print(f"copy in {copy}, log in {log}", flush=True)
    code, seconds, _ = run([python, "-m", "pip", "install", "-q", "--no-deps",
                         "--no-build-isolation", "-e", ".", f"-Cbuild-dir={BUILD_DIR}"],
                        copy, log)
    print(f"build: {'ok' if code == 0 else 'FAILED'} ({seconds:.0f} s)", flush=True)
    if code != 0:
        return 2
    ninja = [str(args.venv / "bin" / "ninja"), "-C", str(copy / BUILD_DIR)]
    # A fixed hypothesis seed: a mutation is caught or not the same way every run.
    pytest = [str(python), "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
              "--hypothesis-seed=0"]
    # The named tests pass unmutated, else "caught" would mean nothing.
    all_tests = sorted({f"tests/{t}" for m in selected for t in m.tests})
    code, seconds, _ = run(pytest + all_tests, copy, log, timeout=args.timeout)
    print(f"unmutated: {'tests pass' if code == 0 else 'TESTS FAIL'} ({seconds:.0f} s)",
          flush=True)
    if code != 0:
        return 2

    results = []
    for m in selected:
        path = copy / KERNELS / m.file
        original = path.read_text()
        path.write_text(original.replace(m.original, m.mutated, 1))
        try:
            code, build_seconds, _ = run(ninja, copy, log)
            failed = ""
            if code != 0:
                outcome, seconds = "build failed", 0.0
            else:
                code, seconds, output = run(pytest + [f"tests/{t}" for t in m.tests], copy,
                                            log, timeout=args.timeout)
                failed = first_failure(output)
                outcome = {0: "SURVIVED", 1: "caught"}.get(code, f"caught ({code})")
                if code == "timeout":
                    outcome = "caught (timeout)"
                elif isinstance(code, int) and code < 0:
                    outcome = f"caught (crash, signal {-code})"
                elif code not in (0, 1):
                    outcome = f"error (pytest exit {code})"
        finally:
            path.write_text(original)
        results.append((m, outcome))
        print(f"{m.name:32} {outcome:16} build {build_seconds:4.0f} s, tests {seconds:4.0f} s"
              f"  {failed}", flush=True)
    run(ninja, copy, log)   # the unmutated kernels again, for any later use of the copy

    caught = sum(outcome.startswith("caught") for _, outcome in results)
    print(f"\n{caught} of {len(results)} mutations caught "
          f"({(time.monotonic() - started) / 60:.0f} minutes)")
    for m, outcome in results:
        if not outcome.startswith("caught"):
            print(f"  {outcome}: {m.name} ({m.file}): {m.what}")
    return 0 if caught == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
