"""Benchmarks of gaslab against its peers, one script per subject.

Run each as a module from the repository root, e.g. ``python -m bench.pagerank --help``; every
script writes its table into ``bench/RESULTS.md`` (:mod:`bench._results`) unless given
``--no-write``. The scripts import each other as modules of this package.
"""
