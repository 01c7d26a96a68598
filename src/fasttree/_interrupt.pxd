# Stopping long nogil loops when the user presses Ctrl-C.
#
# Python runs a signal's handler only on the main thread, between bytecodes,
# so a kernel looping without the GIL would finish its whole job before
# KeyboardInterrupt reached the user. Kernels therefore poll an Interrupt at a
# coarse grain (a tree node, a block of rows) and, when it says stop, free
# what they own and return INTERRUPTED; the Python layer then raises the
# error the handler raised (raise_interrupt). One Interrupt is shared by
# every thread of one fit or prediction, so that when the main thread is
# interrupted, the others stop at their next poll too.

cdef enum:
    # The status a kernel returns when it stopped at an Interrupt's request
    # (out of memory is -1).
    INTERRUPTED = -2


cdef class Interrupt:
    cdef volatile bint requested   # some thread asked every poller to stop
    cdef double next_poll          # the main thread's next signal check (seconds)
    cdef object error              # what the signal handler raised, to raise again

    # True when the work should stop: another thread asked, or (on the main
    # thread, at most every POLL_SECONDS) a signal's handler raised.
    cdef bint should_stop(self) noexcept nogil
