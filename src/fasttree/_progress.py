"""Progress of long fits: members done, time so far and an estimate of the
rest, on standard error.

A fit makes a ``Progress`` only when ``verbose`` is on; with it off there is
nothing to call. Members are counted as their builds return (with the GIL
held, after the compiled build released it), never from inside a build.
"""

import sys
import time

# Lines at most this often (seconds) with verbose=1; verbose >= 2 reports
# every member. On a terminal the line is rewritten in place.
REPORT_INTERVAL = 0.5


class Progress:
    """Counts members done and reports them.

    Parameters
    ----------
    name : str
        The estimator's class name, which starts every line.
    what : str
        What a member is, plural ("trees built", "rounds boosted").
    total : int
        Members the fit makes (at most).
    verbose : int
        1: a line at most every half second and at the end; 2 or more: a
        line per member.
    stream : file, default=sys.stderr
    """

    def __init__(self, name, what, total, verbose, stream=None):
        self.name, self.what, self.total, self.verbose = name, what, total, verbose
        self.stream = sys.stderr if stream is None else stream
        self.done = 0
        self.start = self.last_report = time.perf_counter()
        isatty = getattr(self.stream, "isatty", None)
        self.rewrite = bool(isatty and isatty()) and verbose < 2

    def step(self, count=1):
        """Record ``count`` more members done; report when due."""
        self.done += count
        now = time.perf_counter()
        if (self.verbose >= 2 or self.done >= self.total
                or now - self.last_report >= REPORT_INTERVAL):
            self.last_report = now
            self._report(now)

    def finish(self):
        """End the report (a fit that stops early, as boosting may)."""
        if self.done < self.total:
            self.total = self.done
            self._report(time.perf_counter())

    def line(self, now=None):
        """The report as it stands."""
        elapsed = (time.perf_counter() if now is None else now) - self.start
        text = f"{self.name}: {self.done}/{self.total} {self.what}, {elapsed:.1f} s elapsed"
        if 0 < self.done < self.total:
            text += f", about {elapsed / self.done * (self.total - self.done):.1f} s left"
        return text

    def _report(self, now):
        text = self.line(now)
        if self.rewrite:
            end = "\n" if self.done >= self.total else ""
            self.stream.write("\r" + text + "\x1b[K" + end)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()


def progress_of(estimator, what, total):
    """A ``Progress`` for a fit of ``total`` members when the estimator's
    ``verbose`` is on, else None."""
    verbose = getattr(estimator, "verbose", 0)
    if not verbose:
        return None
    return Progress(type(estimator).__name__, what, total, verbose)
