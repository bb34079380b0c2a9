# ruff: noqa: F821
"""Generic GAS kernels, specialised per vertex program by :mod:`gas._codegen`.

This file is not imported as a module: its text is appended to a generated header that binds
the program's rewritten functions (``_gather``, ``_sum``, ``_apply``, ``_scatter``, ``_init``,
``_agg_tuple``) and compile-time constants (``GATHER_IN``, ``GATHER_OUT``, ``SCATTER_IN``,
``SCATTER_OUT``, ``NUM_AGG``, ``AGG_OPS``), so each program gets kernels that Numba can cache on
disk. In debug mode ``njit`` is the identity and ``prange`` is ``range``, so the same code runs
as plain Python.

Vertex and edge data are tuples of column arrays (``VC``, ``EC``); user functions receive them
with integer vertex and edge ids. Every kernel walks degree-balanced vertex ranges
``chunks[c]:chunks[c+1]`` in a ``prange`` (the kernels that run an active set take the chunks in
a spread order, :func:`gas.engine_ranges.spread_step`); a vertex's data and its gather total are written only
by the thread that owns its range (signals are idempotent byte stores, their priorities atomic maxima).
"""


@njit(cache=True, inline="always")
def _agg_reset(out, c):
    """Start chunk ``c``'s partial aggregates at each operator's identity."""
    for j in range(NUM_AGG):
        op = AGG_OPS[j]
        out[c, j] = 0.0 if op == 0 else (-np.inf if op == 1 else np.inf)


@njit(cache=True, inline="always")
def _agg_add(out, c, t):
    """Fold one vertex's aggregate values ``t`` into chunk ``c``'s partials (sum, max or min)."""
    for j in range(NUM_AGG):
        op = AGG_OPS[j]
        x = t[j]
        if op == 0:
            out[c, j] += x
        elif op == 1:
            if x > out[c, j]:
                out[c, j] = x
        elif x < out[c, j]:
            out[c, j] = x


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_init(chunks, VC, EC, params, ctx):
    for c in prange(chunks.shape[0] - 1):
        p = params[0]
        cx = ctx[0]
        for v in range(chunks[c], chunks[c + 1]):
            _init(p, VC, EC, v, cx)


@njit(cache=True, inline="always")
def _gather_vertex(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, a):
    """Fold vertex ``v``'s gather edges into the scalar total ``a`` with ``_sum``."""
    if GATHER_IN:
        for k in range(in_indptr[v], in_indptr[v + 1]):
            a = _sum(p, VC, EC, a, _gather(p, VC, EC, v, in_eid[k], in_src[k]))
    if GATHER_OUT:
        for e in range(out_indptr[v], out_indptr[v + 1]):
            a = _sum(p, VC, EC, a, _gather(p, VC, EC, v, e, dst[e]))
    return a


