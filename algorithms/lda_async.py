"""LDA on the asynchronous engine (:class:`gas.AsyncEngine`): :func:`gas.algorithms.lda` with
``engine="async"`` runs the same :class:`~gas.algorithms.lda.LDAProgram`, graph and random start
through :func:`sample_async`.

What changes is when a vertex runs and what it reads. An update is a vertex's gather, apply and
scatter back to back: a word rebuilds its topic counts from its tokens' current topics (and the
hub's totals), a document resamples its tokens, reading the words' counts as their last update
left them. The program writes its token edges' topics (``e.z``), so it needs ``edge`` consistency
(the engine refuses ``vertex``): a document never samples while one of its words is rebuilding
its counts from the same tokens. Under ``edge`` consistency the greedy colouring puts the
documents in one class, the words in the next and the hub in the last, so a round samples every
document against the word counts of the previous round, then rebuilds every word from the new
topics, then the totals: the word counts lag the documents' by part of a round, where the
synchronous sweep's lag a whole sweep (and its totals two). ``full`` consistency colours every
vertex apart (the hub is within distance 2 of all of them), i.e. one vertex at a time, in the
same order, and gives the same chain. Every document keeps its own random stream, so a run does
not depend on the thread count.

What is not done: a document's resampling does not change the word's counts at the same
moment (that needs the document to write its neighbour, ``full`` consistency, and a sampler
that updates the word side in place); here the word's counts catch up when the word runs, later
in the same round. The program is static (every vertex runs in every round), so the three
schedulers run the same rounds. The log-likelihood recorded every ``ll_every`` rounds sums each
vertex's term as its update in that round left it (documents before their sampling, words and
hub after it); the final one is computed from the topics exactly, as on the synchronous engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gas.algorithms.mf_async import check_engine
from gas.async_engine import AsyncEngine
from gas.errors import GasError

__all__ = ["sample_async", "check_lda_engine"]


def check_lda_engine(engine: str, scheduler: str, consistency: str | None, procs: int) -> None:
    """Refuse (:class:`gas.GasError`, naming the value and a fix) an unknown ``engine``,
    ``scheduler`` or ``consistency``, ``vertex`` consistency (the program writes its edges) and
    ``full`` across processes.

    Examples
    --------
    >>> check_lda_engine("async", "sweep", "edge", 1)
    >>> check_lda_engine("async", "sweep", "vertex", 1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gas.errors.GasError: LDA writes its tokens' topics (edge data), which consistency='vertex' ...
    """
    check_engine("lda", engine, scheduler, consistency, procs)
    if engine == "async" and consistency == "vertex":
        raise GasError(
            "LDA writes its tokens' topics (edge data), which consistency='vertex' does not protect; "
            "use consistency='edge' (the default) or 'full'"
        )


def sample_async(
    st: Any,
    iters: int,
    step: Any,
    *,
    scheduler: str,
    consistency: str | None,
    threads: int | None,
    debug: bool,
    procs: int = 1,
    partition: str = "hash",
    options: Any = None,
) -> tuple[np.ndarray, AsyncEngine | None]:
    """Run ``iters`` rounds of ``st.program`` (an :class:`~gas.algorithms.lda.LDAProgram` and its
    random start, from :func:`gas.algorithms.lda`) on the asynchronous engine, calling ``step``
    after each; the final topic of every token (in the corpus's token order) and the engine
    (None on several processes, through :func:`gas.run`)."""
    consistency = consistency or "edge"
    eng = AsyncEngine(st.graph, st.program, scheduler=scheduler, consistency=consistency, threads=threads,
                      debug=debug)  # fmt: skip
    _prime(eng, st)
    if procs > 1:
        from dataclasses import replace

        from gas.api import run
        from gas.options import RunOptions
        from gas.runtime.local import initial_state

        start = {"vertex": {k: np.array(c) for k, c in eng.columns.items()}, "edges": {"z": st.z}}
        opts = replace(
            options or RunOptions(), restore=initial_state(st.graph, st.program, start), edges=True
        )
        res = run(st.graph, st.program, engine="async", procs=int(procs), partition=partition,
                  max_iter=int(iters), progress=step, options=opts, scheduler=scheduler,
                  consistency=consistency)  # fmt: skip
        return res.edge_data["z"][st.eid].astype(np.int64), None
    eng.run(int(iters), progress=step)
    return eng.edge_columns["z"][st.eid].astype(np.int64), eng


def _prime(eng: AsyncEngine, st: Any) -> None:
    """Write the random start into ``eng``'s columns and run one gather and apply on every vertex
    (no sampling), as the synchronous engine's first superstep does before its scatter: the words'
    sampling tables and the totals then exist when the first documents sample (a round's first
    colour class is the documents, whose words have not run yet)."""
    eng.edge_columns["z"][:] = st.z
    eng.columns["nk"][:] = st.nk
    eng.columns["rng"][:] = st.rng
    everyone = eng.active_mask(None)
    eng.ctx["iteration"] = 0
    eng.gather(everyone)
    eng.apply(everyone, all_ranges=True)
