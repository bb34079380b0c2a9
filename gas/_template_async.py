# ruff: noqa: F821
"""Kernels of the asynchronous engine's schedulers, appended by :mod:`gas._codegen` after
``_template.py`` (same header, same rules: not imported as a module; ``njit`` is the identity in
debug mode)."""


@njit(cache=True, inline="always")
def _pass_update(
    p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx, queued, prio, thr, cur, stack, sp
):
    """Update ``v`` in a one-thread pass (gather, apply, scatter) and append to the worklist
    ``stack`` (a ring of ``n`` entries, ``sp`` pushes so far) each vertex it signals to at least
    ``thr`` that the pass has gone past (id below ``cur``) and that is not on the worklist yet
    (``queued`` 1: waiting, 3: waiting on the worklist); returns the new ``sp``."""
    queued[v] = 0
    prio[v] = 0.0
    _gather_apply(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx)
    if SCATTER_OUT:
        for e in range(out_indptr[v], out_indptr[v + 1]):
            u = dst[e]
            sp = _pass_signal(queued, prio, u, _scatter(p, VC, EC, v, e, u), thr, v, cur, stack, sp)
    if SCATTER_IN:
        for k in range(in_indptr[v], in_indptr[v + 1]):
            u = in_src[k]
            sp = _pass_signal(queued, prio, u, _scatter(p, VC, EC, v, in_eid[k], u), thr, v, cur, stack, sp)
    return sp


@njit(cache=True, inline="always")
def _pass_signal(queued, prio, u, r, thr, me, cur, stack, sp):
    """:func:`_signal` on one thread (the byte keeps its stack bit), then the push of
    :func:`_pass_update` (never of the updating vertex ``me``: a vertex that signals itself
    runs again in the next pass, as before the worklist)."""
    pr = np.float64(r)
    if pr > 0.0:
        q = queued[u] | 1
        queued[u] = q
        if pr > prio[u]:
            prio[u] = pr
        if (q == 1) & (u < cur) & (u != me) & (prio[u] >= thr):
            queued[u] = 3
            stack[sp % stack.shape[0]] = u
            sp += 1
    return sp


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_async_pass(
    thr,
    budget,
    cascade,
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
    stack,
    out,
):
    """One pass of the relaxed priority scheduler, on one thread: walk the vertices in id order
    and update every scheduled vertex whose priority is ``>= thr`` when the pass reaches it
    (signals raised earlier in the pass count: Gauss-Seidel order). With ``cascade`` (1), a
    vertex the pass has gone past that a signal raises to ``thr`` or more runs right after the
    update that signalled it (a first-in first-out worklist, ``stack``: faster than last in,
    first out on large graphs, bench/RESULTS.md), so a cascade of signals above the threshold
    finishes in one pass whatever the ids; without (0) it waits for the next pass. A program's
    own ``priority(v)``, read when the pass reaches ``v``, schedules it too (the larger counts).
    Stops after ``budget`` updates (vertices left on the worklist stay scheduled). Writes
    (updates, edges visited, and for a program with a ``priority`` method the vertices still
    scheduled and their highest priority) to ``out``. The single-iteration ``prange`` is
    deliberate: Numba lowers a parfor body with far fewer reference-count updates of the column
    tuple than a plain loop (figures: bench/RESULTS.md, "Figures formerly in docstrings")."""
    for _one in prange(1):
        p = params[0]
        cx = ctx[0]
        n = queued.shape[0]
        ran = 0
        edges = 0
        sp = 0
        v = 0
        while v < n and ran < budget:
            if not HAS_PRIORITY and (v & 63) == 0:
                # a block of 64 with nothing to run is passed in one vectorised test (the
                # vertices' state changes only through updates, and none runs in between)
                end = min(v + 64, n)
                hits = 0
                for u in range(v, end):
                    hits += (queued[u] != 0) & (prio[u] >= thr)
                if hits == 0:
                    v = end
                    continue
            reach = (v + 1) * cascade  # the ids the worklist takes (none without ``cascade``)
            if HAS_PRIORITY:
                # signals are rare here (the program schedules itself), so the branch on
                # ``queued`` predicts well and ``prio`` is read only where it matters
                own = np.float64(_priority(p, VC, EC, v))
                go = (own > 0.0) & (own >= thr)
                if queued[v] != 0:
                    go |= prio[v] >= thr
            else:
                go = (queued[v] != 0) & (prio[v] >= thr)
            if go:  # v, then the worklist it and its successors fill, first in, first out
                w = v
                head = 0
                while True:
                    sp = _pass_update(
                        p, VC, EC, w, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx,
                        queued, prio, thr, reach, stack, sp,
                    )  # fmt: skip
                    ran += 1
                    edges += vdeg[w]
                    if head == sp or ran >= budget:
                        break
                    w = stack[head % n]  # a ring of n entries
                    head += 1
                for i in range(head, sp):  # the budget ran out: these wait as signalled ones
                    queued[stack[i % n]] = 1
                sp = 0
            v += 1
        left = 0
        top = 0.0
        if HAS_PRIORITY:  # without one, the caller counts (numpy's reductions are vectorised)
            for v in range(n):
                pv = np.float64(_priority(p, VC, EC, v))
                sched = pv > 0.0
                if queued[v] != 0:
                    sched = True
                    pv = max(pv, prio[v])
                left += sched
                top = max(top, pv)
        out[0] = ran
        out[1] = edges
        out[2] = left
        out[3] = top