@njit(cache=True, inline="always")
def _gather_vertex_array(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, a, z):
    """Reset the array total ``a`` to ``z`` and let ``_gather`` add each gather edge into it."""
    fa = a.reshape(a.size)
    for j in range(fa.shape[0]):
        fa[j] = z
    if GATHER_IN:
        for k in range(in_indptr[v], in_indptr[v + 1]):
            _gather(p, VC, EC, v, in_eid[k], in_src[k], a)
    if GATHER_OUT:
        for e in range(out_indptr[v], out_indptr[v + 1]):
            _gather(p, VC, EC, v, e, dst[e], a)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_gather(chunks, active, VC, EC, params, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero):
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                acc[v] = _gather_vertex(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, zero[0])


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_gather_array(chunks, active, VC, EC, params, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero):
    """``k_gather`` for an array ``gather_type``: ``_gather`` adds into the row ``acc[v]`` in place."""
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        z = zero[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                _gather_vertex_array(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc[v], z)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_gather_slots(
    chunks, active, VC, EC, params, out_indptr, dst, in_indptr, in_src, in_eid, slot_ptr, slots
):
    """A ``Slots`` gather: vertex ``v``'s gather values, in edge order, into
    ``slots[slot_ptr[v]:slot_ptr[v+1]]`` (its own scratch: no sum)."""
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                pos = slot_ptr[v]
                if GATHER_IN:
                    for k in range(in_indptr[v], in_indptr[v + 1]):
                        slots[pos] = _gather(p, VC, EC, v, in_eid[k], in_src[k])
                        pos += 1
                if GATHER_OUT:
                    for e in range(out_indptr[v], out_indptr[v + 1]):
                        slots[pos] = _gather(p, VC, EC, v, e, dst[e])
                        pos += 1


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_apply_slots(chunks, active, VC, EC, params, slot_ptr, slots, ctx):
    """``apply`` with each vertex's slots (a view) as its total."""
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        cx = ctx[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                _apply(p, VC, EC, v, slots[slot_ptr[v] : slot_ptr[v + 1]], cx)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_combine(rows, acc, incoming, VC, EC, params):
    """Fold partial totals from another partition into ``acc`` with the program's ``sum``:
    ``acc[rows[i]] = sum(acc[rows[i]], incoming[i])`` (``rows`` holds no repeats)."""
    for i in prange(rows.shape[0]):
        p = params[0]
        r = rows[i]
        if GATHER_ARRAY:
            _sum(p, VC, EC, acc[r], incoming[i])
        else:
            acc[r] = _sum(p, VC, EC, acc[r], incoming[i])


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_apply(chunks, active, VC, EC, params, acc, ctx):
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        cx = ctx[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                _apply(p, VC, EC, v, acc[v], cx)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_scatter(chunks, active, VC, EC, params, out_indptr, dst, in_indptr, in_src, in_eid, signal):
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                if SCATTER_OUT:
                    for e in range(out_indptr[v], out_indptr[v + 1]):
                        u = dst[e]
                        if _scatter(p, VC, EC, v, e, u) > 0:
                            signal[u] = 1
                if SCATTER_IN:
                    for k in range(in_indptr[v], in_indptr[v + 1]):
                        u = in_src[k]
                        if _scatter(p, VC, EC, v, in_eid[k], u) > 0:
                            signal[u] = 1


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_scatter_prio(chunks, active, VC, EC, params, out_indptr, dst, in_indptr, in_src, in_eid, signal, prio):
    """``k_scatter`` that also keeps each signal's priority (the largest per vertex, as
    ``_signal`` does): the asynchronous priority scheduler across processes."""
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                _async_scatter(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, signal, prio)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_aggregate(chunks, VC, EC, params, out):
    for c in prange(chunks.shape[0] - 1):
        p = params[0]
        _agg_reset(out, c)
        for v in range(chunks[c], chunks[c + 1]):
            _agg_add(out, c, _agg_tuple(p, VC, EC, v))


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_gather_seg(bounds, blk_dst, blk_ptr, seg_src, seg_eid, VC, EC, params, acc, zero):
    """All-active IN gather over the segmented layout (see ``gas._segments``); with a
    relabelled layout, ``VC`` holds the neighbour-read columns in the layout's order."""
    nch = bounds.shape[1] - 1
    n = acc.shape[0]
    for c in prange(nch):
        z = zero[0]
        for v in range((n * c) // nch, (n * (c + 1)) // nch):
            acc[v] = z
    for s in range(bounds.shape[0]):
        for c in prange(nch):
            p = params[0]
            z = zero[0]
            for b in range(bounds[s, c], bounds[s, c + 1]):
                v = blk_dst[b]
                # two partial totals (``sum`` is associative and commutative, ``zero`` its
                # identity): two chains of adds in flight instead of one
                a = acc[v]
                a2 = z
                k0 = blk_ptr[b]
                k1 = blk_ptr[b + 1]
                mid = k0 + ((k1 - k0) // 2) * 2
                for k in range(k0, mid, 2):
                    a = _sum(p, VC, EC, a, _gather(p, VC, EC, v, seg_eid[k], seg_src[k]))
                    a2 = _sum(p, VC, EC, a2, _gather(p, VC, EC, v, seg_eid[k + 1], seg_src[k + 1]))
                if mid < k1:
                    a = _sum(p, VC, EC, a, _gather(p, VC, EC, v, seg_eid[mid], seg_src[mid]))
                acc[v] = _sum(p, VC, EC, a, a2)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_apply_aggregate_all(chunks, VC, EC, params, acc, ctx, out, apply):
    """``k_apply`` then ``k_aggregate`` fused, when every vertex is active (one pass, not two):
    ``aggregate(v)`` reads only ``v``, so its value right after ``v``'s apply is final. With
    ``apply`` False, ``k_aggregate`` alone: an engine that runs this kernel compiles it once
    for both, not two parallel kernels (each costs most of a second to compile)."""
    for c in prange(chunks.shape[0] - 1):
        p = params[0]
        cx = ctx[0]
        _agg_reset(out, c)
        for v in range(chunks[c], chunks[c + 1]):
            if apply:
                _apply(p, VC, EC, v, acc[v], cx)
            _agg_add(out, c, _agg_tuple(p, VC, EC, v))


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_priorities(idx, VC, EC, params, out):
    """``out[i] = priority(idx[i])``, the program's own priority of each listed vertex (0 for a
    program without ``priority``)."""
    for i in prange(idx.shape[0]):
        p = params[0]
        out[i] = np.float64(_priority(p, VC, EC, idx[i]))


@njit(cache=True, inline="always")
def _signal(queued, prio, u, r, shared):
    """Schedule ``u`` with priority ``r`` (a bool or a number; > 0 signals): an idempotent byte
    store plus a max. With ``shared`` (other threads may signal ``u`` at once) the max is atomic,
    so the largest priority is kept and the schedule does not depend on how threads interleave;
    a kernel running on one thread passes False and skips the locked instruction."""
    pr = np.float64(r)
    if pr > 0.0:
        queued[u] = 1
        if shared:
            _atomic_max(prio, u, pr)
        elif pr > prio[u]:
            prio[u] = pr


@njit(cache=True, inline="always")
def _async_scatter(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, queued, prio, shared=True):
    if SCATTER_OUT:
        for e in range(out_indptr[v], out_indptr[v + 1]):
            u = dst[e]
            _signal(queued, prio, u, _scatter(p, VC, EC, v, e, u), shared)
    if SCATTER_IN:
        for k in range(in_indptr[v], in_indptr[v + 1]):
            u = in_src[k]
            _signal(queued, prio, u, _scatter(p, VC, EC, v, in_eid[k], u), shared)


@njit(cache=True, inline="always")
def _gather_apply_slots(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, slots, cx):
    """A ``Slots`` program's update of ``v`` on the asynchronous engine: its gather values into
    its own slots (they start at ``in_indptr[v]`` for IN, ``out_indptr[v]`` for OUT, their sum
    for ALL: the running total of gather degrees), then ``apply`` with them."""
    lo = 0
    pos = 0
    if GATHER_IN:
        lo += in_indptr[v]
    if GATHER_OUT:
        lo += out_indptr[v]
    pos = lo
    if GATHER_IN:
        for k in range(in_indptr[v], in_indptr[v + 1]):
            slots[pos] = _gather(p, VC, EC, v, in_eid[k], in_src[k])
            pos += 1
    if GATHER_OUT:
        for e in range(out_indptr[v], out_indptr[v + 1]):
            slots[pos] = _gather(p, VC, EC, v, e, dst[e])
            pos += 1
    _apply(p, VC, EC, v, slots[lo:pos], cx)


@njit(cache=True, inline="always")
def _gather_apply(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx):
    """``v``'s gather and apply on the asynchronous engine, for any ``gather_type``: into its
    slots (``acc``: the slots), into ``acc[v]`` (an array type), or a total kept in ``acc[v]``."""
    if GATHER_SLOTS:
        _gather_apply_slots(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, cx)
    elif GATHER_ARRAY:
        arr = acc[v]
        _gather_vertex_array(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, arr, zero[0])
        _apply(p, VC, EC, v, arr, cx)
    else:
        a = _gather_vertex(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, zero[0])
        acc[v] = a
        _apply(p, VC, EC, v, a, cx)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_gather_apply_steps(
    chunks, active, steps, VC, EC, params, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, ctx
):
    """A synchronous superstep's ``steps`` rounds of gather and apply (``inner_steps``), each
    active vertex's rounds back to back, so that the neighbour rows its gathers read stay in
    cache. The engine calls it only when no active vertex gathers from another one: then no
    gather can see another vertex's apply of the same superstep, and the rounds give what
    ``steps`` separate gather and apply passes give."""
    nch = chunks.shape[0] - 1
    step = _spread(nch)
    for i_ in prange(nch):
        c = (i_ * step) % nch
        p = params[0]
        cx = ctx[0]
        for v in range(chunks[c], chunks[c + 1]):
            if active[v]:
                for _s in range(steps):
                    _gather_apply(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx)


@njit(parallel=True, cache=True, fastmath=FASTMATH)
def k_async(batch, VC, EC, params, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, ctx, queued, prio):
    """One asynchronous step over ``batch``: each vertex gathers (reading its neighbours' current
    data), applies and scatters as one update. The caller makes the batch safe for its
    consistency model (e.g. one colour class); in parallel, ``prange`` runs it in any order.
    A ``Slots`` program passes its slots as ``acc``, an array ``gather_type`` its totals."""
    for i in prange(batch.shape[0]):
        p = params[0]
        cx = ctx[0]
        v = batch[i]
        _gather_apply(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, acc, zero, cx)
        _async_scatter(p, VC, EC, v, out_indptr, dst, in_indptr, in_src, in_eid, queued, prio)
