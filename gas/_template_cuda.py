# ruff: noqa: F821
"""Generic GAS kernels for the CUDA engine, specialised per vertex program by
:mod:`gas._codegen_cuda`.

Like ``_template.py`` this file is not imported as a module: its text follows a generated
header that binds the program's rewritten methods as CUDA device functions (``_gather``,
``_sum``, ``_apply``, ``_scatter``, ``_init``, ``_agg_tuple``, ``_priority``) and the
compile-time constants (``BLOCK`` threads per block, ``WARP``, ``CHUNK`` edges per chunk,
``NUM_AGG``, ``AGG_OPS``, ``GT`` the gather total's scalar type).

Every kernel loops over its work with a grid stride, so a launch may use fewer blocks than
items (:attr:`gas.cuda_tuning.CudaTuning.max_blocks`); the loops that contain a barrier take the
same number of rounds in every thread of a block.

The gather kernels take a list of vertices ``verts`` and a range ``lo:hi`` of it (one bin of the
degree order, or of the frontier compacted in that order, :mod:`gas.cuda_layout`). Only what
the CUDA simulator also runs is used (shared memory, ``syncthreads``, atomics): a warp's or a
block's partial totals are folded through shared memory by lane 0 of each warp and then by
thread 0, two barriers, with the program's own ``sum`` (any commutative, associative ``sum``
works, so the fold cannot be an atomic add). Every thread of a block reaches every barrier.
"""


@cuda.jit(device=True)
def _block_total(p, VC, EC, sh, t):
    """Fold the block's ``sh[0:BLOCK]`` with ``_sum``; the total is valid in thread 0."""
    cuda.syncthreads()
    if t % WARP == 0:
        b = sh[t]
        for j in range(1, WARP):
            b = _sum(p, VC, EC, b, sh[t + j])
        sh[t] = b
    cuda.syncthreads()
    b = sh[0]
    if t == 0:
        for j in range(WARP, BLOCK, WARP):
            b = _sum(p, VC, EC, b, sh[j])
    return b


@cuda.jit(device=True)
def _fold_edges(p, VC, EC, v, k0, k1, step, g_nbr, g_eid, a):
    """Fold the gather edges in slots ``k0, k0 + step, ... < k1`` of ``v`` into ``a``."""
    for k in range(k0, k1, step):
        a = _sum(p, VC, EC, a, _gather(p, VC, EC, v, g_eid[k], g_nbr[k]))
    return a


@cuda.jit
def k_init(n, VC, EC, params, ctx):
    for v in range(cuda.grid(1), n, cuda.gridsize(1)):
        _init(params[0], VC, EC, v, ctx[0])


@cuda.jit
def k_gather_thread(verts, lo, hi, VC, EC, params, g_ptr, g_nbr, g_eid, acc, zero):
    """A thread per vertex (fewer than ``warp_degree`` edges)."""
    p = params[0]
    for i in range(lo + cuda.grid(1), hi, cuda.gridsize(1)):
        v = verts[i]
        acc[v] = _fold_edges(p, VC, EC, v, g_ptr[v], g_ptr[v + 1], 1, g_nbr, g_eid, zero[0])


@cuda.jit
def k_gather_warp(verts, lo, hi, VC, EC, params, g_ptr, g_nbr, g_eid, acc, zero):
    """A warp per vertex: the 32 lanes take every 32nd edge, lane 0 folds their totals. Each
    block takes ``BLOCK // WARP`` vertices at a time (the same count of rounds for all its
    threads, so all of them reach every barrier)."""
    sh = cuda.shared.array(BLOCK, GT)
    t = cuda.threadIdx.x
    lane = t % WARP
    wpb = BLOCK // WARP
    p = params[0]
    for r in range(lo + cuda.blockIdx.x * wpb, hi, cuda.gridDim.x * wpb):
        i = r + t // WARP
        a = zero[0]
        v = 0
        if i < hi:
            v = verts[i]
            a = _fold_edges(p, VC, EC, v, g_ptr[v] + lane, g_ptr[v + 1], WARP, g_nbr, g_eid, a)
        sh[t] = a
        cuda.syncthreads()
        if lane == 0 and i < hi:
            for j in range(1, WARP):
                a = _sum(p, VC, EC, a, sh[t + j])
            acc[v] = a
        cuda.syncthreads()


@cuda.jit
def k_gather_block(verts, lo, hi, VC, EC, params, g_ptr, g_nbr, g_eid, acc, zero):
    """A block per vertex."""
    sh = cuda.shared.array(BLOCK, GT)
    t = cuda.threadIdx.x
    p = params[0]
    for i in range(lo + cuda.blockIdx.x, hi, cuda.gridDim.x):
        v = verts[i]
        sh[t] = _fold_edges(p, VC, EC, v, g_ptr[v] + t, g_ptr[v + 1], BLOCK, g_nbr, g_eid, zero[0])
        total = _block_total(p, VC, EC, sh, t)
        if t == 0:
            acc[v] = total
        cuda.syncthreads()