#: the scheduling states of a vertex in :func:`k_async_pass_par` (bits of ``queued``)
_WAIT, _LISTED, _RUNNING = 1, 2, 4


@njit(cache=True, inline="always")
def _par_signal(queued, prio, u, r, thr, stack, t, sp):
    """Schedule ``u`` with priority ``r`` from thread ``t`` of :func:`k_async_pass_par`: raise
    its priority (atomic maximum), then mark it waiting (atomic or); if the priority reaches
    ``thr`` and ``u`` is only waiting, move it to this thread's worklist (one compare-and-swap:
    a vertex is on at most one list). Returns the new count of pushes ``sp``."""
    pr = np.float64(r)
    if pr > 0.0:
        _atomic_max(prio, u, pr)
        old = queued[u]
        if old == 0 or old == _RUNNING:  # else the bit is set already (or the vertex listed)
            old = _or_byte(queued, u, _WAIT)
        if (old <= _WAIT) & (prio[u] >= thr):
            if _swap_byte(queued, u, _WAIT, _LISTED):
                stack[t, sp % stack.shape[1]] = u
                sp += 1
    return sp


@njit(cache=True, inline="always")
def _par_set(queued, v, state):
    """Store ``state`` in ``queued[v]`` whatever other threads OR into it meanwhile."""
    while not _swap_byte(queued, v, queued[v], state):
        pass


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_async_pass_par(
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
    stack,
    bounds,
    out,
):
    """One pass of the relaxed priority scheduler on several threads, for a program safe under
    ``vertex`` consistency, with the cascade: thread ``t`` walks its block of ids
    ``bounds[t]:bounds[t + 1]`` and updates every waiting vertex whose priority is ``>= thr``,
    and a vertex that any update's signal raises to ``thr`` or more goes on the signalling
    thread's worklist (``stack[t]``), which that thread drains before it walks on. So a cascade
    of signals above the threshold finishes in the pass, each thread following the chains its
    own updates start (as the one-thread pass, :func:`k_async_pass`, but without a global
    order). Each vertex runs at most once at a time: ``queued`` holds the bits waiting /
    listed / running, changed only by atomic instructions, and the thread that turns a
    vertex's state to running is the one that updates it. A vertex signalled while it runs
    waits for a later pass, at a priority of at least ``thr``. A program's own ``priority(v)``
    schedules ``v`` too, read when the walk reaches it. With ``budget`` below the vertex count
    each thread stops after ``budget / T`` updates (what is still listed waits). Writes
    updates, edges, the vertices still scheduled and their highest priority to ``out``."""
    T = bounds.shape[0] - 1
    per = budget if budget >= queued.shape[0] else max(1, budget // T)  # no cap: run the cascades out
    counts = np.zeros((T, 2), np.int64)
    for t in prange(T):
        p = params[0]
        cx = ctx[0]
        ran = 0
        edges = 0
        sp = 0
        head = 0
        v = bounds[t]
        hi = bounds[t + 1]
        while ran < per:
            if head < sp:  # the worklist first: chains finish before the walk goes on
                w = stack[t, head % stack.shape[1]]
                head += 1
                _par_set(queued, w, _RUNNING)
            else:
                w = -1
                while v < hi:
                    u = v
                    v += 1
                    q = queued[u]
                    if q > _WAIT:  # listed (its thread runs it) or running
                        continue
                    go = (q == _WAIT) & (prio[u] >= thr)
                    if HAS_PRIORITY and not go:
                        own = np.float64(_priority(p, VC, EC, u))
                        go = (own > 0.0) & (own >= thr)
                    if go and _swap_byte(queued, u, q, _RUNNING):
                        w = u
                        break
                if w < 0:
                    break
            prio[w] = 0.0
            _gather_apply(p, VC, EC, w, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx)
            if SCATTER_OUT:
                for e in range(out_indptr[w], out_indptr[w + 1]):
                    u = dst[e]
                    sp = _par_signal(queued, prio, u, _scatter(p, VC, EC, w, e, u), thr, stack, t, sp)
            if SCATTER_IN:
                for k in range(in_indptr[w], in_indptr[w + 1]):
                    u = in_src[k]
                    sp = _par_signal(queued, prio, u, _scatter(p, VC, EC, w, in_eid[k], u), thr, stack, t, sp)
            if not _swap_byte(queued, w, _RUNNING, 0):  # signalled while it ran: wait
                _par_set(queued, w, _WAIT)
                _atomic_max(prio, w, thr)
            ran += 1
            edges += vdeg[w]
        for i in range(head, sp):  # the budget ran out: these wait as signalled ones
            _par_set(queued, stack[t, i % stack.shape[1]], _WAIT)
        counts[t, 0] = ran
        counts[t, 1] = edges
    out[0] = counts[:, 0].sum()
    out[1] = counts[:, 1].sum()
    tops = np.zeros(T, np.float64)
    for t in prange(T):  # what is still scheduled (by the program's priorities too) and its top
        p = params[0]
        left = 0
        top = 0.0
        for v in range(bounds[t], bounds[t + 1]):
            sched = queued[v] != 0
            pv = prio[v] if sched else 0.0
            if HAS_PRIORITY:
                own = np.float64(_priority(p, VC, EC, v))
                if own > 0.0:
                    sched = True
                    pv = max(pv, own)
            left += sched
            top = max(top, pv)
        counts[t, 0] = left
        tops[t] = top
    out[2] = counts[:, 0].sum()
    out[3] = tops.max()


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_async_sweep(
    order,
    bounds,
    small,
    own,
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
    batch,
    cut,
    out,
):
    """One round of the ``sweep`` scheduler: the groups ``order[bounds[c]:bounds[c + 1]]`` in
    turn, each running the vertices scheduled when the sweep reaches it (the caller makes a
    group safe to run at once, e.g. a colour class). A group whose scheduled vertices visit at
    least ``small`` edges is split between the threads; a smaller one runs as one piece, in id
    order within the group (most colour classes of a sparse graph are a handful of vertices).
    The program's code appears once, in the ``prange`` body: a second copy outside it cost a
    large program (LDA) tens of seconds more to compile. With ``own`` (1), a program's own
    ``priority(v) > 0`` schedules ``v`` too. ``batch`` is scratch: one group's scheduled ids
    and their running work; ``cut`` holds one more entry than the threads. Writes the updates
    and the edges they visited to ``out``."""
    ran = 0
    edges = 0
    p1 = params[0]
    T = cut.shape[0] - 1
    for c in range(bounds.shape[0] - 1):
        nb = 0
        work = 0
        for i in range(bounds[c], bounds[c + 1]):
            v = order[i]
            go = queued[v] != 0
            if HAS_PRIORITY and own and not go:
                go = np.float64(_priority(p1, VC, EC, v)) > 0.0
            if go:
                queued[v] = 0
                prio[v] = 0.0
                batch[0, nb] = v
                work += vdeg[v] + 1
                batch[1, nb] = work  # the work up to and including v
                nb += 1
        ran += nb
        edges += work - nb
        # T runs of the batch with about the same work each, one per thread (runs by count would
        # give one thread the high-degree vertices of a class); one run for a small batch
        parts = T if work - nb >= small else 1
        cut[0] = 0
        for t in range(1, parts):
            cut[t] = np.searchsorted(batch[1, :nb], (work * t) // parts)
        cut[parts] = nb
        for t in prange(parts):
            p = params[0]
            cx = ctx[0]
            for i in range(cut[t], cut[t + 1]):
                v = batch[0, i]
                _gather_apply(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx)
                _async_scatter(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, queued, prio)
    out[0] = ran
    out[1] = edges
