"""The API fuzz test: generated calls to every public estimator, with odd
dtypes, layouts, sparse formats, shapes, extreme values, targets, weights and
parameters (``api_fuzz_cases.py``), each call's result held to the
invariants and each exception to the documented types
(``api_fuzz_checks.py``).

The cases run in a long-lived child process (``api_fuzz_worker.py``), one
after another: a case that crashes it (a segfault, an abort) or runs past
the per-case timeout is recorded as a crash or a hang, with the call it was
in, and a new child takes the next case.

Quick profile: ``tests/test_api_fuzz.py``, part of ``python -m pytest``.
Long profile, for release checks (docs/development.md)::

    nice python tests/api_fuzz.py --cases 20000 --seed 1 --timeout 60

It prints the counts (cases, calls, outcomes by kind) and one reproducer per
distinct failure, shrunk to a small description; replay one with
``python tests/api_fuzz.py --replay '<description>'`` (``--here`` runs it in
this process, with full tracebacks).
"""

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from api_fuzz_cases import cases  # noqa: E402
from api_fuzz_checks import normalised  # noqa: E402

FAILURES = ("unclear", "invariant", "crash", "hang", "harness")


class Worker:
    """A child process running cases, restarted after a crash or a hang."""

    def __init__(self, timeout=60.0, start_timeout=180.0):
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.process = None
        self.next_id = 0
        self.previous = None

    def start(self):
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "api_fuzz_worker.py")], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.stderr, env=env, start_new_session=True)
        self.pending = b""
        ready = self.read_line(time.monotonic() + self.start_timeout)
        if not ready or json.loads(ready).get("event") != "ready":
            raise RuntimeError(f"the fuzz worker did not start: {self.stderr_tail()}")

    def stop(self):
        if self.process is not None:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            self.process.stdout.close()
            self.process.stdin.close()
            self.stderr.close()
            self.process = None

    def read_line(self, deadline):
        """The next line of the child's answers; None at the deadline, "" at
        their end (the child died)."""
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return ""
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()

    def stderr_tail(self, size=20000):
        """The end of what the child wrote to standard error for this case,
        without faulthandler's list of extension modules."""
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - size))
        text = self.stderr.read().decode(errors="replace")
        return "\n".join(line for line in text.splitlines()
                         if not line.startswith("Extension modules:"))

    def run(self, spec):
        """The outcomes of one case (a crash or a hang is one outcome).

        A case of corrupt sparse structure runs in a child of its own, so
        that memory it damages cannot fail a later case; a crash is tried
        again in a new child and, if it needs the previous case to happen,
        says so and keeps that case.
        """
        isolate = "corrupt" in str(spec.get("layout", ""))
        if isolate:
            self.stop()
        fresh = self.process is None
        outcomes = self.run_once(spec)
        crashes = [outcome for outcome in outcomes if outcome["outcome"] == "crash"]
        if crashes and not fresh and not any(
                outcome["outcome"] == "crash" for outcome in self.run_once(spec)):
            for outcome in crashes:
                outcome["detail"] += ", only after the previous case"
                outcome["previous"] = self.previous
        if isolate:
            self.stop()
        self.previous = spec
        return outcomes

    def run_once(self, spec):
        if self.process is None:
            self.start()
        self.next_id += 1
        self.stderr.seek(0)
        self.stderr.truncate()
        try:
            self.process.stdin.write((json.dumps({"id": self.next_id, "spec": spec}) + "\n")
                                     .encode())
            self.process.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + self.timeout
        call = "start"
        while True:
            line = self.read_line(deadline)
            if not line:
                return [self.lost(call, hung=line is None)]
            answer = json.loads(line)
            if answer.get("event") == "done":
                return answer["outcomes"]
            call = answer.get("call", call)

    def lost(self, call, hung):
        """The outcome of a case the child did not finish: it died or hung."""
        if hung:
            os.killpg(self.process.pid, signal.SIGKILL)
        status = self.process.wait()
        tail = self.stderr_tail()
        self.stop()
        if hung:
            return {"call": call, "outcome": "hang",
                    "detail": f"no answer within {self.timeout:g} s"}
        if status < 0:
            detail = f"killed by {signal.Signals(-status).name}"
        else:
            detail = f"exit status {status}"
        return {"call": call, "outcome": "crash", "detail": detail, "where": crash_site(tail),
                "stderr": tail[-1500:]}


