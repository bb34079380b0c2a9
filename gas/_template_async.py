# ruff: noqa: F821
"""Kernels of the asynchronous engine's schedulers, appended by :mod:`gas._codegen` after
``_template.py`` (same header, same rules: not imported as a module; ``njit`` is the identity in
debug mode)."""


@njit(parallel=True, cache=True)
def k_async_pass(
    thr,
    budget,
    VC,
    EC,
    params,
    out_indptr,
    dst,
    in_indptr,
    in_src,
    in_eid,
    acc,
    zero,
    ctx,
    queued,
    prio,
    vdeg,
    out,
):
    """One pass of the relaxed priority scheduler, on one thread: walk the vertices in id order
    and update every scheduled vertex whose priority is ``>= thr`` when the pass reaches it
    (signals raised earlier in the pass count: Gauss-Seidel order). A program's own
    ``priority(v)``, read when the pass reaches ``v``, schedules it too (the larger counts).
    Stops after ``budget`` updates. Writes (updates, edges visited, vertices still scheduled,
    their highest priority) to ``out``. The single-iteration ``prange`` is deliberate: Numba
    lowers a parfor body with far fewer reference-count updates of the column tuple than a plain
    loop (figures: bench/RESULTS.md, "Figures formerly in docstrings")."""
    for _one in prange(1):
        p = params[0]
        cx = ctx[0]
        n = queued.shape[0]
        ran = 0
        edges = 0
        for v in range(n):
            if ran >= budget:
                break
            if HAS_PRIORITY:
                # signals are rare here (the program schedules itself), so the branch on
                # ``queued`` predicts well and ``prio`` is read only where it matters
                own = np.float64(_priority(p, VC, EC, v))
                go = (own > 0.0) & (own >= thr)
                if queued[v] != 0:
                    go |= prio[v] >= thr
            else:
                go = (queued[v] != 0) & (prio[v] >= thr)
            if go:
                queued[v] = 0
                prio[v] = 0.0
                if GATHER_SLOTS:  # acc: the slots
                    _gather_apply_slots(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, cx)
                elif GATHER_ARRAY:
                    arr = acc[v]
                    _gather_vertex_array(
                        p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, arr, zero[0]
                    )
                    _apply(p, VC, EC, v, arr, cx)
                else:
                    a = _gather_vertex(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, zero[0])
                    acc[v] = a
                    _apply(p, VC, EC, v, a, cx)
                _async_scatter(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, queued, prio, False)
                ran += 1
                edges += vdeg[v]
        left = 0
        top = 0.0
        # no branch on whether a vertex waits (it mispredicts about half the time; figures:
        # bench/RESULTS.md, "Figures formerly in docstrings"); ``prio`` is 0
        # wherever ``queued`` is 0
        for v in range(n):
            if HAS_PRIORITY:
                pv = np.float64(_priority(p, VC, EC, v))
                sched = pv > 0.0
                if queued[v] != 0:
                    sched = True
                    pv = max(pv, prio[v])
            else:
                sched = queued[v] != 0
                pv = prio[v]
            left += sched
            top = max(top, pv)
        out[0] = ran
        out[1] = edges
        out[2] = left
        out[3] = top
