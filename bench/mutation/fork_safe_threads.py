"""pytest plugin for mutation runs (``-p fork_safe_threads``).

mutmut runs each mutant's tests in a process forked from one that has already
run or collected tests. A fork copies only the calling thread, so the shared
prediction threads of ``fasttree._threads`` do not exist in the child, while
the pool object that owns them does: the child's first prediction large
enough to be spread over threads waits forever for them. This plugin makes
every forked child forget the pool, so the child starts its own threads.
"""

import os
import sys


def _forget_fasttree_threads():
    threads = sys.modules.get("fasttree._threads")
    if threads is not None:
        threads._pool = None
        threads._threads_started = False


os.register_at_fork(after_in_child=_forget_fasttree_threads)