def crash_site(stderr):
    """The innermost frame of faulthandler's dump ('file:function') outside
    Python's standard library and this harness: after memory is damaged, the
    crash itself may come in code that merely formats an exception."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for line in stderr.splitlines():
        line = line.strip()
        if line.startswith("File \"") and " in " in line:
            filename = Path(line.split('"')[1])
            if stdlib not in filename.parents and filename.parent != HERE:
                return f"{filename.name}:{line.rsplit(' in ', 1)[1]}"
    return ""


def signature(outcome):
    """One key per distinct failure."""
    call = outcome["call"].split(".")[-1]
    kind = outcome["outcome"]
    if kind == "unclear":
        return f"unclear {outcome['type']} in {call}: {normalised(outcome['message'])}"
    if kind == "invariant":
        return f"invariant {call}: {normalised(outcome['detail'])}"
    if kind == "crash":
        return f"crash in {call} ({outcome['detail']}, at {outcome['where'] or '?'})"
    if kind == "hang":
        return f"hang in {call}"
    return f"harness: {outcome['detail'].strip().splitlines()[-1]}"


class Tally:
    """Counts of a run, and the first case of each distinct failure."""

    def __init__(self):
        self.cases = 0
        self.calls = 0
        self.checks = 0
        self.kinds = Counter()
        self.failures = {}
        self.slowest = []
        self.started = time.monotonic()

    def add(self, spec, outcomes, seconds):
        self.cases += 1
        self.slowest = sorted(self.slowest + [(seconds, spec)], key=lambda item: -item[0])[:5]
        for outcome in outcomes:
            kind = outcome["outcome"]
            if kind == "check":
                self.checks += 1
                continue
            if kind != "invariant":
                self.calls += 1
            self.kinds[f"{kind} {outcome['type']}" if kind in ("error", "unclear") else kind] += 1
            if kind in FAILURES:
                key = signature(outcome)
                entry = self.failures.setdefault(key, {"count": 0, "spec": spec, "examples": {},
                                                       "outcome": outcome, "where": Counter()})
                entry["count"] += 1
                estimator = spec.get("estimator", "?")
                entry["where"][estimator] += 1
                entry["examples"].setdefault(estimator, spec)

    def failed(self):
        return bool(self.failures)

    def summary(self):
        minutes = (time.monotonic() - self.started) / 60
        lines = [f"API fuzz: {self.cases} cases, {self.calls} calls, {self.checks} invariant "
                 f"checks, {minutes:.1f} min", "outcomes by kind:"]
        for kind, count in sorted(self.kinds.items(), key=lambda item: (item[0] != "ok",
                                                                        item[0])):
            lines.append(f"  {kind:40} {count}")
        lines.append(f"distinct failures: {len(self.failures)}")
        for number, (key, entry) in enumerate(sorted(self.failures.items()), 1):
            estimators = ", ".join(f"{name} {n}" for name, n in entry["where"].most_common())
            lines.append(f"[{number}] {key}")
            lines.append(f"    {entry['count']} times ({estimators})")
            outcome = entry["outcome"]
            detail = outcome.get("message") or outcome.get("detail") or ""
            if detail:
                lines.append("    " + detail[-1200:].replace("\n", "\n    "))
            specs = ([outcome["previous"], entry["spec"]] if "previous" in outcome
                     else entry["spec"])
            lines.append(f"    reproduce: python tests/api_fuzz.py --replay '{json.dumps(specs)}'")
        lines.append("slowest cases:")
        for seconds, spec in self.slowest:
            lines.append(f"  {seconds:7.2f} s  {json.dumps(spec)}")
        return "\n".join(lines)


def run(n_cases, seed_value=None, derandomize=False, timeout=60.0, progress=None):
    """Run ``n_cases`` generated cases; returns the :class:`Tally`."""
    tally = Tally()
    worker = Worker(timeout)

    @settings(max_examples=n_cases, derandomize=derandomize, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck),
              report_multiple_bugs=False)
    @given(cases())
    def explore(spec):
        start = time.monotonic()
        tally.add(spec, worker.run(spec), time.monotonic() - start)
        if progress and tally.cases % 100 == 0:
            progress(tally)

    if seed_value is not None and not derandomize:
        explore = seed(seed_value)(explore)
    try:
        explore()
    finally:
        worker.stop()
    return tally


SIMPLER = {"misuse": None, "weight": None, "unseen": False, "check_n_jobs": False,
           "onnx": False, "specials": [], "outputs": 1, "categorical": 0, "levels": 3,
           "values": "normal", "test_rows": 5, "classes": 2}


def simpler_specs(spec):
    """Descriptions one step simpler than ``spec``, simplest steps first."""
    for name, value in spec["params"].items():
        if name not in ("n_estimators", "random_state") or value not in (1, 0):
            params = dict(spec["params"])
            del params[name]
            yield {**spec, "params": params}
    for name, value in SIMPLER.items():
        if spec.get(name) != value:
            yield {**spec, name: value}
    for special in spec["specials"]:
        yield {**spec, "specials": [s for s in spec["specials"] if s != special]}
    if (spec["container"], spec["layout"], spec["dtype"]) != ("array", "C", "float64"):
        yield {**spec, "container": "array", "layout": "C", "dtype": "float64"}
        yield {**spec, "dtype": "float64"}
    for rows in (2, 3, 5, 10, spec["rows"] // 2):
        if rows < spec["rows"]:
            yield {**spec, "rows": rows}
    for features in (1, 2, spec["features"] // 2):
        if spec["categorical"] <= features < spec["features"]:
            yield {**spec, "features": features}


def shrink(worker, spec, key, budget=80):
    """A simpler description whose case fails the same way (``key``)."""
    runs = 0
    improved = True
    while improved and runs < budget:
        improved = False
        for candidate in simpler_specs(spec):
            runs += 1
            if any(signature(outcome) == key for outcome in worker.run(candidate)
                   if outcome["outcome"] in FAILURES):
                spec, improved = candidate, True
                break
            if runs >= budget:
                break
    return spec


def shrink_failures(tally, timeout):
    """Shrink the reproducer of every distinct failure but hangs (each try
    of a hang costs the whole timeout)."""
    worker = Worker(timeout)
    try:
        for key, entry in tally.failures.items():
            kind = entry["outcome"]["outcome"]
            if kind != "hang" and "previous" not in entry["outcome"]:
                # Each try of a crash starts a new child: fewer tries.
                entry["spec"] = shrink(worker, entry["spec"], key,
                                       budget=30 if kind == "crash" else 80)
    finally:
        worker.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=None,
                        help="hypothesis seed (default: derandomized, the quick profile's)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--no-shrink", action="store_true")
    parser.add_argument("--json", help="also write the counts and failures to this file")
    parser.add_argument("--replay", help="run one case description and print its outcomes")
    parser.add_argument("--here", action="store_true", help="replay in this process")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(json.loads(args.replay), args)
    tally = run(args.cases, args.seed, derandomize=args.seed is None, timeout=args.timeout,
                progress=lambda t: print(f"{t.cases} cases, {t.calls} calls, "
                                         f"{len(t.failures)} distinct failures",
                                         file=sys.stderr, flush=True))
    if not args.no_shrink:
        shrink_failures(tally, args.timeout)
    print(tally.summary())
    if args.json:
        Path(args.json).write_text(json.dumps({
            "cases": tally.cases, "calls": tally.calls, "checks": tally.checks,
            "kinds": dict(tally.kinds),
            "failures": {key: {"count": entry["count"], "spec": entry["spec"],
                               "outcome": entry["outcome"], "where": dict(entry["where"]),
                               "examples": entry["examples"]}
                         for key, entry in tally.failures.items()}}, indent=1))
    return 1 if tally.failed() else 0


def replay(specs, args):
    """Run one description (or a list of them, in one child) and print the
    outcomes of the last that are not plain successes."""
    specs = specs if isinstance(specs, list) else [specs]
    if args.here:
        import api_fuzz_worker

        for spec in specs:
            outcomes = api_fuzz_worker.run_case(spec, lambda event: None)
    else:
        worker = Worker(args.timeout)
        try:
            for spec in specs:
                outcomes = worker.run_once(spec)
        finally:
            worker.stop()
    for outcome in outcomes:
        if outcome["outcome"] not in ("ok", "check"):
            print(json.dumps(outcome, indent=1))
    failed = [outcome for outcome in outcomes if outcome["outcome"] in FAILURES]
    print(f"{len(outcomes)} outcomes, {len(failed)} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
