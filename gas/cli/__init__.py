"""The ``gas`` command: one entry point, a subcommand per workload.

Every subcommand loads FILE (an edge list, optionally compressed, or a ``.npz`` saved by
``gas.save``), shows progress per superstep on stderr, and writes ``id<TAB>value`` for every
vertex with ORIGINAL ids, atomically, when ``--output`` is given. Edge weights (a third column)
are read only with ``--weighted``, on the subcommands that can use them. Errors are one line on
stderr (with a hint naming the subcommand's flags) and exit status 2: a bad argument (the checked
argparse types of :mod:`gas.cli.args` refuse it before anything is read), a bad input file (named
with its line), an output path that cannot be written (checked before any work). A run that stops
short of its tolerance exits with status 3. Anything else escaping a subcommand is a bug:
"internal error", exit status 1, with the traceback only when ``GAS_DEBUG=1``.

The package: :mod:`gas.cli.app` (the parser and :func:`main`), :mod:`gas.cli.common` (the
options and helpers every subcommand shares), :mod:`gas.cli.args` (checked argparse types), and
one module per group of subcommands: :mod:`gas.cli.analytics` (pagerank, cc, sssp, info),
:mod:`gas.cli.mf` (als, sgd, recommend), :mod:`gas.cli.lda`, :mod:`gas.cli.coloring`,
:mod:`gas.cli.partition`, :mod:`gas.cli.resume`; :mod:`gas.cli.distributed` and
:mod:`gas.cli.report` run and report the graph subcommands on several processes.
"""

from gas.cli.app import build_parser, main
from gas.cli.common import write_values

__all__ = ["build_parser", "main", "write_values"]