@cuda.jit
def k_gather_lb(verts, lo, cptr, nh, VC, EC, params, g_ptr, g_nbr, g_eid, partial, zero):
    """A block per chunk of ``CHUNK`` edges of a hub: chunk ``b`` belongs to hub
    ``locate(cptr, nh, b)``; its total goes to ``partial[b]``."""
    sh = cuda.shared.array(BLOCK, GT)
    t = cuda.threadIdx.x
    p = params[0]
    for b in range(cuda.blockIdx.x, cptr[nh], cuda.gridDim.x):
        h = _locate(cptr, nh, b)
        v = verts[lo + h]
        k0 = g_ptr[v] + (b - cptr[h]) * CHUNK
        k1 = min(k0 + CHUNK, g_ptr[v + 1])
        sh[t] = _fold_edges(p, VC, EC, v, k0 + t, k1, BLOCK, g_nbr, g_eid, zero[0])
        total = _block_total(p, VC, EC, sh, t)
        if t == 0:
            partial[b] = total
        cuda.syncthreads()


@cuda.jit
def k_fold_lb(verts, lo, cptr, nh, VC, EC, params, partial, acc, zero):
    """A block per hub folds its chunks' totals ``partial[cptr[h]:cptr[h+1]]`` into ``acc``."""
    sh = cuda.shared.array(BLOCK, GT)
    t = cuda.threadIdx.x
    p = params[0]
    for h in range(cuda.blockIdx.x, nh, cuda.gridDim.x):
        a = zero[0]
        for q in range(cptr[h] + t, cptr[h + 1], BLOCK):
            a = _sum(p, VC, EC, a, partial[q])
        sh[t] = a
        total = _block_total(p, VC, EC, sh, t)
        if t == 0:
            acc[verts[lo + h]] = total
        cuda.syncthreads()


@cuda.jit
def k_combine(rows, count, acc, incoming, VC, EC, params):
    """Fold partial totals from other partitions: ``acc[rows[i]] = sum(acc[rows[i]], incoming[i])``
    (``rows`` holds no repeats)."""
    p = params[0]
    for i in range(cuda.grid(1), count, cuda.gridsize(1)):
        r = rows[i]
        acc[r] = _sum(p, VC, EC, acc[r], incoming[i])


@cuda.jit
def k_gather_empty(verts, lo, hi, acc, zero):
    """The hypersparse tail: vertices with no gather edge get the zero."""
    for i in range(lo + cuda.grid(1), hi, cuda.gridsize(1)):
        acc[verts[i]] = zero[0]


@cuda.jit
def k_apply(verts, use_verts, count, VC, EC, params, acc, ctx):
    """``apply`` on ``verts[:count]`` (every ``v < count`` without ``use_verts``)."""
    p = params[0]
    for i in range(cuda.grid(1), count, cuda.gridsize(1)):
        v = verts[i] if use_verts else i
        _apply(p, VC, EC, v, acc[v], ctx[0])


@cuda.jit
def k_scatter(verts, use_verts, offs, count, total, VC, EC, params, s_ptr, s_nbr, s_eid, signal):
    """Edge-balanced scatter (Gunrock's LB advance): thread ``t`` of ``total`` takes the
    ``t``-th edge of the frontier ``verts[:count]``, whose vertex is found by a search over the
    prefix sum ``offs`` of the frontier's scatter degrees (``s_ptr`` itself for every vertex)."""
    p = params[0]
    for t in range(cuda.grid(1), total, cuda.gridsize(1)):
        i = _locate(offs, count, t)
        v = verts[i] if use_verts else i
        k = s_ptr[v] + (t - offs[i])
        u = s_nbr[k]
        r = _scatter(p, VC, EC, v, s_eid[k], u)
        if r > 0:
            signal[u] = 1


@cuda.jit
def k_own_priority(n, VC, EC, params, signal):
    """Schedule every vertex whose own ``priority(v)`` is > 0."""
    p = params[0]
    for v in range(cuda.grid(1), n, cuda.gridsize(1)):
        if _priority(p, VC, EC, v) > 0.0:
            signal[v] = 1


@cuda.jit
def k_aggregate(verts, use_verts, count, VC, EC, params, out):
    """The aggregates over ``verts[:count]`` (every ``v < count`` without ``use_verts``): each
    thread folds its vertices, thread 0 the block's rows, then one atomic per aggregate."""
    sh = cuda.shared.array((BLOCK, AGG_SLOTS), nb_f8)
    t = cuda.threadIdx.x
    p = params[0]
    for j in range(NUM_AGG):
        sh[t, j] = _agg_identity(j)
    for i in range(cuda.grid(1), count, cuda.gridsize(1)):
        v = verts[i] if use_verts else i
        _agg_fold_row(sh, t, _agg_tuple(p, VC, EC, v))
    cuda.syncthreads()
    if t == 0:
        for r in range(1, BLOCK):
            for j in range(NUM_AGG):
                sh[0, j] = _agg_op(j, sh[0, j], sh[r, j])
        for j in range(NUM_AGG):
            op = AGG_OPS[j]
            if op == 0:
                cuda.atomic.add(out, j, sh[0, j])
            elif op == 1:
                cuda.atomic.max(out, j, sh[0, j])
            else:
                cuda.atomic.min(out, j, sh[0, j])


@cuda.jit(device=True)
def _agg_identity(j):
    op = AGG_OPS[j]
    return 0.0 if op == 0 else (-math.inf if op == 1 else math.inf)


@cuda.jit(device=True)
def _agg_op(j, a, b):
    op = AGG_OPS[j]
    if op == 0:
        return a + b
    if op == 1:
        return max(a, b)
    return min(a, b)


@cuda.jit(device=True)
def _agg_fold_row(sh, t, vals):
    for j in range(NUM_AGG):
        sh[t, j] = _agg_op(j, sh[t, j], vals[j])
