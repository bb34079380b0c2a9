"""``python -m gas.cli ...``: the ``gas`` command.

:func:`run` is the command as a whole process: :func:`gas.cli.app.main`, then an exit that skips
the interpreter's teardown. Tearing down the modules of Numba and LLVM once a run is over costs
0.7-1.2 s of a 3-4 s warm ``gas pagerank`` on a shared 2-core machine (issue 21); there is
nothing left to do by then: the output files are closed (written atomically), and the exit
handlers (``atexit``: logging, multiprocessing) still run, and stdout and stderr are flushed.
"""

import atexit
import os
import sys

from gas.cli.app import main


def run() -> None:
    """Run the ``gas`` command on ``sys.argv`` and end the process with its exit status."""
    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left (`gas ... | head`): nothing more to say
        pass
    run_exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_exit_handlers is None:  # not CPython: the usual exit, teardown included
        sys.exit(status)
    run_exit_handlers()
    os._exit(status)


if __name__ == "__main__":
    run()
