# cython: language_level=3
"""Polling for Ctrl-C (and other signals) from nogil loops; see _interrupt.pxd."""

from cpython.exc cimport PyErr_CheckSignals

cdef extern from "Python.h" nogil:
    # A thread's identity needs no GIL (threading.get_ident returns it).
    unsigned long PyThread_get_thread_ident()

import threading
from contextlib import contextmanager

cdef extern from "_clock.h" nogil:
    double monotonic_seconds()

# Signals reach Python's handlers on this thread only.
cdef unsigned long MAIN_THREAD = threading.main_thread().ident

# Between two signal checks of a kernel running on the main thread. A check
# takes the GIL, which another busy Python thread may hold for up to its
# switch interval (5 ms), so checks are spaced well apart; a key press is
# still answered at once for a person.
cdef double POLL_SECONDS = 0.05


cdef class Interrupt:
    """A stop request shared by the threads of one fit or prediction.

    Kernels poll it (``should_stop``); :meth:`request` asks them all to stop,
    and :func:`raise_interrupt` raises, once a kernel has stopped, the error
    the signal handler raised (``KeyboardInterrupt`` for Ctrl-C).
    """

    def __cinit__(self):
        self.requested = False
        self.next_poll = monotonic_seconds() + POLL_SECONDS
        self.error = None

    def request(self):
        """Ask every kernel polling this Interrupt to stop at its next poll."""
        self.requested = True

    @property
    def is_requested(self):
        """Whether a stop was asked for."""
        return bool(self.requested)

    cdef bint should_stop(self) noexcept nogil:
        cdef double now
        if self.requested:
            return True
        if PyThread_get_thread_ident() != MAIN_THREAD:
            return False
        now = monotonic_seconds()
        if now < self.next_poll:
            return False
        self.next_poll = now + POLL_SECONDS
        with gil:
            try:
                PyErr_CheckSignals()
            except BaseException as error:
                self.error = error
                self.requested = True
        return self.requested

    def check(self):
        """Raise now if a stop was asked for (for loops written in Python that
        run on worker threads, where the interpreter raises nothing)."""
        if self.requested:
            raise_interrupt(self)


def raise_interrupt(Interrupt interrupt):
    """Raise what stopped a kernel: the signal handler's error when this
    thread caught one, else KeyboardInterrupt (another thread was
    interrupted and asked this one to stop)."""
    error = interrupt.error
    if error is not None:
        interrupt.error = None
        raise error
    raise KeyboardInterrupt


# The Interrupt shared by the work a thread is doing for a fit or prediction
# spread over threads (interrupt_scope); kernels called outside one make
# their own.
_scope = threading.local()


def current_interrupt():
    """The Interrupt of this thread's scope, or a new one outside any."""
    interrupt = getattr(_scope, "interrupt", None)
    return Interrupt() if interrupt is None else interrupt


@contextmanager
def interrupt_scope(Interrupt interrupt):
    """Make ``interrupt`` the one every kernel this thread calls polls."""
    previous = getattr(_scope, "interrupt", None)
    _scope.interrupt = interrupt
    try:
        yield interrupt
    finally:
        _scope.interrupt = previous
